/**
 * Folder memory/time/, whose main file this is, owns the store through time: the versions of a
 * memory, the store as of a time, lineage. Imports from the other capability folders: reading,
 * writing; below memory/ anything (retrieve, store, language, ground); nothing above (tools,
 * stores, adapters).
 *
 * memory_history: every version of a memory, oldest first, each with its time, source and text,
 * and when it was the current statement (replayed from the ledger, see as-of.ts). The versions of
 * a memory are its slot mates of the same type (same key, or title used as key) and whatever its
 * supersedes / superseded_by / variants links reach. A forgotten version is listed without its
 * text; a purged one only by id, as the ledger remembers it. Read-only.
 */

import { requireEntry } from '../reading/lookup.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { detailsOf, parseFile } from '../../store/frontmatter.js'
import { slotOf, type IndexLookup } from '../../store/index-view.js'
import { truncateUnits } from '../../text.js'
import type { IndexEntry, LedgerEvent, MemoryStatus, MemoryType, SourceKind } from '../../types.js'
import { StatusReplay } from './as-of.js'

/** Longest text shown per version, in characters. */
export const HISTORY_TEXT_CHARS = 2000

export interface HistoryVersion {
  id: string
  path: string
  type: MemoryType
  /** Status now. */
  status: MemoryStatus
  /** When it was stated (front-matter time). */
  time: string
  /** When the store recorded it (its ledger write event), null when written outside this program. */
  recorded_at: string | null
  source: { session_id: string | null; kind: SourceKind }
  sessions: string[]
  /** Null when forgotten. */
  title: string | null
  summary: string | null
  /** Summary and any details below it (cut at 2000 characters); null when forgotten. */
  text: string | null
  raw_ref: string | null
  supersedes: string | null
  superseded_by: string | null
  /** When it first became the current statement, and when it last stopped being it (null: still is, or never was). */
  current_from: string | null
  current_until: string | null
  forgotten: boolean
}

export interface HistoryResult {
  id: string
  slot: string | null
  /** The versions current now (active, or in conflict). */
  current: string[]
  versions: HistoryVersion[]
  /** Older versions left out by `limit`. */
  omitted: number
  /** Versions purged from disk: only their ids and when they went remain. */
  purged: Array<{ id: string; at: string }>
  guidance: string
}

const idsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : typeof v === 'string' ? [v] : [])

/** The entry and every version of it the links and the slot reach (raw text excluded). */
export function versionFamily(view: IndexLookup, entry: IndexEntry): IndexEntry[] {
  const found = new Map<string, IndexEntry>([[entry.id, entry]])
  const queue = [entry]
  for (let e = queue.pop(); e !== undefined; e = queue.pop()) {
    const linked = [e.supersedes, e.superseded_by, ...e.variants].map((id) => (id === null ? undefined : view.get(id)))
    const mates = e.key !== null ? view.inSlot(slotOf(e)).filter((m) => m.type === e.type && m.key !== null) : []
    for (const m of [...linked, ...mates]) {
      if (m === undefined || m.type === 'raw' || found.has(m.id)) continue
      found.set(m.id, m)
      queue.push(m)
    }
  }
  return [...found.values()].sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
}

/** Ids the ledger says were purged and that a version event tied to this family. */
function purgedMembers(ledger: readonly LedgerEvent[], family: ReadonlySet<string>): Array<{ id: string; at: string }> {
  const purgedAt = new Map<string, string>()
  for (const ev of ledger) if (ev.event === 'purge') for (const id of idsOf(ev.ids)) purgedAt.set(id, ev.at)
  const out = new Map<string, string>()
  for (const ev of ledger) {
    if (ev.event !== 'supersede' && ev.event !== 'conflict' && ev.event !== 'resolve') continue
    const ids = [ev.id, ...idsOf(ev.ids), ...idsOf(ev.superseded), ...idsOf(ev.activated)].filter((x): x is string => typeof x === 'string')
    if (!ids.some((id) => family.has(id))) continue
    for (const id of ids) {
      const at = purgedAt.get(id)
      if (at !== undefined && !family.has(id)) out.set(id, at)
    }
  }
  return [...out].map(([id, at]) => ({ id, at })).sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id))
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

async function versionOf(backend: MemoryBackend, e: IndexEntry, replay: StatusReplay, recordedAt: Map<string, string>): Promise<HistoryVersion> {
  const forgotten = e.status === 'deleted_pending'
  let text: string | null = null
  if (!forgotten) {
    const file = await backend.readFile(e.path)
    const details = file === null ? '' : detailsOf(parseFile(file).body)
    text = truncateUnits(details === '' ? e.summary : `${e.summary}\n\n${details}`, HISTORY_TEXT_CHARS)
  }
  const span = replay.currentSpan(e.id)
  const first = e.sources[0]
  return {
    id: e.id,
    path: e.path,
    type: e.type,
    status: e.status,
    time: e.time,
    recorded_at: recordedAt.get(e.id) ?? null,
    source: { session_id: first?.session_id ?? e.session_id, kind: first?.kind ?? (e.session_id !== null ? 'session' : 'user') },
    sessions: [...new Set(e.sources.map((s) => s.session_id).filter((s): s is string => s !== null))],
    title: forgotten ? null : e.title,
    summary: forgotten ? null : e.summary,
    text,
    raw_ref: e.raw_ref,
    supersedes: e.supersedes,
    superseded_by: e.superseded_by,
    current_from: iso(span.from),
    current_until: iso(span.until),
    forgotten,
  }
}

export async function memoryHistory(backend: MemoryBackend, id: string, limit: number): Promise<HistoryResult> {
  await ensureFresh(backend)
  const view = await backend.indexView()
  const named = view.get(id)
  // Raw text is a version of its episode: its history is the episode's.
  const entry = named?.type === 'raw' && named.episode !== null && view.get(named.episode) !== undefined ? (view.get(named.episode) as IndexEntry) : requireEntry({ index: view }, id, 'read the history of')
  const family = versionFamily(view, entry)
  const ledger = await backend.readLedger()
  const replay = new StatusReplay(view.values(), ledger)
  const recordedAt = new Map<string, string>()
  for (const ev of ledger) if (ev.event === 'write' && typeof ev.id === 'string' && !recordedAt.has(ev.id)) recordedAt.set(ev.id, ev.at)
  const shown = family.slice(Math.max(0, family.length - limit))
  const versions: HistoryVersion[] = []
  for (const e of shown) versions.push(await versionOf(backend, e, replay, recordedAt))
  const current = family.filter((e) => e.status === 'active' || e.status === 'conflict').map((e) => e.id)
  const purged = purgedMembers(ledger, new Set(family.map((e) => e.id)))
  const omitted = family.length - shown.length
  const keyed = family.find((e) => e.key !== null)
  return {
    id: entry.id,
    slot: keyed?.key ?? null,
    current,
    versions,
    omitted,
    purged,
    guidance:
      `${family.length} version(s), oldest first; ${current.length === 0 ? 'none is current now' : `current: ${current.join(', ')}`}.` +
      (omitted > 0 ? ` ${omitted} older version(s) left out; raise limit to see them.` : '') +
      ' To see the whole store as it was at some time, pass asOf to memory_search_hybrid or memory_nav.',
  }
}
