/**
 * The confirmation gate: suggested -> active, nothing else. Confirming makes the memory the
 * current statement of its slot (older versions become superseded). Any other status is an
 * INVALID_STATE: confirmation must never bypass a conflict or a forget.
 */

import { MemoryError } from '../errors.js'
import type { MemoryBackend } from '../store/backend.js'
import { requireEntry } from './lookup.js'
import { setStatus, supersedeSlot } from './slots.js'
import { transact } from './txn.js'

export interface ConfirmResult {
  id: string
  status: 'active'
  superseded: string[]
}

export function confirmMemory(backend: MemoryBackend, id: string): Promise<ConfirmResult> {
  return transact(backend, async (txn) => {
    const entry = requireEntry(txn, id, 'confirm')
    if (entry.status === 'active') return { id, status: 'active', superseded: [] }
    if (entry.status !== 'suggested') {
      const hint = entry.status === 'conflict' ? '; settle it with memory_resolve' : ''
      throw new MemoryError('INVALID_STATE', `${id} is ${entry.status}, only suggested memories can be confirmed${hint}`, 'id')
    }
    const confirmed = await setStatus(txn, entry, 'active')
    if (confirmed === null) throw new MemoryError('NOT_FOUND', `the file of ${id} (${entry.path}) is gone; run rebuild`, 'id')
    const { superseded } = confirmed.key !== null ? await supersedeSlot(txn, confirmed) : { superseded: [] }
    txn.log({ event: 'confirm', id, from: 'suggested', to: 'active' })
    return { id, status: 'active', superseded }
  })
}
