/**
 * Doubt before `supported` (issue 27): rules cannot read paraphrase, so a support counts only when
 * nothing at least as new could be saying otherwise. A memory casts doubt on a support when it is
 * about an overlapping subject (the same subject words, one subject inside the other, or no
 * subject read but most of the claim's words) and states another value of the same kind, a
 * negation, or a change ("no longer", "now", "moved to", 不再, 改成, 现在...); or when its subject is
 * worded wholly otherwise ("the API" / "our backend service") but it says most of what the claim
 * says beyond its subject and gives another value of that kind; so do sibling subjects ("staging
 * database port" / "production database port"), which may be one thing worded twice; and so does
 * any memory as new giving another value of a typed kind the claim's value has (a duration, a
 * size, a known kind of thing such as a database).
 * Also what never supports: a memory that negates the claim's value, and one that announces a
 * change yet to come ("starting next week", 下周起). Pure.
 */

import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import { subjectTerms } from '../../language/subject-terms.js'
import type { IndexEntry } from '../../types.js'
import { changeCues, kindMentions, kindOfValue } from './claim-extract.js'
import { otherValue, type Frame } from './claim-frame.js'
import { atomsWithin, unitClass, valueAtoms } from './claim-value.js'

/** A negation word: a value said after one is taken back, not stated. */
const NEGATION = /\b(?:not|no|never|none|without|no longer|anymore)\b|n't\b|不再|已经不|不|没|未|无/iu

/** A change that takes effect later: until then the old value holds, and the new one is not yet true. */
const FUTURE = /\b(?:starting|from|as of|beginning|effective|come)\s+(?:next|tomorrow|the\s+(?:first|start|end)\s+of\s+next)\b|\bnext\s+(?:week|month|year|monday|tuesday|wednesday|thursday|friday|sprint|quarter)\s*(?:on|onwards?)?\s*,|\bwill\s+(?:be|move|switch|change|become)\b|(?:下周|下个?月|下星期|明天|明年|下季度|下周[一二三四五六日天])(?:一)?起|(?:下周|下个?月|明年)(?:开始|以后)|将(?:改|换|迁|调整)/iu

/** The text announces a change yet to come. */
export function futureChange(text: string): boolean {
  return FUTURE.test(text.normalize('NFKC'))
}

/** The text names the value only after a negation ("no longer drinks coffee", "不再用禅道"). */
export function negatesValue(text: string, value: string): boolean {
  const lower = text.normalize('NFKC').toLowerCase()
  const first = tokenize(value)
    .filter(isStrongTerm)
    .map((w) => lower.indexOf(w))
    .filter((i) => i >= 0)
  if (first.length === 0) return false
  const neg = NEGATION.exec(lower)
  return neg !== null && neg.index < Math.min(...first)
}

/** Two subjects overlap when the words of one are all among the other's ("API" / "admin API"). */
export function subjectsOverlap(a: string, b: string): boolean {
  const x = subjectTerms(a)
  const y = new Set(subjectTerms(b))
  const shared = x.filter((t) => y.has(t)).length
  return shared > 0 && (shared === x.length || shared === y.size)
}

export interface DoubtClaim {
  /** The claim's subject, when one was read. */
  subject: string | null
  value: string
  /** The claim's own words beyond its value: what a differently worded subject must still say. */
  said: Set<string>
  /** The claim's value as a frame: what another value of its kind is measured against. */
  frame: Pick<Frame, 'atoms' | 'names'>
}

export interface DoubtReader {
  terms(e: IndexEntry): Set<string>
  subjectsOf(e: IndexEntry): string[]
}

/** The claim's words beyond its value. */
export function saidTerms(claim: string, value: string): Set<string> {
  const v = new Set(tokenize(value))
  return new Set(tokenize(claim).filter((w) => isStrongTerm(w) && !v.has(w) && !/\d/u.test(w)))
}

/** Why `e` (not stating the claim) casts doubt on `support`, or null when it does not. */
export function doubtOf(e: IndexEntry, support: IndexEntry, claim: DoubtClaim, reader: DoubtReader): string | null {
  if (e.time < support.time) return null
  const text = `${e.title}\n${e.summary}`
  const subjects = claim.subject === null ? [] : reader.subjectsOf(e)
  const t = reader.terms(e)
  const shared = [...claim.said].filter((w) => t.has(w)).length
  const saysMost = claim.said.size > 0 && shared >= Math.min(2, claim.said.size) && shared / claim.said.size >= 0.5
  const other = otherValue(claim.frame, text)
  if (subjects.some((s) => subjectsOverlap(claim.subject as string, s)) || (subjects.length === 0 && saysMost)) {
    if (other) return 'gives the subject another value'
    if (saysMost && futureChange(text)) return 'announces a change'
    if (saysMost && changeCues(e.summary).length > 0) return 'says it changed'
    if (saysMost && NEGATION.test(text.toLowerCase())) return 'negates it'
    return null
  }
  // Sibling subjects ("staging database port" / "production database port") may be two things or
  // one worded twice ("API port" / "backend service port"): the rules cannot tell, so another
  // value of the kind said of most of the claim's words is doubt, not support.
  if (saysMost && other) return 'says the same of a subject worded otherwise, with another value'
  return typedOther(claim.value, text) ? 'gives another value of the same measured or known kind' : null
}

/**
 * The text gives another value of a typed kind the claim's value has: a number of its unit class
 * ("30 minutes" beside "10 minutes") or another thing of its known kind ("Postgres" beside
 * "MySQL"). Plain numbers and names are not typed: only subject or wording links those.
 */
function typedOther(value: string, text: string): boolean {
  const mine = valueAtoms(value).numbers.filter((n) => unitClass(n) !== null)
  const classes = new Set(mine.map(unitClass))
  if (valueAtoms(text).numbers.some((n) => classes.has(unitClass(n)) && !atomsWithin({ numbers: [n], words: [] }, { numbers: mine, words: [] }))) return true
  const kind = kindOfValue(value)
  if (kind === null) return false
  const named = new Set(kindMentions(value, kind))
  return kindMentions(text, kind).some((k) => !named.has(k))
}
