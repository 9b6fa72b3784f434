/**
 * Why a search found what it found: the answer-level `reason` (`ok`, `below-threshold`,
 * `no-candidates`, `empty-cue`) and, when nothing passed the gate, the near misses: memories that
 * share only single characters with a query that has whole words, which the strong-term rule
 * keeps out of the hits. They are told apart from hits, never mixed in, so "not recorded" and
 * "recorded but worded differently" stop looking the same. Pure over the search index.
 */

import { RANKING, type SearchIndex } from './search-index.js'
import { isStrongTerm } from '../language/tokenizer.js'
import type { IndexEntry } from '../types.js'

export const SEARCH_REASONS = ['ok', 'below-threshold', 'no-candidates', 'empty-cue', 'nothing-stored'] as const
export type SearchReason = (typeof SEARCH_REASONS)[number]

/** How many near misses a zero-hit answer lists. */
export const NEAR_MISS_LIMIT = 3

/** A memory that came close without matching: not a hit, shown so the agent can judge. */
export interface NearMiss {
  id: string
  path: string
  title: string
  summary: string
  score: number
  /** The query terms it shares (single characters only: a shared word would have made it a hit). */
  shared: string[]
}

/**
 * The closest memories that share only weak terms (single CJK characters, single letters or
 * digits) with the query, best first. Empty when the query has no weak term or none is shared.
 */
export function nearMisses(
  index: SearchIndex,
  get: (id: string) => IndexEntry | undefined,
  queryTokens: readonly string[],
  accept: ((id: string) => boolean) | null,
): NearMiss[] {
  const weak = [...new Set(queryTokens.filter((t) => !isStrongTerm(t)))]
  if (weak.length === 0) return []
  const weights = new Map(weak.map((t) => [t, RANKING.cjkUnigramWeight]))
  const out: NearMiss[] = []
  const ranking = index.rank(weak, weights, accept)
  for (let r = ranking.next(); r !== undefined && out.length < NEAR_MISS_LIMIT; r = ranking.next()) {
    const e = get(r.id)
    if (e === undefined) continue
    out.push({ id: e.id, path: e.path, title: e.title, summary: e.summary, score: Math.round(r.score * 10_000) / 10_000, shared: r.matched })
  }
  return out
}

/** The first sentence of the guidance of a zero-hit answer, by reason. */
export function reasonGuidance(reason: SearchReason, eligible: number, misses: readonly NearMiss[]): string {
  if (reason === 'below-threshold')
    return (
      `No memory shares a whole word with the query; ${misses.length} share only single characters and are listed in nearMisses. ` +
      'They are not matches: read them as guesses and check before relying on one.'
    )
  if (reason === 'no-candidates' && eligible > 0) return `None of the ${eligible} eligible memories shares a word with the query.`
  return ''
}
