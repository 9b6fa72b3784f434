/**
 * The place fields of a memory file: its location in the palace (`location: room#slot`, and
 * `moved_from`, where it stood before sync moved it off a slot two clones had both given) and its
 * links to other memories (front-matter `links` plus `[[id]]` written in the body), and for a
 * memory consolidation made, the memories it was made from (`derived_from`). Owns how they
 * are read from a file (for `entryFromFile`, the single derivation) and from an index line. An
 * entry carries a field only when the file states it, so an ordinary entry stays as it was. Pure.
 */

import { collapseWhitespace } from '../text.js'
import type { IndexEntry } from '../types.js'

export type PlaceFields = Pick<IndexEntry, 'location' | 'links' | 'moved_from' | 'derived_from'>

/** `room#slot`: a room name (lower-case letters, digits, dashes) and a slot counted from 1. */
export const LOCATION_PATTERN = /^([a-z][a-z0-9-]{0,63})#([1-9][0-9]{0,5})$/

/** The room of a location (`topics-2` of `topics-2#4`), or null for none or a malformed one. */
export function roomOf(location: string | undefined): string | null {
  const m = location === undefined ? null : LOCATION_PATTERN.exec(location)
  return m === null ? null : (m[1] as string)
}

/**
 * Whether a memory standing at `location` is in `room`: the same room, or one grown from it (its
 * overflow rooms `topics-2`, `topics-3`, and a clone's wing `topics-bcdfg` with its own
 * overflow), so a kind's name covers the whole kind and an overflow room's name that room.
 */
export function inRoomOf(room: string, location: string | undefined): boolean {
  const at = roomOf(location)
  return at !== null && (at === room || at.startsWith(`${room}-`))
}

/** A title as placards compare it: spaces collapsed, width and case folded. */
export function placardText(title: string): string {
  return collapseWhitespace(title).normalize('NFKC').toLowerCase()
}

/** At most this many links per memory are kept in the summary layer. */
export const MAX_LINKS = 50
/** At most this many sources of a consolidated memory (a session's summary names its episodes). */
export const MAX_DERIVED_FROM = 1000

const ID = /^[^\s/\\\0[\]|#]{1,200}$/
/** `[[id]]`, or `[[id|label]]` as wiki-style editors write it. */
const BODY_LINK = /\[\[([^\]|\n]{1,200})(?:\|[^\]\n]*)?\]\]/g

function location(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const s = value.trim()
  return LOCATION_PATTERN.test(s) ? s : null
}

function linkIds(values: Iterable<unknown>, max = MAX_LINKS): string[] {
  const out = new Set<string>()
  for (const v of values) {
    const s = typeof v === 'string' ? v.trim() : null
    if (s === null || !ID.test(s)) continue
    out.add(s)
    if (out.size === max) break
  }
  return [...out]
}

/** The ids written as `[[id]]` in a body, in order, each once. */
export function bodyLinks(body: string): string[] {
  return linkIds([...body.matchAll(BODY_LINK)].map((m) => m[1]))
}

/** Well-formed locations of a list (or one string), each once. */
function locations(value: unknown): string[] {
  const out: string[] = []
  for (const v of Array.isArray(value) ? value : [value]) {
    const loc = location(v)
    if (loc !== null && !out.includes(loc)) out.push(loc)
  }
  return out
}

function present(loc: string | null, links: string[], movedFrom: string[], derivedFrom: string[]): PlaceFields {
  return {
    ...(loc !== null ? { location: loc } : {}),
    ...(links.length > 0 ? { links } : {}),
    ...(movedFrom.length > 0 ? { moved_from: movedFrom } : {}),
    ...(derivedFrom.length > 0 ? { derived_from: derivedFrom } : {}),
  }
}

const derivedFrom = (value: unknown): string[] => (Array.isArray(value) ? linkIds(value, MAX_DERIVED_FROM) : [])

/** The place fields a file states: front-matter `location`, `moved_from` and `links`, and `[[id]]` in its body. */
export function placeFieldsFromFile(data: Record<string, unknown>, body: string): PlaceFields {
  const stated = Array.isArray(data.links) ? data.links : typeof data.links === 'string' ? data.links.split(',') : []
  return present(location(data.location), linkIds([...stated, ...bodyLinks(body)]), locations(data.moved_from), derivedFrom(data.derived_from))
}

/** The place fields of an index line (written by this program, but read defensively). */
export function placeFieldsFromIndexLine(r: Record<string, unknown>): PlaceFields {
  return present(location(r.location), Array.isArray(r.links) ? linkIds(r.links) : [], locations(r.moved_from), derivedFrom(r.derived_from))
}
