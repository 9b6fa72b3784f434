/**
 * Retrieval practice: which memories are due for recall (cues only, never their text), the
 * reveal, and the report that schedules the next review with SM-2 (sm2.ts). The schedule lives
 * in each memory's front-matter (review-fields.ts), so the index stays a projection of the files.
 *
 * Who takes part: active topics and episodes with a schedule. Every memory written is enrolled,
 * first due a day later (`review_due`, SM-2's first interval); a memory older than practice joins
 * when it is first reported on. `review: off` keeps a memory out (backfill sets it, so a bulk
 * import never floods today's queue). Reading never writes.
 */

import { MemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { detailsOf, parseFile } from '../../store/frontmatter.js'
import { reviewFrontMatter } from '../../store/review-fields.js'
import { truncateUnits } from '../../text.js'
import type { IndexEntry, ReviewState } from '../../types.js'
import { requireEntry } from '../reading/lookup.js'
import { DAY_MS, GRADE_OF, initialState, schedule } from './sm2.js'
import { transact } from '../writing/txn.js'

export const QUEUE_DEFAULT_LIMIT = 10
const DETAILS_CHARS = 2000

/** True for a memory that takes part in retrieval practice. */
export function inPractice(e: IndexEntry): boolean {
  return e.status === 'active' && (e.type === 'topic' || e.type === 'episode') && typeof e.review === 'object'
}

/** The memory's schedule: the one its file states, or a first one for a memory outside practice. */
export function reviewStateOf(e: IndexEntry): ReviewState {
  return typeof e.review === 'object' ? e.review : initialState(e.time)
}

/** How many memories are due for recall at `nowMs`: what resident injection reports. */
export function dueCount(entries: Iterable<IndexEntry>, nowMs: number): number {
  let n = 0
  for (const e of entries) if (inPractice(e) && Date.parse(reviewStateOf(e).due) <= nowMs) n++
  return n
}

/** A cue: where the memory stands and its placard when the palace gives them, else its title. */
export interface ReviewCue {
  id: string
  location: string | null
  placard: string | null
  /** What to recall from: the placard, or the title when the memory has none. */
  cue: string
  cue_kind: 'placard' | 'title'
  path: string
  due: string
  days_overdue: number
  reps: number
}

export interface ReviewQueue {
  at: string
  due_total: number
  items: ReviewCue[]
  has_more: boolean
  guidance: string
}

/** The placard, when the palace fields (rooms, placards) give one: read by name, so it follows their type. */
function placardOf(e: IndexEntry): string | null {
  const p = (e as unknown as Record<string, unknown>).placard
  return typeof p === 'string' && p.trim() !== '' ? p : null
}

function cueOf(e: IndexEntry, nowMs: number): ReviewCue {
  const state = reviewStateOf(e)
  const placard = placardOf(e)
  return {
    id: e.id,
    location: e.location ?? null,
    placard,
    cue: truncateUnits(placard ?? e.title, 120),
    cue_kind: placard !== null ? 'placard' : 'title',
    path: e.path,
    due: state.due,
    days_overdue: Math.max(0, Math.floor((nowMs - Date.parse(state.due)) / DAY_MS)),
    reps: state.reps,
  }
}

/** The memories due now, most overdue first (then by id), at most `limit`. */
export async function reviewQueue(backend: MemoryBackend, limit = QUEUE_DEFAULT_LIMIT): Promise<ReviewQueue> {
  await ensureFresh(backend)
  const at = backend.now()
  const nowMs = Date.parse(at)
  const due: ReviewCue[] = []
  for (const e of (await backend.indexView()).values()) {
    if (inPractice(e) && Date.parse(reviewStateOf(e).due) <= nowMs) due.push(cueOf(e, nowMs))
  }
  due.sort((a, b) => a.due.localeCompare(b.due) || a.id.localeCompare(b.id))
  const items = due.slice(0, limit)
  const guidance =
    due.length === 0
      ? 'Nothing is due for recall now.'
      : `Recall each memory from its cue before you look: then memory_review { id } reveals it and memory_report { id, grade 0-5 } (or outcome success / failure) schedules the next review.${due.length > items.length ? ` ${due.length - items.length} more are due: report these first, or ask with a larger limit.` : ''}`
  return { at, due_total: due.length, items, has_more: due.length > items.length, guidance }
}

export interface ReviewReveal {
  id: string
  title: string
  summary: string
  details: string
  path: string
  location: string | null
  placard: string | null
  review: ReviewState & { in_practice: boolean }
  guidance: string
}

/** The memory behind a cue, in full (details cut at 2000 characters), with its schedule. Reads only. */
export async function revealMemory(backend: MemoryBackend, id: string): Promise<ReviewReveal> {
  await ensureFresh(backend)
  const entry = requireEntry({ index: await backend.indexView() }, id, 'review')
  const text = await backend.readFile(entry.path)
  const details = text === null ? '' : detailsOf(parseFile(text).body)
  return {
    id,
    title: entry.title,
    summary: entry.summary,
    details: truncateUnits(details, DETAILS_CHARS),
    path: entry.path,
    location: entry.location ?? null,
    placard: placardOf(entry),
    review: { ...reviewStateOf(entry), in_practice: inPractice(entry) },
    guidance: inPractice(entry)
      ? 'Compare with what you recalled, then grade it: memory_report { id, grade } (5 perfect, 3 hard, below 3 forgotten).'
      : `This memory is ${entry.status !== 'active' ? entry.status : 'kept out of practice'}; a report would put it back into practice only if it is active.`,
  }
}

export interface ReviewReport {
  id: string
  grade: number
  recalled: boolean
  previous: ReviewState
  next: ReviewState
}

/** Grades a recall and writes the next schedule into the memory's front-matter; a ledger event `review`. */
export function reportRecall(backend: MemoryBackend, id: string, grade: number | 'success' | 'failure'): Promise<ReviewReport> {
  const q = typeof grade === 'number' ? grade : GRADE_OF[grade]
  return transact(backend, async (txn) => {
    const entry = requireEntry(txn, id, 'report')
    if (entry.status !== 'active')
      throw new MemoryError('INVALID_STATE', `${id} is ${entry.status}; only active memories take part in retrieval practice`, 'id')
    const previous = reviewStateOf(entry)
    const next = schedule(previous, q, txn.now)
    const updated = await txn.update(entry, reviewFrontMatter(next))
    if (updated === null) throw new MemoryError('NOT_FOUND', `the file of ${id} (${entry.path}) is gone; run rebuild`, 'id')
    txn.log({ event: 'review', id, grade: q, interval: next.interval, ease: next.ease, due: next.due, importance: next.importance })
    return { id, grade: q, recalled: q >= 3, previous, next }
  })
}
