/**
 * SM-2, the scheduler of retrieval practice, as a pure function: a grade 0-5 and the previous
 * schedule give the next one. Intervals run 1 -> 6 -> round(previous x ease) days; a grade below
 * 3 is a failure, which restarts the run at 1 day; the ease moves with every grade and never
 * drops below 1.3. Importance moves too: +0.05 for a recall, -0.1 for a failure, within 0-1.
 * Never reads a clock: `now` is given.
 */

import type { ReviewState } from '../../types.js'
import { DEFAULT_EASE, DEFAULT_IMPORTANCE, MIN_EASE } from '../../store/review-fields.js'

export const DAY_MS = 86_400_000
/** `success` and `failure` as grades: a clear recall and a lapse (the panel's 记得 / 忘了). */
export const GRADE_OF = { success: 4, failure: 1 } as const
export const IMPORTANCE_STEP = { success: 0.05, failure: -0.1 } as const

/** When a memory written at `now` is first due for recall: one day later (its front-matter `review_due`). */
export function firstDue(now: string): string {
  return new Date(Date.parse(now) + DAY_MS).toISOString()
}

/** The schedule of a memory never graded: first due one day after it was written. */
export function initialState(writtenAt: string, importance = DEFAULT_IMPORTANCE): ReviewState {
  const ms = Date.parse(writtenAt)
  const due = new Date((Number.isNaN(ms) ? 0 : ms) + DAY_MS).toISOString()
  return { due, interval: 0, ease: DEFAULT_EASE, reps: 0, lapses: 0, reviewed_at: null, importance }
}

const round2 = (n: number) => Math.round(n * 100) / 100

/**
 * The longest interval, in days (about a century, as Anki's default maximum): intervals grow by
 * the ease with every recall, and forty recalls in a row would otherwise put `due` past the last
 * date JavaScript can write (RangeError).
 */
export const MAX_INTERVAL_DAYS = 36_500

/** The next schedule after a review graded `grade` (0-5) at `now`. */
export function schedule(prev: ReviewState, grade: number, now: string): ReviewState {
  const q = Math.min(5, Math.max(0, Math.round(grade)))
  const ease = Math.max(MIN_EASE, round2(prev.ease + (0.1 - (5 - q) * (0.08 + (5 - q) * 0.02))))
  const recalled = q >= 3
  const reps = recalled ? prev.reps + 1 : 0
  const interval = !recalled || reps === 1 ? 1 : reps === 2 ? 6 : Math.min(MAX_INTERVAL_DAYS, Math.max(1, Math.round(prev.interval * prev.ease)))
  const step = recalled ? IMPORTANCE_STEP.success : IMPORTANCE_STEP.failure
  return {
    due: new Date(Date.parse(now) + interval * DAY_MS).toISOString(),
    interval,
    ease,
    reps,
    lapses: prev.lapses + (recalled ? 0 : 1),
    reviewed_at: now,
    importance: round2(Math.min(1, Math.max(0, prev.importance + step))),
  }
}
