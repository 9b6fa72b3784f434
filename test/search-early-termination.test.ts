/**
 * Early termination in the search index (RankOptions.top, max-score over the per-term bounds the
 * segments store) against the full scoring of every posting, over random Chinese and English
 * corpora with edits, tombstones, saves, merges and reopening, random query weights, random
 * filters, strongOnly and `qualifies`: a caller that draws as search.ts does (until a document's
 * score times the reach falls under its k-th best) must get the same documents with the same
 * scores in the same order, the same count, and the same answer from `get`. Drawing every
 * document (past the early-terminated part) must give the full ranking itself.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend } from '../src/api.js'
import { isStrongTerm, tokenize } from '../src/language/tokenizer.js'
import { SearchIndex, type RankedDoc, type RankedDocs } from '../src/retrieve/search-index.js'
import { loadSearchIndex, saveSearchIndex } from '../src/retrieve/segment-files.js'
import type { IndexEntry } from '../src/types.js'
import { indexEntry } from './backend-suite.js'

const roots: string[] = []
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

const ZH = ['数据库', '迁移', '配置', '端口', '咖啡', '牛奶', '会议', '周末', '旅行', '发票', '账单', '用户', '喜欢', '部署', '日志', '北京', '服务', '版本']
const EN = ['database', 'migration', 'coffee', 'milk', 'meeting', 'weekend', 'travel', 'invoice', 'billing', 'deploy', 'logs', 'server', 'backup', 'release', 'family', 'study']
const TAGS = ['work', 'life', '项目', 'travel', '饮食']

function entry(id: string, summary: string, tags: string[], version: number): IndexEntry {
  return indexEntry(id, { type: 'episode', title: summary.slice(0, 12), summary, tags, session_id: null, status: 'active', checksum: `c${id}-${version}` })
}

// Skewed word choice (a few words in most documents) so that long postings and many ties occur.
const wordArb = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(ZH[0]!, ZH[16]!, EN[0]!, EN[15]!) }, { weight: 4, arbitrary: fc.constantFrom(...ZH, ...EN) })
const textArb = fc.tuple(fc.array(wordArb, { minLength: 1, maxLength: 10 }), fc.boolean()).map(([ws, zh]) => (zh ? ws.join('') : ws.join(' ')))

type Op = { kind: 'put'; doc: number; text: string; tags: string[]; context: string } | { kind: 'drop'; doc: number } | { kind: 'save' } | { kind: 'reopen' }
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('put' as const), doc: fc.nat(120), text: textArb, tags: fc.subarray(TAGS), context: fc.oneof(fc.constant(''), fc.constant(''), textArb) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), doc: fc.nat(120) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'save' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
)

const termPool = [...new Set([...ZH, ...EN].flatMap((w) => tokenize(w)))]
const queryArb = fc.record({
  terms: fc.uniqueArray(fc.constantFrom(...termPool), { minLength: 1, maxLength: 7 }),
  weights: fc.array(fc.constantFrom(1, 2, 0.5, 0.25, 0.3), { minLength: 7, maxLength: 7 }),
  strongOnly: fc.boolean(),
  /** The terms that qualify: strong ones (the default), or a random subset (answer terms left out). */
  qualifyEvery: fc.nat(3),
  /** A filter keeping ids whose number has this remainder, or none. */
  filter: fc.option(fc.tuple(fc.integer({ min: 2, max: 4 }), fc.nat(3)), { nil: null }),
  depth: fc.integer({ min: 1, max: 12 }),
  reach: fc.constantFrom(1, 1.5, 2),
})

type Query = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never

/** What search.ts draws: until a document's score times reach falls under its depth-th best (boosts left out: the bar is the same). */
function drawAsSearch(ranking: RankedDocs, depth: number, reach: number): RankedDoc[] {
  const out: RankedDoc[] = []
  let threshold = -Infinity
  for (let r = ranking.next(); r !== undefined; r = ranking.next(threshold / reach)) {
    if (r.score * reach < threshold) break
    out.push(r)
    if (out.length >= depth) threshold = Math.max(threshold, out[depth - 1]!.score)
  }
  return out
}

const view = (docs: RankedDoc[]) => docs.map((r) => ({ id: r.id, score: r.score, matched: r.matched }))

/** One query against the index: the pruned ranking draws, counts and finds what the full one does. */
function checkQuery(index: SearchIndex, q: Query): void {
  const weights = new Map(q.terms.map((t, i) => [t, q.weights[i] ?? 1]))
  const qualifies = q.qualifyEvery === 0 ? isStrongTerm : (t: string) => termPool.indexOf(t) % (q.qualifyEvery + 1) !== 0
  const accept = q.filter === null ? null : (id: string) => Number(id.slice(1)) % q.filter![0] === q.filter![1]
  const options = { strongOnly: q.strongOnly, qualifies }
  const full = index.rank(q.terms, weights, accept, options)
  const pruned = index.rank(q.terms, weights, accept, { ...options, top: { depth: q.depth, reach: q.reach } })
  expect(pruned.count).toBe(full.count)
  const expected = drawAsSearch(full, q.depth, q.reach)
  expect(view(drawAsSearch(pruned, q.depth, q.reach))).toEqual(view(expected))
  for (const r of expected) expect(pruned.get(r.id)).toMatchObject({ id: r.id, score: r.score, matched: r.matched })
  for (let doc = 0; doc <= 120; doc += 7) {
    const id = `m${doc}`
    const [a, b] = [full.get(id), pruned.get(id)]
    expect(b === undefined ? undefined : { score: b.score, matched: b.matched }, id).toEqual(a === undefined ? undefined : { score: a.score, matched: a.matched })
  }
  // A caller that takes the first `depth` and stops (no bar): the full ranking's first `depth`.
  const firstOf = (r: RankedDocs, n: number) => {
    const out: RankedDoc[] = []
    for (let d: RankedDoc | undefined; out.length < n && (d = r.next()) !== undefined; ) out.push(d)
    return out
  }
  expect(view(firstOf(index.rank(q.terms, weights, accept, { ...options, top: { depth: q.depth, reach: q.reach } }), q.depth))).toEqual(view(firstOf(index.rank(q.terms, weights, accept, options), q.depth)))
  // Every document, past what the early termination kept: the full ranking itself.
  const fullAgain = index.rank(q.terms, weights, accept, options)
  const prunedAgain = index.rank(q.terms, weights, accept, { ...options, top: { depth: q.depth, reach: q.reach } })
  const all = (r: RankedDocs) => {
    const out: RankedDoc[] = []
    for (let d = r.next(); d !== undefined; d = r.next()) out.push(d)
    return out
  }
  expect(view(all(prunedAgain))).toEqual(view(all(fullAgain)))
}

describe('early termination in the search index', () => {
  it('draws what the full scoring draws, counts what it counts, and finds what it finds, through filters, tombstones and reopening', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 160 }), fc.array(queryArb, { minLength: 1, maxLength: 6 }), async (ops, queries) => {
        const root = mkdtempSync(join(tmpdir(), 'early-termination-'))
        roots.push(root)
        const backend = createFileBackend(root)
        let index = SearchIndex.empty()
        let version = 0
        for (const op of ops) {
          if (op.kind === 'put') index.apply({ entry: entry(`m${op.doc}`, op.text, op.tags, version++), context: op.context })
          else if (op.kind === 'drop') index.remove(`m${op.doc}`)
          else {
            await saveSearchIndex(backend, index, null)
            if (op.kind === 'reopen') index = (await loadSearchIndex(backend)) ?? SearchIndex.empty()
          }
        }
        for (const q of queries) checkQuery(index, q)
      }),
      { numRuns: 80, seed: 1818 },
    )
  }, 240_000)

  it('draws exactly over long postings: segments of up to a few thousand documents, tombstones, reopening', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ docs: fc.integer({ min: 50, max: 3000 }), seed: fc.nat(), chunks: fc.integer({ min: 1, max: 4 }), dropOneIn: fc.integer({ min: 0, max: 12 }), reopen: fc.boolean() }),
        fc.array(queryArb, { minLength: 1, maxLength: 8 }),
        async (shape, queries) => {
          const root = mkdtempSync(join(tmpdir(), 'early-termination-long-'))
          roots.push(root)
          const backend = createFileBackend(root)
          let x = shape.seed
          const rnd = (n: number): number => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) % n)
          const common = [ZH[0]!, ZH[16]!, EN[0]!, EN[15]!]
          let index = SearchIndex.empty()
          const per = Math.ceil(shape.docs / shape.chunks)
          for (let i = 0; i < shape.docs; i++) {
            // Skewed and of varied length, so that runs span many blocks and their bounds differ.
            const words = Array.from({ length: 1 + rnd(12) }, () => (rnd(3) === 0 ? common[rnd(common.length)]! : [...ZH, ...EN][rnd(ZH.length + EN.length)]!))
            const text = rnd(2) === 0 ? words.join('') : words.join(' ')
            index.apply({ entry: entry(`m${i}`, text, rnd(4) === 0 ? [TAGS[rnd(TAGS.length)]!] : [], 1), context: '' })
            if ((i + 1) % per === 0 && i + 1 < shape.docs) await saveSearchIndex(backend, index, null)
          }
          if (shape.dropOneIn > 0) for (let i = rnd(shape.dropOneIn); i < shape.docs; i += shape.dropOneIn) index.remove(`m${i}`)
          if (shape.reopen) {
            await saveSearchIndex(backend, index, null)
            index = (await loadSearchIndex(backend)) ?? SearchIndex.empty()
          }
          for (const q of queries) checkQuery(index, q)
        },
      ),
      { numRuns: 40, seed: 1819 },
    )
  }, 240_000)

  it('skips postings: a two-term query over a long common list scores only the rare term\'s documents', () => {
    const index = SearchIndex.empty()
    for (let i = 0; i < 3000; i++) index.apply({ entry: entry(`d${i}`, i % 100 === 0 ? 'coffee kites' : `coffee ${EN[i % EN.length]}`, [], 1), context: '' })
    index.prepareSave() // sealed into a segment, whose postings carry their bounds
    const terms = tokenize('coffee kites')
    let accepted = 0
    const counting = (id: string) => {
      accepted++
      return id !== ''
    }
    const pruned = index.rank(terms, new Map(), counting, { top: { depth: 10, reach: 1.5 } })
    const kept = accepted
    const full = index.rank(terms, new Map(), null)
    expect(view(drawAsSearch(pruned, 10, 1.5))).toEqual(view(drawAsSearch(full, 10, 1.5)))
    // The filter is asked once per counted document (3,000) and once per document kept: the 30
    // with both words, not the 3,000 with one.
    expect(kept - 3000).toBeLessThanOrEqual(40)
  })
})
