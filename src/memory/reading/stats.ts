/**
 * The panel's counters (and memory_stats' fuller account, storeStats), over memories as a person counts them: raw text belongs to its episode
 * and is not counted on its own. Read-only; brings the index up to date with the files first so
 * a hand edit shows at once.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { requireStore } from '../../store/existing.js'
import { ensureFresh } from '../../store/freshness.js'
import { isSearchable } from '../../retrieve/search-index.js'
import { isTopic } from '../forgetting/purge-deleted.js'
import { MEMORY_FOLDERS } from '../../store/layout.js'
import { MEMORY_STATUSES, MEMORY_TYPES, type MemoryStatus, type MemoryType } from '../../types.js'

export interface MemoryStats {
  /** Every memory, whatever its status. */
  total: number
  /** What search and injection can return: active and conflict. */
  searchable: number
  /** Waiting for confirmation. */
  suggested: number
  /** Waiting for a keep or drop. */
  conflict: number
  /** Soft-deleted (deleted_pending): files still on disk until purged. */
  pendingCleanup: number
  /** Shared topics whose every source was forgotten. */
  orphaned: number
  /** The topics among pendingCleanup: purged only with includeTopics. */
  pendingTopics: number
  /** Set aside by decay: out of search and injection until restored (src/memory/forgetting/decay.ts). */
  archived: number
}

export async function memoryStats(backend: MemoryBackend): Promise<MemoryStats> {
  await requireStore(backend)
  await ensureFresh(backend)
  const stats: MemoryStats = { total: 0, searchable: 0, suggested: 0, conflict: 0, pendingCleanup: 0, orphaned: 0, pendingTopics: 0, archived: 0 }
  for (const e of (await backend.indexView()).values()) {
    if (e.type === 'raw') continue
    stats.total++
    if (isSearchable(e)) stats.searchable++
    if (e.status === 'suggested') stats.suggested++
    else if (e.status === 'conflict') stats.conflict++
    else if (e.status === 'orphaned') stats.orphaned++
    else if (e.status === 'archived') stats.archived++
    else if (e.status === 'deleted_pending') {
      stats.pendingCleanup++
      if (isTopic(e)) stats.pendingTopics++
    }
  }
  return stats
}

/** The bytes the store takes on disk: its memory files, the index and the ledger. */
export interface StoreSize {
  files: number
  bytes: number
  indexBytes: number
  ledgerBytes: number
}

/** Whether the index was up to date when asked (`fresh`) or had to take in files changed by hand (`refreshed`). */
export interface IndexState {
  entries: number
  state: 'fresh' | 'refreshed'
  /** Memory files changed outside the program that this call took in. */
  changed: number
  /** Index lines skipped because they did not parse. */
  skippedLines: number
}

/** memory_stats: the counters above, by status and kind, the store's size, its last write and its index's state. */
export interface StoreStats extends MemoryStats {
  byStatus: Record<MemoryStatus, number>
  byKind: Record<MemoryType, number>
  size: StoreSize
  /** When the latest write happened (the ledger's time), null when none is recorded. */
  lastWrite: string | null
  index: IndexState
}

async function sizeOf(backend: MemoryBackend, paths: Iterable<string>): Promise<StoreSize> {
  let files = 0
  let bytes = 0
  const count = (size: number) => {
    files++
    bytes += size
  }
  if (backend.forEachFileStat !== undefined) {
    for (const { folder } of MEMORY_FOLDERS) await backend.forEachFileStat(folder, (p, _mtime, size) => p.endsWith('.md') && count(size))
  } else {
    for (const p of paths) {
      const st = await backend.stat(p)
      if (st !== null) count(st.size)
    }
  }
  const [index, ledger] = await Promise.all([backend.stat('index.jsonl'), backend.stat('ledger.jsonl')])
  return { files, bytes, indexBytes: index?.size ?? 0, ledgerBytes: ledger?.size ?? 0 }
}

export async function storeStats(backend: MemoryBackend): Promise<StoreStats> {
  await requireStore(backend)
  const changes = await ensureFresh(backend)
  const counts = await memoryStats(backend)
  const view = await backend.indexView()
  const byStatus = Object.fromEntries(MEMORY_STATUSES.map((s) => [s, 0])) as Record<MemoryStatus, number>
  const byKind = Object.fromEntries(MEMORY_TYPES.map((t) => [t, 0])) as Record<MemoryType, number>
  const paths: string[] = []
  let entries = 0
  for (const e of view.values()) {
    entries++
    paths.push(e.path)
    byKind[e.type]++
    if (e.type !== 'raw') byStatus[e.status]++
  }
  let lastWrite: string | null = null
  for (const ev of await backend.readLedger()) if (ev.event === 'write' && (lastWrite === null || ev.at > lastWrite)) lastWrite = ev.at
  const index: IndexState = { entries, state: changes.length > 0 ? 'refreshed' : 'fresh', changed: changes.length, skippedLines: backend.lastIndexSkipped }
  return { ...counts, byStatus, byKind, size: await sizeOf(backend, paths), lastWrite, index }
}
