/**
 * Walking the store instead of searching it: the timeline (by time, or along the fixed tour of
 * the palace), the rooms with their occupants, the neighbours of a memory along its links
 * (front-matter `links`, `[[id]]` in bodies, and version pointers), and the audit of what decay
 * archived. Read-only; each brings the index up to date with the files first, so a hand edit
 * (a link added in an editor) shows at once.
 */

import { pushAll } from '../../arrays.js'
import { MemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { SEARCHABLE_STATUSES, briefOf, type IndexEntry, type MemoryBrief, type MemoryStatus } from '../../types.js'
import { ROOM_CAPACITY, loadRooms, parseLocation, tourKey } from '../organisation/rooms.js'

export type PlacedBrief = MemoryBrief & { location?: string }

export function placedBriefOf(e: IndexEntry): PlacedBrief {
  return { ...briefOf(e), ...(e.location !== undefined ? { location: e.location } : {}) }
}

async function freshEntries(backend: MemoryBackend): Promise<IndexEntry[]> {
  await ensureFresh(backend)
  return [...(await backend.indexView()).values()].filter((e) => e.type !== 'raw')
}

const byTimeThenId = (a: IndexEntry, b: IndexEntry) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id)

// ---------------------------------------------------------------------------------------------
// Timeline

export interface TimelineRequest {
  order: 'time' | 'tour'
  limit: number
  offset: number
  status?: MemoryStatus
}

export interface TimelineResult {
  order: 'time' | 'tour'
  total: number
  offset: number
  limit: number
  has_more: boolean
  /** Tour order only: memories without a location, listed after the tour. */
  unplaced?: number
  entries: PlacedBrief[]
}

export async function timeline(backend: MemoryBackend, req: TimelineRequest): Promise<TimelineResult> {
  const all = await freshEntries(backend)
  const wanted = all.filter((e) => (req.status !== undefined ? e.status === req.status : SEARCHABLE_STATUSES.has(e.status)))
  let unplaced: number | undefined
  if (req.order === 'time') {
    wanted.sort((a, b) => byTimeThenId(b, a))
  } else {
    const rooms = await loadRooms(backend, all)
    const keyed = wanted.map((e) => ({ e, k: tourKey(rooms, e.location) }))
    keyed.sort((a, b) => {
      if (a.k === null || b.k === null) return a.k === b.k ? byTimeThenId(a.e, b.e) : a.k === null ? 1 : -1
      return a.k[0] - b.k[0] || a.k[1] - b.k[1] || byTimeThenId(a.e, b.e)
    })
    wanted.length = 0
    pushAll(wanted, keyed.map((x) => x.e))
    unplaced = keyed.filter((x) => x.k === null).length
  }
  const page = wanted.slice(req.offset, req.offset + req.limit)
  return {
    order: req.order,
    total: wanted.length,
    offset: req.offset,
    limit: req.limit,
    has_more: req.offset + page.length < wanted.length,
    ...(unplaced !== undefined ? { unplaced } : {}),
    entries: page.map(placedBriefOf),
  }
}

// ---------------------------------------------------------------------------------------------
// Rooms

export interface RoomsListing {
  capacity: number
  rooms: Array<{ room: string; kind: string; used: number; free: number; current: number; latest: PlacedBrief | null }>
  /** With `room`: its memories in slot order (current versions; older ones share their slot). */
  members?: Array<PlacedBrief & { slot: number }>
  unplaced: number
}

export async function roomsListing(backend: MemoryBackend, room?: string): Promise<RoomsListing> {
  const all = await freshEntries(backend)
  const state = await loadRooms(backend, all)
  if (room !== undefined && !state.rooms.some((r) => r.room === room)) {
    throw new MemoryError('NOT_FOUND', `memory_rooms: no room ${room} (rooms: ${state.rooms.map((r) => r.room).join(', ') || 'none yet'})`, 'room')
  }
  const current = all.filter((e) => SEARCHABLE_STATUSES.has(e.status))
  const inRoom = new Map<string, IndexEntry[]>()
  for (const e of current) {
    const p = parseLocation(e.location)
    if (p !== null) inRoom.set(p.room, [...(inRoom.get(p.room) ?? []), e])
  }
  const rooms = state.rooms.map((r) => {
    const here = inRoom.get(r.room) ?? []
    const latest = [...here].sort((a, b) => byTimeThenId(b, a))[0]
    return { room: r.room, kind: r.kind, used: r.used, free: Math.max(0, ROOM_CAPACITY - r.used), current: here.length, latest: latest === undefined ? null : placedBriefOf(latest) }
  })
  const members =
    room === undefined
      ? undefined
      : (inRoom.get(room) ?? [])
          .map((e) => ({ ...placedBriefOf(e), slot: parseLocation(e.location)?.slot ?? 0 }))
          .sort((a, b) => a.slot - b.slot || a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
  return { capacity: ROOM_CAPACITY, rooms, ...(members !== undefined ? { members } : {}), unplaced: current.filter((e) => e.location === undefined).length }
}

// ---------------------------------------------------------------------------------------------
// Neighbours

export type LinkVia = 'links-to' | 'linked-from' | 'version'

export interface NeighborsResult {
  id: string
  hops: number
  neighbors: Array<PlacedBrief & { hop: number; via: LinkVia; from: string }>
  /** Ids linked to that name no memory (a typo, or a purged memory). */
  missing: string[]
  /** True when more than MAX_NEIGHBORS were reached; the nearest are listed. */
  truncated: boolean
}

export const MAX_NEIGHBORS = 50

/** The edges of an entry: its links, the entries that link to it, and its version pointers. Pure. */
function edgesOf(e: IndexEntry, linkedFrom: ReadonlyMap<string, string[]>): Array<{ to: string; via: LinkVia }> {
  const out: Array<{ to: string; via: LinkVia }> = []
  for (const to of e.links ?? []) out.push({ to, via: 'links-to' })
  for (const to of linkedFrom.get(e.id) ?? []) out.push({ to, via: 'linked-from' })
  for (const to of [e.supersedes, e.superseded_by]) if (to !== null) out.push({ to, via: 'version' })
  return out
}

export async function neighbors(backend: MemoryBackend, id: string, hops: number): Promise<NeighborsResult> {
  const all = await freshEntries(backend)
  const byId = new Map(all.map((e) => [e.id, e]))
  const start = byId.get(id)
  if (start === undefined) throw new MemoryError('NOT_FOUND', `memory_neighbors: no memory ${id}`, 'id')
  const linkedFrom = new Map<string, string[]>()
  for (const e of all) for (const to of e.links ?? []) linkedFrom.set(to, [...(linkedFrom.get(to) ?? []), e.id])
  const seen = new Set([id])
  const missing = new Set<string>()
  const found: NeighborsResult['neighbors'] = []
  let truncated = false
  let frontier = [start]
  for (let hop = 1; hop <= hops && frontier.length > 0; hop++) {
    const next: IndexEntry[] = []
    for (const from of frontier) {
      for (const edge of edgesOf(from, linkedFrom)) {
        if (seen.has(edge.to)) continue
        seen.add(edge.to)
        const e = byId.get(edge.to)
        if (e === undefined) {
          missing.add(edge.to)
          continue
        }
        if (found.length === MAX_NEIGHBORS) {
          truncated = true
          continue
        }
        found.push({ ...placedBriefOf(e), hop, via: edge.via, from: from.id })
        next.push(e)
      }
    }
    frontier = next
  }
  return { id, hops, neighbors: found, missing: [...missing].sort(), truncated }
}

// ---------------------------------------------------------------------------------------------
// The audit of forgetting by decay

export interface ForgottenAudit {
  total: number
  archivals: Array<{
    id: string
    at: string
    reason: string
    title: string | null
    path: string | null
    /** Its status now: `archived`, or what a restore made it; null when the file is gone. */
    status: MemoryStatus | null
    restored: boolean
  }>
  guidance: string
}

export async function auditForgotten(backend: MemoryBackend, limit: number): Promise<ForgottenAudit> {
  const all = await freshEntries(backend)
  const byId = new Map(all.map((e) => [e.id, e]))
  const events = (await backend.readLedger()).filter((ev) => ev.event === 'archive' && typeof ev.id === 'string').reverse()
  const archivals = events.slice(0, limit).map((ev) => {
    const e = byId.get(ev.id as string)
    return {
      id: ev.id as string,
      at: ev.at,
      reason: typeof ev.reason === 'string' ? ev.reason : 'archived by decay',
      title: e?.title ?? null,
      path: e?.path ?? null,
      status: e?.status ?? null,
      restored: e !== undefined && e.status !== 'archived',
    }
  })
  const guidance =
    events.length === 0
      ? 'Nothing has been archived by decay. memory_decay (dryRun) shows what would be.'
      : `${events.length} archival(s), newest first${events.length > archivals.length ? ` (${archivals.length} shown; raise limit for more)` : ''}. If one was a mistake, memory_restore brings it back.`
  return { total: events.length, archivals, guidance }
}
