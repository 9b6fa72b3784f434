/**
 * What the panel API reads over both stores, the project store and the personal one (when the
 * host serves one): each store's list counts (the one source of every counter the panel shows),
 * the memory list merged newest first with each row's store, the operation log (both ledgers,
 * newest first, by kind, each event with the memory it names), and the health score. Tools run
 * from the registry (`findTool`), one store at a time: the routed tools of stores/route.ts
 * choose one store for memory_sweep and memory_review_queue.
 */

import { MemoryError } from '../errors.js'
import { listCounts, listMemories, noCounts, type ListCounts, type ListedMemory, type ListRequest, type ListResult } from '../memory/reading/listing.js'
import type { MemoryBackend } from '../store/backend.js'
import type { StoreName } from '../stores/kind.js'
import { findTool } from '../tools/index.js'
import type { LedgerEvent, MemoryStatus } from '../types.js'

export type PanelScope = StoreName | 'all'

export interface PanelStores {
  readonly project: MemoryBackend
  /** The personal store, when the host serves one beside the project store. */
  readonly user?: MemoryBackend
}

/** What asking for the personal store where none is served is: INVALID_INPUT naming `store`. */
export function noPersonalStore(): MemoryError {
  return new MemoryError('INVALID_INPUT', 'store: "project" (no personal store is served here)', 'store')
}

/** The backend of one store. */
export function backendOf(stores: PanelStores, store: StoreName): MemoryBackend {
  if (store === 'project') return stores.project
  if (stores.user === undefined) throw noPersonalStore()
  return stores.user
}

/** The stores a scope covers that exist: a store is made by its first write, and a read neither fails on nor creates it. */
export async function storesIn(stores: PanelStores, scope: PanelScope): Promise<Array<[StoreName, MemoryBackend]>> {
  const named: Array<[StoreName, MemoryBackend]> = scope === 'all' ? [['project', stores.project], ...(stores.user !== undefined ? [['user', stores.user] as [StoreName, MemoryBackend]] : [])] : [[scope, backendOf(stores, scope)]]
  const present = await Promise.all(named.map(async ([, b]) => b.exists()))
  return named.filter((_, i) => present[i] === true)
}

export interface StoreStatus {
  root: string
  /** False until the store's first write. */
  exists: boolean
  /** Rows of each list (listing.ts): what every counter of the panel shows. */
  counts: ListCounts
}

export async function storeStatus(backend: MemoryBackend): Promise<StoreStatus> {
  const exists = await backend.exists()
  return { root: backend.root, exists, counts: exists ? await listCounts(backend) : noCounts() }
}

export type StoredMemory = ListedMemory & { store: StoreName }

/** One page of the list over the scope's stores, newest first as each store lists, each row with its store. */
export async function listScope(stores: PanelStores, scope: PanelScope, request: ListRequest): Promise<ListResult & { entries: StoredMemory[] }> {
  const need = request.offset + request.limit
  const pages = await Promise.all((await storesIn(stores, scope)).map(async ([store, b]) => ({ store, page: await listMemories(b, { ...request, offset: 0, limit: need }) })))
  const all = pages
    .flatMap(({ store, page }) => page.entries.map((e): StoredMemory => ({ ...e, store })))
    .sort((a, b) => b.time.localeCompare(a.time) || a.id.localeCompare(b.id))
  const total = pages.reduce((n, p) => n + p.page.total, 0)
  const entries = all.slice(request.offset, need)
  return { entries, total, offset: request.offset, limit: request.limit, has_more: request.offset + entries.length < total }
}

export interface LedgerRow {
  at: string
  event: string
  store: StoreName
  /** The memory the event is about (its `id`, else its first of `ids`), or null. */
  id: string | null
  /** That memory as the store has it now; null when it names none or the memory is gone. */
  memory: { title: string; status: MemoryStatus } | null
  /** The event's other fields, as logged (at, event and id left out). */
  detail: Record<string, unknown>
}

export interface LedgerView {
  events: LedgerRow[]
  /** Every kind in the scope's ledgers with its count, most frequent first: the filter's choices. */
  kinds: Array<{ event: string; n: number }>
  /** Events of the asked kind (all kinds when none was asked). */
  total: number
}

/** The latest events of the scope's ledgers, newest first, of one kind when asked. Read-only. */
export async function ledgerView(stores: PanelStores, scope: PanelScope, request: { event?: string; limit: number }): Promise<LedgerView> {
  const rows: LedgerRow[] = []
  for (const [store, b] of await storesIn(stores, scope)) {
    const view = await b.indexView()
    for (const e of await b.readLedger()) rows.push(ledgerRow(e, store, (id) => view.get(id)))
  }
  // Stable on equal times: a ledger's own order is the order things happened in.
  const ordered = rows.map((r, i) => [r, i] as const).sort(([a, i], [b, j]) => b.at.localeCompare(a.at) || j - i).map(([r]) => r)
  const kinds = new Map<string, number>()
  for (const r of ordered) kinds.set(r.event, (kinds.get(r.event) ?? 0) + 1)
  const wanted = request.event === undefined ? ordered : ordered.filter((r) => r.event === request.event)
  return {
    events: wanted.slice(0, request.limit),
    kinds: [...kinds].map(([event, n]) => ({ event, n })).sort((a, b) => b.n - a.n || a.event.localeCompare(b.event)),
    total: wanted.length,
  }
}

function ledgerRow(e: LedgerEvent, store: StoreName, lookup: (id: string) => { title: string; status: MemoryStatus } | undefined): LedgerRow {
  const { at, event, id: own, ...detail } = e
  const id = typeof own === 'string' ? own : Array.isArray(e.ids) && typeof e.ids[0] === 'string' ? e.ids[0] : null
  const entry = id !== null ? lookup(id) : undefined
  return { at, event, store, id, memory: entry !== undefined ? { title: entry.title, status: entry.status } : null, detail }
}

// ---- the health score ----------------------------------------------------------------------

export const HEALTH_PARTS = ['broken', 'conflicts', 'stale', 'unembedded', 'reviewBacklog'] as const
export type HealthPartName = (typeof HEALTH_PARTS)[number]

/** Points each finding costs, and the most a part can cost: 100 minus the costs is the score. */
export const HEALTH_RULES: Readonly<Record<HealthPartName, { per: number; cap: number }>> = {
  // A file that does not parse is out of search until a person fixes it: the worst.
  broken: { per: 10, cap: 40 },
  conflicts: { per: 5, cap: 20 },
  stale: { per: 2, cap: 15 },
  unembedded: { per: 1, cap: 10 },
  reviewBacklog: { per: 1, cap: 15 },
}

export interface HealthPart {
  name: HealthPartName
  count: number
  /** Points it costs: min(cap, per × count). */
  penalty: number
  per: number
  cap: number
}

export interface Health {
  /** 0-100. */
  score: number
  parts: HealthPart[]
}

/** The score of the findings. Pure. */
export function healthScore(counts: Readonly<Record<HealthPartName, number>>): Health {
  const parts = HEALTH_PARTS.map((name): HealthPart => {
    const { per, cap } = HEALTH_RULES[name]
    return { name, count: counts[name], penalty: Math.min(cap, per * counts[name]), per, cap }
  })
  return { score: Math.max(0, 100 - parts.reduce((n, p) => n + p.penalty, 0)), parts }
}

/** The most entries a sweep list gives (memory_sweep's limit). */
const SWEEP_LIMIT = 200

interface Handler {
  handler(backend: MemoryBackend, input: unknown): Promise<unknown>
}

function registryTool(name: string): Handler {
  const tool = findTool(name)
  if (tool === undefined) throw new Error(`the tool registry has no ${name}`)
  return tool as unknown as Handler
}

interface SweepCounts {
  unreadable: unknown[]
  damagedSearchIndexFiles: number
  longUnused: unknown[]
  staleAnchors: unknown[]
  embeddings?: { pending: number }
}

/** The findings of one store: memory_sweep (broken files, stale memories, vectors), its conflict list, memory_review_queue's backlog. */
async function findings(backend: MemoryBackend): Promise<Record<HealthPartName, number>> {
  const sweep = (await registryTool('memory_sweep').handler(backend, { limit: SWEEP_LIMIT })) as SweepCounts
  const queue = (await registryTool('memory_review_queue').handler(backend, { limit: 1 })) as { due_total: number }
  const counts = await listCounts(backend)
  return {
    broken: sweep.unreadable.length + sweep.damagedSearchIndexFiles,
    conflicts: counts.conflict,
    stale: sweep.longUnused.length + sweep.staleAnchors.length,
    unembedded: sweep.embeddings?.pending ?? 0,
    reviewBacklog: queue.due_total,
  }
}

/** The health of the scope's stores: their findings added up, then scored. */
export async function healthOf(stores: PanelStores, scope: PanelScope): Promise<Health & { stores: StoreName[] }> {
  const present = await storesIn(stores, scope)
  const total = Object.fromEntries(HEALTH_PARTS.map((p) => [p, 0])) as Record<HealthPartName, number>
  for (const [, b] of present) {
    const found = await findings(b)
    for (const p of HEALTH_PARTS) total[p] += found[p]
  }
  return { ...healthScore(total), stores: present.map(([s]) => s) }
}
