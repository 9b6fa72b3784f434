/**
 * The store as it was at an earlier time, reconstructed from what is on disk now: the memory
 * files (superseded versions stay on disk), their front-matter times, and the ledger's events
 * replayed up to that time. Read-only; `asOfView` and `retrievalAsOf` are what search, nav and
 * verify call, `StatusReplay` is the pure core that history uses for each version's span.
 *
 * The rules (docs/decisions.md, "As-of reads the memory's time, and forgetting sticks"):
 * - a memory exists from its `time` (when it was stated); the events of the transaction that
 *   wrote it take that time too, so a write given an earlier `time` counts from then;
 * - every other event (confirm, resolve, forget, restore...) counts from its ledger time;
 * - what is forgotten now (deleted_pending; purged files are gone) is absent at every time;
 * - where the ledger does not explain a status (a hand edit, a merge from another clone), the
 *   status the file holds now applies from the memory's last event, or for a superseded memory
 *   from when its successor was stated; so an as-of time at or after now gives today's store.
 * Text is the text the files hold now: an edit made by hand after that time is not undone.
 */

import { invalidInput } from '../../errors.js'
import { SearchIndex } from '../../retrieve/search-index.js'
import { retrievalState, type RetrievalState } from '../../retrieve/retriever.js'
import { allWithContext } from '../../retrieve/session-context.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { IndexView, slotOf } from '../../store/index-view.js'
import { MEMORY_STATUSES, type IndexEntry, type LedgerEvent, type MemoryStatus } from '../../types.js'

/** The input field every tool with an as-of time declares. */
export const asOfField = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description:
    'ISO-8601 time or unix seconds (1760000000): answer from the store as it was then (versions current then are current again; what was written later is absent; forgotten memories stay forgotten).',
} as const

/** Unix seconds, as `date +%s` prints them (a fraction allowed): 1 to 11 digits. */
const UNIX_SECONDS = /^\d{1,11}(?:\.\d{1,9})?$/

/**
 * An as-of input as epoch milliseconds: an ISO-8601 date-time, or unix seconds (seed 003's
 * `asof --time 1760000000`); INVALID_INPUT naming the field otherwise.
 */
export function parseAsOf(value: string, field = 'asOf'): number {
  const text = value.trim()
  // A bare number is unix seconds or nothing (Date.parse would read "-5" or "1e9" as some year).
  const numeric = /^[+-]?[\d.e]+$/iu.test(text)
  const at = UNIX_SECONDS.test(text) ? Math.round(Number(text) * 1000) : numeric ? Number.NaN : Date.parse(text)
  if (Number.isNaN(at) || !Number.isFinite(new Date(at).getTime())) throw invalidInput(field, 'an ISO-8601 date-time such as 2026-01-02T10:00:00Z, or unix seconds such as 1767348000')
  return at
}

interface Change {
  at: number
  status: MemoryStatus
}

const isStatus = (v: unknown): v is MemoryStatus => MEMORY_STATUSES.includes(v as MemoryStatus)
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : typeof v === 'string' ? [v] : [])

/**
 * Status changes per memory, replayed from the ledger with the timing rules above. Pure over the
 * entries of now and the ledger; one instance answers any number of times.
 */
export class StatusReplay {
  private readonly byId = new Map<string, IndexEntry>()
  private readonly changes = new Map<string, Change[]>()

  constructor(entries: Iterable<IndexEntry>, ledger: readonly LedgerEvent[]) {
    for (const e of entries) this.byId.set(e.id, e)
    const writtenAt = new Map<string, string>()
    for (const ev of ledger) if (ev.event === 'write' && typeof ev.id === 'string' && !writtenAt.has(ev.id)) writtenAt.set(ev.id, ev.at)
    for (const ev of ledger) {
      const at = this.effectiveTime(ev, writtenAt)
      if (at !== null) this.apply(ev, at)
    }
  }

  private born(id: string): number | null {
    const e = this.byId.get(id)
    return e === undefined ? null : Date.parse(e.time)
  }

  /** A write and the events of its transaction take the written memory's time; the rest their ledger time. */
  private effectiveTime(ev: LedgerEvent, writtenAt: Map<string, string>): number | null {
    const own = typeof ev.id === 'string' ? ev.id : null
    if (own !== null && (ev.event === 'write' || ((ev.event === 'supersede' || ev.event === 'conflict') && writtenAt.get(own) === ev.at))) {
      return this.born(own)
    }
    const at = Date.parse(ev.at)
    return Number.isNaN(at) ? null : at
  }

  private push(id: string, at: number, status: MemoryStatus): void {
    let list = this.changes.get(id)
    if (list === undefined) this.changes.set(id, (list = []))
    list.push({ at, status })
  }

  private apply(ev: LedgerEvent, at: number): void {
    const own = typeof ev.id === 'string' ? ev.id : null
    switch (ev.event) {
      case 'write':
        if (own === null) return
        this.push(own, at, isStatus(ev.status) ? ev.status : 'active')
        if (typeof ev.raw_id === 'string') this.push(ev.raw_id, at, isStatus(ev.status) ? ev.status : 'active')
        return
      case 'supersede':
        for (const id of strings(ev.ids)) this.push(id, at, 'superseded')
        return
      case 'conflict':
        for (const id of strings(ev.ids)) this.push(id, at, 'conflict')
        return
      case 'confirm':
        if (own !== null) this.push(own, at, 'active')
        return
      case 'resolve':
        for (const id of strings(ev.superseded)) this.push(id, at, 'superseded')
        for (const id of strings(ev.activated)) this.push(id, at, 'active')
        return
      case 'merge':
        // memory_merge folds its ids into the survivor `id`; undemote brings them back.
        for (const id of strings(ev.ids)) if (id !== own) this.push(id, at, 'superseded')
        return
      case 'undemote':
        for (const id of strings(ev.ids)) this.push(id, at, 'active')
        return
      case 'restore':
        if (isStatus(ev.to)) for (const id of strings(ev.ids)) this.push(id, at, ev.to)
        return
      case 'soft-delete':
        for (const id of strings(ev.ids)) this.push(id, at, 'deleted_pending')
        return
      case 'forget':
        // A session forget also lists the shared topics it orphaned.
        for (const id of strings(ev.ids)) this.push(id, at, this.byId.get(id)?.status === 'orphaned' ? 'orphaned' : 'deleted_pending')
        return
      default:
    }
  }

  /** The status replayed from the ledger alone, at `at` (Infinity: every event). */
  private replayed(entry: IndexEntry, at: number): MemoryStatus {
    let status: MemoryStatus = entry.status === 'superseded' ? 'active' : entry.status
    for (const c of this.changes.get(entry.id) ?? []) if (c.at <= at) status = c.status
    return status
  }

  /** From when the status the file holds now applies, when the ledger does not lead there. */
  private settledFrom(entry: IndexEntry): number {
    let from = Date.parse(entry.time)
    for (const c of this.changes.get(entry.id) ?? []) from = Math.max(from, c.at)
    const successor = entry.superseded_by !== null ? this.born(entry.superseded_by) : null
    if (entry.status === 'superseded' && successor !== null) from = Math.max(from, successor)
    return from
  }

  /** The status of a memory at `at`, or null when it did not exist then (or is forgotten now). */
  statusAt(id: string, at: number): MemoryStatus | null {
    const entry = this.byId.get(id)
    if (entry === undefined) return null
    // Raw text follows its episode wherever the episode is known.
    const episode = entry.type === 'raw' && entry.episode !== null ? this.byId.get(entry.episode) : undefined
    if (episode !== undefined && episode.type !== 'raw' && entry.status !== 'deleted_pending') return this.statusAt(episode.id, at)
    if (entry.status === 'deleted_pending' || Date.parse(entry.time) > at) return null
    const explained = this.replayed(entry, Infinity) === entry.status
    const status = !explained && at >= this.settledFrom(entry) ? entry.status : this.replayed(entry, at)
    return status === 'deleted_pending' ? null : status
  }

  /** Every time at which the status of a memory may change, ascending. */
  private breakpoints(entry: IndexEntry): number[] {
    const points = new Set<number>([Date.parse(entry.time), this.settledFrom(entry)])
    for (const c of this.changes.get(entry.id) ?? []) points.add(c.at)
    return [...points].filter((p) => Number.isFinite(p)).sort((a, b) => a - b)
  }

  /** When the memory was the current statement (active or in conflict): first start and last end, null when open or never. */
  currentSpan(id: string): { from: number | null; until: number | null } {
    const entry = this.byId.get(id)
    if (entry === undefined) return { from: null, until: null }
    let from: number | null = null
    let until: number | null = null
    let current = false
    for (const point of this.breakpoints(entry)) {
      const status = this.statusAt(id, point)
      const now = status === 'active' || status === 'conflict'
      if (now && !current && from === null) from = point
      if (!now && current) until = point
      if (now) until = null
      current = now
    }
    return { from, until: from === null ? null : until }
  }

  /** The entries as they stood at `at`: statuses of then, links of then; absent what did not exist. */
  entriesAt(at: number): IndexEntry[] {
    const out: IndexEntry[] = []
    const statusOf = new Map<string, MemoryStatus>()
    for (const id of this.byId.keys()) {
      const status = this.statusAt(id, at)
      if (status !== null) statusOf.set(id, status)
    }
    // Who was in conflict with whom then: the declared variants, and the slot's other sides then.
    const conflictsBySlot = new Map<string, string[]>()
    for (const [id, status] of statusOf) {
      const e = this.byId.get(id) as IndexEntry
      if (status !== 'conflict') continue
      const slot = `${e.type}\n${slotOf(e)}`
      conflictsBySlot.set(slot, [...(conflictsBySlot.get(slot) ?? []), id])
    }
    for (const [id, status] of statusOf) {
      const e = this.byId.get(id) as IndexEntry
      const sides = status === 'conflict' ? new Set([...e.variants, ...(conflictsBySlot.get(`${e.type}\n${slotOf(e)}`) ?? [])]) : new Set<string>()
      const entry: IndexEntry = {
        ...e,
        status,
        superseded_by: status === 'superseded' ? e.superseded_by : null,
        variants: [...sides].filter((v) => v !== id && statusOf.get(v) === 'conflict').sort(),
      }
      // A retraction written after that time had not withdrawn it yet.
      if (entry.retracted_by !== undefined && !statusOf.has(entry.retracted_by)) delete entry.retracted_by
      out.push(entry)
    }
    return out
  }
}

/** The index as it was at `at` (epoch ms): an IndexView over the entries of then. Pure. */
export function viewAsOf(entries: Iterable<IndexEntry>, ledger: readonly LedgerEvent[], at: number): IndexView {
  const view = new IndexView()
  for (const e of new StatusReplay(entries, ledger).entriesAt(at)) view.set(e)
  return view
}

/**
 * The store's index as it was at `at` (epoch ms, or an ISO-8601 string checked like an input
 * field): every lookup of the live view (get, inSlot, fromSession...), over the entries of then.
 * Reads the live index (outside edits included) and the ledger; writes nothing.
 */
export async function asOfView(backend: MemoryBackend, at: number | string): Promise<IndexView> {
  const time = typeof at === 'number' ? at : parseAsOf(at)
  await ensureFresh(backend)
  const live = await backend.indexView()
  return viewAsOf(live.values(), await backend.readLedger(), time)
}

/** The last as-of search state built per store, reused while the store and the time are the same. */
const lastBuilt = new WeakMap<MemoryBackend, { key: string; state: RetrievalState }>()

/**
 * Search state (entries, full-text index, aliases) for the store as it was at `at`. The index is
 * built in memory for that view and never saved.
 */
export async function retrievalAsOf(backend: MemoryBackend, at: number): Promise<RetrievalState> {
  const live = await retrievalState(backend)
  const ledgerStat = await backend.stat('ledger.jsonl')
  const key = `${live.entries.generation}:${live.entries.currentVersion}:${ledgerStat?.size ?? 0}:${ledgerStat?.mtimeMs ?? 0}:${at}`
  const known = lastBuilt.get(backend)
  if (known?.key === key) return { ...known.state, aliases: live.aliases }
  const entries = viewAsOf(live.entries.values(), await backend.readLedger(), at)
  const index = SearchIndex.empty()
  index.sync(allWithContext(entries))
  const state: RetrievalState = { entries, index, aliases: live.aliases, keywords: null }
  lastBuilt.set(backend, { key, state })
  return state
}
