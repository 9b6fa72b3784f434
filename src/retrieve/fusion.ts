/**
 * Hybrid ranking: the keyword ranking (search.ts) and the vector ranking (vectors.ts) fused by
 * reciprocal-rank fusion, a memory's score being the sum over the lists it is in of
 * `1 / (FUSION.k + rank)` (rank from 1). RRF needs no calibration between BM25 scores and cosine
 * similarities, and k = 60 is the constant of Cormack, Clarke and Büttcher (SIGIR 2009): a
 * memory high in one list and absent from the other still ranks near one in the middle of both.
 *
 * Filters, scopes, statuses and as-of decide what is eligible before either side ranks: the
 * vector side scores only what the keyword side could have returned. Hits that share an
 * identifier with the query (`literalMatch`) still come first. Both sides rank with the recency
 * and importance boost (search.ts `boostOf`). A hit found only by vectors says
 * so (`reason: "meaning"`). With no embedder configured, or no vector close enough to the query,
 * `searchRanked` is exactly `runSearch` (plus, when the embedder failed, a note saying so).
 */

import type { MemoryBackend } from '../store/backend.js'
import { memories } from '../text.js'
import type { IndexEntry } from '../types.js'
import type { AliasTable } from './aliases.js'
import { embedderOf } from './embedder.js'
import type { KeywordLookup } from './keywords.js'
import type { SearchIndex } from './search-index.js'
import { boostOf, filterOf, runSearch, toHit, type EntrySource, type SearchHit, type SearchRequest, type SearchResult } from './search.js'
import { MIN_SIMILARITY, vectorSearch, type VectorSide } from './vectors.js'

export const FUSION = Object.freeze({
  /** The RRF constant. */
  k: 60,
  /** Candidates each side brings to the fusion (or top_k, when larger). */
  depth: 50,
  /** Cosine similarity below which the vector side brings nothing (vectors.ts). */
  minSimilarity: MIN_SIMILARITY,
})

/** RRF over ranked lists of ids (best first): id -> fused score. Pure. */
export function reciprocalRankFusion(lists: readonly (readonly string[])[], k: number = FUSION.k): Map<string, number> {
  const out = new Map<string, number>()
  for (const list of lists) list.forEach((id, i) => out.set(id, (out.get(id) ?? 0) + 1 / (k + i + 1)))
  return out
}

const round = (x: number) => Math.round(x * 1_000_000) / 1_000_000
const unusedNote = (error: string) => ` Vectors were not used: ${error}.`
/** Said while memories wait for their vectors: meaning search is configured but cannot find them yet. */
const pendingNote = (pending: number | undefined) =>
  pending !== undefined && pending > 0 ? ` ${memories(pending)} not embedded yet (written since the last embed), so meaning search cannot find them: run memory_embed.` : ''

/** The keyword result and the vector side (with at least one hit) as one answer of req.top_k hits. Pure. */
export function fuseResults(source: EntrySource, req: SearchRequest, keyword: SearchResult, vector: VectorSide): SearchResult {
  const literal = keyword.hits.filter((h) => (h.literalMatch ?? 0) > 0)
  const ranked = keyword.hits.filter((h) => (h.literalMatch ?? 0) === 0)
  const similarity = new Map(vector.hits.map((h) => [h.id, h.similarity]))
  // The vector side ranks with the same recency and importance boost as the keyword side (search.ts).
  const boosted = (id: string) => (similarity.get(id) as number) * boostOf(source.get(id) as IndexEntry, req.now, req.importance?.(source.get(id) as IndexEntry))
  const nearest = vector.hits.map((h) => h.id).sort((a, b) => boosted(b) - boosted(a) || (a < b ? -1 : a > b ? 1 : 0))
  const fused = reciprocalRankFusion([ranked.map((h) => h.id), nearest])
  for (const h of literal) fused.delete(h.id)
  const byId = new Map(ranked.map((h) => [h.id, h]))
  const order = [...fused.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const hits: SearchHit[] = [...literal]
  for (const [id, score] of order) {
    if (hits.length >= req.top_k) break
    const known = byId.get(id)
    const sim = similarity.get(id)
    const withSimilarity = sim !== undefined ? { similarity: sim } : {}
    if (known !== undefined) hits.push({ ...known, score: round(score), ...withSimilarity })
    else {
      const entry = source.get(id) as IndexEntry
      hits.push({ ...toHit(entry, 0, 'meaning'), score: round(score), ...withSimilarity })
    }
  }
  const top = hits.slice(0, req.top_k)
  const aliasHits = top.filter((h) => h.reason === 'alias').length
  const meaningHits = top.filter((h) => h.reason === 'meaning').length
  const found = new Set([...keyword.hits.map((h) => h.id), ...vector.hits.map((h) => h.id)]).size
  const literalNote = literal.length > 0 ? ` ${literal.length} share an identifier with the query (literalMatch) and come first.` : ''
  const aliasNote = aliasHits > 0 ? ` ${aliasHits} of them were inferred through synonyms (reason "alias"), not matched literally; if they are off, rephrase.` : ''
  const meaningNote = meaningHits > 0 ? ` ${meaningHits} of them were found by meaning (reason "meaning"), sharing no search word with the query: check that they fit.` : ''
  const more = found > top.length ? ` ${found - top.length} more were candidates; raise top_k to see them.` : ''
  return {
    hits: top,
    alias_hits: aliasHits,
    eligible: keyword.eligible,
    reason: 'ok',
    nearMisses: [],
    guidance: `${memories(top.length)} matched.${literalNote}${aliasNote}${meaningNote}${more}`,
  }
}

export interface RankingState {
  entries: EntrySource
  index: SearchIndex
  aliases: AliasTable | null
  keywords: KeywordLookup | null
}

/**
 * A search of the store: keyword-only (runSearch, unchanged) when it has no embedder or the
 * query has no text; keyword and vector candidates fused otherwise.
 */
export async function searchRanked(backend: MemoryBackend, state: RankingState, req: SearchRequest): Promise<SearchResult> {
  if (req.query.trim() === '' || (await embedderOf(backend)) === null) return runSearch(state.entries, state.index, state.aliases, req, state.keywords)
  const accept = filterOf(req)
  const acceptId = (id: string) => {
    const e = state.entries.get(id)
    return e !== undefined && accept(e)
  }
  const depth = Math.max(req.top_k, FUSION.depth)
  const vector = await vectorSearch(backend, req.query, depth, acceptId)
  if (vector === null || vector.hits.length === 0) {
    // Nothing close in meaning (or no vector yet): the keyword answer as it is, saying why vectors were left out.
    const keyword = runSearch(state.entries, state.index, state.aliases, req, state.keywords)
    const notes = `${vector?.error !== undefined ? unusedNote(vector.error) : ''}${pendingNote(vector?.pending)}`
    return notes !== '' ? { ...keyword, guidance: `${keyword.guidance}${notes}` } : keyword
  }
  const fused = fuseResults(state.entries, req, runSearch(state.entries, state.index, state.aliases, { ...req, top_k: depth }, state.keywords), vector)
  return vector.pending !== undefined ? { ...fused, guidance: `${fused.guidance}${pendingNote(vector.pending)}` } : fused
}
