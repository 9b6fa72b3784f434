/**
 * The library API (`dsh-memory-agent/api`): the backend factory, index rebuild, every handler by
 * name and the tool declarations. Importing it starts nothing and reads no environment.
 */

export { createFileBackend, type FileBackendOptions } from './store/file-backend.js'
export { localProbes } from './store/local-probes.js'
export type { MemoryBackend, FileStat, AnchorProbes, SyncReads } from './store/backend.js'
export { rebuildIndex, type RebuildResult, type RebuildOptions } from './store/rebuild.js'
export { navHandler, memoryNavTool } from './tools/memory-nav.js'
export { searchHandler, memorySearchHybridTool } from './tools/memory-search-hybrid.js'
export { assembleHandler, memoryAssembleTool } from './tools/memory-assemble.js'
export { writeHandler, writeMemoryTool } from './tools/write-memory.js'
export { confirmHandler, memoryConfirmTool } from './tools/memory-confirm.js'
export { resolveHandler, memoryResolveTool } from './tools/memory-resolve.js'
export { forgetHandler, forgetMemoriesBySessionTool } from './tools/forget-memories-by-session.js'
export { sweepHandler, memorySweepTool } from './tools/memory-sweep.js'
export { digestHandler, memoryDigestTool } from './tools/memory-digest.js'
export { verifyHandler, memoryVerifyTool } from './tools/memory-verify.js'
export { answerHandler, memoryAnswerTool } from './tools/memory-answer.js'
export { statsHandler, memoryStatsTool } from './tools/memory-stats.js'
export { historyHandler, memoryHistoryTool } from './tools/memory-history.js'
export { lineageHandler, memoryLineageTool } from './tools/memory-lineage.js'
export { forgetValueHandler, memoryForgetTool } from './tools/memory-forget.js'
export { purgeHandler, memoryPurgeTool } from './tools/memory-purge.js'
export { duplicatesHandler, memoryDuplicatesTool } from './tools/memory-duplicates.js'
export { mergeHandler, memoryMergeTool } from './tools/memory-merge.js'
export { undemoteHandler, memoryUndemoteTool } from './tools/memory-undemote.js'
export { timelineHandler, memoryTimelineTool } from './tools/memory-timeline.js'
export { neighborsHandler, memoryNeighborsTool } from './tools/memory-neighbors.js'
export { roomsHandler, memoryRoomsTool } from './tools/memory-rooms.js'
export { workspacesHandler, memoryWorkspacesTool } from './tools/memory-workspaces.js'
export { decayHandler, memoryDecayTool } from './tools/memory-decay.js'
export { consolidateHandler, memoryConsolidateTool } from './tools/memory-consolidate.js'
export { consolidate, type ConsolidateOptions, type ConsolidationReport } from './memory/consolidation/consolidate.js'
export { consolidationDue, type ConsolidationDue } from './memory/consolidation/triggers.js'
export { setConsolidationModel, type ConsolidationModel, type Degraded, type ModelAnswer, type ModelUse } from './memory/consolidation/model.js'
export { chatCompletionsModel, type ChatEndpoint } from './lifecycle/chat-model.js'
export { EXCHANGE_TAG } from './memory/consolidation/fold.js'
export { restoreHandler, memoryRestoreTool } from './tools/memory-restore.js'
export { auditForgottenHandler, memoryAuditForgottenTool } from './tools/memory-audit-forgotten.js'
export { sanitizeText, guardValue, INJECTION_KINDS, type InjectionKind, type InjectionWarning } from './memory/truth/injection-guard.js'
export { identifiersOf } from './retrieve/identifiers.js'
export { asOfView, retrievalAsOf, viewAsOf, parseAsOf, StatusReplay } from './memory/time/as-of.js'
export { TOOLS, findTool } from './tools/index.js'
export { routeTool, routeTools, type StoreSet, type PersonalStore, type StoreName, type StoreSelector } from './stores/route.js'
export { kindsOf, storeForKinds, KIND_TAGS, type MemoryKind } from './stores/kind.js'
export { projectIdentity, normaliseRemote, type ProjectIdentity } from './stores/project-id.js'
export { resolveProjectStore, knownProjectsIn, noteWorkspace, type ProjectStore } from './stores/project-store.js'
export type { ToolDeclaration, ToolAnnotations, ToolGroup } from './tools/declare/tool.js'
export { TOOL_GROUPS } from './tools/declare/tool.js'
export { outputViolation, type Schema, type Infer } from './tools/declare/schema.js'
export { MemoryError, ERROR_CODES, type ErrorCode } from './errors.js'
export { redactSecrets } from './redact.js'
export { signalsSettled } from './memory/organisation/signals.js'
export { injectionText, injectionTokens, neutralizeTemplates, type InjectionOptions, type InjectionResult } from './memory/reading/inject.js'
export { aliasTerms, flushCaches } from './retrieve/retriever.js'
export { vouchedByWatcherLastTime } from './store/freshness.js'
export { watchStore } from './store/watcher.js'
export { setEmbedder, embedderOf, embeddingText, type Embedder } from './retrieve/embedder.js'
export { openAiEmbedder, openAiOptionsFrom, OPENAI_DEFAULTS, type OpenAiEmbedderOptions } from './retrieve/openai-embedder.js'
export { embedPending, vectorDiagnostics, type EmbedOptions, type EmbedReport, type VectorDiagnostics } from './retrieve/vectors.js'
export { FUSION, reciprocalRankFusion } from './retrieve/fusion.js'
export { VectorIndex } from './retrieve/vector-index.js'
export { embedHandler, memoryEmbedTool } from './tools/memory-embed.js'
export { tokenize, TOKENIZER_VERSION } from './language/tokenizer.js'
export { nearSubjectTerms, sameSubjectTerms, SUBJECT_TERM_GROUPS, subjectTerms } from './language/subject-terms.js'
export { DEFAULT_CONFIG, type RuntimeConfig } from './memory/settings/config.js'
export {
  estimateTokens,
  charsForBudget,
  CHARS_PER_TOKEN,
  SCHEMA_VERSION,
  MEMORY_STATUSES,
  MEMORY_TYPES,
  type IndexEntry,
  type LedgerEvent,
  type MemoryStatus,
  type MemoryType,
  type Source,
} from './types.js'
export {
  INJECTION_HEADING,
  SIGNAL_CLASSES,
  AUTO_SETTLE_TAG,
  isUserTyped,
  messageText,
  userTypedMessages,
  extractCandidates,
  judgeMessage,
  type HostMessage,
  type HostContentBlock,
  type HostMessageSource,
  type Candidate,
  type SignalClass,
  type DropReason,
} from './lifecycle/auto-settle.js'
export {
  settleCandidates,
  shouldRun,
  SettledMessages,
  AUTO_SETTLE_DEFAULTS,
  type AutoSettleOptions,
  type SettleRequest,
  type SettleResult,
} from './lifecycle/auto-settle-writer.js'
export {
  backfillHistory,
  BACKFILL_DEFAULTS,
  BACKFILL_TURN_EVENT,
  type BackfillOptions,
  type BackfillProgress,
  type BackfillReport,
} from './lifecycle/backfill.js'
export { isUnderReview } from './store/review-fields.js'
export type { ReviewState } from './types.js'
export { softDelete, restore, type StatusMove } from './memory/forgetting/soft-delete.js'
export { purgeDeleted, type PurgeOptions, type PurgeResult } from './memory/forgetting/purge-deleted.js'
export { exportBundle, DEFAULT_BUNDLE_BYTES, type Bundle, type BundleFile, type ExportOptions } from './memory/transfer/export.js'
export {
  importMemories,
  importBundle,
  detectImportFormat,
  parseMcpJsonl,
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportItem,
  type ImportOptions,
  type ImportResult,
} from './memory/transfer/import.js'
export { memoryStats, type MemoryStats } from './memory/reading/stats.js'
export { listSessions, type SessionSummary } from './memory/reading/sessions.js'
export { saveConfigPatch, configPatch, type ConfigWrite } from './memory/settings/config-file.js'
export { syncStore, type SyncOptions, type SyncResult, type SyncProgress, type SyncStep } from './sync/sync.js'
export { describeSync } from './sync/describe.js'
export type { SyncConflict, KeptFile } from './sync/conflicts.js'
export { deriveClaim, deriveClaims, changeCues, type DerivedClaim, type ClaimForm } from './memory/truth/claim-extract.js'
export { valueAtoms, compareValues, type ValueAtoms } from './memory/truth/claim-value.js'
