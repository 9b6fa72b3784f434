/**
 * Purging what was soft-deleted: deleted_pending episodes and raw text are removed from disk with
 * their index entries. Topics are shared knowledge, so a deleted_pending topic is skipped and
 * counted unless the caller asks for topics explicitly (the panel's two-step "purge topics").
 * Raw text follows its episode: it goes with the episode (whatever its own status), and on its own
 * only when it has no episode left. Nothing that is not deleted_pending is ever removed.
 */

import type { MemoryBackend } from '../../store/backend.js'
import type { IndexEntry } from '../../types.js'
import { rawSibling } from '../writing/slots.js'
import { transact } from '../writing/txn.js'

export interface PurgeOptions {
  /** Also remove deleted_pending topics (default false: they are skipped and counted). */
  includeTopics?: boolean
}

export interface PurgeResult {
  removed_episode_count: number
  removed_raw_count: number
  removed_topic_count: number
  /** deleted_pending topics left in place because includeTopics was not set. */
  skipped_topics: number
  removed_paths: string[]
}

/** A topic by type or by folder: what a purge leaves alone unless topics are asked for. */
export function isTopic(entry: Pick<IndexEntry, 'type' | 'path'>): boolean {
  return entry.type === 'topic' || entry.path.startsWith('topics/')
}

export function purgeDeleted(backend: MemoryBackend, options: PurgeOptions = {}): Promise<PurgeResult> {
  const includeTopics = options.includeTopics === true
  return transact(backend, async (txn) => {
    const result: PurgeResult = { removed_episode_count: 0, removed_raw_count: 0, removed_topic_count: 0, skipped_topics: 0, removed_paths: [] }
    const ids: string[] = []
    const removeOne = async (entry: IndexEntry): Promise<void> => {
      // A file a person already deleted only loses its entry; it is not counted as removed.
      if (!(await txn.remove(entry))) return
      if (entry.type === 'raw') result.removed_raw_count++
      else if (isTopic(entry)) result.removed_topic_count++
      else result.removed_episode_count++
      result.removed_paths.push(entry.path)
      ids.push(entry.id)
    }
    const pending = [...txn.index.values()].filter((e) => e.status === 'deleted_pending').sort((a, b) => a.path.localeCompare(b.path))
    for (const entry of pending) {
      if (txn.index.get(entry.id) === undefined) continue // went with its episode
      if (entry.type === 'raw') {
        if (entry.episode === null || txn.index.get(entry.episode) === undefined) await removeOne(entry)
        continue
      }
      if (isTopic(entry) && !includeTopics) {
        result.skipped_topics++
        continue
      }
      const raw = rawSibling(txn, entry)
      await removeOne(entry)
      if (raw !== undefined) await removeOne(raw)
    }
    if (ids.length > 0) {
      const { removed_paths: _paths, ...counts } = result
      txn.log({ event: 'purge', ...counts, include_topics: includeTopics, ids, source: 'user' })
    }
    return result
  })
}
