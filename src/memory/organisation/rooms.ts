/**
 * Folder memory/organisation/, whose main file this is, owns keeping order: the palace (rooms),
 * retrieval practice (review, SM-2), duplicates and merge, digests of current belief, the health
 * sweep, usage signals. Imports from the other capability folders: reading, settings, truth,
 * writing; below memory/ anything (retrieve, store, language, ground); nothing above (tools,
 * stores, adapters).
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
 * The rooms in tour order with their high-water marks are state, not truth, kept so that a write
 * costs the same in a store of any size: `rooms.json` is a snapshot (the format older versions
 * wrote, read as is), and `rooms-log.jsonl` the marks raised since, one line per change, appended
 * by each write that gives a slot. Every so often (the log as long as the snapshot, at least
 * COMPACT_MIN lines) the two are folded into a new snapshot, written aside, flushed and renamed,
 * and only then is the log removed: a log replayed over a snapshot that holds it changes nothing
 * (marks only rise). When the snapshot is missing or broken the rooms are rebuilt from the
 * ledger's `write` events (which carry `location`, in order), the log replayed over them, and the
 * next write saves the snapshot; a torn or lost log line is made good by the locations the files
 * state (raiseKind), so a slot is never given twice. Allocation and the placard check are pure
 * functions of (state, entries); only `placeNew`/`nextFreeSlot` and `recordRooms` touch the
 * store, and only inside a write transaction.
 */

import { randomInt } from 'node:crypto'
import type { MemoryBackend } from '../../store/backend.js'
import { LOCATION_PATTERN, placardText } from '../../store/place-fields.js'
import type { IndexEntry, LedgerEvent, MemoryType } from '../../types.js'
import { slotOf, type IndexLookup } from '../../store/index-view.js'

export const ROOM_CAPACITY = 9
/** The snapshot of the rooms. */
export const ROOMS_FILE = 'rooms.json'
/** The marks raised since the snapshot, one `{"room","used"}` line each. */
export const ROOMS_LOG_FILE = 'rooms-log.jsonl'
/** The log is folded into the snapshot once it has this many lines, or as many as the snapshot has rooms if more. */
export const COMPACT_MIN = 1000

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

/**
 * Rooms in tour order with lookups by name and by kind beside them, so that raising a mark or
 * finding a kind's last room costs the same with 10 rooms or 10,000.
 */
export class Palace implements RoomsState {
  readonly rooms: Room[] = []
  private readonly byName = new Map<string, Room>()
  private readonly lastOf = new Map<string, { room: Room; number: number }>()

  static of(state: RoomsState): Palace {
    const palace = new Palace()
    for (const r of state.rooms) palace.raise(r)
    return palace
  }

  get(room: string): Room | undefined {
    return this.byName.get(room)
  }

  /** The kind's highest-numbered room. */
  last(kind: string): { room: Room; number: number } | undefined {
    return this.lastOf.get(kind)
  }

  /** Raises a room's mark to `used` (never lowers it), or opens the room at the end of the tour. */
  raise(change: Room): void {
    const known = this.byName.get(change.room)
    if (known !== undefined) {
      known.used = Math.max(known.used, change.used)
      return
    }
    const room = { ...change }
    this.rooms.push(room)
    this.byName.set(room.room, room)
    const number = numberIn(room, room.kind)
    const last = this.lastOf.get(room.kind)
    if (last === undefined || number > last.number) this.lastOf.set(room.kind, { room, number })
  }
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

/**
 * The next location of a kind, after the kind's last room (none yet: the kind's first room), and
 * the change it makes: that room's mark raised by one, or the next room opened when it is full. Pure.
 */
export function allocate(last: { room: Room; number: number } | undefined, kind: string): { location: string; change: Room } {
  if (last !== undefined && last.room.used < ROOM_CAPACITY) {
    const change = { ...last.room, used: last.room.used + 1 }
    return { location: `${change.room}#${change.used}`, change }
  }
  const room = roomName(kind, last === undefined ? 1 : last.number + 1)
  return { location: `${room}#1`, change: { room, kind, used: 1 } }
}

function parseState(text: string | null): RoomsState | null {
  if (text === null) return null
  try {
    const raw = JSON.parse(text) as { rooms?: unknown }
    return Array.isArray(raw?.rooms) ? stateInFileOrder(raw.rooms as unknown[]) : null
  } catch {
    return null
  }
}

/** A room as a snapshot row or a log line gives it; null when it is malformed. */
function roomOf(r: unknown): Room | null {
  if (typeof r !== 'object' || r === null) return null
  const { room, used } = r as { room?: unknown; used?: unknown }
  const p = typeof room === 'string' ? parseLocation(`${room}#1`) : null
  if (p === null) return null
  return { room: p.room, kind: p.kind, used: typeof used === 'number' && Number.isInteger(used) && used >= 0 ? used : 0 }
}

/** The rooms as the file lists them (its order is the tour); malformed rows are skipped. */
function stateInFileOrder(rows: unknown[]): RoomsState {
  const rooms: Room[] = []
  const seen = new Set<string>()
  for (const row of rows) {
    const r = roomOf(row)
    if (r === null || seen.has(r.room)) continue
    seen.add(r.room)
    rooms.push(r)
  }
  return { rooms }
}

/** Raises the palace by every line of the log (a torn or malformed line is skipped); returns the number of lines. */
function replayLog(palace: Palace, text: string | null): number {
  let lines = 0
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue
    lines++
    try {
      const r = roomOf(JSON.parse(line))
      if (r !== null) palace.raise(r)
    } catch {
      // A line a crash tore: the files' locations make good what it held (raiseKind).
    }
  }
  return lines
}

/** Locations in the ledger's write events, oldest first: the order rooms were opened. */
function ledgerLocations(events: readonly LedgerEvent[]): string[] {
  const out: string[] = []
  for (const ev of events) if (typeof ev.location === 'string') out.push(ev.location)
  return out
}

/**
 * The rooms as they stand: the snapshot and the log, or (snapshot missing or broken) the ledger's
 * record and the log, raised to every location the entries state. Reads only.
 */
export async function loadRooms(backend: MemoryBackend, entries: Iterable<IndexEntry>): Promise<RoomsState> {
  return reconcile((await storedRooms(backend)).palace, (function* () {
    for (const e of entries) yield e.location
  })())
}

/**
 * Records the marks a placement raised: one appended line each, so a write costs the same in a
 * store of any size. Without fsync: the log is derived state, and a line a crash loses or tears
 * is made good by the files' locations (raiseKind), while the flush would cost every write as
 * much as the memory file's own. The snapshot is written instead when it is missing or broken,
 * or when the log has grown as long as it. Under the store lock.
 */
export async function recordRooms(backend: MemoryBackend, changes: readonly Room[]): Promise<void> {
  if (changes.length === 0) return
  const stored = await storedRooms(backend)
  for (const c of changes) stored.palace.raise(c)
  if (stored.rebuilt || stored.lines + changes.length >= Math.max(COMPACT_MIN, stored.palace.rooms.length)) {
    await compactRooms(backend, stored.palace)
    return
  }
  await backend.appendText(ROOMS_LOG_FILE, changes.map((c) => `${JSON.stringify({ room: c.room, used: c.used })}\n`).join(''))
  stored.lines += changes.length
  stored.log = signatureOf(await backend.stat(ROOMS_LOG_FILE).catch(() => null))
}

/**
 * Folds the log into a new snapshot: written aside, flushed and renamed, then the log removed. A
 * crash between the two leaves a log the snapshot already holds; replaying it changes nothing.
 * Its cost grows with the rooms, but it comes once per as many writes as there are rooms.
 */
async function compactRooms(backend: MemoryBackend, palace: Palace): Promise<void> {
  await backend.writeFileAtomic(ROOMS_FILE, snapshotText(palace), { fsync: true })
  await backend.removeFile(ROOMS_LOG_FILE)
  const snapshot = signatureOf(await backend.stat(ROOMS_FILE).catch(() => null))
  if (snapshot !== null) roomsCache.set(backend, { snapshot, log: null, lines: 0, palace, rebuilt: false })
}

function snapshotText(state: RoomsState): string {
  return `${JSON.stringify({ capacity: ROOM_CAPACITY, rooms: state.rooms }, null, 2)}\n`
}

/**
 * The rooms as one snapshot text (rooms.json's format), for an export bundle; null when the store
 * has neither snapshot nor log. Reads only.
 */
export async function roomsSnapshot(backend: MemoryBackend): Promise<string | null> {
  if ((await backend.stat(ROOMS_FILE)) === null && (await backend.stat(ROOMS_LOG_FILE)) === null) return null
  return snapshotText((await storedRooms(backend)).palace)
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
  /** The marks a new slot raised (to record with `recordRooms`); empty when nothing changed. */
  changes: Room[]
}

/**
 * Where a new memory stands: where the latest memory of its slot (same type, any status) stood,
 * or the next free slot of its kind in this clone's rooms. Inside the write's transaction, under
 * the store lock.
 */
export async function placeNew(backend: MemoryBackend, index: IndexLookup, type: MemoryType, slotMatesOf: () => IndexEntry[]): Promise<Placement> {
  if (roomKindOf(type) === null) return { location: null, changes: [] }
  const inherited = slotMatesOf()
    .filter((e) => e.location !== undefined)
    .sort((a, b) => b.time.localeCompare(a.time) || b.id.localeCompare(a.id))[0]
  if (inherited?.location !== undefined) return { location: inherited.location, changes: [] }
  return nextFreeSlot(backend, index, type)
}

/** The next free slot of a type's kind in this clone's rooms, and the marks giving it raised (to record with `recordRooms`). Under the store lock. */
export async function nextFreeSlot(backend: MemoryBackend, index: IndexLookup, type: MemoryType): Promise<Placement> {
  const base = roomKindOf(type)
  if (base === null) return { location: null, changes: [] }
  const wing = await wingOf(backend, index)
  const kind = wing === null ? base : `${base}-${wing}`
  const { palace } = await storedRooms(backend)
  const raised = raiseKind(palace, kind, index)
  // Raised rooms come in number order, from the kind's last known room on: the last is the kind's last now.
  const { location, change } = allocate(raised.length > 0 ? lastOf(raised) : palace.last(kind), kind)
  return { location, changes: [...raised, change] }
}

function lastOf(raised: Room[]): { room: Room; number: number } {
  const room = raised[raised.length - 1] as Room
  return { room, number: numberIn(room, room.kind) }
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
  const signature = signatureOf(await backend.stat(WING_FILE).catch(() => null))
  if (signature !== null) wingCache.set(backend, { signature, wing })
}

/** The wing file as this process last read it, per backend, by its size and mtime: a write stats it instead of reading it. */
const wingCache = new WeakMap<MemoryBackend, { signature: string; wing: string | null | undefined }>()

/** The wing the file records now (see recordedWing), read again only when its size or mtime changed. */
async function currentWing(backend: MemoryBackend): Promise<string | null | undefined> {
  const signature = signatureOf(await backend.stat(WING_FILE).catch(() => null))
  if (signature === null) return undefined
  const known = wingCache.get(backend)
  if (known?.signature === signature) return known.wing
  const wing = recordedWing(await backend.readFile(WING_FILE).catch(() => null))
  wingCache.set(backend, { signature, wing })
  return wing
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
  const known = await currentWing(backend)
  if (known !== undefined) return known
  const alone = (await backend.stat('.git')) === null && (await loadRooms(backend, index.values())).rooms.length === 0
  const wing = alone ? null : newWing()
  await saveWing(backend, wing)
  return wing
}

/** Gives this clone a wing of its own, if it gives plain slots or has none yet: sync does, before it shares anything. Returns it. */
export async function claimWing(backend: MemoryBackend): Promise<string> {
  const known = await currentWing(backend)
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

/** What this process last read or wrote of the rooms, per backend, by the size and mtime of both files. */
interface Stored {
  snapshot: string | null
  log: string | null
  /** Lines in the log. */
  lines: number
  palace: Palace
  /** No snapshot could be read: the rooms came from the ledger, and the next record saves a snapshot. */
  rebuilt: boolean
}

const roomsCache = new WeakMap<MemoryBackend, Stored>()

const signatureOf = (st: { size: number; mtimeMs: number } | null) => (st === null ? null : `${st.size}:${st.mtimeMs}`)

/**
 * The rooms: the snapshot with the log replayed over it, read again only when either file's size
 * or mtime changed (another process wrote). Without a readable snapshot, the rooms the ledger's
 * write events opened, with the log replayed too. Callers read the palace; only recordRooms
 * changes it. Reads only.
 */
async function storedRooms(backend: MemoryBackend): Promise<Stored> {
  // The log before the snapshot: a compaction in between leaves an old log over a new snapshot
  // (replayed harmlessly), never a new log over an old snapshot that lacks what it folded.
  const log = signatureOf(await backend.stat(ROOMS_LOG_FILE).catch(() => null))
  const snapshot = signatureOf(await backend.stat(ROOMS_FILE).catch(() => null))
  const known = roomsCache.get(backend)
  if (snapshot !== null && known?.snapshot === snapshot && known.log === log) return known
  const logText = log === null ? null : await backend.readFile(ROOMS_LOG_FILE).catch(() => null)
  const parsed = parseState(snapshot === null ? null : await backend.readFile(ROOMS_FILE).catch(() => null))
  const palace = Palace.of(parsed ?? reconcile({ rooms: [] }, ledgerLocations(await backend.readLedger())))
  const stored: Stored = { snapshot, log, lines: replayLog(palace, logText), palace, rebuilt: parsed === null }
  if (!stored.rebuilt) roomsCache.set(backend, stored)
  return stored
}

/**
 * The rooms of one kind whose marks the files raise (a pulled or hand-edited location the state
 * has not seen), in number order: from the kind's last known room on, while a room has members.
 * A handful of indexed lookups, so a write costs the same in a store of any size. Pure.
 */
function raiseKind(palace: Palace, kind: string, index: Pick<IndexLookup, 'inRoom'>): Room[] {
  const number = palace.last(kind)?.number ?? 1
  const raised: Room[] = []
  for (let n = number; ; n++) {
    const room = roomName(kind, n)
    const members = index.inRoom(room)
    if (members.length === 0 && n > number) break
    // A member beyond the known high-water mark, or in a room the state does not list yet.
    const known = palace.get(room)?.used ?? 0
    let used = known
    for (const e of members) used = Math.max(used, parseLocation(e.location)?.slot ?? 0)
    if (used > known) raised.push({ room, kind, used })
  }
  return raised
}
