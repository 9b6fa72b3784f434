/**
 * The confirmation gate: suggested -> active, nothing else. Confirming makes the memory the
 * current statement of its slot (older versions become superseded). A memory whose slot was
 * derived from its text (auto-settle, backfill) is revised like a keyless write (revise.ts): it
 * may end in `conflict` with a warning instead. Any other status is an INVALID_STATE:
 * confirmation must never bypass a conflict or a forget.
 */

import { MemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { requireEntry } from '../reading/lookup.js'
import { deriveClaim } from '../truth/claim-extract.js'
import { loadConfig } from '../settings/config.js'
import { subjectNeighbours, wantsFrameRevision } from './write.js'
import { reviseDerived } from './revise.js'
import { setStatus, supersedeSlot } from './slots.js'
import { transact } from './txn.js'

export interface ConfirmResult {
  id: string
  /** `conflict` when its derived subject holds another value and nothing says which is current. */
  status: 'active' | 'conflict'
  superseded: string[]
  /** Why it ended in conflict (`conflict:`, `shielded:`). */
  warnings?: string[]
}

export async function confirmMemory(backend: MemoryBackend, id: string): Promise<ConfirmResult> {
  const config = await loadConfig(backend)
  return transact(backend, async (txn) => {
    const entry = requireEntry(txn, id, 'confirm')
    if (entry.status === 'active') return { id, status: 'active', superseded: [] }
    if (entry.status !== 'suggested') {
      const hint = entry.status === 'conflict' ? '; settle it with memory_resolve' : ''
      throw new MemoryError('INVALID_STATE', `${id} is ${entry.status}, only suggested memories can be confirmed${hint}`, 'id')
    }
    const confirmed = await setStatus(txn, entry, 'active')
    if (confirmed === null) throw new MemoryError('NOT_FOUND', `the file of ${id} (${entry.path}) is gone; run rebuild`, 'id')
    txn.log({ event: 'confirm', id, from: 'suggested', to: 'active' })
    if (confirmed.key !== null && confirmed.key_derived !== true) return { id, status: 'active', superseded: (await supersedeSlot(txn, confirmed)).superseded }
    // A keyless memory that announces a change is compared with memories of neighbouring subjects.
    const related = config.autoRevise && wantsFrameRevision(confirmed.summary, deriveClaim(confirmed.summary)) ? subjectNeighbours(txn.index, confirmed.summary, confirmed.id) : []
    const revised = await reviseDerived(txn, confirmed, config, related)
    return {
      id,
      status: revised.winner.status === 'conflict' ? 'conflict' : 'active',
      superseded: revised.superseded,
      ...(revised.warnings.length > 0 ? { warnings: revised.warnings } : {}),
    }
  })
}
