/**
 * Two stores behind one tool list: the project store (`<project>/.agent/memory`, the backend every
 * adapter already passes) and the personal store (`~/.agent/memory` by default), bound here.
 * `routeTools(TOOLS, personal)` gives each tool an input field `store` and a handler that picks or
 * merges stores; the handlers of `src/tools/` stay pure single-store functions and never learn
 * there are two. What each tool does with `store`:
 *
 * - write_memory: `project` or `user`; by default by its kind (tags, see kind.ts). A write that
 *   lands in the personal store from a project records the project's identity in that store's ledger.
 * - memory_search_hybrid, memory_nav (listings), memory_verify: `all` by default, merged (merge.ts).
 * - memory_stats: `all` by default, counts added, each store's total in `byStore`.
 * - tools that name a memory (id or ids): `all` by default, meaning whichever store holds it.
 * - memory_forget by query, forget_memories_by_session: `all` by default, both forget, counts add up.
 * - memory_assemble, memory_digest, memory_sweep, memory_duplicates: one store, `project` by default,
 *   because a context block, a slot digest or a health report of two stores mixed is not one thing.
 * - memory_workspaces: the personal store, which records this machine's workspaces.
 *
 * Outputs say `store` (which store answered, or `all`) and every listed memory its own `store`;
 * tools/declare/tool.ts and tools/declare/shapes.ts declare those fields, so routed output satisfies the declared
 * schemas. Reads no environment: adapters choose the roots.
 */

import { pushAll } from '../arrays.js'
import { MemoryError, invalidInput } from '../errors.js'
import { registerBatch } from '../memory/truth/evidence-gate.js'
import { ensureFresh } from '../store/freshness.js'
import type { MemoryBackend } from '../store/backend.js'
import type { NavSort } from '../memory/reading/browse.js'
import type { ObjectSchema } from '../tools/declare/schema.js'
import type { ToolDeclaration } from '../tools/declare/tool.js'
import { noWorkspacesYet } from '../tools/memory-workspaces.js'
import { kindsOf, storeForKinds, type StoreName } from './kind.js'
import { mergeCounts, mergeNav, mergeSearch, mergeStats, mergeVerify, tagAnswer, type Answer, type Out } from './merge.js'

export type { StoreName } from './kind.js'
export type StoreSelector = StoreName | 'all'

/** The project store and the personal store. */
export interface StoreSet {
  readonly project: MemoryBackend
  readonly user: MemoryBackend
}

/** What the routed tools bind: the personal store, and the identity of the project they serve. */
export interface PersonalStore {
  readonly user: MemoryBackend
  /**
   * Recorded in the personal store's ledger with every write routed there (project-id.ts): one
   * project, or (a host serving a store per session folder) the identity of each project store.
   */
  readonly projectId?: string | ((project: MemoryBackend) => string | undefined)
}

type Input = Record<string, unknown>
type Call = (backend: MemoryBackend, input: Input) => Promise<Out>

interface Context {
  readonly tool: string
  readonly call: Call
  readonly stores: StoreSet
  readonly projectId: string | undefined
}

interface Route {
  readonly choices: readonly StoreSelector[]
  /** Absent: chosen per call (write_memory, by kind). */
  readonly fallback?: StoreSelector
  readonly describe: string
  run(ctx: Context, input: Input, selector: StoreSelector): Promise<Out>
}

const NAV_PAGE_MAX = 500

async function answerOf(ctx: Context, store: StoreName, input: Input): Promise<Answer> {
  return [store, await ctx.call(ctx.stores[store], input)]
}

async function one(ctx: Context, store: StoreName, input: Input): Promise<Out> {
  return tagAnswer(ctx.tool, store, await ctx.call(ctx.stores[store], input))
}

async function both(ctx: Context, input: Input): Promise<[Answer, Answer]> {
  return Promise.all([answerOf(ctx, 'project', input), answerOf(ctx, 'user', input)])
}

/** Whether a store holds a memory with this id, files changed by hand included. */
async function holds(backend: MemoryBackend, id: string): Promise<boolean> {
  await ensureFresh(backend)
  return (await backend.indexView()).get(id) !== undefined
}

/** The store holding id, or project (whose handler then says NOT_FOUND). */
async function holderOf(stores: StoreSet, id: unknown): Promise<StoreName> {
  if (typeof id !== 'string') return 'project'
  if (await holds(stores.project, id)) return 'project'
  return (await holds(stores.user, id)) ? 'user' : 'project'
}

const ONE_STORE: readonly StoreSelector[] = ['project', 'user']
const ANY_STORE: readonly StoreSelector[] = ['project', 'user', 'all']

const single: Route = {
  choices: ONE_STORE,
  fallback: 'project',
  describe: 'Which store: project (default) or user (personal); two stores are not merged here.',
  run: (ctx, input, selector) => one(ctx, selector as StoreName, input),
}

function merged(describe: string, merge: (answers: [Answer, Answer], input: Input, ctx: Context) => Out | Promise<Out>): Route {
  return {
    choices: ANY_STORE,
    fallback: 'all',
    describe,
    run: async (ctx, input, selector) => (selector === 'all' ? merge(await both(ctx, input), input, ctx) : one(ctx, selector, input)),
  }
}

/**
 * Both stores' hits are one answer to the agent, so they become one evidence batch, kept in the
 * project store where memory_assess (project by default) looks: each store registered its own
 * hits as a batch of its own, and a ref of the personal store's batch would be refused there.
 */
async function asOneBatch(ctx: Context, input: Input, out: Out): Promise<Out> {
  const hits = Array.isArray(out['hits']) ? (out['hits'] as Record<string, unknown>[]) : []
  const sessionId = typeof input['session_id'] === 'string' ? input['session_id'] : undefined
  const { batchId, refs } = await registerBatch(ctx.stores.project, sessionId, hits.map((h) => String(h['id'])))
  return { ...out, batch_id: batchId, hits: hits.map((h, i) => ({ ...h, ref: refs[i] as string })) }
}

/**
 * The workspaces of this machine are kept in the personal store (store/workspaces.ts); a personal
 * store not made yet has recorded none, which is an answer, not a missing store.
 */
const personalOnly: Route = {
  choices: ['user'],
  fallback: 'user',
  describe: 'The personal store, which records the workspaces of this machine.',
  run: async (ctx, input) => ((await ctx.stores.user.exists()) ? one(ctx, 'user', input) : tagAnswer(ctx.tool, 'user', noWorkspacesYet())),
}

const byId: Route = {
  choices: ANY_STORE,
  fallback: 'all',
  describe: 'Which store holds the memory: all (default: whichever holds it), project or user.',
  run: async (ctx, input, selector) => one(ctx, selector === 'all' ? await holderOf(ctx.stores, input['id']) : selector, input),
}

const byIds: Route = {
  choices: ANY_STORE,
  fallback: 'all',
  describe: 'Which store holds the memories: all (default: whichever holds them; they must share one), project or user.',
  run: async (ctx, input, selector) => {
    if (selector !== 'all') return one(ctx, selector, input)
    const ids = Array.isArray(input['ids']) ? (input['ids'] as unknown[]) : []
    const holders = new Set(await Promise.all(ids.map((id) => holderOf(ctx.stores, id))))
    if (holders.size > 1) throw invalidInput('ids', 'memories of one store (these are in both the project and the personal store)')
    return one(ctx, holders.has('user') ? 'user' : 'project', input)
  },
}

const write: Route = {
  choices: ONE_STORE,
  describe:
    'Where to write: project or user (personal). Default by kind, from the tags: preference and identity go to the personal store; convention, decision, environment and anything else to the project store.',
  run: async (ctx, input, selector) => {
    const store = selector === 'all' ? storeForKinds(kindsOf(input['tags'] as string[] | undefined)) : selector
    const out = await one(ctx, store, input)
    if (store === 'user' && ctx.projectId !== undefined && typeof out['id'] === 'string') {
      const user = ctx.stores.user
      const sessionId = typeof input['session_id'] === 'string' ? input['session_id'] : null
      await user.withLock(() => user.appendLedger({ at: user.now(), event: 'store-route', id: out['id'] as string, project: ctx.projectId, session_id: sessionId }))
    }
    return out
  },
}

const nav: Route = {
  choices: ANY_STORE,
  fallback: 'all',
  describe: 'Which store: all (default: both listed together, each entry says its store), project or user. A memory id or file path is opened in the store that holds it.',
  run: async (ctx, input, selector) => {
    if (selector !== 'all') return one(ctx, selector, input)
    const offset = typeof input['offset'] === 'number' ? input['offset'] : 0
    const limit = typeof input['limit'] === 'number' ? input['limit'] : 50
    const sort = (typeof input['sort'] === 'string' ? input['sort'] : 'recent') as NavSort
    const first = await settle(pagesOf(ctx, 'project', input, offset + limit))
    const second = await settle(pagesOf(ctx, 'user', input, offset + limit))
    // A file or id opens in the store that has it; a listing merges.
    if (first.ok && first.value['file'] !== undefined) return tagAnswer(ctx.tool, 'project', first.value)
    if (!first.ok || !second.ok) {
      if (first.ok) return tagAnswer(ctx.tool, 'project', first.value)
      if (second.ok && second.value['file'] !== undefined) return tagAnswer(ctx.tool, 'user', second.value)
      throw first.error
    }
    if (second.value['file'] !== undefined) return tagAnswer(ctx.tool, 'user', second.value)
    return mergeNav([['project', first.value], ['user', second.value]], { offset, limit, sort })
  },
}

type Settled = { ok: true; value: Out } | { ok: false; error: unknown }

async function settle(work: Promise<Out>): Promise<Settled> {
  try {
    return { ok: true, value: await work }
  } catch (error) {
    // Only "not in this store" may be answered by the other store; anything else is a failure.
    if (error instanceof MemoryError && error.code === 'NOT_FOUND') return { ok: false, error }
    throw error
  }
}

/** The first `need` entries of one store's listing, in pages of at most NAV_PAGE_MAX. */
async function pagesOf(ctx: Context, store: StoreName, input: Input, need: number): Promise<Out> {
  const backend = ctx.stores[store]
  const page = (offset: number) => ctx.call(backend, { ...input, offset, limit: Math.max(1, Math.min(NAV_PAGE_MAX, need - offset)) })
  const out = await page(0)
  const entries = [...(out['entries'] as unknown[])]
  while (out['file'] === undefined && entries.length < need && entries.length < (out['total'] as number)) {
    const next = await page(entries.length)
    const more = next['entries'] as unknown[]
    if (more.length === 0) break
    pushAll(entries, more)
  }
  return { ...out, entries }
}

const forgetValue: Route = {
  choices: ANY_STORE,
  fallback: 'all',
  describe: 'Which store: all (default: an id in the store that holds it, a query in both), project or user.',
  run: async (ctx, input, selector) => {
    if (selector !== 'all') return one(ctx, selector, input)
    if (input['id'] !== undefined) return one(ctx, await holderOf(ctx.stores, input['id']), input)
    return mergeCounts(await both(ctx, input))
  },
}

/** Every tool's route. A tool missing here (a new one) is served on one store, project by default. */
const ROUTES: Readonly<Record<string, Route>> = {
  write_memory: write,
  memory_search_hybrid: merged(
    'Which store: all (default: both searched, hits ranked together and cut to top_k, each hit says its store), project or user.',
    (answers, input, ctx) => asOneBatch(ctx, input, mergeSearch(answers, typeof input['top_k'] === 'number' ? input['top_k'] : 10)),
  ),
  memory_nav: nav,
  memory_verify: merged(
    'Which store: all (default: both checked; the more decisive verdict answers, contradicted before supported), project or user.',
    (answers) => mergeVerify(answers),
  ),
  forget_memories_by_session: merged('Which store: all (default: the session is forgotten in both, counts added), project or user.', (answers) => mergeCounts(answers)),
  memory_forget: forgetValue,
  memory_confirm: byId,
  memory_resolve: byId,
  memory_history: byId,
  memory_lineage: byId,
  memory_purge: byId,
  memory_merge: byIds,
  memory_undemote: byIds,
  memory_undo_judgement: byIds,
  memory_stats: merged("Which store: all (default: both counted together, byStore gives each store's total), project or user.", (answers) => mergeStats(answers)),
  memory_workspaces: personalOnly,
}

function withStoreField(input: ObjectSchema, route: Route): ObjectSchema {
  const field = {
    type: 'string',
    enum: route.choices,
    description: route.describe,
    ...(route.fallback !== undefined ? { default: route.fallback } : {}),
  } as const
  return { ...input, properties: { ...input.properties, store: field } }
}

/**
 * `all` over two stores of which one does not exist yet is the other one alone: a store is made by
 * its first write, so a read must neither fail nor create it. Neither existing: the project store
 * (NOT_FOUND naming it, unless the tool creates its store).
 */
async function presentSelector(stores: StoreSet, selector: StoreSelector, creates: boolean): Promise<StoreSelector> {
  if (selector !== 'all' || creates) return selector
  const [project, user] = await Promise.all([stores.project.exists(), stores.user.exists()])
  if (project && user) return selector
  return user && !project ? 'user' : 'project'
}

function selectorOf(input: Input, route: Route): StoreSelector {
  const value = input['store']
  if (value === undefined) return route.fallback ?? 'all'
  if (typeof value !== 'string' || !route.choices.includes(value as StoreSelector))
    throw invalidInput('store', `one of ${route.choices.map((c) => JSON.stringify(c)).join(', ')}`)
  return value as StoreSelector
}

/**
 * A tool served over the project store (the backend its handler is given, as before) and the
 * personal store bound here. The declaration keeps its shape, so every adapter serves it unchanged.
 */
export function routeTool(tool: ToolDeclaration, personal: PersonalStore): ToolDeclaration {
  const route = ROUTES[tool.name] ?? single
  const call = tool.handler as unknown as Call
  const handler = async (project: MemoryBackend, input: unknown): Promise<Out> => {
    // Not an object: the tool's own validation names what is wrong.
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return call(project, input as Input)
    const { store: _store, ...rest } = input as Input
    const projectId = typeof personal.projectId === 'function' ? personal.projectId(project) : personal.projectId
    const ctx: Context = { tool: tool.name, call, stores: { project, user: personal.user }, projectId }
    return route.run(ctx, rest, await presentSelector(ctx.stores, selectorOf(input as Input, route), tool.createsStore === true))
  }
  return { ...tool, input: withStoreField(tool.input, route), handler } as unknown as ToolDeclaration
}

/** Every tool of a list, routed over the project store and `personal`. */
export function routeTools(tools: readonly ToolDeclaration[], personal: PersonalStore): ToolDeclaration[] {
  return tools.map((t) => routeTool(t, personal))
}

/**
 * The store a memory with these tags belongs in, as write_memory would route it by default
 * (kind.ts); backfill's `storeFor`, whose auto-settle signal classes are kind tags (`偏好`, `约定`...).
 */
export function storeByKind(stores: StoreSet): (tags: readonly string[]) => MemoryBackend {
  return (tags) => stores[storeForKinds(kindsOf(tags))]
}
