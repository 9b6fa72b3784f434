/**
 * Settling a declared conflict. `keep`: this memory becomes active and every other variant in
 * its slot superseded by it. `drop`: this memory becomes superseded; if one variant is left it
 * becomes active, if several are left they stay in conflict with each other.
 */

import { pushAll } from '../../arrays.js'
import { MemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import type { IndexEntry, MemoryStatus } from '../../types.js'
import { requireEntry } from '../reading/lookup.js'
import { setStatus, slotMates } from './slots.js'
import { transact, type Txn } from './txn.js'

export interface ResolveResult {
  id: string
  status: MemoryStatus
  superseded: string[]
  activated: string[]
}

const CONFLICT: ReadonlySet<MemoryStatus> = new Set(['conflict'])

/** The other sides of a conflict: declared variants plus conflict entries in the same slot. */
function otherVariants(txn: Txn, entry: IndexEntry): IndexEntry[] {
  const out = new Map<string, IndexEntry>()
  for (const id of entry.variants) {
    const v = txn.index.get(id)
    if (v !== undefined && v.status === 'conflict') out.set(id, v)
  }
  for (const v of slotMates(txn, entry, CONFLICT)) out.set(v.id, v)
  return [...out.values()]
}

/**
 * Takes `leaving` out of its conflict: each other side drops it from its variants, and a side
 * left with no other variant becomes active (with `patch`). Returns the ids made active. Shared
 * by resolve's drop and by forgetting one side of a conflict.
 */
export async function releaseVariants(txn: Txn, leaving: IndexEntry, others: IndexEntry[] = otherVariants(txn, leaving), patch: Record<string, unknown> = {}): Promise<string[]> {
  const activated: string[] = []
  for (const other of others) {
    const remaining = otherVariants(txn, other).filter((v) => v.id !== leaving.id).map((v) => v.id)
    if (remaining.length === 0) {
      await setStatus(txn, other, 'active', { variants: null, ...patch })
      activated.push(other.id)
    } else {
      await txn.update(other, { variants: remaining })
    }
  }
  return activated
}

export function resolveConflict(backend: MemoryBackend, id: string, action: 'keep' | 'drop'): Promise<ResolveResult> {
  return transact(backend, async (txn) => {
    const entry = requireEntry(txn, id, 'resolve')
    if (entry.status === 'active' && action === 'keep') return { id, status: 'active', superseded: [], activated: [] }
    if (entry.status !== 'conflict')
      throw new MemoryError('INVALID_STATE', `${id} is ${entry.status}, not in conflict; only conflict memories can be resolved`, 'id')
    const others = otherVariants(txn, entry)
    const superseded: string[] = []
    const activated: string[] = []
    if (action === 'keep') {
      for (const other of others) {
        await setStatus(txn, other, 'superseded', { superseded_by: id, variants: null })
        superseded.push(other.id)
      }
      const newest = [...others].sort((a, b) => b.time.localeCompare(a.time))[0]
      await setStatus(txn, entry, 'active', { variants: null, ...(newest ? { supersedes: newest.id } : {}) })
      activated.push(id)
    } else {
      const successor = others.length === 1 ? (others[0] as IndexEntry) : null
      await setStatus(txn, entry, 'superseded', { superseded_by: successor?.id ?? null, variants: null })
      superseded.push(id)
      pushAll(activated, await releaseVariants(txn, entry, others, { supersedes: id }))
    }
    txn.log({ event: 'resolve', id, action, superseded, activated })
    const after = txn.index.get(id)
    return { id, status: after?.status ?? (action === 'keep' ? 'active' : 'superseded'), superseded, activated }
  })
}
