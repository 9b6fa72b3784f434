/**
 * Repairs what a consolidation killed mid-run left half done, before the next run does anything
 * else. A step writes its files first and its ledger events last, in one transaction; a process
 * killed in between leaves the files (which the freshness check indexes) without their events, and
 * a step that rewrites two files (an episode and its raw text) may have rewritten one. So: a
 * derived memory with no event of the step that made it gets that event (`recovered: true`), and
 * raw text follows its archived episode. Only completes what the files already say; never undoes
 * a step, never deletes.
 */

import type { MemoryBackend } from '../../store/backend.js'
import type { IndexEntry, LedgerEvent } from '../../types.js'
import { rawSibling } from '../writing/slots.js'
import { transact } from '../writing/txn.js'
import { EXCHANGE_TAG } from './fold.js'
import { SESSION_SUMMARY_TAG } from './reflect.js'

const MAKING = ['promote', 'reflect', 'fold'] as const

/** The event of the step that makes a derived memory, told by its tags. */
function makingEvent(entry: IndexEntry): (typeof MAKING)[number] {
  return entry.tags.includes(SESSION_SUMMARY_TAG) ? 'reflect' : entry.tags.includes(EXCHANGE_TAG) ? 'fold' : 'promote'
}

export interface Recovered {
  /** Derived memories given the event of the step that made them. */
  events: string[]
  /** Raw texts archived with their episode. */
  raw: string[]
}

/** Completes interrupted steps (see the module comment); nothing to do is the common case and costs one pass over the index. */
export async function recoverInterrupted(backend: MemoryBackend, ledger: readonly LedgerEvent[]): Promise<Recovered> {
  const named = new Map<string, Set<string>>()
  for (const ev of ledger) if (typeof ev.id === 'string') (named.get(ev.id) ?? named.set(ev.id, new Set()).get(ev.id) as Set<string>).add(ev.event)
  // Any consolidation step that made it or added sources to it names it: that is its event.
  const made = (id: string) => MAKING.some((event) => named.get(id)?.has(event) === true)
  const out: Recovered = { events: [], raw: [] }
  const view = await backend.indexView()
  const entries = [...view.values()]
  const unmade = entries.filter((e) => e.derived_from !== undefined && e.derived_from.length > 0 && !made(e.id))
  const archivedEpisodes = entries.filter((e) => e.status === 'archived' && e.type === 'episode' && e.raw_ref !== null)
  const rawStatus = (e: IndexEntry) => (e.raw_ref === null ? undefined : view.atPath(e.raw_ref)?.status)
  if (unmade.length === 0 && archivedEpisodes.every((e) => rawStatus(e) !== 'active')) return out
  return transact(backend, async (txn) => {
    for (const e of unmade) {
      txn.log({ event: makingEvent(e), id: e.id, ids: [...(e.derived_from ?? [])], recovered: true })
      out.events.push(e.id)
    }
    for (const e of archivedEpisodes) {
      const raw = rawSibling(txn, e)
      if (raw === undefined || raw.status !== 'active') continue
      if ((await txn.update(raw, { status: 'archived' })) !== null) out.raw.push(raw.id)
    }
    if (out.raw.length > 0) txn.log({ event: 'archive', ids: out.raw, reason: 'raw text follows its archived episode', recovered: true })
    return out
  })
}
