/**
 * When consolidation runs by itself (the DSH heartbeat, an idle MCP server): `consolidationDue`
 * says whether a run is due now, from the ledger and the store's settings. It changes nothing and
 * never runs on the write path; the adapters that ask it start the run in the background.
 *
 * Due when `consolidateAfterEpisodes` (0: never) episodes were written since the last
 * `consolidate` event (or since the store began), the last run ended at least
 * `consolidateMinIntervalMinutes` ago, the daily cap has room, and no run holds the lease. The
 * ledger is read once per change of its size: a tick on an unchanged store costs two stats.
 */

import type { MemoryBackend } from '../../store/backend.js'
import type { LedgerEvent } from '../../types.js'
import { loadConfig } from '../settings/config.js'
import { changesOnDay, LEASE_FILE, leaseHolder } from './consolidate.js'

export interface ConsolidationDue {
  due: boolean
  /** Why it is due or not, in words for a log line. */
  reason: string
  /** Episodes written since the last run (since the store began when there was none). */
  newEpisodes: number
  /** When the last run ended; null when there was none. */
  lastRunAt: string | null
}

/** What the ledger says for triggers, as of one size of the file. */
interface LedgerTally {
  size: number
  day: string
  newEpisodes: number
  lastRunAt: string | null
  changedToday: number
}

const tallies = new WeakMap<MemoryBackend, LedgerTally>()

/** The episodes written after the last `consolidate` event, that event's time, and the changes of day. Pure. */
export function tallyLedger(events: readonly LedgerEvent[], day: string): Omit<LedgerTally, 'size' | 'day'> {
  let newEpisodes = 0
  let lastRunAt: string | null = null
  for (const ev of events) {
    if (ev.event === 'consolidate') {
      newEpisodes = 0
      lastRunAt = ev.at
    } else if (ev.event === 'write' && ev.type === 'episode') newEpisodes++
  }
  return { newEpisodes, lastRunAt, changedToday: changesOnDay(events, day) }
}

async function tally(backend: MemoryBackend, day: string): Promise<LedgerTally> {
  const size = (await backend.stat('ledger.jsonl'))?.size ?? 0
  const known = tallies.get(backend)
  if (known !== undefined && known.size === size && known.day === day) return known
  const fresh = { size, day, ...tallyLedger(size === 0 ? [] : await backend.readLedger(), day) }
  tallies.set(backend, fresh)
  return fresh
}

/** Whether an automatic consolidation of this store is due at now (ms since the epoch). Reads only. */
export async function consolidationDue(backend: MemoryBackend, now: number = Date.parse(backend.now())): Promise<ConsolidationDue> {
  const config = await loadConfig(backend)
  const threshold = config.consolidateAfterEpisodes
  const { newEpisodes, lastRunAt, changedToday } = await tally(backend, new Date(now).toISOString().slice(0, 10))
  const answer = (due: boolean, reason: string): ConsolidationDue => ({ due, reason, newEpisodes, lastRunAt })
  if (threshold === 0) return answer(false, 'automatic consolidation is off (consolidateAfterEpisodes is 0)')
  if (newEpisodes < threshold) return answer(false, `${newEpisodes} of ${threshold} new episodes since the last run`)
  const wait = config.consolidateMinIntervalMinutes * 60_000
  if (lastRunAt !== null && now - Date.parse(lastRunAt) < wait) return answer(false, `the last run was less than ${config.consolidateMinIntervalMinutes} minutes ago`)
  if (changedToday >= config.consolidateDailyItems) return answer(false, `daily cap ${config.consolidateDailyItems} reached`)
  const held = leaseHolder(await backend.readFile(LEASE_FILE).catch(() => null), now)
  if (held !== null) return answer(false, `a run is in progress (process ${held.pid})`)
  return answer(true, `${newEpisodes} new episodes since the last run (threshold ${threshold})`)
}
