/**
 * Browsing the store with a bounded read: the summary layer only, a page at a time. Full text
 * comes back only when one file is named (by path, id, or the room slot it stands at). Read-only; every path goes through
 * the backend's root confinement.
 */

import { MemoryError } from '../../errors.js'
import { asOfView, parseAsOf } from '../time/as-of.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { entryFromFile, isMemoryPath } from '../../store/frontmatter.js'
import { MEMORY_FOLDERS } from '../../store/layout.js'
import { LOCATION_PATTERN } from '../../store/place-fields.js'
import type { IndexEntry, MemoryStatus, MemoryType } from '../../types.js'

export type NavSort = 'recent' | 'oldest' | 'title' | 'id'

export interface NavRequest {
  path?: string
  limit: number
  offset: number
  sort: NavSort
  status?: MemoryStatus
  /** ISO-8601 time: browse the store as it was then (as-of.ts). */
  asOf?: string
}

export interface NavEntry {
  id: string
  path: string
  type: MemoryType
  title: string
  summary: string
  time: string
  status: MemoryStatus
}

export interface NavResult {
  entries: NavEntry[]
  total: number
  offset: number
  limit: number
  has_more: boolean
  facets: { types: Record<string, number>; statuses: Record<string, number> }
  /** The root README.md on the first page, or the folder's _index.md when browsing a folder. */
  readme?: string
  folder?: string
  /** The full text of the one file named by `path`. */
  file?: { path: string; text: string }
  /** Index lines that could not be read (the store still works; rebuild fixes them). */
  skipped_index_lines?: number
  /** With a location for path: memories that stood there until sync moved them (two clones had given the slot). */
  moved?: Array<{ id: string; from: string; to: string }>
  /** On a default root not written yet: "nothing stored yet" (store/existing.ts). */
  note?: string
}

/** The listing of a store not written yet: empty, and saying so (store/existing.ts). */
export function emptyListing(req: Pick<NavRequest, 'offset' | 'limit'>, note: string): NavResult {
  return { entries: [], total: 0, offset: req.offset, limit: req.limit, has_more: false, facets: { types: {}, statuses: {} }, note }
}

/** Nav orders, shared with the two-store merge (src/stores/merge.ts). */
export const SORTS: Record<NavSort, (a: IndexEntry, b: IndexEntry) => number> = {
  recent: (a, b) => b.time.localeCompare(a.time) || a.id.localeCompare(b.id),
  oldest: (a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id),
  title: (a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id),
  id: (a, b) => a.id.localeCompare(b.id),
}

function toNavEntry(e: IndexEntry): NavEntry {
  return { id: e.id, path: e.path, type: e.type, title: e.title, summary: e.summary, time: e.time, status: e.status }
}

function facets(entries: IndexEntry[]): NavResult['facets'] {
  const types: Record<string, number> = {}
  const statuses: Record<string, number> = {}
  for (const e of entries) {
    types[e.type] = (types[e.type] ?? 0) + 1
    statuses[e.status] = (statuses[e.status] ?? 0) + 1
  }
  return { types, statuses }
}

function page(all: IndexEntry[], req: NavRequest, base: Omit<NavResult, 'entries' | 'total' | 'offset' | 'limit' | 'has_more' | 'facets'>): NavResult {
  const filtered = all.filter((e) => (req.status !== undefined ? e.status === req.status : e.status !== 'deleted_pending'))
  const sorted = filtered.sort(SORTS[req.sort])
  const slice = sorted.slice(req.offset, req.offset + req.limit)
  return {
    entries: slice.map(toNavEntry),
    total: sorted.length,
    offset: req.offset,
    limit: req.limit,
    has_more: req.offset + slice.length < sorted.length,
    facets: facets(all),
    ...base,
  }
}

const CURRENT = new Set<MemoryStatus>(['active', 'conflict'])

/**
 * A room slot (`room#slot`) in full: the memory standing there (its current version first), and
 * the memories sync moved away from it; when none stands there any more, the one that moved.
 */
async function atLocation(backend: MemoryBackend, index: IndexEntry[], location: string, req: NavRequest, skipped: { skipped_index_lines?: number }): Promise<NavResult> {
  const standing = index
    .filter((e) => e.location === location)
    .sort((a, b) => Number(!CURRENT.has(a.status)) - Number(!CURRENT.has(b.status)) || b.time.localeCompare(a.time) || a.id.localeCompare(b.id))
  const moved = index.filter((e) => e.location !== undefined && e.location !== location && e.moved_from?.includes(location) === true)
  const target = standing[0] ?? moved[0]
  if (target === undefined) throw new MemoryError('NOT_FOUND', `no memory stands at ${location}; memory_rooms lists the rooms and what stands in them`, 'path')
  const text = await backend.readMemoryFile(target.path)
  return {
    entries: [toNavEntry(target)],
    total: 1,
    offset: 0,
    limit: req.limit,
    has_more: false,
    facets: facets(index),
    ...(text !== null ? { file: { path: target.path, text } } : {}),
    ...(moved.length > 0 ? { moved: moved.map((e) => ({ id: e.id, from: location, to: e.location as string })) } : {}),
    ...skipped,
  }
}

export async function navigate(backend: MemoryBackend, req: NavRequest): Promise<NavResult> {
  await ensureFresh(backend)
  const asOf = req.asOf !== undefined ? parseAsOf(req.asOf) : null
  const index = asOf !== null ? [...(await asOfView(backend, asOf)).values()] : await backend.readIndex()
  const skipped = backend.lastIndexSkipped > 0 ? { skipped_index_lines: backend.lastIndexSkipped } : {}
  const raw = (req.path ?? '').trim()
  // Only whole './' prefixes go: '../x' must reach the backend as it is, and be refused there.
  const path = raw === '.' ? '' : raw.replace(/^(\.\/)+/, '')

  if (path === '') {
    const readme = req.offset === 0 ? await backend.readFile('README.md') : null
    return page(
      index.filter((e) => e.type !== 'raw'),
      req,
      { ...(readme !== null ? { readme } : {}), ...skipped },
    )
  }
  const folderName = path.replace(/\/+$/, '')
  if (MEMORY_FOLDERS.some((f) => f.folder === folderName) || folderName === 'digests') {
    const readme = await backend.readFile(`${folderName}/_index.md`)
    return page(
      index.filter((e) => e.path.startsWith(`${folderName}/`)),
      req,
      { folder: `${folderName}/`, ...(readme !== null ? { readme } : {}), ...skipped },
    )
  }

  if (LOCATION_PATTERN.test(path)) return atLocation(backend, index, path, req, skipped)

  // One memory, by id or by file path: the only way to its full text.
  const byId = index.find((e) => e.id === path)
  const filePath = byId?.path ?? path
  // As of a time, only what existed then can be opened (and what is forgotten never).
  if (asOf !== null && !index.some((e) => e.path === filePath) && isMemoryPath(filePath)) {
    throw new MemoryError('NOT_FOUND', `${JSON.stringify(path)} did not exist as of ${new Date(asOf).toISOString()}, or is forgotten`, 'path')
  }
  // Only memory files: never .git, .cache, config.json or the panel key, nor a link to them.
  const text = await backend.readMemoryFile(filePath)
  if (text === null) {
    throw new MemoryError('NOT_FOUND', `nothing at ${JSON.stringify(path)}: not an id, a memory file or a folder (folders: episodes/, raw/, topics/)`, 'path')
  }
  const indexed = byId ?? index.find((e) => e.path === filePath)
  const entry = indexed ?? (isMemoryPath(filePath) ? entryFromFile(filePath, text, (await backend.stat(filePath))?.mtimeMs ?? 0) : null)
  return {
    entries: entry !== null ? [toNavEntry(entry)] : [],
    total: entry !== null ? 1 : 0,
    offset: 0,
    limit: req.limit,
    has_more: false,
    facets: facets(index),
    file: { path: filePath, text },
    ...skipped,
  }
}
