/**
 * The segmented search index against a reference: minisearch configured exactly as the index it
 * replaced (the same tokenizer, fields, weights and BM25+ parameters), over random Chinese and
 * English documents and random edits (adds, changes, deletions, saves with seals and merges,
 * reopening from disk). For every query the two must match the same documents with the same
 * scores and the same matched terms, and the segmented one must draw them best first. Then the
 * binary layout: a damaged, truncated or other-version segment or manifest opens as null.
 */

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import fc from 'fast-check'
import MiniSearch from 'minisearch'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend } from '../src/api.js'
import { tokenize } from '../src/language/tokenizer.js'
import { RANKING, SearchIndex, documentOf, type ContextualEntry } from '../src/retrieve/search-index.js'
import { SEARCH_DIR, SEARCH_MANIFEST, loadSearchIndex, saveSearchIndex } from '../src/retrieve/segment-files.js'
import { SEGMENT_LAYOUT } from '../src/retrieve/segment.js'
import type { IndexEntry } from '../src/types.js'
import { indexEntry } from './backend-suite.js'

const roots: string[] = []
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})
function tempStore(): string {
  const root = mkdtempSync(join(tmpdir(), 'segments-'))
  roots.push(root)
  return root
}

const ZH = ['数据库', '迁移', '配置', '端口', '咖啡', '牛奶', '会议', '周末', '旅行', '发票', '账单', '用户', '喜欢', '部署', '日志', '北京']
const EN = ['database', 'migration', 'coffee', 'milk', 'meeting', 'weekend', 'travel', 'invoice', 'billing', 'deploy', 'logs', 'server', 'backup', 'rack', 'kites', 'gliders']
const TAGS = ['work', 'life', '项目', 'travel', '饮食']

function entry(id: string, summary: string, tags: string[], version: number, status: IndexEntry['status'] = 'active'): IndexEntry {
  return indexEntry(id, { type: 'episode', title: summary.slice(0, 12), summary, tags, session_id: null, status, checksum: `c${id}-${version}` })
}

/** The index as it was: minisearch with the same options, documents as documentOf gives them. */
function reference(items: readonly ContextualEntry[]): MiniSearch {
  const ms = new MiniSearch({
    idField: 'id',
    fields: ['content', 'keywords', 'context', 'identifiers'],
    storeFields: [],
    tokenize: (text: string, field?: string) => (field === 'identifiers' ? text.split(' ').filter((t) => t !== '') : tokenize(text)),
    processTerm: (term: string) => term,
    searchOptions: { boost: { ...RANKING.fieldWeights }, bm25: { k: RANKING.k1, b: RANKING.b, d: RANKING.d }, prefix: false, fuzzy: false, combineWith: 'OR' },
  })
  ms.addAll(items.map((i) => documentOf(i.entry, i.context)))
  return ms
}

const words = fc.array(fc.oneof(fc.constantFrom(...ZH), fc.constantFrom(...EN), fc.constantFrom('的', '是', 'the', 'v1.2.3', 'D-387')), { minLength: 1, maxLength: 9 })
const textArb = fc.tuple(words, fc.boolean()).map(([ws, zh]) => (zh ? ws.join('') : ws.join(' ')))

type Op = { kind: 'put'; doc: number; text: string; tags: string[]; context: string } | { kind: 'drop'; doc: number } | { kind: 'save' } | { kind: 'reopen' }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), doc: fc.nat(40), text: textArb, tags: fc.subarray(TAGS), context: fc.oneof(fc.constant(''), textArb) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), doc: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'save' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
)

const queryArb = fc.record({
  terms: fc.uniqueArray(fc.oneof(fc.constantFrom(...ZH.flatMap((w) => tokenize(w))), fc.constantFrom(...EN.flatMap((w) => tokenize(w)))), { minLength: 1, maxLength: 6 }),
  weights: fc.array(fc.constantFrom(1, 2, 0.5, 0.25), { minLength: 6, maxLength: 6 }),
})

describe('the segmented search index', () => {
  it('ranks as the minisearch index it replaced, through edits, saves, merges and reopening', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 70 }), fc.array(queryArb, { minLength: 1, maxLength: 5 }), async (ops, queries) => {
        const backend = createFileBackend(tempStore())
        let index = SearchIndex.empty()
        const live = new Map<string, ContextualEntry>()
        let version = 0
        for (const op of ops) {
          if (op.kind === 'put') {
            const item = { entry: entry(`m${op.doc}`, op.text, op.tags, version++), context: op.context }
            index.apply(item)
            live.set(item.entry.id, item)
          } else if (op.kind === 'drop') {
            index.remove(`m${op.doc}`)
            live.delete(`m${op.doc}`)
          } else {
            await saveSearchIndex(backend, index, null)
            if (op.kind === 'reopen') index = (await loadSearchIndex(backend)) ?? SearchIndex.empty()
          }
        }
        expect(index.size).toBe(live.size)
        const ms = reference([...live.values()])
        for (const q of queries) {
          const weights = new Map(q.terms.map((t, i) => [t, q.weights[i] ?? 1]))
          const expected = ms.search(q.terms.join(' '), { fields: ['content', 'keywords', 'context'], tokenize: () => [...q.terms], boostTerm: (t) => weights.get(t) ?? 1 })
          const ranking = index.rank(q.terms, weights, null)
          const got = []
          for (let r = ranking.next(); r !== undefined; r = ranking.next()) got.push(r)
          expect(ranking.count).toBe(expected.length)
          // Best first: score down, then id up.
          for (let i = 1; i < got.length; i++) {
            const [a, b] = [got[i - 1]!, got[i]!]
            expect(a.score > b.score || (a.score === b.score && a.id < b.id)).toBe(true)
          }
          const want = new Map(expected.map((r) => [String(r.id), r]))
          for (const r of got) {
            const w = want.get(r.id)
            expect(w, r.id).toBeDefined()
            expect(r.score).toBeCloseTo(w!.score, 9)
            expect(r.matched).toEqual(w!.queryTerms)
          }
        }
      }),
      { numRuns: 60, seed: 18 },
    )
  }, 120_000)

  it('draws a long list with many ties in full order: score down, then id up', () => {
    const index = SearchIndex.empty()
    const rng = fc.sample(fc.tuple(fc.nat(5), fc.nat(3)), { numRuns: 900, seed: 7 })
    rng.forEach(([extra, pad], i) => index.apply({ entry: entry(`d${String(i).padStart(4, '0')}`, `coffee ${'milk '.repeat(pad)}${'coffee '.repeat(extra)}`, [], 1), context: '' }))
    const terms = tokenize('coffee milk')
    const all = index.rank(terms, new Map(), null)
    const drawn = []
    for (let r = all.next(); r !== undefined; r = all.next()) drawn.push(r)
    expect(drawn).toHaveLength(900)
    expect(all.count).toBe(900)
    const sorted = [...drawn].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    expect(drawn.map((r) => r.id)).toEqual(sorted.map((r) => r.id))
    expect(new Set(drawn.map((r) => r.score)).size).toBeLessThan(50)
  })

  it('draws only strong-term matches when asked, counts them, and still tells any match by id', () => {
    const index = SearchIndex.empty()
    index.apply({ entry: entry('a', '数据库迁移', [], 1), context: '' })
    index.apply({ entry: entry('b', '数字', [], 1), context: '' })
    const weights = new Map([
      ['数据', 1],
      ['数', 0.25],
    ])
    const ranking = index.rank(['数据', '数'], weights, null, { strongOnly: true })
    expect(ranking.count).toBe(1)
    expect(ranking.next()?.id).toBe('a')
    expect(ranking.next()).toBeUndefined()
    expect(ranking.get('b')?.matched).toEqual(['数'])
  })

  it('finds identifiers as whole tokens, and forgets what was removed', () => {
    const index = SearchIndex.empty()
    index.apply({ entry: entry('a', 'Release v1.2.3 fixed D-387', [], 1), context: '' })
    index.apply({ entry: entry('b', 'Release v1.2.4', [], 1), context: '' })
    expect([...index.literal(['v1.2.3', 'd-387'], null)]).toEqual([['a', ['v1.2.3', 'd-387']]])
    index.remove('a')
    expect(index.literal(['v1.2.3'], null).size).toBe(0)
    expect(index.rank(tokenize('release'), new Map(), null).count).toBe(1)
  })

  it('opens as null, never half, when a segment or the manifest is damaged, truncated, missing or of another version', async () => {
    const root = tempStore()
    const backend = createFileBackend(root)
    const index = SearchIndex.empty()
    // "gliders" in every document: a run of 200 postings, cut into blocks with bounds of their own.
    for (let i = 0; i < 200; i++) index.apply({ entry: entry(`m${i}`, `${ZH[i % ZH.length]} ${EN[i % EN.length]} gliders number${i}`, [], 1), context: '' })
    await saveSearchIndex(backend, index, 'state')
    expect((await loadSearchIndex(backend))?.size).toBe(200)
    const dir = join(root, SEARCH_DIR)
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.bin'))
    const path = join(dir, file!)
    const good = readFileSync(path)
    expect(good.readUInt32LE(48), 'blocks in the header').toBeGreaterThanOrEqual(4)
    const damage: Array<[string, (b: Buffer) => Buffer]> = [
      ['a flipped byte in the postings', (b) => Buffer.from(b.map((x, i) => (i === b.length - 40 ? x ^ 0xff : x)))],
      ['a flipped byte in the header', (b) => Buffer.from(b.map((x, i) => (i === 20 ? x ^ 0x01 : x)))],
      ['a truncated file', (b) => b.subarray(0, b.length - 8)],
      ['an empty file', () => Buffer.alloc(0)],
    ]
    for (const [what, change] of damage) {
      writeFileSync(path, change(good))
      expect(await loadSearchIndex(backend), what).toBeNull()
    }
    // A segment claiming the layout before this one, header checksum intact: rebuilt, never read.
    const older = Buffer.from(good)
    older.writeUInt32LE(SEGMENT_LAYOUT - 1, 8)
    older.writeUInt32LE(crc32(older.subarray(0, 60)), 60)
    writeFileSync(path, older)
    expect(await loadSearchIndex(backend), 'an older layout').toBeNull()
    writeFileSync(path, good)
    const manifest = readFileSync(join(root, SEARCH_MANIFEST), 'utf8')
    for (const [what, text] of [
      ['another tokenizer', manifest.replace(/"tokenizer":\d+/, '"tokenizer":999')],
      ['another format', manifest.replace(/"format":\d+/, '"format":999')],
      ['a tombstone out of range', manifest.replace(/"deleted":\[\]/, '"deleted":[99999]')],
      ['a path outside the folder', manifest.replace(/seg-[^"]+/, '../../index.jsonl')],
      ['not JSON', manifest.slice(0, 20)],
    ]) {
      writeFileSync(join(root, SEARCH_MANIFEST), text as string)
      expect(await loadSearchIndex(backend), what).toBeNull()
    }
    writeFileSync(join(root, SEARCH_MANIFEST), manifest)
    rmSync(path)
    expect(await loadSearchIndex(backend), 'a missing segment').toBeNull()
  })

  it('rebuilds, never reads, an index saved in layout 2 (before the per-block bounds), even under a manifest that claims this layout', async () => {
    const root = tempStore()
    const dir = join(root, SEARCH_DIR)
    mkdirSync(dir, { recursive: true })
    // Written by the layout-2 encoder (commit 45befe1): 200 documents, runs of up to 200 postings.
    const fixture = join(import.meta.dirname, 'fixtures', 'search-layout-2')
    for (const f of readdirSync(fixture)) copyFileSync(join(fixture, f), join(dir, f))
    const [segment] = readdirSync(dir).filter((f) => f.endsWith('.bin'))
    expect(readFileSync(join(dir, segment!)).readUInt32LE(8), 'the fixture is of layout 2').toBe(2)
    const backend = createFileBackend(root)
    expect(await loadSearchIndex(backend), 'its manifest').toBeNull()
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8')
    writeFileSync(join(dir, 'manifest.json'), manifest.replace('"layout":2', `"layout":${SEGMENT_LAYOUT}`))
    expect(await loadSearchIndex(backend), 'its segment under a current manifest').toBeNull()
  })
})
