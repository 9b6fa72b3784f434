/**
 * The panel's counters, over memories as a person counts them: raw text belongs to its episode
 * and is not counted on its own. Read-only; brings the index up to date with the files first so
 * a hand edit shows at once.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { requireStore } from '../../store/existing.js'
import { ensureFresh } from '../../store/freshness.js'
import { isSearchable } from '../../retrieve/search-index.js'
import { isTopic } from '../forgetting/purge-deleted.js'

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
