/**
 * memory_lineage: where a memory comes from and what became of it: its sources and the sessions
 * that stated or repeated it, its raw text, the supersede chain around it, merges, and every
 * ledger event that names it. Merges are read from `merged_from` / `merged_into` in the file's
 * front-matter and from `merge` ledger events (`id`: the survivor, `ids`: what it absorbed),
 * whichever the merge tool writes. For a forgotten memory the title is withheld and events show
 * only their skeleton (see value.ts). Read-only.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { parseFile } from '../../store/frontmatter.js'
import type { IndexLookup } from '../../store/index-view.js'
import type { IndexEntry, LedgerEvent, MemoryStatus, MemoryType, Source } from '../../types.js'
import { requireEntry } from '../reading/lookup.js'
import { skeletonOf } from '../writing/value.js'

/** At most this many ledger events are listed (the latest); `events_total` counts them all. */
export const LINEAGE_MAX_EVENTS = 200
const WITHHELD = '[forgotten]'

export interface ChainLink {
  id: string
  time: string
  status: MemoryStatus
  relation: 'older' | 'self' | 'newer'
}

export interface LineageEvent {
  at: string
  event: string
  /** subject: the event is about this memory (its `id`); related: it names it among others. */
  role: 'subject' | 'related'
  detail: Record<string, unknown>
}

export interface LineageResult {
  id: string
  type: MemoryType
  status: MemoryStatus
  path: string
  title: string | null
  forgotten: boolean
  sources: Source[]
  /** Sessions among the sources, and sessions whose writes were recognised as repeats of it. */
  sessions: string[]
  raw_ref: string | null
  episode: string | null
  chain: ChainLink[]
  merges: { merged_from: string[]; merged_into: string | null }
  events: LineageEvent[]
  events_total: number
  guidance: string
}

const idsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : typeof v === 'string' ? [v] : [])

/** Older versions (following supersedes), the memory, newer ones (following superseded_by). */
function supersedeChain(view: IndexLookup, entry: IndexEntry): ChainLink[] {
  const link = (e: IndexEntry, relation: ChainLink['relation']): ChainLink => ({ id: e.id, time: e.time, status: e.status, relation })
  const seen = new Set([entry.id])
  const older: ChainLink[] = []
  for (let e = entry.supersedes !== null ? view.get(entry.supersedes) : undefined; e !== undefined && !seen.has(e.id); e = e.supersedes !== null ? view.get(e.supersedes) : undefined) {
    seen.add(e.id)
    older.unshift(link(e, 'older'))
  }
  const newer: ChainLink[] = []
  for (let e = entry.superseded_by !== null ? view.get(entry.superseded_by) : undefined; e !== undefined && !seen.has(e.id); e = e.superseded_by !== null ? view.get(e.superseded_by) : undefined) {
    seen.add(e.id)
    newer.push(link(e, 'newer'))
  }
  return [...older, link(entry, 'self'), ...newer]
}

function mergesOf(frontMatter: Record<string, unknown>, events: readonly LedgerEvent[], id: string): LineageResult['merges'] {
  const from = new Set(idsOf(frontMatter.merged_from))
  let into = typeof frontMatter.merged_into === 'string' ? frontMatter.merged_into : null
  for (const ev of events) {
    if (ev.event !== 'merge') continue
    if (ev.id === id) for (const other of idsOf(ev.ids)) if (other !== id) from.add(other)
    if (ev.id !== id && typeof ev.id === 'string' && idsOf(ev.ids).includes(id)) into = ev.id
  }
  return { merged_from: [...from].sort(), merged_into: into }
}

export async function memoryLineage(backend: MemoryBackend, id: string): Promise<LineageResult> {
  await ensureFresh(backend)
  const view = await backend.indexView()
  const entry = requireEntry({ index: view }, id, 'trace')
  const forgotten = entry.status === 'deleted_pending'
  const names = new Set([entry.id, ...(entry.raw_ref !== null ? [view.atPath(entry.raw_ref)?.id ?? `${entry.id}-raw`] : [])])
  const mine = (await backend.readLedger()).filter((ev) => Object.values(ev).some((v) => idsOf(v).some((s) => names.has(s))))
  const file = await backend.readFile(entry.path)
  const frontMatter = file === null ? {} : parseFile(file).data

  const sessions = new Set(entry.sources.map((s) => s.session_id).filter((s): s is string => s !== null))
  for (const ev of mine) if (ev.event === 'dedupe' && ev.id === entry.id && typeof ev.session_id === 'string') sessions.add(ev.session_id)
  const events = mine.map((ev): LineageEvent => {
    const { at, event, ...rest } = forgotten ? skeletonOf(ev, WITHHELD) : { ...ev }
    return { at: String(at), event: String(event), role: ev.id === entry.id ? 'subject' : 'related', detail: rest }
  })
  const shown = events.slice(Math.max(0, events.length - LINEAGE_MAX_EVENTS))
  const chain = supersedeChain(view, entry)
  return {
    id: entry.id,
    type: entry.type,
    status: entry.status,
    path: entry.path,
    title: forgotten ? null : entry.title,
    forgotten,
    sources: entry.sources,
    sessions: [...sessions].sort(),
    raw_ref: entry.raw_ref,
    episode: entry.episode,
    chain,
    merges: mergesOf(frontMatter, mine, entry.id),
    events: shown,
    events_total: events.length,
    guidance:
      `${sessions.size} session(s), ${chain.length - 1} other version(s) in its supersede chain, ${events.length} ledger event(s)` +
      (shown.length < events.length ? ` (the latest ${shown.length} shown)` : '') +
      '. memory_history lists every version with its text; memory_nav with the id opens the file.',
  }
}
