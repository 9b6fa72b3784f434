/**
 * Memories a keyword boost can raise, scored apart (retrieve/keywords.ts, runSearch with the
 * store's KeywordLookup): over random Chinese and English stores whose tags, entities and slot
 * keys share words with the queries, with edits and removals kept in step entry by entry, random
 * filters and question words, the answer must be the one the draw that reaches down by the boost
 * gives: the same hits, scores, reasons and order, the same count and guidance. And a query that
 * names no keyword draws fewer documents than that reach.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, forgetValueHandler, purgeHandler, searchHandler, signalsSettled, writeHandler } from '../src/api.js'
import { KeywordBuild, KeywordLookup } from '../src/retrieve/keywords.js'
import { retrievalState, type RetrievalState } from '../src/retrieve/retriever.js'
import { SearchIndex, type RankedDocs } from '../src/retrieve/search-index.js'
import { runSearch, type SearchRequest } from '../src/retrieve/search.js'
import type { MemoryBackend } from '../src/store/backend.js'
import type { IndexEntry } from '../src/types.js'
import { indexEntry } from './backend-suite.js'

// 地址, 位于 and 附近 answer 在哪: a memory matching only them is drawn only beside another term.
const ZH = ['数据库', '迁移', '配置', '端口', '咖啡', '牛奶', '会议', '周末', '旅行', '部署', '日志', '北京', '服务', '版本', '地址', '位于', '附近']
const EN = ['database', 'migration', 'coffee', 'milk', 'meeting', 'weekend', 'travel', 'deploy', 'logs', 'server', 'backup', 'release', 'family', 'year']
const KEYWORDS = ['数据库', '旅行', '部署', 'database', 'travel', 'deploy', 'family', '北京', 'coffee milk', '咖啡牛奶']

const wordArb = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('数据库', '服务', 'database', 'year') }, { weight: 4, arbitrary: fc.constantFrom(...ZH, ...EN) })
const textArb = fc.tuple(fc.array(wordArb, { minLength: 1, maxLength: 9 }), fc.boolean()).map(([ws, zh]) => (zh ? ws.join('') : ws.join(' ')))

type Op = { kind: 'put'; doc: number; text: string; tags: string[]; entities: string[]; key: string | null } | { kind: 'drop'; doc: number }
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      doc: fc.nat(90),
      text: textArb,
      tags: fc.subarray(KEYWORDS, { maxLength: 2 }),
      entities: fc.subarray(KEYWORDS, { maxLength: 1 }),
      key: fc.option(fc.constantFrom(...KEYWORDS), { nil: null }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), doc: fc.nat(90) }) },
)

const requestArb: fc.Arbitrary<SearchRequest> = fc.record({
  query: fc.oneof(textArb, fc.constantFrom('数据库在哪', '旅行在哪里', 'coffee milk year', '咖啡牛奶 周末', '北京 部署 几点', '部署 咖啡牛奶在哪')),
  top_k: fc.integer({ min: 1, max: 8 }),
  tags: fc.option(fc.subarray(KEYWORDS, { minLength: 1, maxLength: 1 }), { nil: undefined }),
}).map((r) => (r.tags === undefined ? { query: r.query, top_k: r.top_k } : r))

function entryOf(op: Extract<Op, { kind: 'put' }>, version: number): IndexEntry {
  const id = `m${op.doc}`
  return indexEntry(id, { title: op.text.slice(0, 10), summary: op.text, tags: op.tags, entities: op.entities, key: op.key, session_id: null, sources: [], checksum: `${id}-${version}` })
}

function lookupOf(entries: Iterable<IndexEntry>): KeywordLookup {
  const lookup = new KeywordLookup()
  for (const e of entries) lookup.set(e)
  return lookup
}

/** The index, counting the documents searches draw from its rankings. */
function counting(index: SearchIndex): { index: SearchIndex; drawn: () => number } {
  let n = 0
  const wrapped = new Proxy(index, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target)
      if (prop !== 'rank') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      return (...args: Parameters<SearchIndex['rank']>): RankedDocs => {
        const ranking = target.rank(...args)
        return {
          count: ranking.count,
          get: (id) => ranking.get(id),
          next: (bar) => {
            const r = ranking.next(bar)
            if (r !== undefined) n++
            return r
          },
        }
      }
    },
  })
  return { index: wrapped, drawn: () => n }
}

/**
 * A store of keyless notes written by one backend and flushed (so its index snapshot is saved:
 * a bound of 5 lines), then opened by a second one that starts from the snapshot; both flushed
 * and the store removed after `run`.
 */
async function withSnapshotStore(
  prefix: string,
  notes: Array<{ summary: string; tags: string[] }>,
  run: (store: { root: string; writer: MemoryBackend; backend: MemoryBackend; written: Array<{ id: string; path: string }> }) => Promise<void>,
): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), prefix))
  try {
    const writer = createFileBackend(root, { snapshotTailLines: 5 })
    const written: Array<{ id: string; path: string }> = []
    for (const note of notes) {
      const out = await writeHandler(writer, note)
      written.push({ id: out.id as string, path: out.path as string })
    }
    await flushCaches(writer)
    const backend = createFileBackend(root, { snapshotTailLines: 5 })
    await run({ root, writer, backend, written })
    await flushCaches(backend)
    await flushCaches(writer)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

describe('keyword boosts scored apart', () => {
  it('give the answer of the draw that reaches down by the boost, through edits, removals, filters and question words', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 5, maxLength: 140 }), fc.array(requestArb, { minLength: 1, maxLength: 6 }), (ops, requests) => {
        const entries = new Map<string, IndexEntry>()
        const index = SearchIndex.empty()
        const lookup = new KeywordLookup()
        ops.forEach((op, version) => {
          if (op.kind === 'drop') {
            entries.delete(`m${op.doc}`)
            index.remove(`m${op.doc}`)
            lookup.remove(`m${op.doc}`)
            return
          }
          const e = entryOf(op, version)
          entries.set(e.id, e)
          index.apply({ entry: e, context: '' })
          lookup.set(e)
        })
        // Kept in step entry by entry, it is what a lookup built at once from the store is.
        expect(lookup).toEqual(lookupOf(entries.values()))
        for (const req of requests) expect(runSearch(entries, index, null, req, lookup), req.query).toEqual(runSearch(entries, index, null, req, null))
      }),
      { numRuns: 300 },
    )
  })

  it('a query that names no keyword draws only down to its own k-th best', () => {
    const entries = new Map<string, IndexEntry>()
    const index = SearchIndex.empty()
    // Many memories holding "year" with nearly equal scores, tagged with words the query does not name.
    for (let i = 0; i < 300; i++) {
      const e = indexEntry(`m${i}`, { title: `note ${i}`, summary: `the year ${'of plans '.repeat(i % 3)}for travel ${i}`, tags: ['travel'], entities: [], key: null, session_id: null, sources: [], checksum: `c${i}` })
      entries.set(e.id, e)
      index.apply({ entry: e, context: '' })
    }
    const lookup = lookupOf(entries.values())
    const req = { query: 'year', top_k: 5 }
    const apart = counting(index)
    const reaching = counting(index)
    expect(runSearch(entries, apart.index, null, req, lookup)).toEqual(runSearch(entries, reaching.index, null, req, null))
    expect(apart.drawn()).toBeLessThan(reaching.drawn() / 2)
  })

  it('built over a view started from the snapshot (keyless Chinese and English) without reading every entry into it, through a hand edit and a purge between its steps', async () => {
    const notes = Array.from({ length: 24 }, (_, i) => {
      const zh = i % 2 === 0
      const summary = zh ? `第${i}次部署前先备份数据库，然后去北京开会` : `Deploy number ${i} waits for the database backup and the travel plan`
      return { summary, tags: [zh ? '部署' : 'deploy', zh ? '旅行' : 'travel'].slice(0, 1 + (i % 3 === 0 ? 1 : 0)) }
    })
    await withSnapshotStore('keywords-snapshot-', notes, async ({ root, writer, backend, written }) => {
      const view = await backend.indexView()
      const build = new KeywordBuild(view)
      expect(build.step(8)).toBeUndefined()
      // Between its steps: a tag changed by hand in a file, and a memory purged by another process.
      const edited = path.join(root, written[2]!.path)
      writeFileSync(edited, readFileSync(edited, 'utf8').replace(/^tags:\n {2}- 部署$/m, 'tags:\n  - 北京'))
      await forgetValueHandler(writer, { id: written[5]!.id })
      await purgeHandler(writer, { id: written[5]!.id })
      expect(await backend.indexView()).toBe(view)
      // A view that cannot say what changed (the purge rewrote index.jsonl) means a build from the start.
      let current = build
      let lookup: KeywordLookup | null | undefined
      for (let steps = 0; steps < 50 && (lookup === undefined || lookup === null); steps++) {
        lookup = current.step(8)
        if (lookup === null) current = new KeywordBuild(view)
      }
      expect(lookup).toBeInstanceOf(KeywordLookup)
      // What a lookup filed from every entry at once holds.
      const whole = new KeywordLookup()
      for (const entry of view.values()) whole.set(entry)
      for (const tokens of [['部署'], ['北京'], ['deploy'], ['travel'], ['旅行']]) {
        expect([...(lookup!.naming(new Set(tokens), 100) ?? [])].sort(), tokens.join()).toEqual([...(whole.naming(new Set(tokens), 100) ?? [])].sort())
      }
      expect(lookup!.naming(new Set(['北京']), 100)).toContain(written[2]!.id)
      expect(lookup!.naming(new Set(['deploy']), 100)).not.toContain(written[5]!.id)
    })
  })

  it('built over a view started from the snapshot, it reads no entry into the view: a searching process stays as light as it started', async () => {
    const notes = Array.from({ length: 12 }, (_, i) => ({ summary: i % 2 === 0 ? `第${i}条：周末去北京旅行` : `Note ${i}: the deploy moved to Friday`, tags: [i % 2 === 0 ? '旅行' : 'deploy'] }))
    await withSnapshotStore('keywords-peek-', notes, async ({ backend }) => {
      const view = await backend.indexView()
      // A row read into the view gives the same object each time; one only peeked, a new one.
      const unread = (): number => [...view.ids()].filter((id) => view.peek(id) !== view.peek(id)).length
      expect(unread()).toBe(12)
      await searchHandler(backend, { query: '旅行', top_k: 3 })
      await signalsSettled(backend)
      const afterFirst = unread()
      expect(afterFirst).toBeGreaterThan(0)
      // The second search reads the same hits; the lookup is built after it.
      await searchHandler(backend, { query: '旅行', top_k: 3 })
      await signalsSettled(backend)
      expect((await retrievalState(backend)).keywords).not.toBeNull()
      expect(unread()).toBe(afterFirst)
    })
  })

  it('in a store: built after the answers from the second search on, then kept in step with writes, with the same answers all along', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'keywords-apart-'))
    try {
      const backend = createFileBackend(root)
      const notes: Array<[string, string[]]> = [
        ['周末去北京旅行，住在西湖边的酒店', ['旅行']],
        ['The staging database moved to port 5433', ['database']],
        ['数据库迁移在周五晚上进行', ['数据库', '部署']],
        ['Coffee with milk every morning before the deploy', []],
      ]
      for (const [summary, tags] of notes) await writeHandler(backend, { summary, ...(tags.length > 0 ? { tags } : {}) })
      const queries = ['旅行 北京', 'database port', '数据库', 'deploy coffee', '周五 迁移']
      const same = (state: RetrievalState) => {
        for (const query of queries) expect(runSearch(state.entries, state.index, state.aliases, { query, top_k: 3 }, state.keywords), query).toEqual(runSearch(state.entries, state.index, state.aliases, { query, top_k: 3 }, null))
      }
      // Not at the first search: a step after each answer from the second on.
      await searchHandler(backend, { query: '旅行', top_k: 3 })
      await signalsSettled(backend)
      let state = await retrievalState(backend)
      expect(state.keywords).toBeNull()
      await searchHandler(backend, { query: 'database', top_k: 3 })
      await signalsSettled(backend)
      state = await retrievalState(backend)
      const built = state.keywords
      expect(built).not.toBeNull()
      same(state)
      await writeHandler(backend, { summary: '下个月去成都旅行看熊猫', tags: ['旅行'] })
      await writeHandler(backend, { summary: 'Backups of the database run nightly', tags: ['database', 'backup'] })
      state = await retrievalState(backend)
      // Followed, not built again: the new memories are in it at once.
      expect(state.keywords).toBe(built)
      expect([...(state.keywords?.naming(new Set(['旅行']), 10) ?? [])]).toHaveLength(2)
      same(state)
      await signalsSettled(backend)
      await flushCaches(backend)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
