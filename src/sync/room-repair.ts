/**
 * After a pull: puts right room slots that two clones both gave (memory/organisation/rooms.ts). The memory
 * that had the slot first keeps it; each other one (with its older versions) moves to the next
 * free slot of this clone's rooms, and records where it stood in `moved_from`, so a reference to
 * the old slot still finds it (memory_nav with a location answers with both). Under the store
 * lock; memory files are rewritten by compare-and-swap, the index follows, and the caller adds
 * the ledger events and commits.
 */

import type { MemoryBackend } from '../store/backend.js'
import { entryFromFile } from '../store/frontmatter.js'
import type { IndexEntry, LedgerEventDraft } from '../types.js'
import { nextFreeSlot, recordRooms, roomCollisions } from '../memory/organisation/rooms.js'
import { patchMemoryText } from './conflicts.js'

export interface RoomMove {
  id: string
  ids: string[]
  from: string
  to: string
  /** The memory that kept the slot. */
  kept: string
}

export interface RoomRepair {
  moved: RoomMove[]
  written: string[]
  events: LedgerEventDraft[]
}

/** The time each memory was given each location, from the ledger's write events: `id location` -> at. */
function placements(events: ReadonlyArray<Record<string, unknown>>): Map<string, string> {
  const out = new Map<string, string>()
  for (const ev of events) {
    if (ev.event !== 'write' || typeof ev.id !== 'string' || typeof ev.location !== 'string' || typeof ev.at !== 'string') continue
    const key = `${ev.id} ${ev.location}`
    if (!out.has(key)) out.set(key, ev.at)
  }
  return out
}

export async function repairRoomCollisions(backend: MemoryBackend, now: number): Promise<RoomRepair> {
  const out: RoomRepair = { moved: [], written: [], events: [] }
  const view = await backend.indexView()
  const placed = placements(await backend.readLedger())
  // A file whose front-matter does not parse is never rewritten: it keeps its place until fixed.
  const readable = [...view.values()].filter((e) => e.front_matter_error === undefined)
  const collisions = roomCollisions(readable, (e) => placed.get(`${e.id} ${e.location ?? ''}`) ?? e.time)
  if (collisions.length === 0) return out
  const upserts: IndexEntry[] = []
  for (const { location, keeper, moving } of collisions) {
    const first = moving[0] as IndexEntry
    const place = await nextFreeSlot(backend, view, first.type)
    if (place.location === null) continue
    await recordRooms(backend, place.changes)
    const to = place.location
    for (const e of moving) {
      const patch = { location: to, moved_from: [...(e.moved_from ?? []), location] }
      const done = await backend.rewriteFile(e.path, (text) => patchMemoryText(e.path, text, patch, now))
      if (done === null) continue
      upserts.push(entryFromFile(e.path, done.after, now))
      out.written.push(e.path)
    }
    const ids = moving.map((e) => e.id)
    out.moved.push({ id: first.id, ids, from: location, to, kept: keeper })
    out.events.push({ event: 'move', id: first.id, ids, from: location, to, kept: keeper, via: 'sync', reason: 'two clones gave this slot' })
  }
  await backend.appendIndex(upserts, [])
  return out
}
