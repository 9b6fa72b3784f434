/**
 * Forgetting a session, decided by the `sources` array alone. Episodes and raw text of the
 * session become deleted_pending (soft, remembering their status as `deleted_from` so that
 * `restore` can undo it) or are removed from disk (hard). Shared topics are never deleted: with
 * `include_shared_unlink` the session is removed from their sources, and a topic left with none
 * becomes orphaned. A topic made from episodes (promoted, folded) follows its lineage: while some
 * of the memories it was derived from are left unforgotten it is made again from those, a new
 * version (`rebuilt_derived`, rebuild-derived.ts); once none is, it is forgotten as they were
 * (`forgotten_derived_count`); a session's summary is one of its episodes already. Counts report only what this call changed, so a repeated
 * call reports zero.
 */

import type { MemoryBackend } from '../../store/backend.js'
import type { IndexEntry, MemoryStatus } from '../../types.js'
import { rawSibling } from '../writing/slots.js'
import { transact } from '../writing/txn.js'
import { cleanSources, droppedSources, rebuildDerived, type RebuiltDerived } from './rebuild-derived.js'

export type ForgetScope = 'session_only' | 'include_shared_unlink'
export type ForgetMode = 'soft' | 'hard'

export interface StatusChange {
  id: string
  from: MemoryStatus
  to: MemoryStatus | 'removed'
}

export interface ForgetResult {
  session_id: string
  scope: ForgetScope
  mode: ForgetMode
  deleted_episode_count: number
  deleted_raw_count: number
  unlinked_topic_count: number
  orphaned_topic_count: number
  /** Derived topics forgotten with the last of the memories they were made from. */
  forgotten_derived_count: number
  /** Derived topics that lost some of what they were made from: each made again from the rest, as a new version (rebuild-derived.ts). Only when there are any. */
  rebuilt_derived?: RebuiltDerived[]
  affected_paths: string[]
  status_changes: StatusChange[]
}

export function forgetSession(backend: MemoryBackend, sessionId: string, scope: ForgetScope, mode: ForgetMode): Promise<ForgetResult> {
  return transact(backend, async (txn) => {
    const result: ForgetResult = {
      session_id: sessionId,
      scope,
      mode,
      deleted_episode_count: 0,
      deleted_raw_count: 0,
      unlinked_topic_count: 0,
      orphaned_topic_count: 0,
      forgotten_derived_count: 0,
      affected_paths: [],
      status_changes: [],
    }
    const touched = (entry: IndexEntry) => {
      if (!result.affected_paths.includes(entry.path)) result.affected_paths.push(entry.path)
    }
    /** Soft: mark deleted_pending (once). Hard: remove the file. True when something changed. */
    const forgetOne = async (target: IndexEntry): Promise<boolean> => {
      if (mode === 'hard') return txn.remove(target)
      if (target.status === 'deleted_pending') return false
      return (await txn.update(target, { status: 'deleted_pending', deleted_from: target.status })) !== null
    }
    /** What this call forgot, as it was: a derived topic made again tells their words from the rest. */
    const forgotten = new Map<string, IndexEntry>()
    const record = (target: IndexEntry) => {
      touched(target)
      forgotten.set(target.id, target)
      result.status_changes.push({ id: target.id, from: target.status, to: mode === 'hard' ? 'removed' : 'deleted_pending' })
    }
    // Derived memories last: whether they go depends on what this call forgets.
    const fromSession = txn.index.fromSession(sessionId).sort((a, b) => Number(a.derived_from !== undefined) - Number(b.derived_from !== undefined))
    for (const listed of fromSession) {
      const entry = txn.index.get(listed.id) ?? listed
      if (entry.type === 'topic' && entry.derived_from !== undefined && entry.status !== 'deleted_pending') {
        // Nothing it was made from is left (each source forgotten, purged or removed): it goes
        // too. Some is: it is made again from that, a new version.
        const clean = cleanSources(txn.index, entry, new Set())
        if (clean.length < entry.derived_from.length) {
          const rebuilt = clean.length === 0 ? null : await rebuildDerived(txn, entry, clean, droppedSources(txn.index, entry, clean, forgotten), { repeats: () => false, hard: mode === 'hard' })
          if (rebuilt !== null) {
            result.rebuilt_derived = [...(result.rebuilt_derived ?? []), rebuilt]
            record(entry)
          } else if (await forgetOne(entry)) {
            result.forgotten_derived_count++
            record(entry)
          }
          continue
        }
      }
      if (entry.type === 'topic') {
        if (scope !== 'include_shared_unlink') continue
        const sources = entry.sources.filter((s) => s.session_id !== sessionId)
        const orphan = sources.length === 0 && entry.status !== 'orphaned'
        await txn.update(entry, {
          sources,
          session_id: sources.find((s) => s.session_id !== null)?.session_id ?? null,
          ...(orphan ? { status: 'orphaned' } : {}),
        })
        result.unlinked_topic_count++
        touched(entry)
        if (orphan) {
          result.orphaned_topic_count++
          result.status_changes.push({ id: entry.id, from: entry.status, to: 'orphaned' })
        }
        continue
      }
      // Raw text follows its episode; only a raw file without one is forgotten on its own.
      if (entry.type === 'raw' && entry.episode !== null && txn.index.get(entry.episode) !== undefined) continue
      const raw = entry.type === 'raw' ? undefined : rawSibling(txn, entry)
      for (const target of raw === undefined ? [entry] : [entry, raw]) {
        if (await forgetOne(target)) {
          if (target.type === 'raw') result.deleted_raw_count++
          else result.deleted_episode_count++
          record(target)
        }
      }
    }
    if (result.status_changes.length > 0 || result.unlinked_topic_count > 0) {
      const { affected_paths: _paths, status_changes: _changes, rebuilt_derived: rebuilt = [], ...counts } = result
      txn.log({ event: 'forget', ...counts, ids: result.status_changes.map((c) => c.id), ...(rebuilt.length > 0 ? { rebuilt: rebuilt.map((r) => r.id) } : {}) })
    }
    return result
  })
}
