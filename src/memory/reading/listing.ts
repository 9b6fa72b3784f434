/**
 * The panel's memory list: memories as a person counts them (raw text belongs to its episode and
 * is not listed), newest first, a page at a time, each with its tags and how often searches hit
 * it. Read-only; brings the index up to date with the files first. Never returns a body: the
 * detail op names one memory for that.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { describeUnreadable } from '../../store/frontmatter.js'
import { ensureFresh } from '../../store/freshness.js'
import { MEMORY_STATUSES, type IndexEntry, type MemoryStatus } from '../../types.js'
import type { NavEntry } from './browse.js'
import { readUsage } from '../organisation/signals.js'

export interface ListRequest {
  /** Only this status; without it every status but deleted_pending (soft-deleted has its own list). */
  status?: MemoryStatus
  limit: number
  offset: number
}

export interface ListedMemory extends NavEntry {
  tags: string[]
  /** Searches whose top 5 held this memory (usage.jsonl). */
  hits: number
  last_used_at: string | null
  /** Set when the file's front-matter does not parse (a hand edit): where and why, to fix by hand. The panel shows it. */
  warning?: string
}

export interface ListResult {
  entries: ListedMemory[]
  total: number
  offset: number
  limit: number
  has_more: boolean
}

/** Whether the list of `status` (undefined: every status but deleted_pending) shows this entry. Pure. */
function listed(e: IndexEntry, status: MemoryStatus | undefined): boolean {
  return e.type !== 'raw' && (status === undefined ? e.status !== 'deleted_pending' : e.status === status)
}

/** How many rows each list has: `all` (no status given) and one per status. The panel's every counter. */
export type ListCounts = Record<'all' | MemoryStatus, number>

/** The rows of every list, counted by the very test the list filters with. Read-only. */
/** Every list empty: the counts of a store not written yet. */
export function noCounts(): ListCounts {
  return Object.fromEntries([['all', 0], ...MEMORY_STATUSES.map((s) => [s, 0])]) as ListCounts
}

export async function listCounts(backend: MemoryBackend): Promise<ListCounts> {
  await ensureFresh(backend)
  const counts = noCounts()
  for (const e of (await backend.indexView()).values()) {
    if (listed(e, undefined)) counts.all++
    if (listed(e, e.status)) counts[e.status]++
  }
  return counts
}

export async function listMemories(backend: MemoryBackend, request: ListRequest): Promise<ListResult> {
  await ensureFresh(backend)
  const all = [...(await backend.indexView()).values()]
    .filter((e) => listed(e, request.status))
    .sort((a, b) => b.time.localeCompare(a.time) || a.id.localeCompare(b.id))
  const page = all.slice(request.offset, request.offset + request.limit)
  const usage = page.length > 0 ? await readUsage(backend) : new Map()
  const entries = page.map((e) => {
    const used = usage.get(e.id)
    const row: ListedMemory = { id: e.id, path: e.path, type: e.type, title: e.title, summary: e.summary, time: e.time, status: e.status, tags: e.tags, hits: used?.hits ?? 0, last_used_at: used?.lastHitAt ?? null }
    if (e.front_matter_error !== undefined) row.warning = `${describeUnreadable(e.path, e.front_matter_error)}: out of search and never rewritten until it is fixed by hand`
    return row
  })
  return { entries, total: all.length, offset: request.offset, limit: request.limit, has_more: request.offset + page.length < all.length }
}
