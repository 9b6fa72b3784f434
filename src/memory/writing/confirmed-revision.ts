/**
 * A revision the caller confirms: `supersedes: [id]` names the memories a write replaces (each
 * must exist and be current), and `claim: {subject, attribute, value}` says what the write states
 * when the caller knows better than the rules (its subject and attribute are then the key). When the replaced memory's subject is worded
 * differently from the new one's, the two wordings are recorded as an alias group in
 * `<root>/aliases.json`, so the next revision between them is found by the subject rule
 * (revision-candidates.ts). Pure except for the transaction calls; never decides a revision on
 * its own.
 */

import { invalidInput, MemoryError } from '../../errors.js'
import { collapseWhitespace, normalizeSlot } from '../../text.js'
import type { IndexEntry } from '../../types.js'
import type { DerivedClaim } from '../truth/claim-extract.js'
import { supersedeEntries } from './slots.js'
import type { Txn } from './txn.js'

/** What a caller says a memory states. */
export interface CallerClaim {
  subject: string
  attribute: string
  value: string
}

/** The claim a caller gave, checked, as the rules would have read it; its subject ("gateway port": subject and attribute) is the write's key. Throws INVALID_INPUT naming the field. */
export function callerClaim(claim: CallerClaim | undefined): DerivedClaim | null {
  if (claim === undefined) return null
  const field = (name: keyof CallerClaim): string => {
    const s = collapseWhitespace(claim[name] ?? '')
    if (s === '') throw invalidInput(`claim.${name}`, 'a non-empty string')
    return s
  }
  const subject = field('subject')
  const attribute = field('attribute')
  const value = field('value')
  return { subject: `${subject} ${attribute}`, value, form: 'colon', negated: false, cues: [], retired: [] }
}

/** Statuses a memory named in `supersedes` may have. */
const REPLACEABLE = new Set(['active', 'conflict'])

/** The memories `supersedes` names, each checked to exist and be current. Throws INVALID_INPUT naming the id. */
export function namedRevisions(txn: Txn, ids: readonly string[] | undefined): IndexEntry[] {
  const out: IndexEntry[] = []
  for (const [i, raw] of (ids ?? []).entries()) {
    const id = raw.trim()
    const e = txn.index.get(id)
    if (e === undefined || e.type === 'raw') throw new MemoryError('INVALID_INPUT', `supersedes[${i}]: no memory has the id "${id}" (take ids from may_revise or a search)`, `supersedes[${i}]`)
    if (!REPLACEABLE.has(e.status)) throw new MemoryError('INVALID_INPUT', `supersedes[${i}]: memory ${id} is ${e.status}, not current; only an active or conflicting memory can be replaced`, `supersedes[${i}]`)
    if (!out.includes(e)) out.push(e)
  }
  return out
}

/**
 * The two wordings of a subject that differ, once the words they share at both ends are taken
 * off ("API port" / "backend service port" -> "API" / "backend service"); null when they read
 * the same. Words for text with spaces, characters otherwise. Pure.
 */
export function subjectAlias(older: string, newer: string): [string, string] | null {
  const spaced = /\s/u.test(older) || /\s/u.test(newer)
  const split = (s: string) => (spaced ? s.split(/\s+/u) : Array.from(s)).filter((t) => normalizeSlot(t) !== '')
  const a = split(older)
  const b = split(newer)
  const same = (x: string | undefined, y: string | undefined) => x !== undefined && y !== undefined && normalizeSlot(x) === normalizeSlot(y)
  while (a.length > 1 && b.length > 1 && same(a[0], b[0])) a.shift(), b.shift()
  while (a.length > 1 && b.length > 1 && same(a[a.length - 1], b[b.length - 1])) a.pop(), b.pop()
  const join = (t: string[]) => t.join(spaced ? ' ' : '')
  return normalizeSlot(join(a)) === normalizeSlot(join(b)) ? null : [join(a), join(b)]
}

/** aliases.json with the pair added (to a group that holds either wording, else a new group); null when unchanged or when the file is not an object of groups. */
export function withAlias(text: string | null, pair: [string, string]): string | null {
  let groups: Record<string, unknown>
  try {
    const parsed: unknown = text === null ? {} : JSON.parse(text)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null
    groups = parsed as Record<string, unknown>
  } catch {
    // A broken file is a person's to fix: never written over.
    return null
  }
  const norm = pair.map(normalizeSlot)
  const holds = (members: unknown): members is string[] => Array.isArray(members) && members.some((m) => typeof m === 'string' && norm.includes(normalizeSlot(m)))
  const name = Object.keys(groups).find((k) => holds(groups[k])) ?? `subject: ${pair[0]}`
  const members = (Array.isArray(groups[name]) ? groups[name] : []) as unknown[]
  const missing = pair.filter((p) => !members.some((m) => typeof m === 'string' && normalizeSlot(m) === normalizeSlot(p)))
  if (missing.length === 0) return null
  return `${JSON.stringify({ ...groups, [name]: [...members, ...missing] }, null, 2)}\n`
}

/**
 * Supersedes the named memories by `winner` (one `supersede` event) and records the alias between differently worded subjects (an `alias` event). The ids replaced.
 */
export async function confirmRevision(txn: Txn, winner: IndexEntry, named: readonly IndexEntry[]): Promise<{ winner: IndexEntry; superseded: string[] }> {
  const losers = named.filter((n) => n.id !== winner.id)
  const result = await supersedeEntries(txn, winner, losers)
  for (const old of losers) {
    const pair = old.key !== null && winner.key !== null ? subjectAlias(old.key, winner.key) : null
    if (pair === null) continue
    const next = withAlias(await txn.backend.readFile('aliases.json'), pair)
    if (next === null) continue
    await txn.backend.writeFileAtomic('aliases.json', next)
    txn.log({ event: 'alias', id: winner.id, ids: [old.id], terms: pair })
  }
  return result
}
