/**
 * How the answers of the project store and the personal store become one answer, per tool: each
 * listed memory says its `store`, search hits are ranked together and cut to top_k, nav pages are
 * interleaved in the asked order, verify takes the most decisive verdict, and counting tools
 * (forgets) add up. Pure: values in, value out; the stores are read by route.ts.
 */

import { SORTS, type NavSort } from '../memory/reading/browse.js'
import type { StoreName } from './kind.js'

export type Out = Record<string, unknown>
/** One store's answer, named. */
export type Answer = readonly [StoreName, Out]

type Listed = Record<string, unknown>

const listOf = (value: unknown): Listed[] => (Array.isArray(value) ? (value as Listed[]) : [])
const tagAll = (value: unknown, store: StoreName): Listed[] => listOf(value).map((m) => ({ ...m, store }))

/** Marks every memory an answer lists with its store (search hits, nav entries, verify refs). */
export function tagAnswer(toolName: string, store: StoreName, out: Out): Out {
  switch (toolName) {
    case 'memory_search_hybrid':
      return { ...out, hits: tagAll(out['hits'], store), store }
    case 'memory_nav':
      return { ...out, entries: tagAll(out['entries'], store), store }
    case 'memory_verify': {
      const support = out['support']
      return {
        ...out,
        support: support !== null && typeof support === 'object' ? { ...support, store } : null,
        contradicting: tagAll(out['contradicting'], store),
        newer_related: tagAll(out['newer_related'], store),
        superseded_matches: tagAll(out['superseded_matches'], store),
        store,
      }
    }
    default:
      return { ...out, store }
  }
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0)
const str = (v: unknown) => (typeof v === 'string' ? v : '')

/** Fields only one side may carry: kept when either has them. */
function optional(name: string, a: Out, b: Out, combine: (x: unknown, y: unknown) => unknown): Out {
  if (a[name] === undefined && b[name] === undefined) return {}
  return { [name]: a[name] === undefined ? b[name] : b[name] === undefined ? a[name] : combine(a[name], b[name]) }
}

/**
 * Fields a merge does not know (a tool grew one): the project's value, else the personal store's.
 * The known fields are set after this, so they always win.
 */
const unmerged = (a: Out, b: Out): Out => ({ ...b, ...a })

const concat = (x: unknown, y: unknown) => [...listOf(x), ...listOf(y)]
const sum = (x: unknown, y: unknown) => num(x) + num(y)

/**
 * Guidance of two stores: one text when they agree, else each store's, labelled. `labelled`
 * keeps the labels even when the texts agree: "1 memory matched." said once after hits from both
 * stores would miscount them.
 */
function guidanceOf(answers: readonly Answer[], field = 'guidance', labelled = false): string {
  const texts = answers.map(([s, o]) => [s, str(o[field])] as const).filter(([, t]) => t !== '')
  if (!labelled && new Set(texts.map(([, t]) => t)).size <= 1) return texts[0]?.[1] ?? ''
  return texts.map(([s, t]) => `[${s} store] ${t}`).join('\n')
}

/** As many linked memories as the store that added more did (each store caps its own). */
function linkedCap(a: Out, b: Out): number {
  const count = (o: Out) => listOf(o['hits']).filter((h) => h['reason'] === 'linked').length
  return Math.max(count(a), count(b))
}

/**
 * Search over both stores: hits ranked together the way one store ranks them (exact identifier
 * matches first, then score, ties by id) and cut to top_k, the memories linked to a kept hit
 * after them. Scores are each store's own BM25, so
 * a tie across stores is not a statement that two memories are equally good.
 */
export function mergeSearch(answers: readonly [Answer, Answer], topK: number): Out {
  const [[sa, a], [sb, b]] = answers
  const all = [...tagAll(a['hits'], sa), ...tagAll(b['hits'], sb)]
  const direct = all
    .filter((h) => h['reason'] !== 'linked')
    .sort((x, y) => num(y['literalMatch']) - num(x['literalMatch']) || num(y['score']) - num(x['score']) || str(x['id']).localeCompare(str(y['id'])))
    .slice(0, topK)
  // Linked memories follow the hits, those of a hit the cut kept only, in the kept hits' order.
  const kept = new Map(direct.map((h, i) => [`${str(h['store'])}\u0000${str(h['id'])}`, i]))
  const rank = (h: Listed) => kept.get(`${str(h['store'])}\u0000${str(h['linked_from'])}`)
  const linked = all
    .filter((h) => h['reason'] === 'linked' && rank(h) !== undefined)
    .sort((x, y) => (rank(x) as number) - (rank(y) as number))
    .slice(0, linkedCap(a, b))
  const hits = [...direct, ...linked]
  const reasons = new Set([a['reason'], b['reason']])
  const reason =
    reasons.size === 1 ? a['reason'] : hits.length > 0 ? 'ok' : reasons.has('below-threshold') ? 'below-threshold' : 'no-candidates'
  const misses = concat(a['nearMisses'], b['nearMisses']).sort((x, y) => num(y['score']) - num(x['score']))
  const withHits = answers.filter(([, o]) => listOf(o['hits']).length > 0)
  return {
    ...unmerged(a, b),
    hits,
    // The guidance of a store that found something is the one to act on; when both did, each
    // store's text is its own count, labelled.
    guidance: guidanceOf(withHits.length === 1 ? withHits : answers, 'guidance', withHits.length === 2),
    alias_hits: hits.filter((h) => h['reason'] === 'alias').length,
    eligible: num(a['eligible']) + num(b['eligible']),
    reason,
    nearMisses: misses.slice(0, Math.max(listOf(a['nearMisses']).length, listOf(b['nearMisses']).length)),
    ...optional('common_tags', a, b, (x, y) => [...new Set([...(x as string[]), ...(y as string[])])]),
    ...optional('scopeExcluded', a, b, sum),
    ...optional('guards', a, b, concat),
    ...optional('injectionWarnings', a, b, concat),
    ...optional('nearby', a, b, concat),
    ...optional('rooms', a, b, (x, y) => [...new Set([...(x as string[]), ...(y as string[])])]),
    store: 'all',
  }
}

function sumCounts(x: unknown, y: unknown): Record<string, number> {
  const out: Record<string, number> = { ...(x as Record<string, number>) }
  for (const [k, v] of Object.entries(y as Record<string, number>)) out[k] = (out[k] ?? 0) + v
  return out
}

/**
 * One nav page over both stores. Each answer must be the first `offset + limit` entries of its
 * store (route.ts asks for them), so the merged page is exact for every offset.
 */
export function mergeNav(answers: readonly [Answer, Answer], page: { offset: number; limit: number; sort: NavSort }): Out {
  const [[sa, a], [sb, b]] = answers
  const order = SORTS[page.sort] as unknown as (x: Listed, y: Listed) => number
  const all = [...tagAll(a['entries'], sa), ...tagAll(b['entries'], sb)].sort(order)
  const entries = all.slice(page.offset, page.offset + page.limit)
  const total = num(a['total']) + num(b['total'])
  const fa = a['facets'] as { types: Record<string, number>; statuses: Record<string, number> }
  const fb = b['facets'] as typeof fa
  return {
    ...unmerged(a, b),
    entries,
    total,
    offset: page.offset,
    limit: page.limit,
    has_more: page.offset + entries.length < total,
    facets: { types: sumCounts(fa.types, fb.types), statuses: sumCounts(fa.statuses, fb.statuses) },
    // The project's README and folder note stand for both: they say what a store is.
    ...(a['readme'] !== undefined ? { readme: a['readme'] } : {}),
    ...(a['folder'] !== undefined ? { folder: a['folder'] } : {}),
    ...optional('skipped_index_lines', a, b, sum),
    ...optional('injectionWarnings', a, b, concat),
    ...optional('nearby', a, b, concat),
    ...optional('rooms', a, b, (x, y) => [...new Set([...(x as string[]), ...(y as string[])])]),
    store: 'all',
  }
}

/** Which verdict wins across stores: a contradiction must be seen, then support. */
const VERDICT_RANK = ['contradicted', 'supported', 'out_of_scope', 'unknown']

/** Verify over both stores: the answer of the store with the most decisive verdict (project on a tie). */
export function mergeVerify(answers: readonly [Answer, Answer]): Out {
  const rank = (o: Out) => {
    const r = VERDICT_RANK.indexOf(str(o['verdict']))
    return r < 0 ? VERDICT_RANK.length : r
  }
  const [first, second] = answers
  const [store, out] = rank(second[1]) < rank(first[1]) ? second : first
  return { ...tagAnswer('memory_verify', store, out), store }
}

/**
 * Two answers of a counting tool (forgets) as one: numbers add, lists join, flags or, texts join
 * (labelled by store when they differ), objects merge field by field.
 */
export function mergeCounts(answers: readonly [Answer, Answer]): Out {
  const [[sa, a], [sb, b]] = answers
  const combine = (x: unknown, y: unknown, field: string): unknown => {
    if (x === undefined) return y
    if (y === undefined) return x
    if (typeof x === 'number' && typeof y === 'number') return x + y
    if (typeof x === 'boolean' && typeof y === 'boolean') return x || y
    if (Array.isArray(x) && Array.isArray(y)) return [...(x as unknown[]), ...(y as unknown[])]
    if (typeof x === 'string' && typeof y === 'string') return x === y ? x : guidanceOf([[sa, { [field]: x }], [sb, { [field]: y }]], field)
    if (typeof x === 'object' && typeof y === 'object' && x !== null && y !== null) {
      const out: Out = {}
      for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) out[k] = combine((x as Out)[k], (y as Out)[k], k)
      return out
    }
    return x
  }
  return { ...(combine(a, b, '') as Out), store: 'all' }
}

const pick = (o: Out, keys: readonly string[]): Out => Object.fromEntries(keys.map((k) => [k, o[k]]))

/** Two stores' memory_stats as one: counts add up, `byStore` says each store's total, the latest write and the less fresh index win. */
export function mergeStats(answers: readonly [Answer, Answer]): Out {
  const [[, a], [, b]] = answers
  const sum = mergeCounts(answers)
  const latest = [a['lastWrite'], b['lastWrite']].filter((t): t is string => typeof t === 'string').sort().at(-1) ?? null
  const stateOf = (o: Out) => (o['index'] as Out | undefined)?.['state']
  const state = stateOf(a) === 'refreshed' || stateOf(b) === 'refreshed' ? 'refreshed' : 'fresh'
  // Vectors of two stores add up, but share the one embedder (and its dimensions).
  const vectors = a['embeddings'] !== undefined && b['embeddings'] !== undefined ? { embeddings: { ...(sum['embeddings'] as Out), ...pick(a['embeddings'] as Out, ['kind', 'embedder', 'dim', 'bytesPerVector', 'completedEmbedder']) } } : {}
  return { ...sum, ...vectors, lastWrite: latest, index: { ...(sum['index'] as Out), state }, byStore: { project: a['total'], user: b['total'] } }
}
