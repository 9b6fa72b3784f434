/**
 * Decay: low-importance memories that nobody has found for a while are set aside. A memory is a
 * candidate when it is an active topic or episode, not a guard, of low importance, and it has had
 * no search hit (or, never hit, was written) `decayAfterDays` days ago or earlier. Low importance:
 * its confidence is below 0.5 (the writer was unsure: an ordinary write has 0.6), or retrieval
 * its effective importance (its own, as written or as practice moved it, plus strength from use:
 * organisation/strength.ts) is below `decayImportanceBelow` (0.3). A repeat counts as use, as a
 * search hit does. A memory in practice is otherwise kept by its
 * schedule, unless it keeps failing review (three lapses without a recall since); a memory
 * enrolled but never graded follows its schedule like any other. Archiving sets status `archived` with
 * `archived_at` and `archived_reason` in the file and a ledger `archive` event; nothing is ever
 * deleted, and `restore` brings a memory back. Decay runs only when called (memory_decay), never
 * on a read path.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { isUnderReview } from '../../store/review-fields.js'
import type { IndexEntry } from '../../types.js'
import { loadConfig } from '../settings/config.js'
import { readUsage, type UsageStats } from '../organisation/signals.js'
import { effectiveImportance, EMPTY_SUM } from '../organisation/strength.js'
import { setStatus, slotMates } from '../writing/slots.js'
import { transact } from '../writing/txn.js'

/** Below this confidence a memory counts as low importance. */
export const DECAY_CONFIDENCE_BELOW = 0.5
/** A memory in practice with this many lapses and no recall since keeps failing review: it may decay. */
export const DECAY_FAILED_LAPSES = 3
const DAY_MS = 86_400_000

export interface DecayCandidate {
  id: string
  path: string
  title: string
  idleDays: number
  confidence: number
  last_used_at: string | null
  reason: string
}

export interface DecayResult {
  dry_run: boolean
  days: number
  confidence_below: number
  archived: DecayCandidate[]
  /** Candidates beyond `limit`, left for the next call. */
  more: number
  guidance: string
}

/** Why an entry may decay, whatever its idle time, or null when it may not; `importance` is its effective importance. Pure. */
export function decayGround(e: IndexEntry, importanceBelow: number, importance: number): string | null {
  if (!((e.type === 'topic' || e.type === 'episode') && e.status === 'active' && e.guard === undefined)) return null
  // A file whose front-matter does not parse is not rewritten until a person fixes it.
  if (e.front_matter_error !== undefined) return null
  const review = typeof e.review === 'object' ? e.review : null
  // A memory in retrieval practice is kept by its schedule, not by search hits, unless it keeps failing.
  if (isUnderReview(e)) return review !== null && review.lapses >= DECAY_FAILED_LAPSES && review.reps === 0 ? `failed review ${review.lapses} times without a recall` : null
  if (e.confidence < DECAY_CONFIDENCE_BELOW) return `confidence ${e.confidence} < ${DECAY_CONFIDENCE_BELOW}`
  if (importance < importanceBelow) return `importance ${Math.round(importance * 100) / 100} < ${importanceBelow}`
  return null
}


/** The candidates among entries, most idle first, given hit records and the time. Pure. */
export function decayCandidates(
  entries: Iterable<IndexEntry>,
  usage: ReadonlyMap<string, UsageStats>,
  now: number,
  days: number,
  importanceBelow: number,
): DecayCandidate[] {
  const out: DecayCandidate[] = []
  for (const e of entries) {
    const used = usage.get(e.id)
    const ground = decayGround(e, importanceBelow, effectiveImportance(e, used?.uses ?? EMPTY_SUM, now))
    if (ground === null) continue
    // The last use: a search hit or a repeat, whichever came later.
    const last = [used?.lastHitAt ?? null, used?.lastRepeatAt ?? null].reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null)
    const since = Date.parse(last ?? e.time)
    if (Number.isNaN(since)) continue
    const idleDays = Math.floor((now - since) / DAY_MS)
    if (idleDays < days) continue
    const reason = `${ground} and ${last === null ? 'never found by a search' : 'no search hit or repeat'} for ${idleDays} days (window ${days})`
    out.push({ id: e.id, path: e.path, title: e.title, idleDays, confidence: e.confidence, last_used_at: last, reason })
  }
  return out.sort((a, b) => b.idleDays - a.idleDays || a.id.localeCompare(b.id))
}

export async function decay(backend: MemoryBackend, opts: { days?: number; dryRun: boolean; limit: number }): Promise<DecayResult> {
  const config = await loadConfig(backend)
  const days = opts.days ?? config.decayAfterDays
  const usage = await readUsage(backend)
  const finish = (archived: DecayCandidate[], total: number): DecayResult => ({
    dry_run: opts.dryRun,
    days,
    confidence_below: DECAY_CONFIDENCE_BELOW,
    archived,
    more: Math.max(0, total - opts.limit),
    guidance:
      archived.length === 0
        ? `Nothing to archive: no active memory with confidence below ${DECAY_CONFIDENCE_BELOW} has gone ${days} days without a search hit.`
        : opts.dryRun
          ? `${archived.length} memory(ies) would be archived. Call memory_decay with dryRun: false to archive them; memory_restore brings any back.`
          : `${archived.length} memory(ies) archived (files kept, out of search and injection). memory_audit_forgotten lists them; memory_restore brings any back.`,
  })
  if (opts.dryRun) {
    // A preview sees hand edits as a run would (a transaction brings the index up to date first).
    await ensureFresh(backend)
    const all = decayCandidates((await backend.indexView()).values(), usage, Date.parse(backend.now()), days, config.decayImportanceBelow)
    return finish(all.slice(0, opts.limit), all.length)
  }
  return transact(backend, async (txn) => {
    const all = decayCandidates(txn.index.values(), usage, Date.parse(txn.now), days, config.decayImportanceBelow)
    const done: DecayCandidate[] = []
    for (const c of all.slice(0, opts.limit)) {
      const entry = txn.index.get(c.id)
      if (entry === undefined || (await setStatus(txn, entry, 'archived', { archived_at: txn.now, archived_reason: c.reason })) === null) continue
      txn.log({ event: 'archive', id: c.id, reason: c.reason, idle_days: c.idleDays, confidence: c.confidence, window_days: days })
      done.push(c)
    }
    return finish(done, all.length)
  })
}

export interface RestoreResult {
  restored: Array<{ id: string; status: 'active' | 'superseded'; superseded_by?: string }>
  unchanged: string[]
  /** Ids that name no memory (or raw text): nothing to restore. */
  missing: string[]
}

/**
 * Brings archived memories back. A memory whose slot moved on while it was archived (a newer
 * current version) comes back as superseded by that version, never over it.
 */
export async function restore(backend: MemoryBackend, ids: readonly string[]): Promise<RestoreResult> {
  return transact(backend, async (txn) => {
    const out: RestoreResult = { restored: [], unchanged: [], missing: [] }
    for (const id of [...new Set(ids)]) {
      const entry = txn.index.get(id)
      if (entry === undefined || entry.type === 'raw') {
        out.missing.push(id)
        continue
      }
      if (entry.status !== 'archived') {
        out.unchanged.push(id)
        continue
      }
      // While it was archived it was not current, so a current version of its slot came later.
      const current = entry.key !== null ? slotMates(txn, entry).at(-1) : undefined
      const cleared = { archived_at: null, archived_reason: null }
      if (current !== undefined) {
        await setStatus(txn, entry, 'superseded', { ...cleared, superseded_by: current.id })
        out.restored.push({ id, status: 'superseded', superseded_by: current.id })
      } else {
        await setStatus(txn, entry, 'active', cleared)
        out.restored.push({ id, status: 'active' })
      }
      txn.log({ event: 'restore', id, status: out.restored[out.restored.length - 1]?.status })
    }
    return out
  })
}
