/**
 * Strength from use: a memory said again (a duplicate write) or found by a search (one of a
 * search's top 5) grows stronger, within a bound, and the gain fades with time. Each use is a
 * line of usage.jsonl (signals.ts), so a use never rewrites a memory file; consolidation folds
 * the current value into the file as `strength` and `strength_at` (strength-fold.ts), where a
 * person reads it and where it survives the loss of usage.jsonl (a derived file).
 *
 * The numbers: a repeat gains 0.1, a search hit 0.02; gains halve every 30 days; their sum is
 * saturated to at most 0.3 (`max · (1 − e^(−sum / max))`, about the sum while it is small). A
 * memory's effective importance is its own (front-matter `importance`: the writer's, or what
 * retrieval practice made of it; 0.5 when none is stated) plus its strength, within 0-1.
 * Sums are kept as base-2 logarithms against a fixed epoch, so a sum over any span of years
 * neither overflows nor needs the times of its parts. Pure.
 */

import { importanceOf } from '../../store/review-fields.js'
import type { IndexEntry } from '../../types.js'

export const STRENGTH = Object.freeze({
  /** Gained by a repeat (a write the store already held). */
  repeatGain: 0.1,
  /** Gained by being one of a search's top 5 hits. */
  hitGain: 0.02,
  /** Days over which a gain halves. */
  halfLifeDays: 30,
  /** The most strength a memory can have. */
  max: 0.3,
})

const HALF_LIFE_MS = STRENGTH.halfLifeDays * 86_400_000
/** The time decayed sums are kept against (any fixed instant would do). */
const EPOCH_MS = Date.UTC(2025, 0, 1)

/** A decayed sum: log2 of Σ gain · 2^((at − epoch) / half-life); -Infinity for none. */
export type LogSum = number
export const EMPTY_SUM: LogSum = -Infinity

/** The sum with one more gain at `atMs`. */
export function addGain(sum: LogSum, gain: number, atMs: number): LogSum {
  const term = Math.log2(gain) + (atMs - EPOCH_MS) / HALF_LIFE_MS
  if (sum === -Infinity) return term
  const hi = Math.max(sum, term)
  return hi + Math.log2(1 + 2 ** (Math.min(sum, term) - hi))
}

/** What the sum is worth at `nowMs`, saturated at STRENGTH.max. */
export function sumAt(sum: LogSum, nowMs: number): number {
  if (sum === -Infinity) return 0
  const raw = 2 ** (sum - (nowMs - EPOCH_MS) / HALF_LIFE_MS)
  return STRENGTH.max * (1 - Math.exp(-raw / STRENGTH.max))
}

/** The folded value of a memory's file, faded to `nowMs`. */
function foldedAt(entry: Pick<IndexEntry, 'strength'>, nowMs: number): number {
  if (entry.strength === undefined) return 0
  const age = Math.max(0, nowMs - Date.parse(entry.strength.at))
  return Number.isNaN(age) ? 0 : Math.min(STRENGTH.max, entry.strength.value * 2 ** (-age / HALF_LIFE_MS))
}

/**
 * A memory's strength at `nowMs`: from its uses in usage.jsonl (`uses`, the decayed sum), or, when
 * that file lost them (deleted, rebuilt), from what the file last folded; the larger of the two,
 * as the uses behind a fold are still in the sum when the file is whole.
 */
export function strengthOf(entry: Pick<IndexEntry, 'strength'>, uses: LogSum, nowMs: number): number {
  return Math.max(foldedAt(entry, nowMs), sumAt(uses, nowMs))
}

/** Importance as ranking and decay read it: the file's own plus strength from use, within 0-1. */
export function effectiveImportance(entry: Pick<IndexEntry, 'importance' | 'review' | 'strength'>, uses: LogSum, nowMs: number): number {
  return Math.min(1, importanceOf(entry) + strengthOf(entry, uses, nowMs))
}

const round2 = (n: number) => Math.round(n * 100) / 100

/** The strength to write into a file at `nowMs` (two decimals), or null when it would say nothing new. */
export function foldValue(entry: Pick<IndexEntry, 'strength'>, uses: LogSum, nowMs: number): number | null {
  const value = round2(strengthOf(entry, uses, nowMs))
  const stated = entry.strength === undefined ? 0 : round2(foldedAt(entry, nowMs))
  return value > 0 && value !== stated ? value : null
}
