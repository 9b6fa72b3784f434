/**
 * The palace's part of a search (seed 002's corridor): after the ranking has chosen its hits, the
 * memories linked to them one hop away (front-matter `links` and `[[id]]` both ways) are added
 * below them, labelled `linked` with the hit they hang off; the slots beside the first hits are
 * named as cues (`nearby`: same room, the slot before and after), and the rooms worth a
 * room-filtered search next (`rooms`). Pure over the entries a search saw (live or as of a time);
 * it never ranks, reads no files and writes nothing.
 *
 * Links that point at a hit, and who stands beside it, are found through a lookup (who links to
 * whom, who stands where), built in one pass over the entries and kept in step with a live view by
 * its change log, so a later search pays only for what changed. The pass costs about 80 ms per
 * 10,000 memories: a store of at most `eagerMax` builds it on its first search; a larger one
 * builds it after an answer from its second search on (a process that searches once never pays
 * for it), and until then its answers carry the hits' own links only and say so (`partial`).
 */

import { isSearchable } from '../../retrieve/search-index.js'
import { filterOf, toHit, type EntrySource, type SearchHit, type SearchRequest } from '../../retrieve/search.js'
import type { IndexView } from '../../store/index-view.js'
import { roomOf } from '../../store/place-fields.js'
import type { IndexEntry } from '../../types.js'
import { parseLocation, roomName } from './rooms.js'

export const PALACE_SEARCH = Object.freeze({
  /** Linked memories added below the hits, at most. */
  linkedMax: 5,
  /** A linked memory's score: this share of the score of the hit it hangs off. */
  linkedShare: 0.5,
  /** The first hits whose slot neighbours are named. */
  nearbyFrom: 5,
  /** Slot neighbours named, at most. */
  nearbyMax: 10,
  /** Rooms named, at most. */
  roomsMax: 5,
  /** Up to this many memories, all parsed, the lookup is built on the search's path. */
  eagerMax: 20_000,
})

export type LinkedHit = SearchHit & { linked_from: string }

export interface SlotCue {
  id: string
  title: string
  location: string
  /** The hit whose slot it stands next to. */
  beside: string
}

export interface PalaceAddition {
  /** Memories linked to a hit, not hits themselves, in the order of the hits they hang off. */
  linked: LinkedHit[]
  nearby: SlotCue[]
  rooms: string[]
  /** The lookup was not built yet: only the hits' own links were followed, and no slot was named. */
  partial: boolean
}

/** Who links to whom and who stands where, over one set of entries. */
interface PalaceLookup {
  linkedFrom: Map<string, Set<string>>
  atLocation: Map<string, Set<string>>
  /** Memories per room. */
  rooms: Map<string, number>
  /** What each entry added, to take it back when it changes. */
  added: Map<string, { links: readonly string[]; location: string | undefined }>
}

function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  const ids = map.get(key)
  if (ids === undefined) map.set(key, new Set([id]))
  else ids.add(id)
}

function removeFrom(map: Map<string, Set<string>>, key: string, id: string): void {
  const ids = map.get(key)
  ids?.delete(id)
  if (ids?.size === 0) map.delete(key)
}

function file(lookup: PalaceLookup, e: IndexEntry): void {
  const links = e.links ?? []
  if (links.length === 0 && e.location === undefined) return
  for (const to of links) addTo(lookup.linkedFrom, to, e.id)
  if (e.location !== undefined) {
    addTo(lookup.atLocation, e.location, e.id)
    const room = roomOf(e.location)
    if (room !== null) lookup.rooms.set(room, (lookup.rooms.get(room) ?? 0) + 1)
  }
  lookup.added.set(e.id, { links, location: e.location })
}

function unfile(lookup: PalaceLookup, id: string): void {
  const was = lookup.added.get(id)
  if (was === undefined) return
  for (const to of was.links) removeFrom(lookup.linkedFrom, to, id)
  if (was.location !== undefined) {
    removeFrom(lookup.atLocation, was.location, id)
    const room = roomOf(was.location)
    if (room !== null) {
      const n = (lookup.rooms.get(room) ?? 1) - 1
      if (n > 0) lookup.rooms.set(room, n)
      else lookup.rooms.delete(room)
    }
  }
  lookup.added.delete(id)
}

type LiveView = Pick<IndexView, 'size' | 'generation' | 'currentVersion' | 'changedSince' | 'ids' | 'peek' | 'hasUnreadRows'>

/** One pass over the entries; a live view's saved rows are peeked, not read into it, so a searching process stays as light as it was. */
function built(source: EntrySource): PalaceLookup {
  const lookup: PalaceLookup = { linkedFrom: new Map(), atLocation: new Map(), rooms: new Map(), added: new Map() }
  const each = (e: IndexEntry | undefined) => {
    if (e !== undefined && e.type !== 'raw') file(lookup, e)
  }
  if (isLiveView(source)) for (const id of source.ids()) each(source.peek(id))
  else for (const e of source.values()) each(e)
  return lookup
}

function isLiveView(source: EntrySource): source is EntrySource & LiveView {
  return typeof (source as Partial<LiveView>).changedSince === 'function'
}

const lookups = new WeakMap<EntrySource, { generation: number; version: number; lookup: PalaceLookup }>()
/** Searches with hits per large live view whose lookup is not built: the second one builds it after its answer. */
const waiting = new WeakMap<EntrySource, number>()

/**
 * The lookup of these entries, brought up to date by a live view's change log; null when it is not
 * built and the store is too large to build it on the search's path (`buildLater` then says whether
 * to build it after this answer).
 */
function readyLookup(source: EntrySource): { lookup: PalaceLookup | null; buildLater: boolean } {
  if (!isLiveView(source)) return { lookup: built(source), buildLater: false }
  const known = lookups.get(source)
  // A large store, or one read from a snapshot (its entries parsed only when asked for), builds it
  // after the second search's answer: a one-shot search never pays for a pass over every entry.
  if (known === undefined && (source.size > PALACE_SEARCH.eagerMax || source.hasUnreadRows())) {
    const searches = (waiting.get(source) ?? 0) + 1
    waiting.set(source, searches)
    return { lookup: null, buildLater: searches >= 2 }
  }
  return { lookup: palaceLookup(source), buildLater: false }
}

/** Builds the lookup of a live view (after an answer), so later searches have it. */
export function buildPalaceLookup(source: EntrySource): void {
  if (isLiveView(source) && !lookups.has(source)) palaceLookup(source)
}

/** The lookup of these entries: built once, then (a live view) brought up to date by its change log. */
function palaceLookup(source: EntrySource & LiveView): PalaceLookup {
  const known = lookups.get(source)
  const changed = known === undefined ? null : source.changedSince(known.generation, known.version)
  let lookup: PalaceLookup
  if (known === undefined || changed === null) lookup = built(source)
  else {
    lookup = known.lookup
    for (const id of changed) {
      unfile(lookup, id)
      const e = source.peek(id)
      if (e !== undefined && e.type !== 'raw') file(lookup, e)
    }
  }
  lookups.set(source, { generation: source.generation, version: source.currentVersion, lookup })
  return lookup
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The memories one hop from the hits along links (theirs first, then those linking to them), passing the request's filters. */
function linkedTo(source: EntrySource, lookup: PalaceLookup | null, req: SearchRequest, hits: readonly SearchHit[]): LinkedHit[] {
  const accept = filterOf(req)
  const taken = new Set(hits.map((h) => h.id))
  const out: LinkedHit[] = []
  for (const hit of hits) {
    const from = source.get(hit.id)
    const targets = [...(from?.links ?? []), ...[...(lookup?.linkedFrom.get(hit.id) ?? [])].sort(byId)]
    for (const id of targets) {
      if (out.length >= PALACE_SEARCH.linkedMax) return out
      if (taken.has(id)) continue
      const e = source.get(id)
      if (e === undefined || !accept(e)) continue
      taken.add(id)
      out.push({ ...toHit(e, hit.score * PALACE_SEARCH.linkedShare, 'linked'), linked_from: hit.id })
    }
  }
  return out
}

/** The current memories in the slots before and after each of the first hits, not hits themselves. */
function slotsBeside(source: EntrySource, lookup: PalaceLookup, hits: readonly SearchHit[], shown: ReadonlySet<string>): SlotCue[] {
  const out: SlotCue[] = []
  const named = new Set(shown)
  for (const hit of hits.slice(0, PALACE_SEARCH.nearbyFrom)) {
    const at = parseLocation(hit.location)
    if (at === null) continue
    for (const slot of [at.slot - 1, at.slot + 1]) {
      if (slot < 1) continue
      const location = `${at.room}#${slot}`
      for (const id of [...(lookup.atLocation.get(location) ?? [])].sort(byId)) {
        const e = source.get(id)
        if (e === undefined || !isSearchable(e) || named.has(id)) continue
        if (out.length >= PALACE_SEARCH.nearbyMax) return out
        named.add(id)
        out.push({ id, title: e.title, location, beside: hit.id })
      }
    }
  }
  return out
}

/**
 * Rooms worth searching next: with a room filter, the rooms beside it (the kind's room numbered
 * one before and one after, where they hold memories); without, the rooms the hits stand in,
 * most hits first.
 */
function roomsToSearch(lookup: PalaceLookup, req: SearchRequest, hits: readonly SearchHit[]): string[] {
  if (req.room !== undefined) {
    const at = parseLocation(`${req.room}#1`)
    if (at === null) return []
    return [at.number - 1, at.number + 1].filter((n) => n >= 1).map((n) => roomName(at.kind, n)).filter((r) => r !== req.room && lookup.rooms.has(r))
  }
  const counts = new Map<string, number>()
  for (const h of hits) {
    const room = roomOf(h.location)
    if (room !== null) counts.set(room, (counts.get(room) ?? 0) + 1)
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || byId(a[0], b[0])).slice(0, PALACE_SEARCH.roomsMax).map(([r]) => r)
}

/**
 * What the palace adds to a search's hits (see the module comment), and whether the caller should
 * build the lookup after its answer (`buildPalaceLookup`). Pure over `source` but for the lookup.
 */
export function palaceAddition(source: EntrySource, req: SearchRequest, hits: readonly SearchHit[]): PalaceAddition & { buildLater: boolean } {
  if (hits.length === 0) return { linked: [], nearby: [], rooms: [], partial: false, buildLater: false }
  const { lookup, buildLater } = readyLookup(source)
  const linked = linkedTo(source, lookup, req, hits)
  if (lookup === null) return { linked, nearby: [], rooms: [], partial: true, buildLater }
  const shown = new Set([...hits.map((h) => h.id), ...linked.map((h) => h.id)])
  return { linked, nearby: slotsBeside(source, lookup, hits, shown), rooms: roomsToSearch(lookup, req, hits), partial: false, buildLater }
}

/** The guidance sentences for an addition; empty when it adds nothing. */
export function palaceGuidance(addition: PalaceAddition, req: SearchRequest): string {
  const parts: string[] = []
  if (addition.linked.length > 0)
    parts.push(`${addition.linked.length} linked memor${addition.linked.length === 1 ? 'y follows' : 'ies follow'} the hits (reason "linked", linked_from names the hit): related, not matches.`)
  if (addition.nearby.length > 0) parts.push(`Beside them in the palace: ${addition.nearby.map((c) => `${c.location} ${c.id}`).join(', ')} (nearby).`)
  if (addition.rooms.length > 0)
    parts.push(`${req.room !== undefined ? 'Rooms next to this one' : 'Rooms the hits stand in'}: ${addition.rooms.join(', ')}; search one with room.`)
  if (addition.partial) parts.push('Links into the hits and the slots beside them are not looked up yet in a store this large: they come with the next searches.')
  return parts.join(' ')
}
