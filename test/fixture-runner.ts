/**
 * The fixture engine behind `test/cases.json` (see test/fixtures.test.ts and verify.sh step 4).
 *
 * A case runs its steps in order against a fresh temporary store (`createFileBackend(tmpdir)`),
 * optionally seeded from `test/fixtures/<fixture>/`. Each step's result is recorded; a step that
 * throws records `{ error: { code, message, field, memoryError }, thrown }` and the case goes on.
 * Then every expectation is checked against the recorded results, every handler output is checked
 * against its tool's declared output schema, and (unless the case sets `skipRebuildCheck`) the
 * index is checked to be a projection of the files: `rebuildIndex` must reproduce it exactly.
 *
 * Inputs and expectations may contain, anywhere:
 *   {"$ref": {"step": 0, "path": "id"}}          a recorded result (or part of it)
 *   {"$repeat": {"text": "ab", "count": 3}}      "ababab"
 *   {"$concat": ["raw/", {"$ref": ...}, ".md"]}  the parts joined as one string
 * and in a `writeMany` input (and a `searchMany` `{ count, query }`), `{{i}}` inside a string is
 * replaced by the 0-based index.
 *
 * A case may give `"probes": { "env"?: { "NAME": "value" | null }, "tools"?: [...], "version"?: "x",
 * "paths"?: [...] }`: its backend is then created with `createFileBackend(root, { probes })`, where
 * env(name) is the mapped value (null: not set) or undefined for a name not in the map ("cannot
 * tell"), toolNames() is `tools`, selfVersion() is `version`, pathExists(p) is `paths.includes(p)`,
 * each undefined when its field is absent.
 *
 * Ops: the handlers `write`, `confirm`, `resolve`, `forget`, `nav`, `search`
 * (memory_search_hybrid), `assemble` (memory_assemble), `digest` (memory_digest), `sweep`
 * (memory_sweep), `verify` (memory_verify), `duplicates` (memory_duplicates), `merge`
 * (memory_merge), `undemote` (memory_undemote), `history` (memory_history), `lineage`
 * (memory_lineage), `forgetMemory` (memory_forget), `purge` (memory_purge), `timeline`, `neighbors`, `rooms`, `decay`,
 * `restore` and `auditForgotten` (memory_timeline, _neighbors, _rooms, _decay, _restore, _audit_forgotten),
 * `reviewQueue`, `review`, `report` and `assess` (memory_review_queue, _review, _report, _assess), each output checked against its tool's
 * declared output schema (tools looked up by name in TOOLS); `inject` (`injectionText(backend,
 * input)` of src/api.ts, after the signals settle; the runner checks that it returns synchronously,
 * not a Promise, that text.length <= budgetChars and that the text holds no `{{`); `writeConfig`
 * ({ ...fields } written as config.json); `writeMany` and `searchMany` (arrays
 * of outputs, each checked); `tokenize` ({ text, options? } -> the tokenizer's terms); `settle`
 * (waits for in-flight search signals); `usage` and `queryLog` (usage.jsonl / query-log.jsonl
 * parsed line by line, after the signals settle); `slowDisk` (fault injection: later whole-file
 * rewrites are delayed); `grep` ({ text } -> the files under the root, .cache/ included, that
 * hold it); `anchorCheck` ({ id } -> each anchor of that memory with its state under the case's
 * probes); and the store ops `rebuild`, `index` (filters: id, type or a list of
 * types, status, pathPrefix; sort; fields),
 * `indexStats`, `ledger`, `exists`, `readFile`, `writeFile`, `appendFile`, `removeFile`.
 * Case names are `NN-words`, `NNN-words` or `NNNN-words`; the number is unique.
 *
 * Assertions: value, lte, gte, length, includes, startsWith, jsonIncludes, jsonNotIncludes, error.
 *
 * Paths are dotted with brackets: `entries[0].id`, `a.b[-1]` (negative counts from the end),
 * `""` is the whole result.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { backfillHistory } from '../src/lifecycle/backfill.js'
import type { HostMessage } from '../src/lifecycle/auto-settle.js'
import { routeTools } from '../src/stores/route.js'
import { checkAnchor } from '../src/memory/truth/anchors.js'
import {
  MemoryError,
  TOOLS,
  createFileBackend,
  flushCaches,
  forgetMemoriesBySessionTool,
  injectionText,
  memoryConfirmTool,
  memoryNavTool,
  memoryResolveTool,
  outputViolation,
  rebuildIndex,
  signalsSettled,
  tokenize,
  writeMemoryTool,
  type AnchorProbes,
  type IndexEntry,
  type InjectionOptions,
  type MemoryBackend,
  type Schema,
} from '../src/api.js'

// ---------------------------------------------------------------------------------------------
// Case shape

export interface FixtureStep {
  op: string
  input?: unknown
  /** writeMany only (the seed's form); `input: { count, input }` works too. */
  count?: number
}

export const ASSERTION_KINDS = ['value', 'lte', 'gte', 'length', 'includes', 'startsWith', 'jsonIncludes', 'jsonNotIncludes', 'error'] as const
export type AssertionKind = (typeof ASSERTION_KINDS)[number]

export interface FixtureExpectation {
  step: number
  path?: string
  value?: unknown
  lte?: unknown
  gte?: unknown
  length?: unknown
  includes?: unknown
  /** The string at the path begins with this text. */
  startsWith?: unknown
  jsonIncludes?: unknown
  jsonNotIncludes?: unknown
  /** The step threw a MemoryError with this code. */
  error?: string
}

export interface FixtureCase {
  name: string
  description: string
  fixture?: string
  /** For cases that deliberately leave the index and the files apart (hand edits, corruption). */
  skipRebuildCheck?: boolean
  /** The host's anchor probes for this case's backend (see the header). */
  probes?: FixtureProbes
  steps: FixtureStep[]
  expect: FixtureExpectation[]
}

/** A case's anchor probes, as data. */
export interface FixtureProbes {
  /** Variable name -> value (null: not set); a name not in the map is "cannot tell". */
  env?: Record<string, string | null>
  tools?: string[]
  version?: string
  paths?: string[]
}

/** What a step that threw records as its result. */
export interface StepError {
  error: { code: string; message: string; field: string | null; memoryError: boolean }
  /** Handler ops only: whether the handler threw before returning its promise ("sync") or rejected it ("async"). */
  thrown?: 'sync' | 'async'
}

export class FixtureFormatError extends Error {
  override name = 'FixtureFormatError'
}

// ---------------------------------------------------------------------------------------------
// Paths, $ref, $repeat, $concat, {{i}}

type PathToken = string | number

export function parsePath(p: string): PathToken[] {
  const tokens: PathToken[] = []
  let i = 0
  const bad = () => new FixtureFormatError(`bad path ${JSON.stringify(p)} (use a.b[0].c)`)
  while (i < p.length) {
    const rest = p.slice(i)
    if (rest.startsWith('[')) {
      const m = /^\[(-?\d+)\]/.exec(rest)
      if (m === null) throw bad()
      tokens.push(Number(m[1]))
      i += m[0].length
    } else if (rest.startsWith('.')) {
      if (i === 0 || i === p.length - 1) throw bad()
      i++
    } else {
      const m = /^[^.[\]]+/.exec(rest)
      if (m === null) throw bad()
      tokens.push(m[0])
      i += m[0].length
    }
  }
  return tokens
}

/** The value at `p` inside `value`, or undefined when some part of the way is missing. */
export function getPath(value: unknown, p: string | undefined): unknown {
  let cur: unknown = value
  for (const token of parsePath(p ?? '')) {
    if (cur === null || cur === undefined) return undefined
    if (typeof token === 'number') {
      if (!Array.isArray(cur)) return undefined
      cur = cur[token < 0 ? cur.length + token : token]
    } else if (typeof cur === 'object') {
      cur = Object.prototype.hasOwnProperty.call(cur, token) ? (cur as Record<string, unknown>)[token] : undefined
    } else if (typeof cur === 'string' && token === 'length') {
      cur = cur.length
    } else {
      return undefined
    }
  }
  return cur
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function onlyKey(v: Record<string, unknown>, key: string): boolean {
  const keys = Object.keys(v)
  return keys.length === 1 && keys[0] === key
}

/**
 * Replaces every $ref / $repeat / $concat in `value`. `results` are the recorded step results;
 * `before` (for inputs) is the index of the current step, which a $ref must point before.
 */
export function resolveRefs(value: unknown, results: readonly unknown[], before = Infinity): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, results, before))
  if (!isPlainObject(value)) return value
  if (onlyKey(value, '$ref')) {
    const ref = value.$ref
    if (!isPlainObject(ref) || typeof ref.step !== 'number' || (ref.path !== undefined && typeof ref.path !== 'string'))
      throw new FixtureFormatError(`bad $ref ${JSON.stringify(ref)}: expected { step: number, path?: string }`)
    if (ref.step < 0 || ref.step >= Math.min(before, results.length))
      throw new FixtureFormatError(`$ref to step ${ref.step}, which has not run (current step ${before === Infinity ? 'none' : before})`)
    const out = getPath(results[ref.step], ref.path as string | undefined)
    if (out === undefined)
      throw new FixtureFormatError(`$ref step ${ref.step} path ${JSON.stringify(ref.path ?? '')} is undefined; the step's result is ${pretty(results[ref.step], 600)}`)
    return out
  }
  if (onlyKey(value, '$repeat')) {
    const rep = value.$repeat
    if (!isPlainObject(rep) || typeof rep.text !== 'string' || typeof rep.count !== 'number' || !Number.isInteger(rep.count) || rep.count < 0)
      throw new FixtureFormatError(`bad $repeat ${JSON.stringify(rep)}: expected { text: string, count: integer >= 0 }`)
    return rep.text.repeat(rep.count)
  }
  if (onlyKey(value, '$concat')) {
    const parts = value.$concat
    if (!Array.isArray(parts)) throw new FixtureFormatError('bad $concat: expected an array')
    return parts
      .map((part) => resolveRefs(part, results, before))
      .map((part) => (typeof part === 'string' ? part : typeof part === 'number' || typeof part === 'boolean' ? String(part) : JSON.stringify(part)))
      .join('')
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = resolveRefs(v, results, before)
  return out
}

/** Replaces `{{i}}` in every string of `value`. */
export function substituteIndex(value: unknown, i: number): unknown {
  if (typeof value === 'string') return value.replace(/\{\{i\}\}/g, String(i))
  if (Array.isArray(value)) return value.map((v) => substituteIndex(v, i))
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = substituteIndex(v, i)
    return out
  }
  return value
}

// ---------------------------------------------------------------------------------------------
// Ops

export interface RunContext {
  root: string
  /** What the steps use: the file backend, or a wrapper of it after `slowDisk`. */
  backend: MemoryBackend
  /** Every backend the case used (each holds its own caches and watcher until flushed). */
  backends: MemoryBackend[]
  /** Contract breaches an op saw (a Promise where a value was due, a budget overrun): each fails the case. */
  violations: string[]
}

/** The backend with `writeFileAtomic` (whole-file rewrites) delayed: a slow disk, for races. */
function slowAtomicWrites(backend: MemoryBackend, delayMs: number): MemoryBackend {
  return new Proxy(backend, {
    get(target, prop) {
      if (prop === 'writeFileAtomic')
        return async (...args: Parameters<MemoryBackend['writeFileAtomic']>) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs))
          return target.writeFileAtomic(...args)
        }
      const value: unknown = Reflect.get(target, prop, target)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
}

/** What the runner needs of a tool declaration (untyped input: fixtures feed it bad input on purpose). */
export interface FixtureTool {
  readonly name: string
  readonly output: Schema
  handler(backend: MemoryBackend, input: unknown): Promise<unknown>
}

const asFixtureTool = (tool: unknown): FixtureTool => tool as FixtureTool

/** A tool declaration looked up by its public name in TOOLS (what every adapter walks). */
function toolNamed(name: string): FixtureTool {
  const tool = TOOLS.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`fixture runner: no tool named ${name} in TOOLS`)
  return asFixtureTool(tool)
}

/** The tool behind each handler op: its output is checked against the declared schema. */
export const HANDLER_OPS: Readonly<Record<string, FixtureTool>> = {
  write: asFixtureTool(writeMemoryTool),
  confirm: asFixtureTool(memoryConfirmTool),
  resolve: asFixtureTool(memoryResolveTool),
  forget: asFixtureTool(forgetMemoriesBySessionTool),
  nav: asFixtureTool(memoryNavTool),
  search: toolNamed('memory_search_hybrid'),
  assemble: toolNamed('memory_assemble'),
  digest: toolNamed('memory_digest'),
  sweep: toolNamed('memory_sweep'),
  verify: toolNamed('memory_verify'),
  duplicates: toolNamed('memory_duplicates'),
  merge: toolNamed('memory_merge'),
  undemote: toolNamed('memory_undemote'),
  history: toolNamed('memory_history'),
  lineage: toolNamed('memory_lineage'),
  forgetMemory: toolNamed('memory_forget'),
  purge: toolNamed('memory_purge'),
  timeline: toolNamed('memory_timeline'),
  neighbors: toolNamed('memory_neighbors'),
  rooms: toolNamed('memory_rooms'),
  decay: toolNamed('memory_decay'),
  restore: toolNamed('memory_restore'),
  auditForgotten: toolNamed('memory_audit_forgotten'),
  reviewQueue: toolNamed('memory_review_queue'),
  review: toolNamed('memory_review'),
  report: toolNamed('memory_report'),
  assess: toolNamed('memory_assess'),
}

/** Ops whose result is an array of outputs of one tool: each output is checked against its schema. */
const MANY_OPS: Readonly<Record<string, string>> = { writeMany: 'write', searchMany: 'search' }

/** Waits for the signal writes in flight on every backend the case has used. */
async function settleAll(ctx: RunContext): Promise<void> {
  for (const b of ctx.backends) await signalsSettled(b)
}

/** Parses a JSONL file of the store into an array; a line that is not JSON becomes `{ "$unparsable": line }`. */
async function readJsonl(ctx: RunContext, rel: string): Promise<unknown[]> {
  await settleAll(ctx)
  const text = await ctx.backend.readFile(rel)
  const out: unknown[] = []
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue
    try {
      out.push(JSON.parse(line))
    } catch {
      out.push({ $unparsable: line })
    }
  }
  return out
}

const handlerOp =
  (op: string): OpFn =>
  (ctx, input) =>
    (HANDLER_OPS[op] as FixtureTool).handler(ctx.backend, input)

function objectInput(op: string, input: unknown, allowed: readonly string[], required: readonly string[] = []): Record<string, unknown> {
  const record = input === undefined || input === null ? {} : input
  if (!isPlainObject(record)) throw new FixtureFormatError(`op ${op}: input must be an object`)
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) throw new FixtureFormatError(`op ${op}: unknown input field ${JSON.stringify(key)} (known: ${allowed.join(', ') || 'none'})`)
  }
  for (const key of required) {
    if (record[key] === undefined) throw new FixtureFormatError(`op ${op}: input.${key} is required`)
  }
  return record
}

function stringField(op: string, record: Record<string, unknown>, key: string): string {
  const v = record[key]
  if (typeof v !== 'string') throw new FixtureFormatError(`op ${op}: input.${key} must be a string`)
  return v
}

/** An absolute path inside the store for a raw-file op; the fixture itself must not escape. */
function storePath(ctx: RunContext, op: string, rel: string): string {
  const abs = path.resolve(ctx.root, rel)
  if (abs !== ctx.root && !abs.startsWith(ctx.root + path.sep)) throw new FixtureFormatError(`op ${op}: ${JSON.stringify(rel)} is outside the store`)
  return abs
}

function errno(err: unknown): string | undefined {
  return isPlainObject(err) || err instanceof Error ? ((err as { code?: unknown }).code as string | undefined) : undefined
}

const INDEX_SORTS: Record<string, (a: IndexEntry, b: IndexEntry) => number> = {
  id: (a, b) => a.id.localeCompare(b.id),
  path: (a, b) => a.path.localeCompare(b.path),
  time: (a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id),
}

type OpFn = (ctx: RunContext, input: unknown, step: FixtureStep) => Promise<unknown>

/** The personal store of a case that serves tools over two stores (op routed). */
const personalStores = new WeakMap<RunContext, MemoryBackend>()

export const OPS: Readonly<Record<string, OpFn>> = {
  // Handler ops: runCase runs them through runHandler (which tells sync throws from rejections).
  write: handlerOp('write'),
  confirm: handlerOp('confirm'),
  resolve: handlerOp('resolve'),
  forget: handlerOp('forget'),
  nav: handlerOp('nav'),
  search: handlerOp('search'),
  assemble: handlerOp('assemble'),
  digest: handlerOp('digest'),
  sweep: handlerOp('sweep'),
  verify: handlerOp('verify'),
  duplicates: handlerOp('duplicates'),
  merge: handlerOp('merge'),
  undemote: handlerOp('undemote'),
  history: handlerOp('history'),
  lineage: handlerOp('lineage'),
  forgetMemory: handlerOp('forgetMemory'),
  purge: handlerOp('purge'),
  timeline: handlerOp('timeline'),
  neighbors: handlerOp('neighbors'),
  rooms: handlerOp('rooms'),
  decay: handlerOp('decay'),
  restore: handlerOp('restore'),
  auditForgotten: handlerOp('auditForgotten'),
  reviewQueue: handlerOp('reviewQueue'),
  review: handlerOp('review'),
  report: handlerOp('report'),
  assess: handlerOp('assess'),

  /**
   * Resident injection: `injectionText(backend, { enabled?, budgetChars?, cue? })`, called after the
   * signals settle (so usage.jsonl holds every hit). The call itself must be synchronous: a
   * Promise (or any thenable) is a contract breach and fails the case, as do a text longer than
   * its budgetChars and a `{{` in the text. Result: the InjectionResult.
   */
  async inject(ctx, input) {
    const rec = objectInput('inject', input, ['enabled', 'budgetChars', 'cue'])
    await settleAll(ctx)
    const out: unknown = injectionText(ctx.backend, rec as InjectionOptions)
    if (out instanceof Promise || (isPlainObject(out) && typeof (out as { then?: unknown }).then === 'function')) {
      ctx.violations.push('op inject: injectionText returned a Promise; hosts read context text synchronously and drop a Promise')
      return await (out as Promise<unknown>)
    }
    if (isPlainObject(out) && typeof out.text === 'string' && typeof out.budgetChars === 'number') {
      if (out.text.length > out.budgetChars) ctx.violations.push(`op inject: text is ${out.text.length} characters, over its budgetChars ${out.budgetChars}`)
      if (out.text.includes('{{')) ctx.violations.push('op inject: the text holds "{{" (the host would substitute it)')
    } else {
      ctx.violations.push(`op inject: unexpected result ${pretty(out, 400)}`)
    }
    return out
  },

  /**
   * A tool served over two stores, as the adapters serve it (src/stores/route.ts): the case's
   * store is the project store, and a personal store of the case's own (made on first use, kept
   * for the case) is the user store. Input: `{ tool, input }`. Result: the routed output, checked
   * against the tool's declared output schema.
   */
  async routed(ctx, input) {
    const rec = objectInput('routed', input, ['tool', 'input'], ['tool'])
    const name = stringField('routed', rec, 'tool')
    let user = personalStores.get(ctx)
    if (user === undefined) {
      user = createFileBackend(await fs.mkdtemp(path.join(os.tmpdir(), 'fixture-personal-')))
      personalStores.set(ctx, user)
      ctx.backends.push(user)
    }
    const tool = routeTools(TOOLS, { user, projectId: 'fixture/project' }).find((t) => t.name === name)
    if (tool === undefined) throw new FixtureFormatError(`op routed: no tool named ${name}`)
    const out = await (tool.handler as (b: MemoryBackend, i: unknown) => Promise<unknown>)(ctx.backend, rec['input'] ?? {})
    const violation = outputViolation(tool.output, out)
    if (violation !== null) ctx.violations.push(`op routed: ${name} output violates its schema at ${violation.field || '(root)'}: expected ${violation.expected}`)
    return out
  },

  /**
   * History backfill over sessions shaped like the host's (`{ id, deriveMessages() }`): input
   * `{ sessions: [{ id, typed: [texts] }], dryRun?, maxTotalTurns? }`; each typed text is a
   * user message with an rpcId, answered by the assistant. Result: the BackfillReport.
   */
  async backfill(ctx, input) {
    const rec = objectInput('backfill', input, ['sessions', 'dryRun', 'maxTotalTurns'], ['sessions'])
    if (!Array.isArray(rec['sessions'])) throw new FixtureFormatError('op backfill: input.sessions must be a list')
    const sessions = (rec['sessions'] as Array<{ id: string; typed: string[] }>).map(({ id, typed }) => {
      const messages: HostMessage[] = typed.flatMap((text, i) => [
        { role: 'user', content: [{ type: 'text', text }], source: { kind: 'user', rpcId: `${id}-rpc-${i}` } },
        { role: 'assistant', content: [{ type: 'text', text: 'OK.' }] },
      ])
      return { id, deriveMessages: () => messages }
    })
    return backfillHistory(ctx.backend, { list: () => sessions }, {
      ...(typeof rec['dryRun'] === 'boolean' ? { dryRun: rec['dryRun'] } : {}),
      ...(typeof rec['maxTotalTurns'] === 'number' ? { maxTotalTurns: rec['maxTotalTurns'] } : {}),
    })
  },

  /** Writes config.json (the panel's settings) with the given fields, replacing the file. */
  async writeConfig(ctx, input) {
    const rec = objectInput('writeConfig', input, ['requireConfirmation', 'redactSecrets', 'defaultBudget', 'maxTopK', 'injectEnabled', 'injectBudgetChars', 'autoSettleEnabled', 'decayAfterDays'])
    const abs = storePath(ctx, 'writeConfig', 'config.json')
    await fs.mkdir(path.dirname(abs), { recursive: true })
    await fs.writeFile(abs, `${JSON.stringify(rec, null, 2)}\n`, 'utf8')
    return true
  },

  /**
   * Many searches one after the other (each awaited, its signals left to finish in the background
   * as in real use): `{ queries: [...] }`, or `{ count, query }` with `{{i}}` in query replaced by
   * the 0-based index; `input` (optional) is merged into every search input; `settle: true` waits
   * for each search's signals before the next one (a deterministic query log); `pauseMs` waits
   * between searches (the agent's think time). Result: the outputs.
   */
  async searchMany(ctx, input) {
    const rec = objectInput('searchMany', input, ['queries', 'count', 'query', 'input', 'settle', 'pauseMs'])
    const pause = rec.pauseMs ?? 0
    if (typeof pause !== 'number' || !Number.isInteger(pause) || pause < 0 || pause > 1000) throw new FixtureFormatError('op searchMany: pauseMs must be an integer 0..1000')
    if (rec.settle !== undefined && typeof rec.settle !== 'boolean') throw new FixtureFormatError('op searchMany: settle must be a boolean')
    const extra = rec.input === undefined ? {} : rec.input
    if (!isPlainObject(extra)) throw new FixtureFormatError('op searchMany: input.input must be an object')
    let queries: unknown[]
    if (rec.queries !== undefined) {
      if (rec.count !== undefined || rec.query !== undefined) throw new FixtureFormatError('op searchMany: give either queries or count + query')
      if (!Array.isArray(rec.queries)) throw new FixtureFormatError('op searchMany: queries must be an array')
      queries = rec.queries
    } else {
      if (typeof rec.count !== 'number' || !Number.isInteger(rec.count) || rec.count < 0) throw new FixtureFormatError('op searchMany: count must be an integer >= 0')
      const query = stringField('searchMany', rec, 'query')
      queries = Array.from({ length: rec.count }, (_, i) => substituteIndex(query, i))
    }
    const search = HANDLER_OPS.search as FixtureTool
    const out: unknown[] = []
    for (const query of queries) {
      out.push(await search.handler(ctx.backend, { ...extra, query }))
      if (rec.settle === true) await signalsSettled(ctx.backend)
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause))
    }
    return out
  },

  /**
   * Fault injection for the steps that follow: every whole-file atomic rewrite through the backend
   * (such as the query-log trim) first waits `atomicWriteDelayMs`, as on a slow or busy disk.
   */
  async slowDisk(ctx, input) {
    const rec = objectInput('slowDisk', input, ['atomicWriteDelayMs'], ['atomicWriteDelayMs'])
    const delay = rec.atomicWriteDelayMs
    if (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0 || delay > 5000) throw new FixtureFormatError('op slowDisk: atomicWriteDelayMs must be an integer 0..5000')
    ctx.backend = slowAtomicWrites(ctx.backends[0] as MemoryBackend, delay)
    ctx.backends.push(ctx.backend)
    return true
  },

  /** Waits for the signal writes (usage.jsonl, query-log.jsonl) a search leaves in flight. */
  async settle(ctx, input) {
    objectInput('settle', input, [])
    await settleAll(ctx)
    return true
  },

  /** query-log.jsonl as an array of parsed lines (after the signals settle). */
  async queryLog(ctx, input) {
    objectInput('queryLog', input, [])
    return readJsonl(ctx, 'query-log.jsonl')
  },

  /** usage.jsonl as an array of parsed lines (after the signals settle). */
  async usage(ctx, input) {
    objectInput('usage', input, [])
    return readJsonl(ctx, 'usage.jsonl')
  },

  /** The tokenizer's output for `text` (src/api.ts tokenize), with its options if given. */
  async tokenize(_ctx, input) {
    const rec = objectInput('tokenize', input, ['text', 'options'], ['text'])
    if (rec.options !== undefined && !isPlainObject(rec.options)) throw new FixtureFormatError('op tokenize: options must be an object')
    return tokenize(stringField('tokenize', rec, 'text'), rec.options as Parameters<typeof tokenize>[1])
  },

  async writeMany(ctx, input, step) {
    let count: unknown = step.count
    let template: unknown = input
    if (count === undefined && isPlainObject(input) && 'count' in input) {
      const rec = objectInput('writeMany', input, ['count', 'input'], ['count', 'input'])
      count = rec.count
      template = rec.input
    }
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw new FixtureFormatError('op writeMany: count must be an integer >= 0')
    const out: unknown[] = []
    for (let i = 0; i < count; i++) out.push(await (HANDLER_OPS.write as FixtureTool).handler(ctx.backend, substituteIndex(template, i)))
    return out
  },

  /**
   * The anchors of one memory as the case's probes judge them: `{ id }` -> `{ id, anchors: [{ kind,
   * name, value, state: holds | stale | unchecked, reason }] }` (checkAnchor of src/memory/truth/anchors.ts).
   */
  async anchorCheck(ctx, input) {
    const rec = objectInput('anchorCheck', input, ['id'], ['id'])
    const id = stringField('anchorCheck', rec, 'id')
    const entry = (await ctx.backend.readIndex()).find((e) => e.id === id)
    if (entry === undefined) throw new FixtureFormatError(`op anchorCheck: no memory ${id} in the index`)
    const anchors = entry.anchors.map((a) => {
      const { state, reason } = checkAnchor(a, ctx.backend.probes)
      return { ...a, state, reason }
    })
    return { id, anchors }
  },

  async rebuild(ctx, input) {
    objectInput('rebuild', input, [])
    return rebuildIndex(ctx.backend)
  },

  async index(ctx, input) {
    const rec = objectInput('index', input, ['id', 'type', 'status', 'pathPrefix', 'sort', 'fields'])
    let entries = await ctx.backend.readIndex()
    if (rec.id !== undefined) entries = entries.filter((e) => e.id === rec.id)
    if (rec.type !== undefined) {
      // One type, or any of a list of types.
      const types: unknown[] = Array.isArray(rec.type) ? rec.type : [rec.type]
      entries = entries.filter((e) => types.includes(e.type))
    }
    if (rec.status !== undefined) entries = entries.filter((e) => e.status === rec.status)
    if (rec.pathPrefix !== undefined) entries = entries.filter((e) => e.path.startsWith(String(rec.pathPrefix)))
    if (rec.sort !== undefined) {
      const sort = INDEX_SORTS[String(rec.sort)]
      if (sort === undefined) throw new FixtureFormatError(`op index: sort must be one of ${Object.keys(INDEX_SORTS).join(', ')}`)
      entries = [...entries].sort(sort)
    }
    if (rec.fields !== undefined) {
      if (!Array.isArray(rec.fields) || !rec.fields.every((f) => typeof f === 'string')) throw new FixtureFormatError('op index: fields must be an array of strings')
      const fields = rec.fields as string[]
      return entries.map((e) => Object.fromEntries(fields.map((f) => [f, (e as unknown as Record<string, unknown>)[f]])))
    }
    return entries
  },

  async indexStats(ctx, input) {
    objectInput('indexStats', input, [])
    const entries = await ctx.backend.readIndex()
    const byStatus: Record<string, number> = {}
    const byType: Record<string, number> = {}
    for (const e of entries) {
      byStatus[e.status] = (byStatus[e.status] ?? 0) + 1
      byType[e.type] = (byType[e.type] ?? 0) + 1
    }
    return { entries: entries.length, skipped: ctx.backend.lastIndexSkipped, byStatus, byType }
  },

  async ledger(ctx, input) {
    const rec = objectInput('ledger', input, ['event'])
    const events = await ctx.backend.readLedger()
    return rec.event === undefined ? events : events.filter((e) => e.event === rec.event)
  },

  /**
   * Every file under the store root (dot folders such as .cache/ included) whose text contains
   * `text`, case aside, after the signals settle and the caches are flushed: `{ text }` -> sorted paths.
   */
  async grep(ctx, input) {
    const rec = objectInput('grep', input, ['text'], ['text'])
    const needle = stringField('grep', rec, 'text').toLowerCase()
    await settleAll(ctx)
    for (const b of ctx.backends) await flushCaches(b)
    const hits: string[] = []
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
        const abs = path.join(dir, entry.name)
        if (entry.isDirectory()) await walk(abs)
        else if (entry.isFile() && (await fs.readFile(abs, 'utf8')).toLowerCase().includes(needle)) hits.push(path.relative(ctx.root, abs).split(path.sep).join('/'))
      }
    }
    await walk(ctx.root)
    return hits.sort()
  },

  async exists(ctx, input) {
    const rec = objectInput('exists', input, ['path'], ['path'])
    return (await ctx.backend.stat(stringField('exists', rec, 'path'))) !== null
  },

  async readFile(ctx, input) {
    const rec = objectInput('readFile', input, ['path'], ['path'])
    // usage.jsonl and query-log.jsonl are written beside the search path: let them land first.
    await settleAll(ctx)
    return ctx.backend.readFile(stringField('readFile', rec, 'path'))
  },

  async writeFile(ctx, input) {
    const rec = objectInput('writeFile', input, ['path', 'text'], ['path', 'text'])
    const abs = storePath(ctx, 'writeFile', stringField('writeFile', rec, 'path'))
    await fs.mkdir(path.dirname(abs), { recursive: true })
    await fs.writeFile(abs, stringField('writeFile', rec, 'text'), 'utf8')
    return true
  },

  async appendFile(ctx, input) {
    const rec = objectInput('appendFile', input, ['path', 'text'], ['path', 'text'])
    const abs = storePath(ctx, 'appendFile', stringField('appendFile', rec, 'path'))
    await fs.mkdir(path.dirname(abs), { recursive: true })
    await fs.appendFile(abs, stringField('appendFile', rec, 'text'), 'utf8')
    return true
  },

  async removeFile(ctx, input) {
    const rec = objectInput('removeFile', input, ['path'], ['path'])
    const abs = storePath(ctx, 'removeFile', stringField('removeFile', rec, 'path'))
    try {
      await fs.unlink(abs)
      return true
    } catch (err) {
      if (errno(err) === 'ENOENT') return false
      throw err
    }
  },
}

export const OP_NAMES: readonly string[] = Object.keys(OPS)

function recordError(err: unknown, thrown?: 'sync' | 'async'): StepError {
  if (err instanceof FixtureFormatError) throw err
  const memoryError = err instanceof MemoryError
  const e = err as { code?: unknown; name?: unknown; message?: unknown; field?: unknown }
  return {
    error: {
      code: typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'UNKNOWN',
      message: typeof e?.message === 'string' ? e.message : String(err),
      field: typeof e?.field === 'string' ? e.field : null,
      memoryError,
    },
    ...(thrown !== undefined ? { thrown } : {}),
  }
}

/** Runs a handler, telling a synchronous throw from a rejected promise. */
async function runHandler(tool: FixtureTool, ctx: RunContext, input: unknown): Promise<unknown> {
  let promise: Promise<unknown>
  try {
    promise = tool.handler(ctx.backend, input)
  } catch (err) {
    return recordError(err, 'sync')
  }
  try {
    return await promise
  } catch (err) {
    return recordError(err, 'async')
  }
}

export function isStepError(v: unknown): v is StepError {
  return isPlainObject(v) && isPlainObject(v.error) && typeof v.error.code === 'string' && typeof v.error.memoryError === 'boolean'
}

// ---------------------------------------------------------------------------------------------
// Assertions

/** JSON round trip: the comparison sees what a JSON client would see. */
function canonical(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v))
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(canonical(a), canonical(b))
}

export function pretty(v: unknown, max = 4000): string {
  if (v === undefined) return '(undefined: nothing at this path)'
  const text = JSON.stringify(v, null, 2) ?? String(v)
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text
}

/** Checks one assertion; returns null when it holds, else why it does not. */
export function checkAssertion(kind: AssertionKind, expected: unknown, actual: unknown, stepResult: unknown): string | null {
  switch (kind) {
    case 'error': {
      if (!isStepError(stepResult)) return `expected the step to throw a MemoryError ${String(expected)}, but it succeeded`
      if (!stepResult.error.memoryError) return `expected a MemoryError ${String(expected)}, but a ${stepResult.error.code} was thrown`
      return stepResult.error.code === expected ? null : `expected error code ${String(expected)}, got ${stepResult.error.code}`
    }
    case 'value':
      return deepEqual(actual, expected) ? null : 'values differ'
    case 'lte':
    case 'gte': {
      if (typeof actual !== 'number' || typeof expected !== 'number') return `${kind} needs numbers on both sides`
      const ok = kind === 'lte' ? actual <= expected : actual >= expected
      return ok ? null : `${actual} is not ${kind === 'lte' ? '<=' : '>='} ${expected}`
    }
    case 'length': {
      if (!Array.isArray(actual) && typeof actual !== 'string') return 'length needs an array or a string'
      return actual.length === expected ? null : `length is ${actual.length}, expected ${String(expected)}`
    }
    case 'includes': {
      if (typeof actual === 'string') {
        if (typeof expected !== 'string') return 'includes on a string needs a string'
        return actual.includes(expected) ? null : 'the string does not contain the expected text'
      }
      if (Array.isArray(actual)) return actual.some((item) => deepEqual(item, expected)) ? null : 'no element of the array equals the expected value'
      return 'includes needs an array or a string'
    }
    case 'startsWith': {
      if (typeof actual !== 'string' || typeof expected !== 'string') return 'startsWith needs strings on both sides'
      return actual.startsWith(expected) ? null : 'the string does not start with the expected text'
    }
    case 'jsonIncludes':
    case 'jsonNotIncludes': {
      if (typeof expected !== 'string') return `${kind} needs a string`
      if (actual === undefined) return `${kind}: nothing at this path`
      const has = JSON.stringify(actual).includes(expected)
      if (kind === 'jsonIncludes') return has ? null : 'the JSON text does not contain the expected text'
      return has ? 'the JSON text contains the forbidden text' : null
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Running a case

export interface CaseOutcome {
  results: unknown[]
  failures: string[]
  root: string
}

export interface RunOptions {
  /** Folder holding the seed stores named by `fixture`. */
  fixturesDir: string
  /** Keep the temp store even when the case passes. */
  keepStore?: boolean
}

/** The number a case name starts with, as written ("07" of "07-…", "112" of "112-…"). */
export function casePrefix(name: string): string {
  return /^\d+/.exec(String(name))?.[0] ?? String(name).slice(0, 2)
}

function describeStep(c: FixtureCase, i: number): string {
  return `step ${i} (${c.steps[i]?.op ?? '?'})`
}

async function compareWithRebuild(backend: MemoryBackend): Promise<string | null> {
  const before = await backend.readIndex()
  const skippedBefore = backend.lastIndexSkipped
  if (skippedBefore > 0)
    return `store invariant: index.jsonl has ${skippedBefore} unparsable line(s) at the end of the case (set "skipRebuildCheck": true if the case means it)`
  const rebuilt = await rebuildIndex(backend)
  const after = await backend.readIndex()
  const byId = (list: IndexEntry[]) => [...list].sort((a, b) => a.id.localeCompare(b.id))
  const a = byId(before)
  const b = byId(after)
  if (deepEqual(a, b)) return null
  const lines: string[] = [`store invariant: rebuildIndex does not reproduce the index (${a.length} entries before, ${b.length} after; warnings ${pretty(rebuilt.warnings, 800)})`]
  const ids = new Set([...a.map((e) => e.id), ...b.map((e) => e.id)])
  for (const id of [...ids].sort()) {
    const x = a.find((e) => e.id === id)
    const y = b.find((e) => e.id === id)
    if (x === undefined || y === undefined) {
      lines.push(`  ${id}: ${x === undefined ? 'only after rebuild' : 'lost by rebuild'}`)
      continue
    }
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
      const xv = (x as unknown as Record<string, unknown>)[key]
      const yv = (y as unknown as Record<string, unknown>)[key]
      if (!deepEqual(xv, yv)) lines.push(`  ${id}.${key}: index ${JSON.stringify(xv)} vs rebuilt ${JSON.stringify(yv)}`)
    }
  }
  return lines.join('\n')
}

/** Checks that a case is well-formed (ops known, expectations point at steps, one assertion each at least). */
export function caseFormatProblems(c: FixtureCase): string[] {
  const problems: string[] = []
  if (typeof c.name !== 'string' || !/^\d{2,4}-[a-z0-9][a-z0-9-]*$/.test(c.name)) problems.push(`name ${JSON.stringify(c.name)} should look like "NN-words-with-dashes" (or NNN-, NNNN-)`)
  if (typeof c.description !== 'string' || c.description.trim() === '') problems.push('description is missing')
  if (!Array.isArray(c.steps) || c.steps.length === 0) problems.push('steps is empty')
  if (!Array.isArray(c.expect) || c.expect.length === 0) problems.push('expect is empty')
  const known = new Set(['name', 'description', 'fixture', 'skipRebuildCheck', 'probes', 'steps', 'expect'])
  for (const key of Object.keys(c)) if (!known.has(key)) problems.push(`unknown case field ${JSON.stringify(key)}`)
  if (c.probes !== undefined) problems.push(...probesProblems(c.probes))
  for (const [i, step] of (c.steps ?? []).entries()) {
    if (!OP_NAMES.includes(step.op)) problems.push(`step ${i}: unknown op ${JSON.stringify(step.op)}`)
    for (const key of Object.keys(step)) if (!['op', 'input', 'count'].includes(key)) problems.push(`step ${i}: unknown field ${JSON.stringify(key)}`)
  }
  for (const [i, e] of (c.expect ?? []).entries()) {
    if (typeof e.step !== 'number' || e.step < 0 || e.step >= (c.steps?.length ?? 0)) problems.push(`expect #${i}: step ${String(e.step)} does not exist`)
    const kinds = Object.keys(e).filter((k) => (ASSERTION_KINDS as readonly string[]).includes(k))
    if (kinds.length === 0) problems.push(`expect #${i}: no assertion (one of ${ASSERTION_KINDS.join(', ')})`)
    for (const key of Object.keys(e)) if (key !== 'step' && key !== 'path' && !kinds.includes(key)) problems.push(`expect #${i}: unknown field ${JSON.stringify(key)}`)
  }
  return problems
}

function probesProblems(probes: unknown): string[] {
  if (!isPlainObject(probes)) return ['probes must be an object']
  const problems: string[] = []
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string')
  for (const key of Object.keys(probes)) if (!['env', 'tools', 'version', 'paths'].includes(key)) problems.push(`probes: unknown field ${JSON.stringify(key)}`)
  if (probes.env !== undefined && (!isPlainObject(probes.env) || !Object.values(probes.env).every((v) => typeof v === 'string' || v === null)))
    problems.push('probes.env must map names to a string or null')
  if (probes.tools !== undefined && !strings(probes.tools)) problems.push('probes.tools must be an array of strings')
  if (probes.version !== undefined && typeof probes.version !== 'string') problems.push('probes.version must be a string')
  if (probes.paths !== undefined && !strings(probes.paths)) problems.push('probes.paths must be an array of strings')
  return problems
}

/** The host probes a case describes: each answers from the data, or undefined ("cannot tell"). */
export function fixtureProbes(p: FixtureProbes): AnchorProbes {
  const env = p.env
  return {
    env: (name) => (env !== undefined && Object.prototype.hasOwnProperty.call(env, name) ? (env[name] as string | null) : undefined),
    toolNames: () => p.tools,
    selfVersion: () => p.version,
    pathExists: (q) => (p.paths === undefined ? undefined : p.paths.includes(q)),
  }
}

export async function runCase(c: FixtureCase, options: RunOptions): Promise<CaseOutcome> {
  const failures: string[] = []
  const results: unknown[] = []
  const root = await fs.mkdtemp(path.join(os.tmpdir(), `dsh-memory-fixture-${casePrefix(c.name)}-`))
  const format = caseFormatProblems(c)
  if (format.length > 0) return { results, failures: format.map((p) => `case format: ${p}`), root }
  if (c.fixture !== undefined) {
    const src = path.join(options.fixturesDir, c.fixture)
    await fs.cp(src, root, { recursive: true })
  }
  const backend = createFileBackend(root, c.probes !== undefined ? { probes: fixtureProbes(c.probes) } : {})
  const ctx: RunContext = { root, backend, backends: [backend], violations: [] }

  for (const [i, step] of c.steps.entries()) {
    let input: unknown
    try {
      input = resolveRefs(step.input, results, i)
    } catch (err) {
      failures.push(`${describeStep(c, i)}: input: ${(err as Error).message}`)
      return { results, failures, root }
    }
    const tool = HANDLER_OPS[step.op]
    let result: unknown
    try {
      if (tool !== undefined) result = await runHandler(tool, ctx, input)
      else result = await (OPS[step.op] as OpFn)(ctx, input, step)
    } catch (err) {
      if (err instanceof FixtureFormatError) {
        failures.push(`${describeStep(c, i)}: ${err.message}`)
        return { results, failures, root }
      }
      result = recordError(err)
    }
    results.push(result)
    if (isStepError(result)) continue
    const many = MANY_OPS[step.op]
    const outputs = many !== undefined ? (result as unknown[]) : tool !== undefined ? [result] : []
    const schemaTool = many !== undefined ? HANDLER_OPS[many] : tool
    for (const [j, out] of outputs.entries()) {
      const violation = schemaTool !== undefined ? outputViolation(schemaTool.output, out) : null
      if (violation !== null)
        failures.push(`${describeStep(c, i)}${outputs.length > 1 ? ` output ${j}` : ''}: output violates the declared ${schemaTool?.name} output schema at ${JSON.stringify(violation.field)}: expected ${violation.expected}\n  actual output: ${pretty(out, 1500)}`)
    }
  }

  for (const [n, e] of c.expect.entries()) {
    const stepResult = results[e.step]
    const kinds = ASSERTION_KINDS.filter((k) => k in e)
    let actual: unknown
    try {
      actual = getPath(stepResult, e.path)
    } catch (err) {
      failures.push(`expect #${n}: ${(err as Error).message}`)
      continue
    }
    for (const kind of kinds) {
      let expected: unknown
      try {
        expected = resolveRefs(e[kind], results)
      } catch (err) {
        failures.push(`expect #${n} (${kind}): ${(err as Error).message}`)
        continue
      }
      const why = checkAssertion(kind, expected, actual, stepResult)
      if (why === null) continue
      failures.push(
        [
          `[${c.name}] expect #${n}: ${describeStep(c, e.step)}, path ${JSON.stringify(e.path ?? '')}, ${kind}: ${why}`,
          `  expected (${kind}): ${pretty(expected).replace(/\n/g, '\n  ')}`,
          `  actual: ${pretty(kind === 'error' ? stepResult : actual).replace(/\n/g, '\n  ')}`,
        ].join('\n'),
      )
    }
  }

  for (const v of ctx.violations) failures.push(`contract: ${v}`)

  // A step that threw must be expected to: otherwise the failure would pass unnoticed.
  for (const [i, result] of results.entries()) {
    if (!isStepError(result)) continue
    const covered = c.expect.some((e) => e.step === i && ('error' in e || (e.path ?? '').startsWith('error') || (e.path ?? '').startsWith('thrown')))
    if (!covered) failures.push(`${describeStep(c, i)} threw unexpectedly: ${result.error.code}: ${result.error.message}`)
  }

  // Signal writes still in flight would race the rebuild check and the removal of the store.
  await settleAll(ctx)

  if (c.skipRebuildCheck !== true) {
    try {
      const problem = await compareWithRebuild(ctx.backend)
      if (problem !== null) failures.push(problem)
    } catch (err) {
      failures.push(`store invariant: rebuild check threw ${String(err)}`)
    }
  }

  // Stops this backend's file watcher and pending cache-save timer before the store goes away.
  try {
    for (const b of ctx.backends) await flushCaches(b)
  } catch (err) {
    failures.push(`flushCaches threw ${String(err)}`)
  }
  if (failures.length === 0 && options.keepStore !== true) await fs.rm(root, { recursive: true, force: true })
  return { results, failures, root }
}

export async function loadCases(file: string): Promise<FixtureCase[]> {
  const cases = JSON.parse(await fs.readFile(file, 'utf8')) as unknown
  if (!Array.isArray(cases)) throw new FixtureFormatError(`${file}: expected an array of cases`)
  return cases as FixtureCase[]
}

/** The cases whose name contains `filter` (all when it is empty). */
export function filterCases(cases: FixtureCase[], filter: string | undefined): FixtureCase[] {
  const f = (filter ?? '').trim()
  return f === '' ? cases : cases.filter((c) => c.name.includes(f))
}
