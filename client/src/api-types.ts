/**
 * The panel API's ops as the browser sees them: each op's arguments and result. The result types
 * come from the server's own declarations (the compiled `lib/`, type-only, erased from the
 * bundle), so a change of a result shape there breaks this build instead of the page.
 */

import type { BackfillReport } from '../../lib/lifecycle/backfill.js'
import type { ConfirmResult } from '../../lib/memory/writing/confirm.js'
import type { ConsolidationReport } from '../../lib/memory/consolidation/consolidate.js'
import type { RuntimeConfig } from '../../lib/memory/settings/config.js'
import type { RestoreResult } from '../../lib/memory/forgetting/decay.js'
import type { Bundle } from '../../lib/memory/transfer/export.js'
import type { ForgetResult } from '../../lib/memory/forgetting/forget-session.js'
import type { InjectionResult } from '../../lib/memory/reading/inject.js'
import type { RoomsListing } from '../../lib/memory/reading/walk.js'
import type { ListResult, ListedMemory } from '../../lib/memory/reading/listing.js'
import type { PurgeResult } from '../../lib/memory/forgetting/purge-deleted.js'
import type { ResolveResult } from '../../lib/memory/writing/resolve.js'
import type { SessionSummary } from '../../lib/memory/reading/sessions.js'
import type { QueryLogLine } from '../../lib/memory/organisation/signals.js'
import type { StatusMove } from '../../lib/memory/forgetting/soft-delete.js'
import type { MemoryStats } from '../../lib/memory/reading/stats.js'
import type { VectorDiagnostics } from '../../lib/retrieve/vectors.js'
import type { WriteResult } from '../../lib/memory/writing/write.js'
import type { SearchHit, SearchResult } from '../../lib/retrieve/search.js'
import type { RebuildResult } from '../../lib/store/rebuild.js'
import type { SyncResult } from '../../lib/sync/sync.js'
import type { IndexEntry, MemoryStatus } from '../../lib/types.js'
import type { Health, HealthPartName, LedgerView, PanelScope, StoreStatus, StoredMemory } from '../../lib/host/panel-stores.js'
import type { StoreName } from '../../lib/stores/kind.js'
import type { ListCounts } from '../../lib/memory/reading/listing.js'
import type { memoryForgetTool } from '../../lib/tools/memory-forget.js'
import type { memoryHistoryTool } from '../../lib/tools/memory-history.js'
import type { memoryReportTool } from '../../lib/tools/memory-report.js'
import type { memoryReviewQueueTool } from '../../lib/tools/memory-review-queue.js'
import type { memoryReviewTool } from '../../lib/tools/memory-review.js'
import type { writeMemoryTool } from '../../lib/tools/write-memory.js'

export type { Bundle, Health, HealthPartName, IndexEntry, LedgerView, ListCounts, ListedMemory, MemoryStats, MemoryStatus, PanelScope, RoomsListing, RuntimeConfig, SearchHit, SessionSummary, StoreName, StoredMemory }

/** A registry tool as the panel calls it through the `tool` op: its own input and output, each with the routing's `store`. */
interface ToolIO<T extends { handler(backend: never, input: never): Promise<unknown> }> {
  input: Parameters<T['handler']>[1] & { store?: PanelScope }
  output: Awaited<ReturnType<T['handler']>> & { store?: PanelScope }
}

/** The registry tools the panel calls by name (the server takes any; these are the ones it uses). */
export interface Tools {
  write_memory: ToolIO<typeof writeMemoryTool>
  memory_history: ToolIO<typeof memoryHistoryTool>
  memory_review_queue: ToolIO<typeof memoryReviewQueueTool>
  memory_review: ToolIO<typeof memoryReviewTool>
  memory_report: ToolIO<typeof memoryReportTool>
  memory_forget: ToolIO<typeof memoryForgetTool>
}
export type ToolName = keyof Tools

export interface Detail {
  entry: IndexEntry
  text: string
  raw: string | null
  variants: Array<{ id: string; title: string; summary: string; status: MemoryStatus; time: string }>
  usage: { hits: number; last_used_at: string | null }
  /** Fields whose text tries to instruct an AI: sanitised in entry and variants, shown as stored in text and raw. */
  injectionWarnings?: Array<{ id: string | null; field: string; kinds: string[] }>
}

/** Every op: what it takes and what it answers. */
export interface Ops {
  /** `embeddings` only when the store has an embedder. */
  /** `stores.user` only when a personal store is served beside the project store. */
  status: {
    args: Record<string, never>
    result: { root: string; stats: MemoryStats; config: RuntimeConfig; embeddings?: VectorDiagnostics; backfill: boolean; stores: { project: StoreStatus; user?: StoreStatus } }
  }
  'config.set': { args: Partial<RuntimeConfig>; result: { written: Partial<RuntimeConfig>; config: RuntimeConfig; replaced_invalid_file?: boolean } }
  rebuild: { args: Record<string, never>; result: RebuildResult }
  confirm: { args: { id: string; store?: StoreName }; result: ConfirmResult }
  resolve: { args: { id: string; action: 'keep' | 'drop'; store?: StoreName }; result: ResolveResult }
  softDelete: { args: { id: string; store?: StoreName }; result: StatusMove }
  restore: { args: { id: string; store?: StoreName }; result: StatusMove }
  purgeDeleted: { args: { includeTopics?: boolean }; result: PurgeResult }
  search: { args: { query: string; tags?: string[]; top_k?: number; store?: PanelScope }; result: SearchResult & { hits: Array<SearchHit & { store?: StoreName }> } }
  detail: { args: { id: string; store?: StoreName }; result: Detail }
  rooms: { args: { room?: string; store?: StoreName }; result: RoomsListing }
  restoreArchived: { args: { ids: string[]; store?: StoreName }; result: RestoreResult }
  list: { args: { status?: MemoryStatus; limit?: number; offset?: number; store?: PanelScope }; result: ListResult & { entries: StoredMemory[] } }
  create: { args: { summary: string; title?: string; tags?: string[]; store?: StoreName }; result: WriteResult & { store?: StoreName } }
  forgetSession: { args: { session_id: string; scope?: 'session_only' | 'include_shared_unlink' }; result: ForgetResult }
  listSessions: { args: Record<string, never>; result: { sessions: SessionSummary[] } }
  export: { args: { maxBytes?: number }; result: Bundle }
  injectPreview: { args: { enabled?: boolean; budgetChars?: number }; result: InjectionResult }
  queryLog: { args: Record<string, never>; result: { queries: QueryLogLine[] } }
  sync: { args: Record<string, never>; result: SyncResult }
  backfill: { args: { dryRun?: boolean; maxTurns?: number }; result: BackfillReport }
  consolidate: { args: { dryRun?: boolean }; result: ConsolidationReport }
  /** Any registry tool by name; the panel types the ones it calls through `Tools`. */
  tool: { args: { name: ToolName; input: Record<string, unknown> }; result: unknown }
  ledger: { args: { store?: PanelScope; event?: string; limit?: number }; result: LedgerView }
  health: { args: { store?: PanelScope }; result: Health & { stores: StoreName[] } }
}

export type OpName = keyof Ops

/** The transport: one op, its arguments, its result (or a thrown ApiError). */
export type Call = <K extends OpName>(op: K, args?: Ops[K]['args']) => Promise<Ops[K]['result']>
