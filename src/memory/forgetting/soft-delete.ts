/**
 * Soft delete and restore of one memory, the panel's undoable delete. Soft delete marks the
 * memory (and its raw text) deleted_pending and writes the status it had into the front-matter
 * as `deleted_from`, so restore can put it back; the files stay until `purgeDeleted`. Restore
 * never displaces the current statement of a slot: if the slot gained one while the memory was
 * away, the memory comes back superseded by it. Both are idempotent and never touch another
 * memory's status.
 */

import { MemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { MEMORY_STATUSES, type IndexEntry, type MemoryStatus } from '../../types.js'
import { requireEntry } from '../reading/lookup.js'
import { rawSibling, slotMates } from '../writing/slots.js'
import { transact, type Txn } from '../writing/txn.js'

export interface StatusMove {
  id: string
  /** Status before the call. */
  from: MemoryStatus
  /** Status after the call. */
  status: MemoryStatus
  /** False when the memory already was where the call would move it. */
  changed: boolean
  /** Ids whose files were rewritten: the memory and its raw text. */
  ids: string[]
}

/** The status a deleted_pending file had before, from its front-matter's `deleted_from`; active when unknown. */
function deletedFrom(recorded: unknown): MemoryStatus {
  return MEMORY_STATUSES.includes(recorded as MemoryStatus) && recorded !== 'deleted_pending' ? (recorded as MemoryStatus) : 'active'
}

function gone(entry: IndexEntry): MemoryError {
  return new MemoryError('NOT_FOUND', `the file of ${entry.id} (${entry.path}) is gone; run rebuild`, 'id')
}

/**
 * Marks a memory and its raw text deleted_pending, each remembering its status as `deleted_from`.
 * Returns the ids rewritten; empty when the memory's file is gone. Shared with memory_forget.
 */
export async function markDeleted(txn: Txn, entry: IndexEntry): Promise<string[]> {
  if ((await txn.update(entry, { status: 'deleted_pending', deleted_from: entry.status })) === null) return []
  const ids = [entry.id]
  const raw = rawSibling(txn, entry)
  if (raw !== undefined && raw.status !== 'deleted_pending') {
    await txn.update(raw, { status: 'deleted_pending', deleted_from: raw.status })
    ids.push(raw.id)
  }
  return ids
}

export function softDelete(backend: MemoryBackend, id: string): Promise<StatusMove> {
  return transact(backend, async (txn) => {
    const entry = requireEntry(txn, id, 'delete')
    if (entry.status === 'deleted_pending') return { id, from: entry.status, status: entry.status, changed: false, ids: [] }
    // Deleting one side would leave the other in a conflict with nobody.
    if (entry.status === 'conflict')
      throw new MemoryError('INVALID_STATE', `${id} is in conflict; settle it with memory_resolve (keep or drop) instead of deleting it`, 'id')
    const ids = await markDeleted(txn, entry)
    if (ids.length === 0) throw gone(entry)
    txn.log({ event: 'soft-delete', id, from: entry.status, to: 'deleted_pending', ids, source: 'user' })
    return { id, from: entry.status, status: 'deleted_pending', changed: true, ids }
  })
}

/** Where a memory goes back to, given where it came from and what its slot holds now. */
function restoredStatus(txn: Txn, entry: IndexEntry, previous: MemoryStatus): { status: MemoryStatus; supersededBy: string | null } {
  if (previous !== 'active' && previous !== 'conflict') return { status: previous, supersededBy: null }
  if (previous === 'conflict' && entry.variants.some((v) => txn.index.get(v)?.status === 'conflict')) return { status: 'conflict', supersededBy: null }
  // Only keyed memories are versions of a slot (see write.ts); others never compete.
  const current = entry.key !== null ? slotMates(txn, entry) : []
  const newest = current[current.length - 1]
  return newest === undefined ? { status: 'active', supersededBy: null } : { status: 'superseded', supersededBy: newest.id }
}

export function restore(backend: MemoryBackend, id: string): Promise<StatusMove> {
  return transact(backend, async (txn) => {
    const entry = requireEntry(txn, id, 'restore')
    if (entry.status !== 'deleted_pending') return { id, from: entry.status, status: entry.status, changed: false, ids: [] }
    // Decided from the file as it is when it is rewritten (a compare-and-swap may run this again).
    let move = restoredStatus(txn, entry, 'active')
    const patch = (current: Record<string, unknown>) => {
      move = restoredStatus(txn, entry, deletedFrom(current.deleted_from))
      return {
        status: move.status,
        deleted_from: null,
        ...(move.supersededBy !== null ? { superseded_by: move.supersededBy } : {}),
        ...(move.status !== 'conflict' ? { variants: null } : {}),
      }
    }
    if ((await txn.update(entry, patch)) === null) throw gone(entry)
    const { status, supersededBy } = move
    const ids = [id]
    const raw = rawSibling(txn, entry)
    if (raw !== undefined && raw.status === 'deleted_pending') {
      // Raw text follows its episode, as everywhere else.
      await txn.update(raw, { status, deleted_from: null })
      ids.push(raw.id)
    }
    txn.log({ event: 'restore', id, from: 'deleted_pending', to: status, ids, source: 'user', ...(supersededBy !== null ? { superseded_by: supersededBy } : {}) })
    return { id, from: 'deleted_pending', status, changed: true, ids }
  })
}
