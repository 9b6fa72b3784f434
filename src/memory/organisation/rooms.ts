/**
 * Folder memory/organisation/, whose main file this is, owns keeping order: the palace (rooms),
 * retrieval practice (review, SM-2), duplicates and merge, digests of current belief, the health
 * sweep, usage signals. Imports from the other capability folders: reading, truth, writing; below
 * memory/ anything (retrieve, store, language, ground); nothing above (tools, stores, adapters).
 *
 * The palace: every topic and episode gets a stable location `room#slot` when it is written.
 * Rooms go by kind (`topics`, `episodes`), hold 9 slots each, and a full room opens the next one
 * (`topics-2`). Slots are a high-water mark per room: a slot once given is never given again,
 * even when its memory is purged. A new version of a fact (same slot key) stands where the old
 * one stood, so a topic keeps its place. The tour is the rooms in the order they were opened,
 * each walked by slot: an append-only route.
 *
 * Clones of one store (git, src/sync/) give slots from rooms of their own, so two clones never
 * give the same one: each clone has a wing, a random id kept in `.cache/rooms-wing.json` (never
 * synced, so a fresh clone has none and makes its own), and its rooms are `topics-<wing>`,
 * `topics-<wing>-2`... The plain rooms (`topics`, `topics-2`) are given only by a store that is
 * on its own: one whose palace was empty and that was not in a repository of its own when it
 * first gave a slot, until its first sync. Collisions made before (by older versions, or by two
 * stores started apart and joined later) are found by `roomCollisions` and moved by sync.
 *
 * `rooms.json` keeps the rooms in tour order with their high-water marks. It is state, not truth:
 * when it is missing or broken it is rebuilt from the ledger's `write` events (which carry
 * `location`, in order) and from the locations the files state. Allocation and the placard check
 * are pure functions of (state, entries); only `placeNew` and `saveRooms` touch the store, and
 * only inside a write transaction.
 */

import { randomInt } from 'node:crypto'
import type { MemoryBackend } from '../../store/backend.js'
import { LOCATION_PATTERN, placardText } from '../../store/place-fields.js'
import type { IndexEntry, LedgerEvent, MemoryType } from '../../types.js'
import { slotOf, type IndexLookup } from '../../store/index-view.js'

export const ROOM_CAPACITY = 9
export const ROOMS_FILE = 'rooms.json'

export interface Room {
  room: string
  /** The room's kind: its name without the `-N` of an overflow room. */
  kind: string
  /** Highest slot given in this room (slots are never reused). */
  used: number
}

/** Rooms in tour order: the order they were opened. */
export interface RoomsState {
  rooms: Room[]
}

export interface Location {
  room: string
  slot: number
  kind: string
  /** 1 for `topics`, 2 for `topics-2`, ... */
  number: number
}

/** The room kind a memory type is placed in; raw text stays with its episode and has none. */
export function roomKindOf(type: MemoryType): string | null {
  return type === 'topic' ? 'topics' : type === 'episode' ? 'episodes' : null
}

export function roomName(kind: string, number: number): string {
  return number === 1 ? kind : `${kind}-${number}`
}

export function parseLocation(location: string | undefined): Location | null {
  const m = location === undefined ? null : LOCATION_PATTERN.exec(location)
  if (m === null) return null
  const room = m[1] as string
  const overflow = /^(.*[a-z])-([1-9][0-9]*)$/.exec(room)
  return { room, slot: Number(m[2]), kind: overflow ? (overflow[1] as string) : room, number: overflow ? Number(overflow[2]) : 1 }
}

/**
 * The state with every given location accounted for: an unknown room is appended (rooms new to
 * the state in kind, then number order), a known room's high-water mark rises to the slot. Pure.
 */
export function reconcile(state: RoomsState, locations: Iterable<string | undefined>): RoomsState {
  const rooms = state.rooms.map((r) => ({ ...r }))
  const byName = new Map(rooms.map((r) => [r.room, r]))
  const fresh: Location[] = []
  for (const loc of locations) {
    const p = parseLocation(loc)
    if (p === null) continue
    const known = byName.get(p.room)
    if (known !== undefined) known.used = Math.max(known.used, p.slot)
    else {
      const room = { room: p.room, kind: p.kind, used: p.slot }
      byName.set(p.room, room)
      fresh.push(p)
    }
  }
  fresh.sort((a, b) => a.kind.localeCompare(b.kind) || a.number - b.number)
  for (const p of fresh) rooms.push(byName.get(p.room) as Room)
  return { rooms }
}

/** The number of a room of a kind (1 for `topics`, 2 for `topics-2`), without a regex: writes call this per room. */
function numberIn(room: Room, kind: string): number {
  return room.room === kind ? 1 : Number(room.room.slice(kind.length + 1)) || 1
}

/** The kind's highest-numbered room and where it stands in the tour, or null. */
function lastRoom(state: RoomsState, kind: string): { room: Room; at: number; number: number } | null {
  let last: { room: Room; at: number; number: number } | null = null
  state.rooms.forEach((room, at) => {
    if (room.kind !== kind) return
    const number = numberIn(room, kind)
    if (last === null || number > last.number) last = { room, at, number }
  })
  return last
}

/** The next location of a kind and the state after giving it. Pure. */
export function allocate(state: RoomsState, kind: string): { state: RoomsState; location: string } {
  const last = lastRoom(state, kind)
  if (last !== null && last.room.used < ROOM_CAPACITY) {
    const rooms = state.rooms.slice()
    rooms[last.at] = { ...last.room, used: last.room.used + 1 }
    return { state: { rooms }, location: `${last.room.room}#${last.room.used + 1}` }
  }
  const room = roomName(kind, last === null ? 1 : last.number + 1)
  return { state: { rooms: [...state.rooms, { room, kind, used: 1 }] }, location: `${room}#1` }
}

function parseState(text: string | null): RoomsState | null {
  if (text === null) return null
  try {
    const raw = JSON.parse(text) as { rooms?: unknown }
    return Array.isArray(raw?.rooms) ? stateInFileOrder(raw.rooms as Array<{ room?: unknown; used?: unknown }>) : null
  } catch {
    return null
  }
}

/** The rooms as the file lists them (its order is the tour); malformed rows are skipped. */
function stateInFileOrder(rows: Array<{ room?: unknown; used?: unknown }>): RoomsState {
  const rooms: Room[] = []
  const seen = new Set<string>()
  for (const r of rows) {
    if (typeof r !== 'object' || r === null || typeof r.room !== 'string') continue
    const p = parseLocation(`${r.room}#1`)
    if (p === null || seen.has(p.room)) continue
    seen.add(p.room)
    const used = typeof r.used === 'number' && Number.isInteger(r.used) && r.used >= 0 ? r.used : 0
    rooms.push({ room: p.room, kind: p.kind, used })
  }
  return { rooms }
}

/** Locations in the ledger's write events, oldest first: the order rooms were opened. */
function ledgerLocations(events: readonly LedgerEvent[]): string[] {
  const out: string[] = []
  for (const ev of events) if (typeof ev.location === 'string') out.push(ev.location)
  return out
}

/**
 * The rooms as they stand: rooms.json, or (missing or broken) the ledger's record, raised to
 * every location the entries state. Reads only.
 */
export async function loadRooms(backend: MemoryBackend, entries: Iterable<IndexEntry>): Promise<RoomsState> {
  return reconcile(await storedRooms(backend), (function* () {
    for (const e of entries) yield e.location
  })())
}

/**
 * Saves the rooms. Without fsync: rooms.json is derived state, and after a crash that leaves it
 * empty or old, the ledger's write events and the files' locations bring it back (storedRooms,
 * raiseKind), while the flush would cost every write as much as the memory file's own.
 */
export async function saveRooms(backend: MemoryBackend, state: RoomsState): Promise<void> {
  await backend.writeFileAtomic(ROOMS_FILE, `${JSON.stringify({ capacity: ROOM_CAPACITY, rooms: state.rooms }, null, 2)}\n`, { fsync: false })
  const signature = signatureOf(await backend.stat(ROOMS_FILE).catch(() => null))
  if (signature !== null) roomsCache.set(backend, { signature, state })
}

/** Tour position of a location: room order, then slot; null for an unplaced memory. Pure. */
export function tourKey(state: RoomsState, location: string | undefined): [number, number] | null {
  const p = parseLocation(location)
  if (p === null) return null
  const at = state.rooms.findIndex((r) => r.room === p.room)
  return [at < 0 ? state.rooms.length : at, p.slot]
}

// ---------------------------------------------------------------------------------------------
// Placards

export interface PlacardCheck {
  /** 0..1: unique in the store 0.4, dated 0.3, differentiated from its room neighbours 0.3. */
  score: number
  unique: boolean
  differentiated: boolean
  dated: boolean
  /** How to rewrite the title when the score is below 1. */
  hint?: string
}

/** Statuses whose titles a placard must stand apart from: what a reader can still meet. */
const SEEN = new Set(['active', 'conflict', 'suggested', 'archived'])
const PREFIX_CHARS = 6
const DATE = /(?:19|20)\d{2}(?:\s*[-/.年]\s*\d{1,2})?|\d{1,2}\s*月/u
const byId = (a: IndexEntry, b: IndexEntry) => a.id.localeCompare(b.id)
/** Placard scores below this get a rewrite hint; 0.7 is a title that is unique and distinct but undated. */
const HINT_BELOW = 0.7

/**
 * The placard check for a memory's title: unique among the memories a reader can meet (other
 * versions of its own slot aside), its first six characters unlike those of its room
 * neighbours, and a date in it. Pure over the index given; two indexed lookups, no scan.
 */
export function checkPlacard(
  entry: Pick<IndexEntry, 'id' | 'title' | 'time' | 'location'>,
  index: Pick<IndexLookup, 'withPlacard' | 'inRoom'>,
  sameSlot: (e: IndexEntry) => boolean,
): PlacardCheck {
  const text = placardText(entry.title)
  const room = parseLocation(entry.location)?.room
  const prefix = [...text].slice(0, PREFIX_CHARS).join('')
  const meets = (e: IndexEntry) => e.id !== entry.id && SEEN.has(e.status) && e.type !== 'raw' && !sameSlot(e)
  const twin = index.withPlacard(text).filter(meets).sort(byId)[0] ?? null
  const lookalike =
    room === undefined
      ? null
      : (index.inRoom(room).filter((e) => meets(e) && [...placardText(e.title)].slice(0, PREFIX_CHARS).join('') === prefix).sort(byId)[0] ?? null)
  const unique = twin === null
  const differentiated = lookalike === null
  const dated = DATE.test(entry.title)
  const score = Math.round(((unique ? 0.4 : 0) + (dated ? 0.3 : 0) + (differentiated ? 0.3 : 0)) * 10) / 10
  // Only a low score carries advice (the seed's 低分附改写建议): a unique, distinct title without a
  // date scores 0.7 and is left alone, or every "API port" would be told to add a month.
  if (score >= HINT_BELOW) return { score, unique, differentiated, dated }
  const fixes = [
    ...(twin !== null ? [`${twin.id} has the same title: name what sets this one apart`] : []),
    ...(lookalike !== null ? [`it starts like ${lookalike.id} in ${room}: lead with the word that differs`] : []),
    ...(!dated ? [`add when it holds, such as (${entry.time.slice(0, 7)})`] : []),
  ]
  return { score, unique, differentiated, dated, hint: `Rewrite the title: ${fixes.join('; ')}.` }
}

// ---------------------------------------------------------------------------------------------
// The write path's part

export interface Placement {
  location: string | null
  /** The state after a new slot was given (to save with `saveRooms`); null when nothing changed. */
  state: RoomsState | null
}

/**
 * Where a new memory stands: where the latest memory of its slot (same type, any status) stood,
 * or the next free slot of its kind in this clone's rooms. Inside the write's transaction, under
 * the store lock.
 */
export async function placeNew(backend: MemoryBackend, index: IndexLookup, type: MemoryType, slotMatesOf: () => IndexEntry[]): Promise<Placement> {
  if (roomKindOf(type) === null) return { location: null, state: null }
  const inherited = slotMatesOf()
    .filter((e) => e.location !== undefined)
    .sort((a, b) => b.time.localeCompare(a.time) || b.id.localeCompare(a.id))[0]
  if (inherited?.location !== undefined) return { location: inherited.location, state: null }
  return nextFreeSlot(backend, index, type)
}

/** The next free slot of a type's kind in this clone's rooms, and the state after giving it (to save with `saveRooms`). Under the store lock. */
export async function nextFreeSlot(backend: MemoryBackend, index: IndexLookup, type: MemoryType): Promise<Placement> {
  const base = roomKindOf(type)
  if (base === null) return { location: null, state: null }
  const wing = await wingOf(backend, index)
  const kind = wing === null ? base : `${base}-${wing}`
  const { state, location } = allocate(raiseKind(await storedRooms(backend), kind, index), kind)
  return { location, state }
}

// ---------------------------------------------------------------------------------------------
// Wings: the rooms of one clone

/** Where this clone keeps its wing: under .cache/, which is never synced or exported. */
export const WING_FILE = '.cache/rooms-wing.json'
/** Consonants only: a wing never spells a word, and never ends like an overflow room (`-2`). */
const WING_LETTERS = 'bcdfghjkmnpqrstvwxz'
const WING_LENGTH = 5
const WING_PATTERN = /^[a-z]{3,16}$/

/** The wing a file records: a string, null for the plain rooms, undefined when there is none (or it is broken). */
function recordedWing(text: string | null): string | null | undefined {
  if (text === null) return undefined
  try {
    const wing = (JSON.parse(text) as { wing?: unknown }).wing
    return wing === null || (typeof wing === 'string' && WING_PATTERN.test(wing)) ? wing : undefined
  } catch {
    return undefined
  }
}

async function saveWing(backend: MemoryBackend, wing: string | null): Promise<void> {
  await backend.writeFileAtomic(WING_FILE, `${JSON.stringify({ wing })}\n`)
}

function newWing(): string {
  return Array.from({ length: WING_LENGTH }, () => WING_LETTERS[randomInt(WING_LETTERS.length)]).join('')
}

/**
 * This clone's wing, null for the plain rooms; decided at the first slot it gives. A store that
 * is on its own (nothing placed yet, no repository in its root) takes the plain rooms; a clone
 * (its palace came with it) or a store whose .cache/ was deleted takes a new wing.
 */
async function wingOf(backend: MemoryBackend, index: IndexLookup): Promise<string | null> {
  const known = recordedWing(await backend.readFile(WING_FILE).catch(() => null))
  if (known !== undefined) return known
  const alone = (await backend.stat('.git')) === null && (await loadRooms(backend, index.values())).rooms.length === 0
  const wing = alone ? null : newWing()
  await saveWing(backend, wing)
  return wing
}

/** Gives this clone a wing of its own, if it gives plain slots or has none yet: sync does, before it shares anything. Returns it. */
export async function claimWing(backend: MemoryBackend): Promise<string> {
  const known = recordedWing(await backend.readFile(WING_FILE).catch(() => null))
  if (typeof known === 'string') return known
  const wing = newWing()
  await saveWing(backend, wing)
  return wing
}

// ---------------------------------------------------------------------------------------------
// Collisions: one slot given by two clones

export interface RoomCollision {
  location: string
  /** The memory that had the slot first (its version family keeps it). */
  keeper: string
  /** One version family that must move, oldest first. */
  moving: IndexEntry[]
}

/** Versions of one fact share their location; anything else is a memory of its own. */
function familyOf(e: IndexEntry): string {
  return e.key !== null && e.retracts === undefined ? `slot\u0000${e.type}\u0000${slotOf(e)}` : `id\u0000${e.id}`
}

/**
 * Locations held by memories that are not versions of one fact: two clones gave the slot. Per
 * location the family placed there first (by `placedAt`: the time of the write that gave it,
 * else the memory's time; then the smaller id) keeps it; every other family is listed to move.
 * Deterministic: every clone with the same files and ledger finds the same. Pure.
 */
export function roomCollisions(entries: Iterable<IndexEntry>, placedAt: (e: IndexEntry) => string): RoomCollision[] {
  const byLocation = new Map<string, Map<string, IndexEntry[]>>()
  for (const e of entries) {
    if (e.location === undefined || e.type === 'raw') continue
    const families = byLocation.get(e.location) ?? new Map<string, IndexEntry[]>()
    byLocation.set(e.location, families)
    const family = familyOf(e)
    families.set(family, [...(families.get(family) ?? []), e])
  }
  const out: RoomCollision[] = []
  for (const [location, families] of [...byLocation].sort(([a], [b]) => a.localeCompare(b))) {
    if (families.size < 2) continue
    const ranked = [...families.values()]
      .map((members) => {
        const sorted = [...members].sort((a, b) => placedAt(a).localeCompare(placedAt(b)) || a.id.localeCompare(b.id))
        return { members: sorted, first: sorted[0] as IndexEntry }
      })
      .sort((a, b) => placedAt(a.first).localeCompare(placedAt(b.first)) || a.first.id.localeCompare(b.first.id))
    const keeper = (ranked[0] as { first: IndexEntry }).first.id
    for (const f of ranked.slice(1)) out.push({ location, keeper, moving: f.members })
  }
  return out
}

/** The last rooms.json read or written per backend, by its size and mtime. */
const roomsCache = new WeakMap<MemoryBackend, { signature: string; state: RoomsState }>()

const signatureOf = (st: { size: number; mtimeMs: number } | null) => (st === null ? null : `${st.size}:${st.mtimeMs}`)

/**
 * rooms.json (parsed again only when its size or mtime changed: another process wrote it), or
 * (missing or broken) the rooms the ledger's write events opened. Reads only.
 */
async function storedRooms(backend: MemoryBackend): Promise<RoomsState> {
  const signature = signatureOf(await backend.stat(ROOMS_FILE).catch(() => null))
  const known = roomsCache.get(backend)
  if (signature !== null && known?.signature === signature) return known.state
  const stored = parseState(await backend.readFile(ROOMS_FILE).catch(() => null))
  if (stored !== null && signature !== null) roomsCache.set(backend, { signature, state: stored })
  return stored ?? reconcile({ rooms: [] }, ledgerLocations(await backend.readLedger()))
}

/**
 * The state raised to what the files of one kind's last rooms state (a pulled or hand-edited
 * location rooms.json has not seen): from the kind's last known room on, while a room has
 * members. A handful of indexed lookups, so a write costs the same in a store of any size.
 */
function raiseKind(state: RoomsState, kind: string, index: Pick<IndexLookup, 'inRoom'>): RoomsState {
  const number = lastRoom(state, kind)?.number ?? 1
  const current = roomName(kind, number)
  const used = state.rooms.find((r) => r.room === current)?.used ?? 0
  const locations: string[] = []
  let behind = false
  for (let n = number; ; n++) {
    const members = index.inRoom(roomName(kind, n))
    if (members.length === 0 && n > number) break
    for (const e of members) {
      const slot = parseLocation(e.location)?.slot
      if (slot === undefined) continue
      locations.push(e.location as string)
      // A member beyond the known high-water mark, or in a room the state does not list yet.
      if (n > number || slot > used) behind = true
    }
  }
  // Nearly always rooms.json already accounts for every member: no copy then.
  return behind ? reconcile(state, locations) : state
}
