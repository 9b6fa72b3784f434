/**
 * The fixed reading budget under random input (the seed's 固定阅读预算不变量):
 *
 *   memory_assemble: used_tokens <= budget, always.
 *
 * Random stores (0–60 memories: topics and episodes, summaries of 1–2000 characters mixing
 * English, Chinese and emoji, optional titles up to 200 characters, raw text up to 5,000
 * characters, some gated as suggested, some superseded), then random hits (any subset of the
 * store's ids plus raw ids and unknown ids, in random order, with random or missing scores) and
 * random budgets 1–3000. Checked on every call:
 *
 * - used_tokens <= budget, and used_tokens === Math.ceil(context.length / 1.6);
 * - sources are the paths of the included blocks: one `Source: <path>` line each (`来源:` for a
 *   Chinese task, the labels follow the task's language), in score order,
 *   only searchable memories (active / conflict, not raw) among them, included === sources.length;
 * - included + omitted === the number of distinct searchable memories among the hits (what did not
 *   fit is counted, never silently dropped).
 *
 * Building a store is the slow part (every write is a locked, fsynced transaction), so a handful
 * of random stores is built once (their fast-check seed is printed on failure) and each property
 * run picks one of them: "reuse one store per few runs". Stores are searched through the real
 * retrieval state, so the ids an assemble call sees are those of the index.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { textOf } from './arbitraries.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { labelsFor, type AssembleLabels } from '../src/memory/reading/assemble.js'
import { CHARS_PER_TOKEN, assembleHandler, createFileBackend, flushCaches, writeHandler, type IndexEntry, type MemoryBackend } from '../src/api.js'

const STORE_COUNT = 10
const RUNS = 300
/** Seeds the stores and the calls; set ASSEMBLE_PROPERTY_SEED to replay a failure. */
const SEED = Number(process.env.ASSEMBLE_PROPERTY_SEED ?? Date.now() % 2_147_483_647)

// ---------------------------------------------------------------------------------------------
// Random stores

const ASCII_WORDS = ['gannet', 'puffin', 'tern', 'database', 'deploy', 'cache', 'Friday', 'v2.1', '42', 'the', 'of']
const CJK_WORDS = ['数据库', '缓存', '部署', '用户', '偏好', '会议', '的', '是', '鸟类', '观察']
const EMOJI = ['😀', '🚀', '👍🏽', '🐧', '🇨🇳', '👨‍👩‍👧']

/** One piece of text: a word in either language, a random CJK character, an emoji or a separator. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ASCII_WORDS) },
  { weight: 3, arbitrary: fc.constantFrom(...CJK_WORDS) },
  { weight: 2, arbitrary: fc.integer({ min: 0x4e00, max: 0x9fa5 }).map((c) => String.fromCodePoint(c)) },
  { weight: 1, arbitrary: fc.constantFrom(...EMOJI) },
  { weight: 3, arbitrary: fc.constantFrom(' ', ' ', '，', '。', '. ', '\n', '  ') },
)

const textOfPieces = (min: number, max: number) => textOf(piece, min, max)

interface MemorySpec {
  summary: string
  title?: string
  raw?: string
  key?: string
  gated: boolean
}

const memorySpec: fc.Arbitrary<MemorySpec> = fc.record(
  {
    summary: fc.oneof({ weight: 3, arbitrary: textOfPieces(1, 200) }, { weight: 2, arbitrary: textOfPieces(200, 2000) }),
    title: textOfPieces(1, 200),
    raw: fc.oneof(textOfPieces(1, 300), textOfPieces(300, 5000)),
    key: fc.constantFrom('slot-a', 'slot-b', 'slot-c'),
    gated: fc.boolean(),
  },
  { requiredKeys: ['summary', 'gated'] },
)

const storeSpec = fc.array(memorySpec, { minLength: 0, maxLength: 60, size: 'max' })

interface BuiltStore {
  backend: MemoryBackend
  /** Every index entry of the store, raw entries and gated / superseded ones included. */
  entries: Map<string, IndexEntry>
}

const tmpRoots: string[] = []
const stores: BuiltStore[] = []

async function buildStore(specs: MemorySpec[], n: number): Promise<BuiltStore> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), `dsh-memory-assemble-prop-${n}-`))
  tmpRoots.push(root)
  const backend = createFileBackend(root)
  for (const [i, spec] of specs.entries()) {
    await writeHandler(backend, {
      summary: spec.summary,
      ...(spec.title !== undefined ? { title: spec.title } : {}),
      ...(spec.raw !== undefined ? { raw: spec.raw, session_id: `s-${i % 3}` } : {}),
      ...(spec.key !== undefined ? { key: spec.key } : {}),
      requireConfirmation: spec.gated,
    })
  }
  const entries = new Map((await backend.readIndex()).map((e) => [e.id, e]))
  return { backend, entries }
}

beforeAll(async () => {
  const specs = fc.sample(storeSpec, { numRuns: STORE_COUNT - 2, seed: SEED })
  // Always an empty store and a full one among them.
  specs.unshift([])
  specs.push(fc.sample(fc.array(memorySpec, { minLength: 60, maxLength: 60 }), { numRuns: 1, seed: SEED + 1 })[0] as MemorySpec[])
  for (const [n, spec] of specs.entries()) stores.push(await buildStore(spec, n))
}, 120_000)

afterAll(async () => {
  // Stop each store's file watcher and cache-save timer before its folder goes.
  for (const store of stores) await flushCaches(store.backend)
  for (const root of tmpRoots) await fs.rm(root, { recursive: true, force: true })
})

// ---------------------------------------------------------------------------------------------
// Random calls

interface Call {
  store: number
  /** Picks into the store's ids (raw ids included) and unknown ids, in call order. */
  picks: { which: number; unknown: boolean; score: number | null }[]
  budget: number
  /** The task: English or Chinese, which sets the labels. */
  task: string
}

const call: fc.Arbitrary<Call> = fc.record({
  store: fc.nat({ max: STORE_COUNT - 1 }),
  picks: fc.array(
    fc.record({
      which: fc.nat({ max: 10_000 }),
      unknown: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
      score: fc.option(fc.double({ min: -1000, max: 1000, noNaN: true }), { nil: null }),
    }),
    { maxLength: 80, size: 'max' },
  ),
  budget: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 3000 })),
  task: fc.constantFrom('property', '属性'),
})

interface Prepared {
  store: BuiltStore
  task: string
  labels: AssembleLabels
  hits: { id: string; score?: number }[]
  budget: number
  /** Distinct searchable entries among the hits, in the order assemble must use them. */
  eligible: IndexEntry[]
}

function isSearchable(e: IndexEntry | undefined): e is IndexEntry {
  return e !== undefined && e.type !== 'raw' && (e.status === 'active' || e.status === 'conflict')
}

/** The hits of a call: a subset of the store's ids (each at most once) plus unknown ids. */
function prepare(c: Call): Prepared {
  const store = stores[c.store % stores.length] as BuiltStore
  const ids = [...store.entries.keys()].sort()
  const seen = new Set<string>()
  const hits: { id: string; score?: number }[] = []
  for (const [i, p] of c.picks.entries()) {
    const id = p.unknown || ids.length === 0 ? `mem_unknown${p.which}x${i}` : (ids[p.which % ids.length] as string)
    if (seen.has(id)) continue
    seen.add(id)
    hits.push(p.score === null ? { id } : { id, score: p.score })
  }
  const ranked = hits
    .map((h, i) => ({ h, i }))
    .sort((a, b) => (b.h.score ?? 0) - (a.h.score ?? 0) || a.i - b.i)
    .map(({ h }) => store.entries.get(h.id))
  return { store, task: c.task, labels: labelsFor(c.task), hits, budget: c.budget, eligible: ranked.filter(isSearchable) }
}

function describeCall(p: Prepared, out: { used_tokens: number; included: number; omitted: number; context: string }): string {
  return `budget ${p.budget}, ${p.hits.length} hits (${p.eligible.length} searchable), used_tokens ${out.used_tokens}, included ${out.included}, omitted ${out.omitted}, context ${out.context.length} chars`
}

async function checkProperty(name: string, predicate: (p: Prepared) => Promise<void>): Promise<void> {
  const details = await fc.check(
    fc.asyncProperty(call, async (c) => predicate(prepare(c))),
    // Shrinking replays real assemble calls: cap it so a failure still reports within the test timeout.
    { numRuns: RUNS, seed: SEED, interruptAfterTimeLimit: 30_000 },
  )
  if (details.failed) {
    const err = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
    throw new Error(
      `${name} failed after ${details.numRuns} runs (replay with ASSEMBLE_PROPERTY_SEED=${SEED}):\n${err}\ncall: ${JSON.stringify(details.counterexample?.[0])}`,
    )
  }
}

// ---------------------------------------------------------------------------------------------

describe('memory_assemble under random stores, hits and budgets', () => {
  it(`builds ${STORE_COUNT} random stores from empty to 60 memories`, () => {
    const memories = stores.map((s) => [...s.entries.values()].filter((e) => e.type !== 'raw').length)
    expect(memories[0], `memories per store: ${memories.join(', ')}`).toBe(0)
    // 60 writes; an exact or near duplicate among random texts is possible but rare.
    expect(memories[memories.length - 1], `memories per store: ${memories.join(', ')}`).toBeGreaterThanOrEqual(55)
    expect(memories.every((n) => n <= 60)).toBe(true)
  })

  it('never exceeds the budget: used_tokens <= budget and used_tokens = ceil(context.length / 1.6)', async () => {
    const seen = { included: 0, omitted: 0, excerpt: 0, omittedLine: 0, empty: 0, zh: 0, en: 0 }
    await checkProperty('budget invariant', async (p) => {
      const out = await assembleHandler(p.store.backend, { task: p.task, hits: p.hits, budget: p.budget })
      const why = describeCall(p, out)
      if (out.included > 0) seen.included++
      if (out.omitted > 0) seen.omitted++
      if (out.context.includes(`${p.labels.excerpt}: `)) seen.excerpt++
      if (out.omitted > 0 && out.context.includes(p.labels.omitted(out.omitted))) seen.omittedLine++
      if (out.included > 0) seen[p.labels === labelsFor('属性') ? 'zh' : 'en']++
      if (out.context === '') seen.empty++
      expect(out.budget, why).toBe(p.budget)
      expect(out.used_tokens, why).toBeLessThanOrEqual(p.budget)
      expect(out.used_tokens, why).toBe(Math.ceil(out.context.length / CHARS_PER_TOKEN))
      expect(out.context.length, why).toBeLessThanOrEqual(Math.floor(p.budget * CHARS_PER_TOKEN))
    })
    // The runs reached the interesting paths, not only empty contexts.
    for (const [what, n] of Object.entries(seen)) expect(n, `runs with ${what}: ${JSON.stringify(seen)}`).toBeGreaterThan(0)
  }, 60_000)

  it('names a source for every included block, in score order, searchable memories only', async () => {
    await checkProperty('sources', async (p) => {
      const out = await assembleHandler(p.store.backend, { task: p.task, hits: p.hits, budget: p.budget })
      const why = describeCall(p, out)
      expect(out.sources.length, why).toBe(out.included)
      // Each source is a block's source line, labelled in the task's language.
      const label = `${p.labels.source}: `
      const sourceLines = out.context.split('\n').filter((l) => l.startsWith(label)).map((l) => l.slice(label.length))
      expect(sourceLines, why).toEqual(out.sources)
      // Only searchable memories, in the order of their scores (a subsequence of the eligible hits).
      const order = p.eligible.map((e) => e.path)
      let at = 0
      for (const source of out.sources) {
        const next = order.indexOf(source, at)
        expect(next, `${why}: source ${source} is not a searchable hit in score order (${JSON.stringify(order)})`).toBeGreaterThanOrEqual(0)
        at = next + 1
      }
      if (out.omitted > 0 && out.context.length > 0) expect(out.context, why).toContain(p.labels.omitted(out.omitted))
    })
  }, 60_000)

  it('counts what did not fit: included + omitted = the searchable hits', async () => {
    await checkProperty('accounting', async (p) => {
      const out = await assembleHandler(p.store.backend, { task: p.task, hits: p.hits, budget: p.budget })
      expect(out.included + out.omitted, describeCall(p, out)).toBe(p.eligible.length)
    })
  }, 60_000)
})
