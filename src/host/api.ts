/**
 * The settings panel's HTTP API, independent of any host: `handleApiRequest` takes a request the
 * host glue has already read (method, headers, remote address, body) and returns a status,
 * headers and a JSON body. The glue mounts it at `POST /memory-agent/api` and does nothing else;
 * this module never listens, reads the environment or touches a host object. The body is
 * `{ "op": <name>, ...arguments }`; the answer is `{ ok: true, result }` or
 * `{ ok: false, error: { code, message } }`.
 *
 * Gates, in this order:
 * 1. POST only (405).
 * 2. A loopback peer only: 127.0.0.0/8, ::1, ::ffff:127.x.x.x (403).
 * 3. From the panel: Origin equal to `http://<Host>` or `https://<Host>`, or the header
 *    `x-dsh-memory-agent: panel` (403), AND the per-process secret below (403).
 * 4. `content-type: application/json` (415).
 * 5. A body of at most 64 KB (413). The glue should stop reading at API_BODY_LIMIT + 1 bytes and
 *    pass what it has: this module answers 413 for it.
 * 6. A JSON object whose `op` is on the whitelist (400), with valid arguments (400).
 *
 * The secret. Origin and the panel header only keep out browser pages of other sites (they cannot
 * set either without a CORS preflight, which gets 405); any local process can send both, and a
 * page reached through DNS rebinding has an Origin that matches its Host. So every request must
 * also carry `x-dsh-memory-agent-token` equal to `deps.secret`, compared in constant time. The
 * glue passes the store's panel key (panel-key.ts: random, kept owner-only in `.cache/`), which
 * reaches the browser only out of band: in the `#memory-agent-key=` fragment of the link the DSH
 * plugin and `memory-agent serve` print (a fragment is never sent to a server), or pasted from
 * `memory-agent panel-key`. Whatever carries it must not itself be an open loopback route, or the
 * gap reopens. An empty secret lets nothing through.
 *
 * Errors map once, here: MemoryError INVALID_INPUT 400, NOT_FOUND 404, INVALID_STATE 409,
 * PATH_OUTSIDE_ROOT 403, LOCK_TIMEOUT 503; anything else is 500 with a generic message (the error
 * goes to the host log, never into the response). An operating-system error is an IO_ERROR whose
 * response says the cause in plain words and carries the errno, but names no file (paths stay in
 * the log).
 */

import { createHash, timingSafeEqual } from 'node:crypto'
import { isIPv4 } from 'node:net'
import { asMemoryError, ioCause, isMemoryError, MemoryError, type ErrorCode } from '../errors.js'
import { backfillHistory, BACKFILL_MAX_TOTAL_TURNS, type BackfillOptions, type BackfillSessionSource } from '../lifecycle/backfill.js'
import { CONFIG_FIELDS, typedValueProblem, type RuntimeConfig } from '../memory/settings/config.js'
import { saveConfigPatch } from '../memory/settings/config-file.js'
import { DEFAULT_BUNDLE_BYTES, exportBundle } from '../memory/transfer/export.js'
import { INJECT_MAX_BUDGET, INJECT_MIN_BUDGET, injectionText } from '../memory/reading/inject.js'
import { guardValue } from '../memory/truth/injection-guard.js'
import { purgeDeleted } from '../memory/forgetting/purge-deleted.js'
import { listSessions } from '../memory/reading/sessions.js'
import { readQueryLog, readUsage } from '../memory/organisation/signals.js'
import { restore, softDelete } from '../memory/forgetting/soft-delete.js'
import { memoryStats } from '../memory/reading/stats.js'
import { vectorDiagnostics } from '../retrieve/vectors.js'
import type { MemoryBackend } from '../store/backend.js'
import { unreadableFiles } from '../store/frontmatter.js'
import { rebuildIndex } from '../store/rebuild.js'
import { syncStore } from '../sync/sync.js'
import { routeTools } from '../stores/route.js'
import { TOOLS } from '../tools/index.js'
import { memoryNavTool } from '../tools/memory-nav.js'
import { parseInput, type Infer, type ObjectSchema } from '../tools/declare/schema.js'
import { idField, statusField } from '../tools/declare/shapes.js'
import type { ToolDeclaration } from '../tools/declare/tool.js'
import { backendOf, healthOf, ledgerView, listScope, noPersonalStore, storeStatus, type PanelStores } from './panel-stores.js'
import { PANEL_HEADER, TOKEN_HEADER } from './panel-protocol.js'

export { API_PATH, PANEL_HEADER, TOKEN_HEADER } from './panel-protocol.js'
/** Largest request body, in bytes. */
export const API_BODY_LIMIT = 64 * 1024
/** Files with front-matter that does not parse listed by `status`, at most (memory_sweep pages them too). */
const UNREADABLE_SHOWN = 200

export interface ApiRequest {
  method: string
  /** Request headers; names in any case (Node gives them lower-cased). */
  headers: Record<string, string | undefined>
  /** The peer's address as the socket reports it. */
  remoteAddress: string | undefined
  body: string | Buffer
}

export interface ApiResponse {
  status: number
  headers: Record<string, string>
  /** JSON text. */
  body: string
}

export interface ApiDeps {
  backend: MemoryBackend
  /** The per-process secret the panel sends in `x-dsh-memory-agent-token`. */
  secret: string
  config: {
    /** The effective configuration. */
    get(): RuntimeConfig
    /**
     * Called after `config.set` wrote config.json, with the fields written (whitelisted and
     * clamped): applies them to what the host keeps in memory and returns the effective configuration.
     */
    set(patch: Partial<RuntimeConfig>): RuntimeConfig
  }
  /** The host's sessions for `backfill`, while it has them; absent (`memory-agent serve`): the op answers INVALID_STATE. */
  sessions?: () => BackfillSessionSource | undefined
  /** Where `backfill` puts a memory (the project or the personal store); default `backend`. */
  backfillStoreFor?: BackfillOptions['storeFor']
  /** The personal store served beside `backend` (the project store): the panel shows both, and every tool is routed over both. */
  user?: MemoryBackend
  /** The project's identity, recorded in the personal store's ledger with a write routed there. */
  projectId?: string
}

/** Codes of answers that no handler gave: the gates, and a failure nobody expected. */
export type ApiErrorCode = ErrorCode | 'METHOD_NOT_ALLOWED' | 'FORBIDDEN' | 'UNSUPPORTED_MEDIA_TYPE' | 'PAYLOAD_TOO_LARGE' | 'INTERNAL_ERROR'

const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  INVALID_STATE: 409,
  PATH_OUTSIDE_ROOT: 403,
  LOCK_TIMEOUT: 503,
  IO_ERROR: 500,
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }

function respond(status: number, payload: unknown, extraHeaders: Record<string, string> = {}): ApiResponse {
  return { status, headers: { ...JSON_HEADERS, ...extraHeaders }, body: JSON.stringify(payload) }
}

function fail(status: number, code: ApiErrorCode, message: string, extraHeaders?: Record<string, string>): ApiResponse {
  return respond(status, { ok: false, error: { code, message } }, extraHeaders)
}

/** 127.0.0.0/8, ::1, and IPv4-mapped 127.x as Node reports them. Pure. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false
  const a = address.toLowerCase()
  const v4 = a.startsWith('::ffff:') ? a.slice('::ffff:'.length) : a
  return isIPv4(v4) ? v4.startsWith('127.') : a === '::1'
}

/** Constant-time equality of the given token and the secret (hashed first, so lengths match). */
function tokenMatches(given: string | undefined, secret: string): boolean {
  if (given === undefined || secret === '') return false
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest()
  return timingSafeEqual(digest(given), digest(secret))
}

function fromPanel(header: (name: string) => string | undefined): boolean {
  const host = header('host')?.toLowerCase()
  const origin = header('origin')?.toLowerCase()
  const sameOrigin = host !== undefined && origin !== undefined && (origin === `http://${host}` || origin === `https://${host}`)
  return sameOrigin || header(PANEL_HEADER) === 'panel'
}

type Args = Record<string, unknown>
type OpHandler = (args: Args, deps: ApiDeps, op: string) => Promise<unknown>

/** An op whose arguments are checked against a schema (unknown fields refused, defaults filled). */
function withArgs<const S extends ObjectSchema>(schema: S, run: (args: Infer<S>, deps: ApiDeps) => unknown): OpHandler {
  return async (args, deps, op) => run(parseInput(schema, args, op) as Infer<S>, deps)
}

/** A tool as an op sees it: the handler checks whatever input it is given and names a bad field. */
interface CheckingTool {
  handler(backend: MemoryBackend, input: unknown): Promise<unknown>
}

/** The registry's tools as this API serves them: routed over both stores when there is a personal one. */
const servedTools = new WeakMap<ApiDeps, readonly ToolDeclaration[]>()

function toolsOf(deps: ApiDeps): readonly ToolDeclaration[] {
  let tools = servedTools.get(deps)
  if (tools === undefined) {
    tools = deps.user !== undefined ? routeTools(TOOLS, { user: deps.user, ...(deps.projectId !== undefined ? { projectId: deps.projectId } : {}) }) : TOOLS
    servedTools.set(deps, tools)
  }
  return tools
}

/** A registry tool by name; an unknown name is INVALID_INPUT listing the known ones. */
function toolNamed(deps: ApiDeps, name: string): CheckingTool {
  const tool = toolsOf(deps).find((t) => t.name === name)
  if (tool === undefined) throw new MemoryError('INVALID_INPUT', `name: a tool of the registry (${TOOLS.map((t) => t.name).join(', ')}), got ${JSON.stringify(name).slice(0, 60)}`, 'name')
  return tool as unknown as CheckingTool
}

/**
 * A tool's input as this API passes it: without a personal store the tools are not routed and
 * take no `store`, so "project" and "all" (the only store there is) are dropped and "user" is refused.
 */
function servedInput(deps: ApiDeps, input: Args): Args {
  if (deps.user !== undefined || !Object.hasOwn(input, 'store')) return input
  const { store, ...rest } = input
  if (store === 'user') throw noPersonalStore()
  return store === 'project' || store === 'all' ? rest : input
}

/** An op served by a registry tool, with some arguments fixed by the panel's rules. */
function viaTool(name: string, fixed: Args = {}): OpHandler {
  return (args, deps) => toolNamed(deps, name).handler(deps.backend, servedInput(deps, { ...args, ...fixed }))
}

function storesOf(deps: ApiDeps): PanelStores {
  return { project: deps.backend, ...(deps.user !== undefined ? { user: deps.user } : {}) }
}

const NO_ARGS = { type: 'object', properties: {}, additionalProperties: false } as const
/** One store: where the memory an op names is (default the project store). */
const storeField = { type: 'string', enum: ['project', 'user'], default: 'project' } as const
/** The stores an op reads: all (default: both, when there is a personal store), project or user. */
const scopeField = { type: 'string', enum: ['all', 'project', 'user'], default: 'all' } as const
const ID_ARGS = { type: 'object', properties: { id: idField, store: storeField }, required: ['id'], additionalProperties: false } as const

/** A panel result with memory text sanitised as for a model, and `injectionWarnings` when anything was. */
function guarded<T extends object>(value: T): T & { injectionWarnings?: ReturnType<typeof guardValue>['warnings'] } {
  const { value: clean, warnings } = guardValue(value)
  return warnings.length > 0 ? { ...clean, injectionWarnings: warnings } : clean
}

/**
 * One memory in full for the panel's detail view: entry, file text, raw text, the other sides of
 * a conflict. Entry and variants are sanitised like every listing; the file and raw text are the
 * stored bytes, for the person who keeps the store to see (and fix) what the guard flagged, and
 * `injectionWarnings` names those fields so the panel can say so.
 */
async function detail(backend: MemoryBackend, id: string) {
  const nav = await memoryNavTool.handler(backend, { path: id, limit: 1 })
  const view = await backend.indexView()
  const entry = view.get(id)
  // Only ids: a path or a file that is not a memory is not something to show here.
  if (entry === undefined || nav.file?.path !== entry.path) throw new MemoryError('NOT_FOUND', `no memory with id ${JSON.stringify(id)}`, 'id')
  const variants = entry.variants.flatMap((v) => {
    const other = view.get(v)
    return other === undefined ? [] : [{ id: other.id, title: other.title, summary: other.summary, status: other.status, time: other.time }]
  })
  const raw = entry.raw_ref !== null ? await backend.readMemoryFile(entry.raw_ref).catch(() => null) : null
  const text = (await backend.readMemoryFile(entry.path)) ?? nav.file.text
  const used = (await readUsage(backend)).get(id)
  const shown = guardValue({ entry, variants })
  const warnings = [...shown.warnings, ...guardValue({ text, raw }).warnings]
  return {
    ...shown.value,
    text,
    raw,
    usage: { hits: used?.hits ?? 0, last_used_at: used?.lastHitAt ?? null },
    ...(warnings.length > 0 ? { injectionWarnings: warnings } : {}),
  }
}

const OPS: Readonly<Record<string, OpHandler>> = {
  // memoryStats brings the index up to date first, so a file broken by hand is listed at once.
  status: withArgs(NO_ARGS, async (_args, deps) => {
    const stats = await memoryStats(deps.backend)
    const embeddings = await vectorDiagnostics(deps.backend)
    return {
      root: deps.backend.root,
      stats,
      config: deps.config.get(),
      unreadable: unreadableFiles((await deps.backend.indexView()).values()).slice(0, UNREADABLE_SHOWN),
      ...(embeddings !== null ? { embeddings } : {}),
      // Whether `backfill` can run here: only a host with sessions (DSH) has any to read.
      backfill: deps.sessions?.() !== undefined,
      // Each store's list counts: the one source of every counter the panel shows.
      stores: { project: await storeStatus(deps.backend), ...(deps.user !== undefined ? { user: await storeStatus(deps.user) } : {}) },
    }
  }),
  'config.set': async (args, deps) => {
    for (const key of CONFIG_FIELDS) {
      const problem = Object.hasOwn(args, key) ? typedValueProblem(key, args[key]) : null
      if (problem !== null) throw new MemoryError('INVALID_INPUT', problem, key)
    }
    const { written, replacedInvalid } = await saveConfigPatch(deps.backend, args)
    const config = Object.keys(written).length > 0 ? deps.config.set(written) : deps.config.get()
    return { written, config, ...(replacedInvalid ? { replaced_invalid_file: true } : {}) }
  },
  rebuild: withArgs(NO_ARGS, (_args, deps) => rebuildIndex(deps.backend)),
  confirm: viaTool('memory_confirm'),
  resolve: viaTool('memory_resolve'),
  softDelete: withArgs(ID_ARGS, (args, deps) => softDelete(backendOf(storesOf(deps), args.store), args.id)),
  restore: withArgs(ID_ARGS, (args, deps) => restore(backendOf(storesOf(deps), args.store), args.id)),
  purgeDeleted: withArgs(
    { type: 'object', properties: { includeTopics: { type: 'boolean', default: false } }, additionalProperties: false } as const,
    (args, deps) => purgeDeleted(deps.backend, { includeTopics: args.includeTopics }),
  ),
  // The panel's searches are usage like the model's: the handler records them.
  search: viaTool('memory_search_hybrid'),
  detail: withArgs(ID_ARGS, (args, deps) => detail(backendOf(storesOf(deps), args.store), args.id)),
  // The palace as the model sees it: the rooms in tour order, or one room's memories by slot.
  rooms: viaTool('memory_rooms'),
  // Archived (by decay) is not soft-deleted: it comes back through memory_restore, not `restore`.
  restoreArchived: viaTool('memory_restore'),
  // The rows the panel lists: search finds only active and conflict memories, yet pending,
  // soft-deleted and orphaned ones need a row to be confirmed, restored or looked at.
  list: withArgs(
    {
      type: 'object',
      properties: {
        status: statusField,
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
        offset: { type: 'integer', minimum: 0, default: 0 },
        store: scopeField,
      },
      additionalProperties: false,
    } as const,
    async (args, deps) => guarded(await listScope(storesOf(deps), args.store, { ...(args.status !== undefined ? { status: args.status } : {}), limit: args.limit, offset: args.offset })),
  ),
  // Written by a person at the panel: straight in, past the confirmation gate.
  create: viaTool('write_memory', { source: 'user', requireConfirmation: false }),
  forgetSession: viaTool('forget_memories_by_session'),
  // Any tool of the registry, as every other surface calls it (routed over both stores when
  // there are two): the panel's edits, review card and health use the tools, not ops of their own.
  tool: withArgs(
    {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, input: { type: 'object', properties: {}, additionalProperties: true } },
      required: ['name'],
      additionalProperties: false,
    } as const,
    async (args, deps) => guarded((await toolNamed(deps, args.name).handler(deps.backend, servedInput(deps, args.input ?? {}))) as object),
  ),
  // The operation log: both ledgers merged, newest first, of one kind when asked.
  ledger: withArgs(
    {
      type: 'object',
      properties: { store: scopeField, event: { type: 'string', minLength: 1, maxLength: 100 }, limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
      additionalProperties: false,
    } as const,
    async (args, deps) => guarded(await ledgerView(storesOf(deps), args.store, { ...(args.event !== undefined ? { event: args.event } : {}), limit: args.limit })),
  ),
  // One figure with its parts, from memory_sweep, the conflict list and memory_review_queue.
  health: withArgs({ type: 'object', properties: { store: scopeField }, additionalProperties: false } as const, (args, deps) => healthOf(storesOf(deps), args.store)),
  listSessions: withArgs(NO_ARGS, async (_args, deps) => ({ sessions: await listSessions(deps.backend) })),
  export: withArgs(
    { type: 'object', properties: { maxBytes: { type: 'integer', minimum: 1024, maximum: DEFAULT_BUNDLE_BYTES } }, additionalProperties: false } as const,
    (args, deps) => exportBundle(deps.backend, { maxBytes: args.maxBytes ?? DEFAULT_BUNDLE_BYTES }),
  ),
  // Reads only: a preview is not a use of any memory.
  injectPreview: withArgs(
    {
      type: 'object',
      properties: { enabled: { type: 'boolean' }, budgetChars: { type: 'integer', minimum: INJECT_MIN_BUDGET, maximum: INJECT_MAX_BUDGET } },
      additionalProperties: false,
    } as const,
    (args, deps) => injectionText(deps.backend, args),
  ),
  queryLog: withArgs(NO_ARGS, async (_args, deps) => ({ queries: (await readQueryLog(deps.backend)).reverse() })),
  // The panel's sync button: the remote is set once (memory-agent sync --remote URL, or git), and
  // git must never wait for a password nobody can type here.
  sync: withArgs(NO_ARGS, (_args, deps) => syncStore(deps.backend, { interactive: false })),
  // Consolidation as memory_consolidate does it (a preview unless dryRun is false); the report
  // quotes memory text, sanitised as every listing is.
  consolidate: async (args, deps) => guarded((await viaTool('memory_consolidate')(args, deps, 'consolidate')) as object),
  // History backfill from the host's sessions: an estimate unless dryRun is false.
  backfill: withArgs(
    {
      type: 'object',
      properties: { dryRun: { type: 'boolean', default: true }, maxTurns: { type: 'integer', minimum: 1, maximum: BACKFILL_MAX_TOTAL_TURNS } },
      additionalProperties: false,
    } as const,
    (args, deps) => {
      const sessions = deps.sessions?.()
      if (sessions === undefined) throw new MemoryError('INVALID_STATE', 'no host sessions here: backfill reads the sessions of the DSH host, so run it from the panel inside DSH')
      const storeFor = deps.backfillStoreFor
      return backfillHistory(deps.backend, sessions, { dryRun: args.dryRun, ...(args.maxTurns !== undefined ? { maxTotalTurns: args.maxTurns } : {}), ...(storeFor !== undefined ? { storeFor } : {}) })
    },
  ),
}

/** The ops the API serves. */
export const API_OPS: readonly string[] = Object.keys(OPS)

function parseBody(body: string | Buffer): { op: string; args: Args } | ApiResponse {
  let value: unknown
  try {
    value = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'))
  } catch (err) {
    return fail(400, 'INVALID_INPUT', `the body is not valid JSON (${err instanceof Error ? err.message : 'parse error'})`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(400, 'INVALID_INPUT', 'the body must be a JSON object { "op": ..., ...arguments }')
  const { op, ...args } = value as Args
  if (typeof op !== 'string' || !Object.prototype.hasOwnProperty.call(OPS, op))
    return fail(400, 'INVALID_INPUT', `unknown op ${JSON.stringify(op ?? null).slice(0, 60)}; known ops: ${API_OPS.join(', ')}`)
  return { op, args }
}

export async function handleApiRequest(request: ApiRequest, deps: ApiDeps): Promise<ApiResponse> {
  const headers = new Map(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]))
  const header = (name: string) => headers.get(name)
  if (request.method.toUpperCase() !== 'POST') return fail(405, 'METHOD_NOT_ALLOWED', 'only POST is accepted', { allow: 'POST' })
  if (!isLoopback(request.remoteAddress)) return fail(403, 'FORBIDDEN', 'only requests from this machine (loopback) are accepted')
  if (!fromPanel(header)) return fail(403, 'FORBIDDEN', `requests must come from the panel (Origin matching Host, or the ${PANEL_HEADER} header)`)
  if (!tokenMatches(header(TOKEN_HEADER), deps.secret)) return fail(403, 'FORBIDDEN', `missing or wrong ${TOKEN_HEADER}`)
  const mediaType = (header('content-type') ?? '').split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') return fail(415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json')
  const size = typeof request.body === 'string' ? Buffer.byteLength(request.body, 'utf8') : request.body.length
  if (size > API_BODY_LIMIT) return fail(413, 'PAYLOAD_TOO_LARGE', `the body is larger than ${API_BODY_LIMIT} bytes`)

  const parsed = parseBody(request.body)
  if ('status' in parsed) return parsed
  const handler = OPS[parsed.op] as OpHandler
  try {
    return respond(200, { ok: true, result: await handler(parsed.args, deps, parsed.op) })
  } catch (thrown) {
    const err = asMemoryError(thrown)
    const status = isMemoryError(err) ? HTTP_STATUS[err.code] : 500
    if (isMemoryError(err) && status !== 500) return fail(status, err.code, err.message)
    console.warn(`dsh-memory-agent: panel API op ${parsed.op} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    if (isMemoryError(err) && err.errno !== undefined) {
      const message = `the memory store refused the operation: ${ioCause(err.errno)}; the host log names the file`
      return respond(500, { ok: false, error: { code: err.code, message, errno: err.errno } })
    }
    return fail(500, isMemoryError(err) ? err.code : 'INTERNAL_ERROR', 'the operation failed inside the memory store; the host log has the details')
  }
}
