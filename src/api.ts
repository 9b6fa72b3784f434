/**
 * The library API (`dsh-memory-agent/api`): the backend factory, index rebuild, every handler by
 * name and the tool declarations. Importing it starts nothing and reads no environment.
 */

export { createFileBackend, type FileBackendOptions } from './store/file-backend.js'
export type { MemoryBackend, FileStat, AnchorProbes, SyncReads } from './store/backend.js'
export { rebuildIndex, type RebuildResult } from './store/rebuild.js'
export { navHandler, memoryNavTool } from './tools/memory-nav.js'
export { searchHandler, memorySearchHybridTool } from './tools/memory-search-hybrid.js'
export { assembleHandler, memoryAssembleTool } from './tools/memory-assemble.js'
export { writeHandler, writeMemoryTool } from './tools/write-memory.js'
export { confirmHandler, memoryConfirmTool } from './tools/memory-confirm.js'
export { resolveHandler, memoryResolveTool } from './tools/memory-resolve.js'
export { forgetHandler, forgetMemoriesBySessionTool } from './tools/forget-memories-by-session.js'
export { sweepHandler, memorySweepTool } from './tools/memory-sweep.js'
export { digestHandler, memoryDigestTool } from './tools/memory-digest.js'
export { TOOLS, findTool } from './tools/index.js'
export type { ToolDeclaration, ToolAnnotations } from './tools/tool.js'
export { outputViolation, type Schema, type Infer } from './tools/schema.js'
export { MemoryError, ERROR_CODES, type ErrorCode } from './errors.js'
export { redactSecrets } from './memory/redact.js'
export { signalsSettled } from './memory/signals.js'
export { injectionText, neutralizeTemplates, type InjectionOptions, type InjectionResult } from './memory/inject.js'
export { flushCaches } from './retrieve/retriever.js'
export { tokenize, TOKENIZER_VERSION } from './retrieve/tokenizer.js'
export { DEFAULT_CONFIG, type RuntimeConfig } from './memory/config.js'
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
export { softDelete, restore, type StatusMove } from './memory/soft-delete.js'
export { purgeDeleted, type PurgeOptions, type PurgeResult } from './memory/purge.js'
export { exportBundle, DEFAULT_BUNDLE_BYTES, type Bundle, type BundleFile, type ExportOptions } from './memory/export.js'
export { memoryStats, type MemoryStats } from './memory/stats.js'
export { listSessions, type SessionSummary } from './memory/sessions.js'
export { saveConfigPatch, configPatch, type ConfigWrite } from './memory/config-file.js'
