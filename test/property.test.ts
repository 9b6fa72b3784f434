/**
 * The tool contract under random input. For every tool in TOOLS, 1,000 inputs: fc.anything()
 * mixed with near-valid inputs built from the tool's own input schema (right field names with
 * wrong types, huge / empty / unicode strings, negative, NaN and infinite numbers, nested junk,
 * unknown fields, and valid inputs that reach the store, with ids, sessions and paths of seeded
 * memories). Every call must resolve with an output that satisfies the tool's output schema, or
 * reject with a MemoryError carrying one of ERROR_CODES; nothing else. Afterwards index.jsonl must
 * equal what rebuildIndex derives from the files.
 *
 * Bigint values, lone surrogates and path segments longer than the file system allows are part
 * of the random runs; each also has a focused regression test at the end of this file, as does
 * the speed of secret redaction.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ERROR_CODES,
  MEMORY_STATUSES,
  MemoryError,
  TOOLS,
  confirmHandler,
  createFileBackend,
  navHandler,
  outputViolation,
  rebuildIndex,
  redactSecrets,
  writeHandler,
  type IndexEntry,
  type MemoryBackend,
  type Schema,
  type ToolDeclaration,
} from '../src/api.js'

const RUNS_PER_TOOL = 1000

const tmpDirs: string[] = []
async function tempRoot(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix))
  tmpDirs.push(dir)
  return path.join(dir, 'store')
}

afterAll(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true })
})

function byId(a: IndexEntry, b: IndexEntry): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

// ---------------------------------------------------------------------------------------------
// The seeded store
// ---------------------------------------------------------------------------------------------

interface Seed {
  ids: string[]
  rawIds: string[]
  paths: string[]
  sessions: string[]
  keys: string[]
  /** Active memories that restate one another (memory_merge folds them). */
  restatements: string[]
}

async function seedStore(backend: MemoryBackend): Promise<Seed> {
  const seed: Seed = { ids: [], rawIds: [], paths: [], sessions: ['s-alpha', 's-beta', 's-gamma'], keys: ['db', 'editor', 'lang'], restatements: [] }
  const add = (out: { id: string; path: string; raw_ref: string | null }) => {
    seed.ids.push(out.id)
    seed.paths.push(out.path)
    if (out.raw_ref !== null) {
      seed.paths.push(out.raw_ref)
      seed.rawIds.push(`${out.id}-raw`)
    }
  }
  add(await writeHandler(backend, { summary: 'The team uses PostgreSQL 16 for the main database.', key: 'db', session_id: 's-alpha', tags: ['database'] }))
  add(await writeHandler(backend, { summary: '用户喜欢简洁的中文回答，不要太长。', session_id: 's-beta', entities: ['用户'] }))
  add(await writeHandler(backend, { summary: 'Deploys go out on Thursdays after the 周会.', source: 'user' }))
  add(
    await writeHandler(backend, {
      summary: '会话里讨论了缓存失效的问题, decided on a 5 minute TTL.',
      raw: 'user: 缓存多久失效？\nassistant: Five minutes (5 min TTL).\n',
      session_id: 's-alpha',
    }),
  )
  add(await writeHandler(backend, { summary: 'Episode of beta: reviewed the login flow.', raw: 'raw text of beta', session_id: 's-beta' }))
  add(await writeHandler(backend, { summary: 'The preferred editor is Helix.', key: 'editor', requireConfirmation: true, session_id: 's-gamma' }))
  add(await writeHandler(backend, { summary: 'The backend language is Go.', key: 'lang', session_id: 's-gamma' }))
  add(await writeHandler(backend, { summary: '后端语言改成 Rust 了。', key: 'lang', expectConflict: true, session_id: 's-beta' }))
  // Three restatements under different titles (so the write path keeps all three), from no
  // session, so that the forget runs leave them for memory_merge and memory_undemote.
  for (const [i, summary] of ['Backups run nightly at 02:00 UTC.', 'Backups run nightly at 02:00 UTC', 'backups run nightly at 02:00 UTC!'].entries()) {
    const out = await writeHandler(backend, { summary, title: `Backups ${i}`, source: 'user' })
    add(out)
    seed.restatements.push(out.id)
  }
  return seed
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

const HUGE = 'ab中文 '.repeat(250_001) // 1,250,005 chars: over every maxLength
const CJK_WORDS = ['数据库', '缓存', '用户', '偏好', '会议', '部署', '日志', '决定', '周四', '语言']
const EN_WORDS = ['database', 'cache', 'user', 'prefers', 'meeting', 'deploy', 'logs', 'decided', 'Thursday', 'language']

/** Mixed Chinese / English sentences, the normal content of a memory. */
const sentence = fc
  .array(fc.constantFrom(...CJK_WORDS, ...EN_WORDS, '，', '. ', '。', ' ', '42', 'v2.1'), { minLength: 1, maxLength: 20 })
  .map((ws) => ws.join(''))

/** Strings that look like credentials, so redaction runs. */
const secretish = fc.constantFrom(
  'api key sk-abcdefghijklmnopqrstuvwx1234 here',
  'postgres://admin:hunter2@db.internal/app',
  'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456',
  'token ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'AKIAABCDEFGHIJKLMNOP',
  '身份证 11010519491231002X',
  '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----',
)

/** Any text, lone UTF-16 surrogates included. */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const cap = Math.min(maxLength, 120)
  return fc.oneof(
    { weight: 4, arbitrary: sentence },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: cap }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: cap }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength: cap }) },
    { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0xd7f0, max: 0xe010 }).map((c) => String.fromCharCode(c)), minLength, maxLength: cap }) },
    { weight: 1, arbitrary: secretish },
    { weight: 1, arbitrary: fc.constantFrom(' ', '\n\t \u3000', '\u200b', '\0', '---', '# heading', 'null', '~', "'quoted'", '"dq"', ': colon', '- item', '&anchor', '*alias', '!!js/function x', '2026-01-02', '0x1F', '.inf') },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(maxLength), '中'.repeat(maxLength), 'é'.repeat(Math.max(minLength, maxLength - 1))) },
  )
}

const junkValues = fc.constantFrom<unknown>(
  null,
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  -0,
  0,
  0.5,
  1.5,
  2 ** 53 + 2,
  1e308,
  -1e308,
  5e-324,
  true,
  false,
  '',
  ' ',
  '1',
  '-1',
  'NaN',
  'true',
  HUGE,
  [],
  [[[]]],
  [null],
  {},
  { a: { b: { c: [1, { d: null }] } } },
  JSON.parse('{"__proto__": {"polluted": true}}'),
  Object.create(null),
  new Date(0),
  new Map([['summary', 'x']]),
  new Set(['x']),
  Symbol('junk'),
  () => 'a function',
  new String('boxed'),
  new Uint8Array([1, 2, 3]),
)

/** fc.anything with the richer value kinds switched on. */
const anythingArb = fc.anything({
  maxDepth: 3,
  maxKeys: 5,
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withDate: true,
  withTypedArray: true,
  withSparseArray: true,
  withNullPrototype: true,
  withObjectString: true,
  withBigInt: true,
})

/** Field-name hints: realistic values for the fields that address the store. */
function stringHints(toolName: string, field: string, seed: Seed): fc.Arbitrary<string> | null {
  const ids = [...seed.ids, ...seed.rawIds, 'mem_doesnotexist', 'mem_', 'MEM_X']
  switch (field) {
    case 'id':
      return fc.constantFrom(...ids)
    case 'session_id':
      return fc.constantFrom(...seed.sessions, 'never-seen-session', ' s-alpha ', '会话-1')
    case 'key':
      return fc.constantFrom(...seed.keys, 'DB', ' lang ', '新键')
    case 'ids':
    case 'into':
      return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...seed.restatements) }, { weight: 1, arbitrary: fc.constantFrom(...ids) })
    case 'scope':
      // Mostly premises that parse (key=value), so that scoped writes, searches and verifies run.
      return fc.constantFrom('env=prod', 'env=staging; region=eu', 'population: all records', ' Env = Prod ;; ', '环境=生产', 'production', 'a=1; a=2', '=x')
    case 'retracts':
      return fc.constantFrom(...ids)
    case 'room':
      // Mostly rooms that exist or could (search's room filter, memory_rooms), so that filtered runs happen.
      return fc.constantFrom('topics', 'episodes', 'topics-2', 'topics-bcdfg', 'Topics', 'no room', '书房')
    case 'asOf':
      // Mostly times that parse, so that as-of reads run, not only validation.
      return fc.constantFrom('2026-01-02T10:00:00Z', '2000-01-01', '9999-12-31T23:59:59Z', new Date().toISOString(), '1970-01-01T00:00:00.000Z')
    case 'time':
    case 'from':
    case 'to':
      return fc.constantFrom(
        '2026-01-02T10:00:00Z',
        '2026-01-02',
        '1970-01-01T00:00:00.000Z',
        '9999-12-31T23:59:59Z',
        '+275760-09-13T00:00:00.000Z',
        '-000001-01-01T00:00:00Z',
        '0',
        'yesterday',
        '2026-13-45',
      )
    case 'path':
      if (toolName !== 'memory_nav') return null
      return fc.constantFrom(
        ...seed.ids,
        ...seed.paths,
        '',
        ' ',
        '.',
        './',
        '/',
        'topics/',
        'topics',
        './topics/',
        'topics//',
        'episodes/',
        'raw/',
        'digests/',
        'README.md',
        'index.jsonl',
        'ledger.jsonl',
        'config.json',
        '.lock',
        'topics/_index.md',
        'topics/nope.md',
        'README.md/child',
        'x/'.repeat(500), // 1000 chars, short segments
        '../secret.txt',
        '../../etc/passwd',
        '/etc/passwd',
        'topics/../../x',
        '%2e%2e/x',
        '%2e%2e%2fx',
        '%zz',
        '..\\x',
        'topics/\0x',
        'C:/Windows',
      )
    default:
      return null
  }
}

function validFor(schema: Schema, toolName: string, field: string, seed: Seed): fc.Arbitrary<unknown> {
  if ('oneOf' in schema) return fc.oneof(...schema.oneOf.map((s) => validFor(s, toolName, field, seed)))
  switch (schema.type) {
    case 'string': {
      if (schema.enum) return fc.constantFrom(...schema.enum)
      const min = schema.minLength ?? 0
      const max = schema.maxLength ?? 2000
      const hint = stringHints(toolName, field, seed)
      const base = text(min, max)
      // asOf must parse as a time: free text there only ever tests validation, which wrongFor covers.
      const arb = hint ? (field === 'asOf' ? hint : fc.oneof({ weight: 3, arbitrary: hint }, { weight: 1, arbitrary: base })) : base
      return field === 'path' ? fc.oneof(arb, fc.constant('a'.repeat(300)), fc.constant(`topics/${'长'.repeat(120)}.md`)) : arb
    }
    case 'integer':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 }),
        fc.constantFrom(...[schema.minimum, schema.maximum].filter((v): v is number => v !== undefined)),
      )
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'json':
      return fc.jsonValue({ maxDepth: 2 })
    case 'array':
      return fc.oneof(
        fc.array(validFor(schema.items, toolName, field, seed), { maxLength: Math.min(schema.maxItems ?? 5, 5) }),
        fc.array(validFor(schema.items, toolName, field, seed), { minLength: schema.maxItems ?? 6, maxLength: schema.maxItems ?? 6 }),
      )
    case 'object':
      return objectArb(schema, toolName, seed, true)
  }
}

/** Values of the wrong type or outside the declared bounds, for one field. */
function wrongFor(schema: Schema, toolName: string, field: string, seed: Seed): fc.Arbitrary<unknown> {
  const generic = fc.oneof({ weight: 3, arbitrary: junkValues }, { weight: 1, arbitrary: anythingArb })
  if ('oneOf' in schema) return generic
  switch (schema.type) {
    case 'string': {
      const bounds: string[] = []
      if (schema.maxLength !== undefined) bounds.push('x'.repeat(schema.maxLength + 1), '中'.repeat(schema.maxLength + 1))
      if (schema.minLength !== undefined && schema.minLength > 0) bounds.push('')
      if (schema.enum) bounds.push('', ...schema.enum.map((e) => e.toUpperCase()), ...schema.enum.map((e) => ` ${e}`))
      return bounds.length > 0 ? fc.oneof(generic, fc.constantFrom(...bounds)) : generic
    }
    case 'integer':
    case 'number': {
      const out = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, -1e-9, 1e12]
      if (schema.type === 'integer') out.push(0.5, 1.0000001)
      if (schema.minimum !== undefined) out.push(schema.minimum - 1, schema.minimum - 1e-9)
      if (schema.maximum !== undefined) out.push(schema.maximum + 1, schema.maximum + 1e-9)
      return fc.oneof(generic, fc.constantFrom(...out), fc.double())
    }
    case 'array':
      return fc.oneof(
        generic,
        fc.array(fc.oneof(validFor(schema.items, toolName, field, seed), wrongFor(schema.items, toolName, field, seed)), { minLength: 1, maxLength: 4 }),
        fc.constant(Array.from({ length: (schema.maxItems ?? 100) + 1 }, (_, i) => `t${i}`)),
      )
    default:
      return generic
  }
}

function nearValidFor(schema: Schema, toolName: string, field: string, seed: Seed): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: validFor(schema, toolName, field, seed) }, { weight: 1, arbitrary: wrongFor(schema, toolName, field, seed) })
}

type ObjectSchemaOf = Extract<Schema, { type: 'object' }>

/** Objects with the schema's field names: valid ones (`strict`) or near-valid ones. */
function objectArb(schema: ObjectSchemaOf, toolName: string, seed: Seed, strict: boolean): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(schema.properties)
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const key of keys) {
    const prop = schema.properties[key] as Schema
    model[key] = strict ? validFor(prop, toolName, key, seed) : nearValidFor(prop, toolName, key, seed)
  }
  const requiredKeys = strict ? [...(schema.required ?? [])] : []
  const record = fc.record(model, { requiredKeys })
  if (strict) return record
  const extra = fc.dictionary(
    fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'Summary', 'summary ', 'extra', ''), fc.string({ maxLength: 8 })),
    fc.oneof(junkValues, anythingArb),
    { maxKeys: 2 },
  )
  return fc.tuple(record, fc.option(extra, { freq: 3 })).map(([r, x]) => {
    if (x === null) return r
    const out = { ...r }
    for (const [k, v] of Object.entries(x)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
    return out
  })
}

/**
 * write_memory inputs that also respect the rules between fields (raw only on an episode, an
 * episode needs a session), so that a good share of the runs really write.
 */
function coherentWriteArb(seed: Seed): fc.Arbitrary<Record<string, unknown>> {
  const nonBlank = (max: number) => text(1, max).filter((t) => t.trim() !== '' && t.length <= max)
  const common = {
    summary: fc.oneof({ weight: 3, arbitrary: sentence.filter((t) => t.trim() !== '') }, { weight: 1, arbitrary: nonBlank(2000) }),
    title: nonBlank(200),
    key: fc.oneof(fc.constantFrom(...seed.keys), nonBlank(200)),
    tags: fc.array(nonBlank(64), { maxLength: 4 }),
    entities: fc.array(nonBlank(64), { maxLength: 4 }),
    source: fc.constantFrom('session', 'plugin', 'user'),
    confidence: fc.double({ min: 0, max: 1, noNaN: true }),
    time: fc.constantFrom('2026-01-02T10:00:00Z', '2025-12-31', '1999-01-01T00:00:00.000+08:00'),
    requireConfirmation: fc.boolean(),
    expectConflict: fc.boolean(),
  }
  const topic = fc.record({ ...common, type: fc.constant('topic'), session_id: fc.constantFrom(...seed.sessions, 'new-session') }, { requiredKeys: ['summary'] })
  const episode = fc.record(
    { ...common, type: fc.constant('episode'), raw: fc.oneof(sentence, text(0, 5000), secretish), session_id: fc.constantFrom(...seed.sessions, 'new-session') },
    { requiredKeys: ['summary', 'raw', 'session_id'] },
  )
  return fc.oneof(topic, episode)
}

/** memory_merge inputs naming restatements only (some folded by earlier runs), so that merges and previews really run; memory_undemote gets them too. */
function coherentMergeArb(seed: Seed): fc.Arbitrary<Record<string, unknown>> {
  const some = fc.subarray(seed.restatements, { minLength: 2 })
  return fc.record({ ids: some, into: fc.constantFrom(...seed.restatements), dryRun: fc.boolean() }, { requiredKeys: ['ids'] })
}

function inputArb(tool: ToolDeclaration, seed: Seed, backend?: MemoryBackend): fc.Arbitrary<unknown> {
  // Retrieval practice takes active memories; by the time it runs, earlier tools have forgotten and purged many seeded ones.
  const active = [...(backend?.sync?.indexView().values() ?? [])].filter((e) => e.status === 'active' && e.type !== 'raw').map((e) => e.id)
  const practiceIds = fc.constantFrom(...(active.length > 0 ? active : seed.ids))
  // Walks start from memories still in the index (purges by earlier tools remove seeded ones).
  const present = [...(backend?.sync?.indexView().values() ?? [])].filter((e) => e.type !== 'raw').map((e) => e.id)
  const walkIds = fc.constantFrom(...(present.length > 0 ? present : seed.ids))
  return fc.oneof(
    { weight: tool.name === 'write_memory' ? 6 : 0, arbitrary: coherentWriteArb(seed) },
    { weight: tool.name === 'memory_merge' ? 6 : 0, arbitrary: coherentMergeArb(seed) },
    { weight: tool.name === 'memory_undemote' ? 4 : 0, arbitrary: fc.record({ ids: fc.subarray(seed.restatements, { minLength: 1 }) }) },
    // Rooms, navigation and decay: seeded ids, so that walks and restores reach the store.
    { weight: tool.name === 'memory_neighbors' ? 4 : 0, arbitrary: fc.record({ id: walkIds, hops: fc.integer({ min: 1, max: 3 }) }) },
    { weight: tool.name === 'memory_restore' ? 4 : 0, arbitrary: fc.record({ ids: fc.subarray(seed.ids, { minLength: 1, maxLength: 5 }) }) },
    // Retrieval practice: seeded ids, and exactly one of grade and outcome, so that reveals and reports run.
    { weight: tool.name === 'memory_review' ? 4 : 0, arbitrary: fc.record({ id: practiceIds }) },
    {
      weight: tool.name === 'memory_report' ? 6 : 0,
      arbitrary: fc.oneof(
        fc.record({ id: practiceIds, grade: fc.integer({ min: 0, max: 5 }) }),
        fc.record({ id: practiceIds, outcome: fc.constantFrom('success', 'failure') }),
      ),
    },
    { weight: 4, arbitrary: objectArb(tool.input, tool.name, seed, true) },
    { weight: 4, arbitrary: objectArb(tool.input, tool.name, seed, false) },
    { weight: 1, arbitrary: fc.anything() },
    { weight: 1, arbitrary: fc.oneof(anythingArb, junkValues) },
  )
}

// ---------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------

function describeValue(v: unknown): string {
  const s = fc.stringify(v)
  return s.length > 400 ? `${s.slice(0, 400)}… (${s.length} chars)` : s
}

describe('every tool under random input', () => {
  let backend: MemoryBackend
  let seed: Seed

  beforeAll(async () => {
    backend = createFileBackend(await tempRoot('mem-prop-'))
    seed = await seedStore(backend)
    expect((await backend.readIndex()).length).toBe(seed.ids.length + seed.rawIds.length)
  })

  for (const tool of TOOLS) {
    it(`${tool.name}: ${RUNS_PER_TOOL} inputs resolve to a schema-valid output or reject with a MemoryError`, { timeout: 150_000 }, async () => {
      const outcomes = new Map<string, number>()
      const invalidFields = new Map<string, number>()
      const started = Date.now()
      const handler = tool.handler as unknown as (b: MemoryBackend, input: unknown) => Promise<unknown>
      // Retrieval practice needs active memories, and the tools before it (forget, purge, decay,
      // merge) may have taken every seeded one: a few of its own, written now, keep its runs real.
      if (tool.name === 'memory_review' || tool.name === 'memory_report') {
        for (let i = 0; i < 5; i++) await writeHandler(backend, { summary: `Practice fact ${i}: the build cache lives in .cache/build-${i}.`, confidence: 0.9 })
      }
      await fc.assert(
        fc.asyncProperty(inputArb(tool, seed, backend), async (input) => {
          let out: unknown
          try {
            out = await handler(backend, input)
          } catch (err) {
            if (!(err instanceof MemoryError)) {
              throw new Error(`${tool.name} threw a non-MemoryError ${String((err as Error)?.name)}: ${String((err as Error)?.message ?? err)} for input ${describeValue(input)}`)
            }
            if (!(ERROR_CODES as readonly string[]).includes(err.code)) throw new Error(`${tool.name}: unknown error code ${err.code}`)
            outcomes.set(err.code, (outcomes.get(err.code) ?? 0) + 1)
            if (err.code === 'INVALID_INPUT') {
              const f = (err.field ?? '(input)').replace(/\[\d+\]/g, '[]')
              invalidFields.set(f, (invalidFields.get(f) ?? 0) + 1)
            }
            return
          }
          const violation = outputViolation(tool.output, out)
          if (violation !== null) {
            throw new Error(`${tool.name}: output violates its schema at ${violation.field || '(root)'}: expected ${violation.expected}; input ${describeValue(input)}; output ${describeValue(out)}`)
          }
          outcomes.set('ok', (outcomes.get('ok') ?? 0) + 1)
        }),
        { numRuns: RUNS_PER_TOOL, endOnFailure: true },
      )
      const summary = [...outcomes.entries()].map(([k, n]) => `${k}=${n}`).join(' ')
      const fields = [...invalidFields.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, n]) => `${k}=${n}`).join(' ')
      console.info(`[property] ${tool.name}: ${RUNS_PER_TOOL} runs in ${Date.now() - started} ms (${summary}; INVALID_INPUT by field: ${fields})`)
      // Valid inputs were generated often enough to exercise the store, not only validation.
      expect(outcomes.get('ok') ?? 0).toBeGreaterThan(RUNS_PER_TOOL / 20)
    })
  }

  it('after all runs, index.jsonl equals what rebuildIndex derives from the files', async () => {
    const snapshot = (await backend.readIndex()).sort(byId)
    expect(backend.lastIndexSkipped).toBe(0)
    const result = await rebuildIndex(backend)
    expect(result.warnings).toEqual([])
    expect(result.badIndexLines).toBe(0)
    const rebuilt = (await backend.readIndex()).sort(byId)
    console.info(`[property] index after the runs: ${snapshot.length} entries`)
    expect(rebuilt).toEqual(snapshot)
    for (const e of rebuilt) expect((MEMORY_STATUSES as readonly string[]).includes(e.status)).toBe(true)
  })
})

// ---------------------------------------------------------------------------------------------
// Contract breaks found with the generators above (src bugs). Each fails until fixed.
// ---------------------------------------------------------------------------------------------

describe('inputs that break the tool contract today', () => {
  let backend: MemoryBackend

  beforeAll(async () => {
    backend = createFileBackend(await tempRoot('mem-prop-bugs-'))
    await backend.init()
  })

  async function expectMemoryError(call: Promise<unknown>, codes: readonly string[] = ERROR_CODES): Promise<void> {
    let caught: unknown = null
    try {
      await call
    } catch (err) {
      caught = err
    }
    expect(caught, 'expected the call to reject').not.toBeNull()
    expect(caught).toBeInstanceOf(MemoryError)
    expect(codes).toContain((caught as MemoryError).code)
  }

  // src/tools/declare/schema.ts typeName(): JSON.stringify(10n) throws "Do not know how to serialize a BigInt",
  // so the validator that promises "never throws" throws a TypeError instead of INVALID_INPUT.
  it('a bigint where a value is expected is INVALID_INPUT, not a TypeError', async () => {
    await expectMemoryError(navHandler(backend, { limit: 10n } as never), ['INVALID_INPUT'])
    await expectMemoryError(confirmHandler(backend, { id: 1n } as never), ['INVALID_INPUT'])
    await expectMemoryError(writeHandler(backend, 1n as never), ['INVALID_INPUT'])
  })

  // src/store/file-backend.ts resolve()/readFile(): fs.realpath fails with ENAMETOOLONG, which is
  // neither ENOENT nor ENOTDIR, so the raw Node error escapes memory_nav (path maxLength is 1000).
  it('memory_nav with a path segment too long for the file system answers NOT_FOUND, not a raw ENAMETOOLONG', async () => {
    await expectMemoryError(navHandler(backend, { path: 'a'.repeat(300) }), ['NOT_FOUND'])
    await expectMemoryError(navHandler(backend, { path: `topics/${'é'.repeat(200)}.md` }), ['NOT_FOUND'])
  })

  // src/memory/writing/txn.ts writeAndIndex(): the index entry is derived from the in-memory text, while
  // the file on disk has U+FFFD where the text had a lone surrogate; rebuildIndex then differs.
  it('a summary with a lone surrogate is indexed as the file on disk says (index == rebuild)', async () => {
    const out = await writeHandler(backend, { summary: 'lone \uD800 surrogate 孤立代理项' })
    const written = (await backend.readIndex()).find((e) => e.id === out.id)
    await rebuildIndex(backend)
    const rebuilt = (await backend.readIndex()).find((e) => e.id === out.id)
    expect(rebuilt).toEqual(written)
  })

  // src/redact.ts, rule connection-password: `\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/` restarts at
  // every word boundary inside a long token and scans to its end: quadratic. write_memory accepts
  // raw up to 1,000,000 chars; 'a.'.repeat(500_000) would take minutes. Here 200,000 chars.
  it('secret redaction stays fast on a long token (no quadratic scan)', { timeout: 60_000 }, () => {
    const t0 = Date.now()
    redactSecrets('a.'.repeat(100_000))
    const ms = Date.now() - t0
    console.info(`[property] redactSecrets on 200,000 chars of "a.": ${ms} ms`)
    expect(ms).toBeLessThan(2_000)
  })
})
