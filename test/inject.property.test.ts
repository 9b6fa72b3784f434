/**
 * Resident injection under random input (the seed's 常驻注入: 字符预算硬顶, `{{` never reaches the
 * host's template engine, synchronous provider):
 *
 *   injectionText(backend, { budgetChars }).text.length <= budgetChars, always.
 *
 * Random stores (0–80 memories: titles and summaries mixing English, Chinese, emoji, `{{x}}`,
 * `{{{y}}}`, `{ {`, lone braces and long runs; some keyed into a few slots so that versions are
 * superseded, some declared conflicts, some gated as suggested, some with anchors the host's
 * probes find stale, hold or cannot tell; some slots digested), random usage through real
 * searches, then random budgets 1–10000 (from the option, or from config.json). Checked on every
 * call:
 *
 * - it returns synchronously (not a Promise): hosts read context text synchronously;
 * - budgetChars is the budget clamped to 200..8000 and rounded, and text.length <= budgetChars;
 * - the text holds no `{{`; it is '' or starts with the heading line, and has no heading alone;
 * - the lines between the frame and the omission line are `included` memory lines (at most 8,
 *   profileTopN) then `indexed` `#id` lines of live memories, each ending with its place
 *   (` @room#slot`), then the room directory counting the memories without a line of their own
 *   (never when there are none, left out only when the budget is nearly spent); the omission line is there
 *   exactly when something was omitted, and names that count; staleSkipped is the number of
 *   searchable memories with an anchor the probes say no longer holds; the first line is one of
 *   the most-hit memories when any memory has hits;
 * - included + indexed + omitted + staleSkipped = the searchable memories (nothing silently dropped).
 *
 * Building a store is the slow part (every write is a locked, fsynced transaction), so a handful
 * of random stores is built once (seeded: INJECT_PROPERTY_SEED replays a failure) and each
 * property run picks one of them.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { textOf } from './arbitraries.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  INJECTION_HEADING,
  createFileBackend,
  digestHandler,
  flushCaches,
  injectionText,
  neutralizeTemplates,
  searchHandler,
  signalsSettled,
  writeHandler,
  type AnchorProbes,
  type IndexEntry,
  type InjectionResult,
  type MemoryBackend,
} from '../src/api.js'

const STORE_COUNT = 8
const RUNS = 1500
const SEED = Number(process.env.INJECT_PROPERTY_SEED ?? Date.now() % 2_147_483_647)

// ---------------------------------------------------------------------------------------------
// The host's probes (the same for every store)

const ENV: Record<string, string | null> = { DB_HOST: 'prod', GONE_VAR: null }
const PATHS = ['/srv/here']
const PROBES: AnchorProbes = {
  env: (name) => (Object.prototype.hasOwnProperty.call(ENV, name) ? (ENV[name] as string | null) : undefined),
  pathExists: (p) => PATHS.includes(p),
}

type AnchorSpec = { kind: 'env'; name: string; value?: string } | { kind: 'path-exists'; value: string }

/** Stale by the design's rules, for the probes above (no tool list, no version: unchecked). */
function anchorStale(a: { kind: string; name: string | null; value: string }): boolean {
  if (a.kind === 'env') {
    if (a.name === null || !Object.prototype.hasOwnProperty.call(ENV, a.name)) return false
    const actual = ENV[a.name]
    return actual === null || (a.value !== '' && actual !== a.value)
  }
  if (a.kind === 'path-exists') return !PATHS.includes(a.value)
  return false
}

const ANCHORS: AnchorSpec[] = [
  { kind: 'env', name: 'DB_HOST', value: 'prod' }, // holds
  { kind: 'env', name: 'DB_HOST', value: 'staging' }, // stale: another value
  { kind: 'env', name: 'GONE_VAR' }, // stale: not set
  { kind: 'env', name: 'UNKNOWN_VAR', value: 'x' }, // unchecked
  { kind: 'path-exists', value: '/srv/here' }, // holds
  { kind: 'path-exists', value: '/srv/gone' }, // stale
]

// ---------------------------------------------------------------------------------------------
// Random stores

const WORDS = ['gannet', 'puffin', 'tern', 'database', 'deploy', 'cache', 'Friday', 'v2.1', '42', 'the', 'of']
const CJK_WORDS = ['数据库', '缓存', '部署', '用户', '偏好', '会议', '的', '是', '鸟类', '观察']
const EMOJI = ['😀', '🚀', '👍🏽', '🐧', '🇨🇳', '👨‍👩‍👧']
const BRACES = ['{{x}}', '{{{y}}}', '{ {', '{', '}}', '{{', '}{', '{{name}}', '{{{{', '}}}}']

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 3, arbitrary: fc.constantFrom(...CJK_WORDS) },
  { weight: 2, arbitrary: fc.integer({ min: 0x4e00, max: 0x9fa5 }).map((c) => String.fromCodePoint(c)) },
  { weight: 2, arbitrary: fc.constantFrom(...EMOJI) },
  { weight: 3, arbitrary: fc.constantFrom(...BRACES) },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(90), '长'.repeat(50), '🐧'.repeat(25)) },
  { weight: 3, arbitrary: fc.constantFrom(' ', ' ', '，', '。', '. ', '\n', '\t', '  ') },
)

const textOfPieces = (min: number, max: number) => textOf(piece, min, max)

interface MemorySpec {
  summary: string
  title?: string
  key: string | undefined
  gated: boolean
  conflict: boolean
  anchors: AnchorSpec[]
}

const memorySpec: fc.Arbitrary<MemorySpec> = fc.record(
  {
    summary: fc.oneof({ weight: 4, arbitrary: textOfPieces(1, 120) }, { weight: 1, arbitrary: textOfPieces(120, 600) }),
    title: fc.oneof(textOfPieces(1, 30), textOfPieces(30, 120)),
    // Mostly absent: each keyed memory supersedes the slot's older versions.
    key: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('slot-a', 'slot-b', 'slot-c', '{{slot}}') }),
    gated: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    conflict: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    anchors: fc.oneof({ weight: 3, arbitrary: fc.constant([] as AnchorSpec[]) }, { weight: 2, arbitrary: fc.subarray(ANCHORS, { minLength: 1, maxLength: 3 }) }),
  },
  { requiredKeys: ['summary', 'key', 'gated', 'conflict', 'anchors'] },
)

interface StoreSpec {
  memories: MemorySpec[]
  /** Search queries run after the writes (usage). */
  queries: string[]
  /** Slots digested after the writes. */
  digests: string[]
  /** config.json's injectBudgetChars (raw, before clamping). */
  configBudget: number
}

const storeSpec = (min: number, max: number): fc.Arbitrary<StoreSpec> =>
  fc.record({
    memories: fc.array(memorySpec, { minLength: min, maxLength: max, size: 'max' }),
    queries: fc.array(fc.constantFrom(...WORDS, ...CJK_WORDS, 'gannet puffin', '缓存 部署', 'nothing-here'), { maxLength: 25 }),
    digests: fc.subarray(['slot-a', 'slot-b', 'slot-c', '{{slot}}']),
    configBudget: fc.integer({ min: -100, max: 12_000 }),
  })

interface BuiltStore {
  root: string
  backend: MemoryBackend
  /** Searchable memories (active / conflict, not raw), by id. */
  searchable: Map<string, IndexEntry>
  /** Usage hits per id, read from usage.jsonl. */
  hits: Map<string, number>
  configBudget: number
}

const stores: BuiltStore[] = []

async function buildStore(spec: StoreSpec, n: number): Promise<BuiltStore> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), `dsh-memory-inject-prop-${n}-`))
  const backend = createFileBackend(root, { probes: PROBES })
  stores.push({ root, backend, searchable: new Map(), hits: new Map(), configBudget: spec.configBudget })
  for (const m of spec.memories) {
    await writeHandler(backend, {
      summary: m.summary,
      ...(m.title !== undefined ? { title: m.title } : {}),
      ...(m.key !== undefined ? { key: m.key } : {}),
      requireConfirmation: m.gated,
      ...(m.conflict ? { expectConflict: true } : {}),
      ...(m.anchors.length > 0 ? { anchors: m.anchors } : {}),
    })
  }
  for (const query of spec.queries) await searchHandler(backend, { query })
  await signalsSettled(backend)
  for (const key of spec.digests) await digestHandler(backend, { key }).catch(() => undefined)
  await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ injectBudgetChars: spec.configBudget }))

  const store = stores[stores.length - 1] as BuiltStore
  for (const e of await backend.readIndex()) {
    if (e.type !== 'raw' && (e.status === 'active' || e.status === 'conflict')) store.searchable.set(e.id, e)
  }
  const usage = (await fs.readFile(path.join(root, 'usage.jsonl'), 'utf8').catch(() => ''))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { id: string; repeat?: boolean })
  // A repeated write is a line too (`repeat: true`, strength from use), not a search hit.
  for (const { id, repeat } of usage) if (repeat !== true) store.hits.set(id, (store.hits.get(id) ?? 0) + 1)
  return store
}

beforeAll(async () => {
  const specs = fc.sample(storeSpec(0, 80), { numRuns: STORE_COUNT - 2, seed: SEED })
  // Always an empty store and a full one among them.
  specs.unshift({ memories: [], queries: ['gannet'], digests: [], configBudget: 1500 })
  specs.push(fc.sample(storeSpec(80, 80), { numRuns: 1, seed: SEED + 1 })[0] as StoreSpec)
  for (const [n, spec] of specs.entries()) await buildStore(spec, n)
}, 120_000)

afterAll(async () => {
  for (const store of stores) await flushCaches(store.backend)
  for (const store of stores) await fs.rm(store.root, { recursive: true, force: true })
})

// ---------------------------------------------------------------------------------------------
// Random calls

interface Call {
  store: number
  /** undefined: the budget comes from config.json. */
  budget: number | undefined
  enabled: boolean | undefined
}

const call: fc.Arbitrary<Call> = fc.record({
  store: fc.nat({ max: STORE_COUNT - 1 }),
  budget: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 10_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: 180, max: 420 }) },
    { weight: 1, arbitrary: fc.double({ min: 1, max: 10_000, noNaN: true }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  enabled: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.boolean() }),
})

const clamp = (n: number) => Math.min(8000, Math.max(200, Math.round(n)))

function run(c: Call): { store: BuiltStore; out: InjectionResult; budget: number; why: string } {
  const store = stores[c.store % stores.length] as BuiltStore
  const options = { ...(c.budget !== undefined ? { budgetChars: c.budget } : {}), ...(c.enabled !== undefined ? { enabled: c.enabled } : {}) }
  const raw: unknown = injectionText(store.backend, options)
  if (raw instanceof Promise || typeof (raw as { then?: unknown } | null)?.then === 'function') throw new Error('injectionText returned a Promise')
  const out = raw as InjectionResult
  const budget = clamp(c.budget ?? store.configBudget)
  const why = `store ${c.store % stores.length} (${store.searchable.size} searchable), options ${JSON.stringify(options)}: ${JSON.stringify({ ...out, text: `${out.text.length} chars` })}`
  return { store, out, budget, why }
}

function checkProperty(name: string, predicate: (c: Call) => void): void {
  const details = fc.check(fc.property(call, predicate), { numRuns: RUNS, seed: SEED })
  if (details.failed) {
    const err = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
    throw new Error(`${name} failed after ${details.numRuns} runs (replay with INJECT_PROPERTY_SEED=${SEED}):\n${err}\ncall: ${JSON.stringify(details.counterexample?.[0])}`)
  }
}

/** An injected line, built independently of src: 40 units of title, 80 of summary, `{{` broken. */
function lineOf(e: IndexEntry): string {
  const cut = (s: string, n: number) => {
    const t = s.replace(/\s+/g, ' ').trim()
    if (t.length <= n) return t
    let at = n - 1
    const code = t.charCodeAt(at - 1)
    if (code >= 0xd800 && code <= 0xdbff) at--
    return `${t.slice(0, at)}…`
  }
  // A memory without a title of its own (its title is its summary, or a cut of it) is its summary once.
  const derived = e.title === e.summary || (e.title.endsWith('…') && e.summary.startsWith(e.title.slice(0, -1)))
  // Its place closes the line (room#slot), for a memory that has one.
  const place = e.location !== undefined ? ` @${e.location}` : ''
  if (derived) return `> ${neutralizeTemplates(cut(e.summary, 80))}${place}`
  return `> ${neutralizeTemplates(cut(e.title, 40))}：${neutralizeTemplates(cut(e.summary, 80))}${place}`
}

/** The room directory line: the memories without a line of their own, counted by room. */
const DIRECTORY = /^房间目录（其余 (\d+) 条）：(.+)；memory_rooms 看房间$/

const OMISSION = /^（另有 (\d+) 条未列出，可用 memory_search_hybrid 检索）$/

// ---------------------------------------------------------------------------------------------

describe('resident injection under random stores and budgets', () => {
  it(`builds ${STORE_COUNT} random stores from empty to 80 memories`, () => {
    const sizes = stores.map((s) => s.searchable.size)
    expect(sizes[0], `searchable per store: ${sizes.join(', ')}`).toBe(0)
    expect(Math.max(...sizes), `searchable per store: ${sizes.join(', ')}`).toBeGreaterThan(20)
    expect(
      stores.some((s) => [...s.searchable.values()].some((e) => /\{\{/.test(e.title + e.summary))),
      'some memory holds {{',
    ).toBe(true)
  })

  it('returns synchronously, never exceeds its clamped budget, never holds {{, and is empty or headed', () => {
    const seen = { empty: 0, included: 0, omitted: 0, staleSkipped: 0, fromConfig: 0, disabled: 0 }
    checkProperty('budget invariant', (c) => {
      const { out, budget, why } = run(c)
      if (out.text === '') seen.empty++
      if (out.included > 0) seen.included++
      if (out.omitted > 0) seen.omitted++
      if (out.staleSkipped > 0) seen.staleSkipped++
      if (c.budget === undefined) seen.fromConfig++
      if (c.enabled === false) seen.disabled++
      expect(out.budgetChars, why).toBe(budget)
      expect(out.text.length, why).toBeLessThanOrEqual(out.budgetChars)
      expect(out.text.includes('{{'), why).toBe(false)
      if (out.text !== '') {
        expect(out.text.startsWith(`${INJECTION_HEADING}\n`), why).toBe(true)
        expect(out.included, why).toBeGreaterThan(0)
      } else {
        expect(out.included, why).toBe(0)
      }
      if (c.enabled === false) expect(out, why).toEqual({ text: '', included: 0, indexed: 0, omitted: 0, staleSkipped: 0, budgetChars: budget })
    })
    for (const [what, n] of Object.entries(seen)) expect(n, `runs with ${what}: ${JSON.stringify(seen)}`).toBeGreaterThan(0)
  })

  it('lists `included` lines, says what it omitted, skips stale anchors, and puts the most-hit memory first', () => {
    const seen = { omissionLine: 0, directory: 0, hitFirst: 0, staleSkipped: 0 }
    checkProperty('lines', (c) => {
      if (c.enabled === false) return
      const { store, out, why } = run(c)
      if (out.staleSkipped > 0) seen.staleSkipped++
      const stale = [...store.searchable.values()].filter((e) => e.anchors.some(anchorStale))
      expect(out.staleSkipped, why).toBe(stale.length)
      if (out.text === '') return
      const lines = out.text.split('\n')
      // heading, frame, memory lines, #id lines, the room directory of the memories without a
      // line of their own when there are any, then the omission line when something was left out
      const last = lines[lines.length - 1] as string
      const omission = OMISSION.exec(last)
      expect(omission !== null, `${why}\nlast line: ${last}`).toBe(out.omitted > 0)
      if (omission !== null) {
        seen.omissionLine++
        expect(Number(omission[1]), why).toBe(out.omitted)
      }
      const beforeOmission = lines.slice(0, omission !== null ? -1 : undefined)
      const directory = DIRECTORY.exec(beforeOmission[beforeOmission.length - 1] as string)
      // Never without something to count (left out where the budgets have no room for it).
      if (out.indexed + out.omitted === 0) expect(directory, `${why}\ndirectory with nothing to count`).toBeNull()
      if (directory !== null) {
        seen.directory++
        expect(Number(directory[1]), why).toBe(out.indexed + out.omitted)
      }
      const listed = beforeOmission.slice(2, directory !== null ? -1 : undefined)
      // Memory lines first (at most profileTopN, 8), then the next memories by id.
      const memoryLines = listed.filter((l) => !l.startsWith('#'))
      const idLines = listed.slice(memoryLines.length)
      expect(memoryLines.length, why).toBe(out.included)
      expect(out.included, why).toBeLessThanOrEqual(8)
      expect(idLines.length, why).toBe(out.indexed)
      const live = [...store.searchable.values()].filter((e) => !e.anchors.some(anchorStale))
      const liveIds = new Set(live.map((e) => `#${e.id}${e.location !== undefined ? ` @${e.location}` : ''}`))
      for (const l of idLines) expect(liveIds.has(l), `${why}\nid line not of a live memory: ${l}`).toBe(true)
      const expected = new Set(live.map(lineOf))
      for (const l of memoryLines) expect(expected.has(l), `${why}\nline not from a live memory: ${l}`).toBe(true)
      const maxHits = Math.max(0, ...live.map((e) => store.hits.get(e.id) ?? 0))
      if (maxHits > 0) {
        seen.hitFirst++
        const top = new Set(live.filter((e) => (store.hits.get(e.id) ?? 0) === maxHits).map(lineOf))
        expect(top.has(memoryLines[0] as string), `${why}\nfirst line ${memoryLines[0]} is not a most-hit memory (${maxHits} hits)`).toBe(true)
      }
    })
    for (const [what, n] of Object.entries(seen)) expect(n, `runs with ${what}: ${JSON.stringify(seen)}`).toBeGreaterThan(0)
  })

  it('accounts for every searchable memory: included + omitted + staleSkipped = searchable', () => {
    checkProperty('accounting', (c) => {
      if (c.enabled === false) return
      const { store, out, why } = run(c)
      expect(out.included + out.indexed + out.omitted + out.staleSkipped, why).toBe(store.searchable.size)
    })
  })
})
