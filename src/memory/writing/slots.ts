/**
 * Slots: the "which fact is this about" of a memory. Writes with the same slot are versions of
 * one fact (the newer supersedes the older) or, when declared, a conflict to resolve. Also the
 * supersede and raw-sibling helpers that write, confirm and resolve share. Pure except for the
 * transaction calls.
 */

import { slotOf } from '../../store/index-view.js'
import { premisesConflict } from '../../store/premises.js'
import type { IndexEntry, MemoryStatus } from '../../types.js'
import type { Txn } from './txn.js'

/** Statuses that hold the current statement of a slot. */
const CURRENT: ReadonlySet<MemoryStatus> = new Set(['active', 'conflict'])
/** Statuses a new write is compared with for duplicates. */
export const LIVE: ReadonlySet<MemoryStatus> = new Set(['active', 'conflict', 'suggested'])

/**
 * Other entries of the same type in the same slot, with one of the given statuses, oldest first.
 * Entries whose premises conflict with the entry's are statements about other conditions, and
 * retractions are never versions of anything: neither is a slot mate.
 */
export function slotMates(
  txn: Txn,
  entry: Pick<IndexEntry, 'id' | 'type' | 'key' | 'title' | 'scope'>,
  statuses: ReadonlySet<MemoryStatus> = CURRENT,
): IndexEntry[] {
  return txn.index
    .inSlot(slotOf(entry))
    .filter(
      (other) =>
        other.id !== entry.id &&
        other.type === entry.type &&
        statuses.has(other.status) &&
        other.retracts === undefined &&
        !premisesConflict(other.scope, entry.scope),
    )
    .sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
}

/** The raw entry that belongs to an episode, if any. */
export function rawSibling(txn: Txn, episode: IndexEntry): IndexEntry | undefined {
  const raw = episode.raw_ref !== null ? txn.index.atPath(episode.raw_ref) : undefined
  return raw?.type === 'raw' ? raw : undefined
}

/** Moves an entry (and its raw sibling) to a status, writing the change back to the files. */
export async function setStatus(txn: Txn, entry: IndexEntry, status: MemoryStatus, patch: Record<string, unknown> = {}): Promise<IndexEntry | null> {
  const updated = await txn.update(entry, { status, ...patch })
  const raw = rawSibling(txn, entry)
  if (raw !== undefined && raw.status !== status) await txn.update(raw, { status })
  return updated
}

/**
 * Makes `winner` the current statement of its slot: every other current entry there becomes
 * superseded by it, and `winner.supersedes` points at the newest of them. Returns their ids.
 */
export async function supersedeSlot(txn: Txn, winner: IndexEntry): Promise<{ winner: IndexEntry; superseded: string[] }> {
  return supersedeEntries(txn, winner, slotMates(txn, winner))
}

/**
 * Makes `winner` the current statement over `losers` (each becomes superseded by it, with its
 * raw text); `winner.supersedes` points at the newest of them. Logs one `supersede` event.
 */
export async function supersedeEntries(txn: Txn, winner: IndexEntry, losers: readonly IndexEntry[]): Promise<{ winner: IndexEntry; superseded: string[] }> {
  if (losers.length === 0) return { winner, superseded: [] }
  const replaced: IndexEntry[] = []
  for (const loser of [...losers].sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))) {
    // A version whose file a person deleted is gone, not superseded.
    if ((await setStatus(txn, loser, 'superseded', { superseded_by: winner.id, variants: null })) !== null) replaced.push(loser)
  }
  const newest = replaced[replaced.length - 1]
  if (newest === undefined) return { winner, superseded: [] }
  const updated = (await txn.update(winner, { supersedes: newest.id, variants: null })) ?? winner
  const superseded = replaced.map((l) => l.id)
  txn.log({ event: 'supersede', id: winner.id, ids: superseded, slot: slotOf(winner) })
  return { winner: updated, superseded }
}
