/**
 * The review fields of a memory file: its retrieval-practice schedule (SM-2) as the front-matter
 * states it (`review_due`, `review_interval`, `review_ease`, `review_reps`, `review_lapses`,
 * `reviewed_at`, `importance`), or `review: off` for a memory kept out of practice (backfilled
 * ones, or any a person opts out). Owns how they are read from a file (for `entryFromFile`, the
 * single derivation) and from an index line, and the predicate decay asks (`isUnderReview`).
 * An entry carries `review` only when the file states it. Pure.
 */

import type { IndexEntry, ReviewState } from '../types.js'

export type ReviewFields = Pick<IndexEntry, 'review' | 'importance' | 'strength'>

/** The front-matter names, as a person writes them. */
export const REVIEW_FRONT_MATTER = ['review', 'review_due', 'review_interval', 'review_ease', 'review_reps', 'review_lapses', 'reviewed_at', 'importance', 'strength', 'strength_at'] as const

export const DEFAULT_EASE = 2.5
export const MIN_EASE = 1.3
export const DEFAULT_IMPORTANCE = 0.5

function time(value: unknown): string | null {
  const s = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value.trim() : null
  if (s === null || s === '') return null
  const ms = Date.parse(s)
  return Number.isNaN(ms) ? null : new Date(ms).toISOString()
}

function count(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN
  return Number.isInteger(n) && n >= 0 ? n : 0
}

function number(value: unknown, fallback: number, min: number, max: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback
}

/** `off`, `false` or `no` (YAML may hand a boolean): the memory is kept out of practice. */
function isOff(value: unknown): boolean {
  return value === false || (typeof value === 'string' && ['off', 'false', 'no'].includes(value.trim().toLowerCase()))
}

function stateOf(r: Record<string, unknown>, due: string): ReviewState {
  return {
    due,
    interval: count(r.review_interval ?? r.interval),
    ease: number(r.review_ease ?? r.ease, DEFAULT_EASE, MIN_EASE, 5),
    reps: count(r.review_reps ?? r.reps),
    lapses: count(r.review_lapses ?? r.lapses),
    reviewed_at: time(r.reviewed_at),
    importance: number(r.importance, DEFAULT_IMPORTANCE, 0, 1),
  }
}

/** A number brought within 0-1 (as the schedule reads it), or undefined for anything not a number. */
function unit(value: unknown): number | undefined {
  const n = number(value, NaN, 0, 1)
  return Number.isNaN(n) ? undefined : n
}

/** Importance and folded strength, each only when stated (and valid). */
function weightFields(importance: unknown, strength: unknown, strengthAt: unknown): ReviewFields {
  const imp = unit(importance)
  const value = unit(strength)
  const at = time(strengthAt)
  return { ...(imp !== undefined ? { importance: imp } : {}), ...(value !== undefined && at !== null ? { strength: { value, at } } : {}) }
}

/** The review fields a file states: a schedule needs `review_due`; `review: off` wins over it. Importance and strength stand on their own. */
export function reviewFieldsFromFrontMatter(data: Record<string, unknown>): ReviewFields {
  const weights = weightFields(data.importance, data.strength, data.strength_at)
  if (isOff(data.review)) return { review: 'off', ...weights }
  const due = time(data.review_due)
  return due === null ? weights : { review: stateOf(data, due), ...weights }
}

/** The review fields of an index line (written by this program, but read defensively). */
export function reviewFieldsFromIndexLine(r: Record<string, unknown>): ReviewFields {
  const s = typeof r.strength === 'object' && r.strength !== null ? (r.strength as Record<string, unknown>) : {}
  const weights = weightFields(r.importance, s.value, s.at)
  if (r.review === 'off') return { review: 'off', ...weights }
  if (typeof r.review !== 'object' || r.review === null) return weights
  const rec = r.review as Record<string, unknown>
  const due = time(rec.due)
  return due === null ? weights : { review: stateOf(rec, due), ...weights }
}

/** How much a memory matters as its file states it (retrieval practice moves it), the default when it states none. */
export function importanceOf(entry: Pick<IndexEntry, 'importance' | 'review'>): number {
  return entry.importance ?? (typeof entry.review === 'object' ? entry.review.importance : DEFAULT_IMPORTANCE)
}

/**
 * True for a memory in retrieval practice: graded at least once, so its schedule (not idleness)
 * decides its fate. Decay must leave such a memory alone.
 */
export function isUnderReview(entry: Pick<IndexEntry, 'review'>): boolean {
  return typeof entry.review === 'object' && entry.review.reviewed_at !== null
}

/** Front-matter for a schedule, every field named; `review: null` clears an opt-out. */
export function reviewFrontMatter(state: ReviewState): Record<string, unknown> {
  return {
    review: null,
    review_due: state.due,
    review_interval: state.interval,
    review_ease: state.ease,
    review_reps: state.reps,
    review_lapses: state.lapses,
    reviewed_at: state.reviewed_at,
    importance: state.importance,
  }
}
