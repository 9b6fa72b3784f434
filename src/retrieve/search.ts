/**
 * The search pipeline, pure over an in-memory view: eligibility (status) and filters (tags AND,
 * closed time range, entities AND) first, then BM25 over the query terms plus alias terms at low
 * weight, the keyword-match boost, a memory made of others spread over its sources (perSource),
 * the strong-term rule, ties by id, top_k, and guidance for the agent (zero hits: what the store
 * holds and how to browse; alias hits: that they were inferred).
 * Identifiers the query shares with a memory (identifiers.ts) are matched exactly and rank first
 * (`literalMatch`); the answer says why it holds what it holds (`reason`, `nearMisses`,
 * search-outcome.ts). It reads no files and writes nothing; signals are the caller's business.
 */

import { briefOf, type IndexEntry } from '../types.js'
import { memories } from '../text.js'
import type { AliasTable } from './aliases.js'
import { identifiersOf } from './identifiers.js'
import { namesKeyword, type KeywordLookup } from './keywords.js'
import { RANKING, isSearchable, type RankedDoc, type SearchIndex } from './search-index.js'
import { nearMisses, reasonGuidance, type NearMiss, type SearchReason } from './search-outcome.js'
import { answerTermsFor, readQuestion } from '../language/question-words.js'
import { isStrongTerm, tokenize } from '../language/tokenizer.js'
import { premisesConflict } from '../store/premises.js'
import { inRoomOf } from '../store/place-fields.js'
import { importanceOf } from '../store/review-fields.js'

export interface SearchRequest {
  query: string
  tags?: string[]
  entities?: string[]
  time_range?: { from?: string; to?: string }
  top_k: number
  /** Premises (canonical, premises.ts): memories whose premises conflict with them are left out. */
  scope?: string
  /** The time the entries were taken as of (memory_search_hybrid's asOf), for the guidance only. */
  asOf?: string
  /**
   * A memory's effective importance, 0-1 (its own plus strength from use: memory/organisation/
   * strength.ts); absent: the importance its file states (store/review-fields.ts importanceOf).
   */
  importance?: (entry: IndexEntry) => number
  /** Only memories standing in this room or a room grown from it (`topics` holds `topics-2`; place-fields.ts inRoomOf). */
  room?: string
  /** The time recency is counted to (ms since the epoch); absent: no recency boost, the ranking stays a function of the entries alone. */
  now?: number
}

/**
 * The boost a memory's match is multiplied by for being important and recent, modest by design:
 * importance moves it by at most importanceWeight / 2 either way from the default 0.5 (0.95 at 0,
 * 1.05 at 1), recency raises it by up to recencyWeight, halving every recencyHalfLifeDays of age
 * (a memory's time to the request's `now`). So an important, recent memory passes one that
 * matches about as well, never one that matches clearly better. Documented once, here.
 */
export const BOOSTS = Object.freeze({
  recencyWeight: 0.1,
  recencyHalfLifeDays: 30,
  importanceWeight: 0.1,
})
const DAY_MS = 86_400_000

/** A boost finer than a hundredth says nothing: memories that match as well and are about as old stay tied (then by id). */
const boostStep = (x: number) => Math.round(x * 100) / 100

/** The largest boost a request can give (1.05, or 1.16 counting recency): how far the draw must reach for a boosted memory. */
export function maxBoost(req: Pick<SearchRequest, 'now'>): number {
  const importance = 1 + BOOSTS.importanceWeight / 2
  return boostStep(req.now === undefined ? importance : importance * (1 + BOOSTS.recencyWeight))
}

/** The factor a memory's score is multiplied by for its importance (0-1) and, to `now` when given, its recency, in hundredths. Pure. */
export function boostOf(e: Pick<IndexEntry, 'time' | 'review' | 'importance'>, now: number | undefined, importance: number = importanceOf(e)): number {
  const weight = 1 + BOOSTS.importanceWeight * (Math.min(1, Math.max(0, importance)) - 0.5)
  const at = now === undefined ? Number.NaN : Date.parse(e.time)
  if (Number.isNaN(at)) return boostStep(weight)
  const ageDays = Math.max(0, (now as number) - at) / DAY_MS
  return boostStep(weight * (1 + BOOSTS.recencyWeight * 2 ** (-ageDays / BOOSTS.recencyHalfLifeDays)))
}

export interface SearchHit {
  id: string
  path: string
  type: IndexEntry['type']
  title: string
  summary: string
  status: IndexEntry['status']
  time: string
  tags: string[]
  score: number
  /**
   * `meaning`: found by the embedder's vectors only (fusion.ts), sharing no search word with the
   * query; `linked`: not found, but linked to a hit (memory/organisation/room-search.ts).
   */
  reason: 'match' | 'alias' | 'meaning' | 'linked'
  /** Where the memory stands in the palace, `room#slot`. */
  location?: string
  /** Cosine similarity to the query, for a hit the vector side found (fusion.ts). */
  similarity?: number
  /** How many identifiers (D-387, a sha, a version) the query shares with it; such hits come first. */
  literalMatch?: number
  /**
   * For a memory made from others (a folded exchange, a promoted topic, a session summary): the
   * ids it was made from, those whose own text matches the query best first (sourceOrder), the
   * rest in their own order: which one to open first.
   */
  sources?: string[]
}

export interface SearchResult {
  hits: SearchHit[]
  guidance: string
  /** How many hits were found only through alias terms. */
  alias_hits: number
  /** Searchable memories that passed the filters (before ranking). */
  eligible: number
  /** On zero hits: the most common tags, for a retry. */
  common_tags?: string[]
  /** Why the answer holds what it holds. */
  reason: SearchReason
  /** On below-threshold: the closest memories, which are not matches. Empty otherwise. */
  nearMisses: NearMiss[]
}

/** The view of the index a search needs. */
export interface EntrySource {
  get(id: string): IndexEntry | undefined
  values(): Iterable<IndexEntry>
}

function lowerSet(items: readonly string[]): Set<string> {
  return new Set(items.map((s) => s.normalize('NFKC').toLowerCase().trim()))
}

/** A predicate for the request's filters, applied before scoring. */
export function filterOf(req: SearchRequest): (e: IndexEntry) => boolean {
  const tags = req.tags && req.tags.length > 0 ? lowerSet(req.tags) : null
  const entities = req.entities && req.entities.length > 0 ? lowerSet(req.entities) : null
  const from = req.time_range?.from ? Date.parse(req.time_range.from) : null
  const to = req.time_range?.to ? Date.parse(req.time_range.to) : null
  return (e) => {
    if (!isSearchable(e)) return false
    if (tags) {
      const have = lowerSet(e.tags)
      for (const t of tags) if (!have.has(t)) return false
    }
    if (entities) {
      const have = lowerSet(e.entities)
      for (const t of entities) if (!have.has(t)) return false
    }
    if (from !== null || to !== null) {
      const at = Date.parse(e.time)
      if (Number.isNaN(at)) return false
      if (from !== null && at < from) return false
      if (to !== null && at > to) return false
    }
    if (req.scope !== undefined && premisesConflict(e.scope, req.scope)) return false
    if (req.room !== undefined && !inRoomOf(req.room, e.location)) return false
    return true
  }
}

/** What a memory's match is multiplied by for the sources it stands for (RANKING.sourcePower); 1 for one made of none or one. */
export function perSource(entry: Pick<IndexEntry, 'derived_from'>): number {
  const n = entry.derived_from?.length ?? 0
  return n > 1 ? n ** -RANKING.sourcePower : 1
}

export function toHit(e: IndexEntry, score: number, reason: SearchHit['reason'], literalMatch = 0): SearchHit {
  return {
    ...briefOf(e),
    tags: e.tags,
    score: Math.round(score * 10_000) / 10_000,
    reason,
    ...(literalMatch > 0 ? { literalMatch } : {}),
    ...(e.location !== undefined ? { location: e.location } : {}),
    ...(e.derived_from !== undefined ? { sources: e.derived_from } : {}),
  }
}

/**
 * A derived memory's sources, best match to the query first: each source scores the weight of
 * every query term its own text holds times the term's rarity in the index (BM25's IDF over the
 * `total` searchable memories, `df` of them matching it); ties, and sources matching nothing,
 * keep their order (oldest first for an exchange). A source no longer known scores nothing.
 */
export function sourceOrder(ids: readonly string[], source: EntrySource, weights: ReadonlyMap<string, number>, df: (term: string) => number, total: number): string[] {
  const idf = (t: string) => {
    const n = df(t)
    return Math.log(1 + (total - n + 0.5) / (n + 0.5))
  }
  const score = (id: string): number => {
    const e = source.get(id)
    if (e === undefined) return 0
    let sum = 0
    for (const t of new Set(tokenize(e.summary))) if (weights.has(t)) sum += (weights.get(t) as number) * idf(t)
    return sum
  }
  const scores = new Map(ids.map((id) => [id, score(id)]))
  return [...ids].sort((a, b) => (scores.get(b) as number) - (scores.get(a) as number))
}

function commonTags(entries: Iterable<IndexEntry>, limit: number): string[] {
  const counts = new Map<string, number>()
  for (const e of entries) if (isSearchable(e)) for (const t of e.tags) counts.set(t, (counts.get(t) ?? 0) + 1)
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([t]) => t)
}


function zeroHitGuidance(source: EntrySource, req: SearchRequest): { guidance: string; common_tags: string[] } {
  const searchable = [...source.values()].filter(isSearchable)
  const tags = commonTags(searchable, 8)
  const latest = searchable
    .sort((a, b) => b.time.localeCompare(a.time) || a.id.localeCompare(b.id))
    .slice(0, 3)
    .map((e) => `"${e.title}"`)
  if (searchable.length === 0) {
    const guidance =
      req.asOf !== undefined
        ? `No memory was searchable as of ${req.asOf}: what the store holds was written, or became active, later. Search without asOf for what is known now.`
        : 'The memory store has no searchable memories yet.'
    return { guidance, common_tags: [] }
  }
  const filters = req.tags?.length || req.entities?.length || req.time_range || req.room !== undefined ? ' Try again without some of the filters, or' : ' Try'
  return {
    guidance:
      `No memory matched. The store holds ${memories(searchable.length)} that can be searched` +
      (tags.length > 0 ? `; common tags: ${tags.join(', ')}` : '') +
      (latest.length > 0 ? `; latest: ${latest.join(', ')}` : '') +
      `.${filters} other words (synonyms, the other language), or browse with memory_nav({ sort: "recent" }) before concluding it was never recorded.`,
    common_tags: tags,
  }
}

/**
 * Weight of a term a memory stating what the query's question words ask for holds (岁 for 几岁,
 * 上午 for 啥时候: language/question-words.ts). Such a term only adds to a hit that matched a
 * word of the query or an alias; it never makes one.
 */
const ANSWER_TERM_WEIGHT = 0.3

/**
 * The weighted terms of a query. A term said twice weighs twice. Single CJK characters only help,
 * at a low weight, and only in a long (conversational) query: there 2-gram matches are sparse
 * next to the query, while a short query is precise with its 2-grams and would pay for the long
 * lists of single characters with noise and time. Alias terms weigh aliasWeight. With a strong
 * term in the query (strongInQuery), single-character matches only add score.
 */
export function queryTerms(queryTokens: readonly string[], aliasTerms: readonly string[]): { weights: Map<string, number>; strongInQuery: boolean } {
  const strongCount = new Set(queryTokens.filter(isStrongTerm)).size
  const withUnigrams = strongCount === 0 || strongCount >= RANKING.cjkUnigramMinStrongTerms
  const weights = new Map<string, number>()
  for (const t of queryTokens) {
    if (isStrongTerm(t)) weights.set(t, (weights.get(t) ?? 0) + 1)
    else if (withUnigrams) weights.set(t, (weights.get(t) ?? 0) + RANKING.cjkUnigramWeight)
  }
  for (const t of aliasTerms) weights.set(t, RANKING.aliasWeight)
  return { weights, strongInQuery: [...queryTokens, ...aliasTerms].some(isStrongTerm) }
}

/**
 * Memories naming a keyword of the query are scored apart, each at once, when there are at most
 * this many: the draw of the others then stops at their own scores (a bound, not a tuning).
 */
const BOOSTED_APART_LIMIT = 64

/**
 * The ranked answer. With `keywords` (the lookup of the live store), the few memories a keyword
 * boost can raise are scored apart and the draw of the rest ends at the k-th best score instead
 * of that divided by the boost; without (or with many such memories), the draw reaches down by
 * the boost. Either way the same hits come out, in the same order.
 */
export function runSearch(source: EntrySource, index: SearchIndex, aliases: AliasTable | null, req: SearchRequest, keywords: KeywordLookup | null = null): SearchResult {
  const accept = filterOf(req)
  // Question words (啥时候, 几岁, 哪儿) are read as what they ask for, not searched as words; a
  // query of question words alone is searched as it is.
  const question = readQuestion(req.query)
  const contentTokens = tokenize(question.text)
  // The query's tokens as written: the same as contentTokens unless question words were taken out.
  const written = question.removed === 0 ? contentTokens : tokenize(req.query)
  const queryTokens = contentTokens.length > 0 ? contentTokens : written
  const filtered = (req.tags?.length ?? 0) > 0 || (req.entities?.length ?? 0) > 0 || req.time_range !== undefined || req.scope !== undefined || req.room !== undefined
  // Without filters every searchable memory is eligible, and the index holds exactly those.
  let eligible = filtered ? 0 : index.size
  if (filtered) for (const e of source.values()) if (accept(e)) eligible++

  if (queryTokens.length === 0) {
    // Browsing by filters only: the newest eligible memories.
    const browse = [...source.values()]
      .filter(accept)
      .sort((a, b) => b.time.localeCompare(a.time) || a.id.localeCompare(b.id))
      .slice(0, req.top_k)
      .map((e) => toHit(e, 0, 'match'))
    if (browse.length === 0) return { hits: [], alias_hits: 0, eligible, reason: 'empty-cue', nearMisses: [], ...zeroHitGuidance(source, req) }
    return { hits: browse, alias_hits: 0, eligible, reason: 'empty-cue', nearMisses: [], guidance: `No search words given: the newest ${memories(browse.length)} that pass the filters.` }
  }

  const querySet = new Set(queryTokens)
  // Alias groups read the query as written: a member may hold a question word (住哪 in home).
  const aliasTerms = aliases ? aliases.expand(written === queryTokens ? queryTokens : [...new Set([...queryTokens, ...written])]) : []
  const { weights, strongInQuery } = queryTerms(queryTokens, aliasTerms)
  // Terms of an answer to the question words only ever add score: a hit needs another term.
  const answerTerms = new Set(contentTokens.length > 0 ? answerTermsFor(question.asks).filter((t) => !weights.has(t) && !querySet.has(t)) : [])
  for (const t of answerTerms) weights.set(t, ANSWER_TERM_WEIGHT)
  const qualifies = (t: string) => !answerTerms.has(t) && (!strongInQuery || isStrongTerm(t))
  // The index holds only searchable memories: a per-result check is needed only with filters.
  const acceptId = filtered ? (id: string) => {
    const e = source.get(id)
    return e !== undefined && accept(e)
  } : null
  // With a strong term in the query, single-character matches only add score (the strong-term
  // rule), and so do answer terms: the ranking draws and counts only documents that matched a
  // term that qualifies.
  const drawQualified = strongInQuery || answerTerms.size > 0
  // Shared identifiers: exact whole-token matches, which rank before every other hit.
  const sharedIds = index.literal(identifiersOf(req.query), acceptId)
  // Those that a keyword boost can raise, when few enough to score apart (null: the draw reaches for them).
  const boosted = keywords?.naming(querySet, BOOSTED_APART_LIMIT) ?? null
  // Every match is boosted for importance and recency too (boostOf, at most maxBoost).
  const weighOf = req.importance
  const reach = (boosted === null ? RANKING.keywordMatchBoost : 1) * maxBoost(req)
  // The draw below wants top_k hits besides the shared ones, each raised by at most `reach`.
  const draw = { depth: req.top_k + sharedIds.size, reach }
  const ranking = index.rank([...weights.keys()], weights, acceptId, { strongOnly: drawQualified, qualifies, top: draw })
  const literalScore = new Map<string, number>()
  let matchedCount = ranking.count
  for (const id of sharedIds.keys()) {
    const r = ranking.get(id)
    if (r === undefined) continue
    literalScore.set(id, r.score)
    if (!drawQualified || r.matched.some(qualifies)) matchedCount--
  }

  // Results come best raw score first, and a boost multiplies by at most `reach`: once top_k hits
  // are in hand, the first result whose boosted score could not reach the k-th ends the draw (the
  // rest are only counted, above).
  const scored: Array<{ entry: IndexEntry; score: number; reason: SearchHit['reason'] }> = []
  const byScore = (a: { entry: IndexEntry; score: number }, b: { entry: IndexEntry; score: number }) =>
    b.score - a.score || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0)
  // A match's score: raised when the query names one of its keywords, spread over its sources,
  // boosted for importance and recency.
  const scoreOf = (entry: IndexEntry, raw: number) =>
    (namesKeyword(entry, querySet) ? raw * RANKING.keywordMatchBoost : raw) * perSource(entry) * boostOf(entry, req.now, weighOf?.(entry))
  let threshold = -Infinity
  const consider = (r: RankedDoc): void => {
    const entry = source.get(r.id)
    if (entry === undefined) return
    // perSource is at most 1, so r.score times `reach` stays an upper bound (the draw's break).
    const score = scoreOf(entry, r.score)
    // Below the k-th best it could only be cut again (ties at the k-th are ordered by id).
    if (score < threshold) return
    // Literal only through a term that could make a hit on its own: a shared single character
    // next to an alias match does not make the hit literal.
    const literal = r.matched.some((t) => querySet.has(t) && (isStrongTerm(t) || !strongInQuery))
    scored.push({ entry, score, reason: literal ? 'match' : 'alias' })
    if (scored.length >= req.top_k) {
      scored.sort(byScore)
      scored.length = req.top_k
      threshold = (scored[req.top_k - 1] as { score: number }).score
    }
  }
  // Each as the draw would give it: matched, eligible, and with a qualifying term when it must.
  for (const id of boosted ?? []) {
    const r = sharedIds.has(id) ? undefined : ranking.get(id)
    if (r !== undefined && (!drawQualified || r.matched.some(qualifies))) consider(r)
  }
  for (let r = ranking.next(); r !== undefined; r = ranking.next(threshold / reach)) {
    if (sharedIds.has(r.id) || boosted?.has(r.id) === true) continue
    if (r.score * reach < threshold) break
    consider(r)
  }
  scored.sort(byScore)
  const literalHits: SearchHit[] = []
  for (const [id, shared] of sharedIds) {
    const entry = source.get(id)
    if (entry === undefined) continue
    const score = literalScore.get(id) ?? 0
    literalHits.push(toHit(entry, scoreOf(entry, score), 'match', shared.length))
  }
  literalHits.sort((a, b) => (b.literalMatch ?? 0) - (a.literalMatch ?? 0) || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  matchedCount += literalHits.length
  // How many indexed memories hold each term: the rarity sourceOrder weighs a source's terms by.
  const dfs = new Map<string, number>()
  const df = (t: string) => dfs.get(t) ?? dfs.set(t, index.documentFrequency(t)).get(t) as number
  const top = [...literalHits, ...scored.map((h) => toHit(h.entry, h.score, h.reason))]
    .slice(0, req.top_k)
    .map((h) => (h.sources === undefined ? h : { ...h, sources: sourceOrder(h.sources, source, weights, df, index.size) }))
  const aliasHits = top.filter((h) => h.reason === 'alias').length

  if (top.length === 0) {
    const misses = eligible > 0 ? nearMisses(index, (id) => source.get(id), queryTokens, acceptId) : []
    const reason: SearchReason = misses.length > 0 ? 'below-threshold' : 'no-candidates'
    const zero = zeroHitGuidance(source, req)
    const why = reasonGuidance(reason, eligible, misses)
    return { hits: [], alias_hits: 0, eligible, reason, nearMisses: misses, ...zero, guidance: why === '' ? zero.guidance : `${why} ${zero.guidance}` }
  }
  const more = matchedCount > top.length ? ` ${matchedCount - top.length} more matched; raise top_k to see them.` : ''
  const inferred =
    aliasHits > 0 ? ` ${aliasHits} of them were inferred through synonyms (reason "alias"), not matched literally; if they are off, rephrase.` : ''
  const literalNote = literalHits.length > 0 ? ` ${literalHits.length} share an identifier with the query (literalMatch) and come first.` : ''
  return { hits: top, alias_hits: aliasHits, eligible, reason: 'ok', nearMisses: [], guidance: `${memories(top.length)} matched.${literalNote}${inferred}${more}` }
}
