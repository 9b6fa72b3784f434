/**
 * Search hits with the current value first (issue 27). A revision the write rules did not catch
 * leaves both memories active, and the stale one may match the query better. So among the first
 * hits, of two facts (topics) that stand in the relation verify doubts a support by (doubt.ts
 * doubtOf: the newer may be saying otherwise about the older's subject, another value of the same
 * kind, a negation, a change cue; a subject not within or around the older's only beside a change
 * cue) or where the older names the newer as its successor (superseded_by), the newer comes
 * first, taking the older's place; a change yet to come at the time searched (pendingChange) comes instead right
 * after the value it changes, which still holds until its day. Nothing else moves, no hit is
 * added or dropped, and the scores stay the ones ranked by. Pure; it costs at most
 * ORDER_WINDOW^2 / 2 pair checks per search, whatever the store's size.
 */

import type { IndexEntry } from '../../types.js'
import { entryClaim } from '../writing/revise.js'
import { frameOf } from './claim-frame.js'
import { changeCues } from './claim-extract.js'
import { doubtOf, pendingChange, relationTo, unstructuredClaim, type DoubtClaim, type SubjectRelation } from './doubt.js'
import { memorySubjects } from './verify.js'

/** How many of the first hits are put in order: the ones a reader looks at. */
export const ORDER_WINDOW = 10

const reader = { subjectsOf: memorySubjects }

/** Subjects close enough that another value of the same kind is read as a revision without a change cue. */
const CLOSE: ReadonlySet<SubjectRelation> = new Set(['same', 'overlap'])

/** A memory's own claim as the doubt reads a claim. */
function claimOf(e: IndexEntry): DoubtClaim {
  const c = entryClaim(e)
  return c?.subject != null ? { text: e.summary, subject: c.subject, value: c.value, frame: frameOf(e.summary, c.subject, c.value) } : unstructuredClaim(e.summary)
}

/** The newer memory revises the older, or may: its named successor, or a doubt on it by doubt.ts's rules. */
function revises(newer: IndexEntry, older: IndexEntry, claims: Map<string, DoubtClaim>): boolean {
  if (older.superseded_by === newer.id) return true
  // An episode tells what happened at its time: a later one does not make it stale. Only facts (topics) revise.
  if (newer.time <= older.time || newer.type !== 'topic' || older.type !== 'topic' || newer.guard !== undefined || older.guard !== undefined) return false
  let claim = claims.get(older.id)
  if (claim === undefined) {
    claim = claimOf(older)
    claims.set(older.id, claim)
  }
  if (doubtOf(newer, older, claim, reader) === null) return false
  // Doubt is cheap for verify (an honest unknown); an order is not: a subject not within or around
  // the older's (like-named: "staging API port" / "production API port", 小王 / 小李, or worded
  // otherwise) counts only beside a change cue, so two look-alike facts keep their rank.
  return CLOSE.has(relationTo(newer, claim, reader)) || changeCues(newer.summary).length > 0
}

interface Ordered {
  id: string
  /** Hits sharing identifiers with the query rank first (search.ts); order is kept within each band. */
  literalMatch?: number
}

/**
 * The hits in reading order: within the first ORDER_WINDOW, each hit is preceded by those that
 * must come before it (a revision before what it revises, a value still valid before a change yet
 * to come at `nowMs`), themselves in rank order; the rest keep their rank.
 */
export function currentFirst<H extends Ordered>(hits: readonly H[], entry: (id: string) => IndexEntry | undefined, nowMs: number): H[] {
  const head = hits.slice(0, ORDER_WINDOW)
  const entries = head.map((h) => entry(h.id))
  const claims = new Map<string, DoubtClaim>()
  // before[i]: the hits that must come before hit i, in rank order.
  const before: number[][] = head.map(() => [])
  const pending = entries.map((e) => e !== undefined && pendingChange(e, nowMs))
  for (let i = 0; i < head.length; i++) {
    for (let j = 0; j < head.length; j++) {
      const a = entries[i]
      const b = entries[j]
      if (i === j || a === undefined || b === undefined || (head[i]?.literalMatch ?? 0) !== (head[j]?.literalMatch ?? 0) || !revises(b, a, claims)) continue
      // b revises a: b first, unless b is yet to come.
      if (pending[j] === true) (before[j] as number[]).push(i)
      else (before[i] as number[]).push(j)
    }
  }
  for (const list of before) list.sort((x, y) => x - y)
  const out: H[] = []
  const placed = new Set<number>()
  const visiting = new Set<number>()
  const place = (i: number): void => {
    if (placed.has(i) || visiting.has(i)) return
    visiting.add(i)
    for (const p of before[i] as number[]) place(p)
    visiting.delete(i)
    placed.add(i)
    out.push(head[i] as H)
  }
  for (let i = 0; i < head.length; i++) place(i)
  return [...out, ...hits.slice(ORDER_WINDOW)]
}
