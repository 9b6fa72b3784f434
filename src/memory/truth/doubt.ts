/**
 * Doubt before `supported`, on rules alone (issue 27). Rules cannot read paraphrase, so a support
 * counts only when no current memory at least as new may be saying otherwise about its subject.
 * The doubt is precise, so that notes about other attributes of one service ("billing service
 * currency -> EUR" beside "billing service database -> postgres") leave a support alone:
 *
 *   overlapping subject  (the words of one subject are all among the other's: "VPN client" and
 *                        "company VPN client"): another value, a negation or a change cue;
 *   sibling subject      (half the words shared, neither inside the other: "回调最多重试" and
 *                        "回调重试次数"): another value of the same typed kind, or a change cue
 *                        with another value;
 *   subject worded otherwise ("the API" and "our backend service", or the other script): another
 *                        value of the same typed kind (a port vs a port, a duration vs a duration,
 *                        a database vs a database) said with a change cue, with the same attribute
 *                        word, or in the other script.
 *
 * A typed kind is a unit class of a number (duration, size, time of day, money, rate), a port, or
 * a known kind of thing (claim-extract.ts kinds); names and bare numbers are typed only by their
 * subject, so they doubt only an overlapping or sibling subject.
 * Also what never supports: a memory that names the claim's value only after a negation, and one
 * that announces a change yet to come ("starting next week", 下周起). Pure.
 */

import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import { subjectTerms, termsInOrder } from '../../language/subject-terms.js'
import type { IndexEntry } from '../../types.js'
import { changeCues } from './claim-extract.js'
import { frameOf, otherValue } from './claim-frame.js'
import { CAPITALISED, COUNT, mentionsOf, movedElsewhere, moverNamedOtherwise, PERSON_NAME, shapedOther, tellsOfMove, typedOther, type DoubtClaim } from './doubt-values.js'

export type { DoubtClaim } from './doubt-values.js'

/** A negation word: a value said after one is taken back, not stated. */
const NEGATION = /\b(?:not|no|never|none|without|no longer|anymore)\b|n't\b|不再|已经不|不|没|未|无/iu

/** A change that takes effect later: until then the old value holds, and the new one is not yet true. */
const FUTURE = /\b(?:starting|from|as of|beginning|effective|come)\s+(?:next|tomorrow|the\s+(?:first|start|end)\s+of\s+next)\b|\bnext\s+(?:week|month|year|monday|tuesday|wednesday|thursday|friday|sprint|quarter)\s*(?:on|onwards?)?\s*,|\bwill\s+(?:be|move|switch|change|become)\b|(?:下周|下个?月|下星期|明天|明年|下季度|下周[一二三四五六日天])(?:一)?起|(?:下周|下个?月|明年)(?:开始|以后)|将(?:改|换|迁|调整)/iu

/** The text announces a change yet to come. */
export function futureChange(text: string): boolean {
  return FUTURE.test(text.normalize('NFKC'))
}

const DAY_MS = 86_400_000
const ISO_DAY = /(?:\b(?:from|starting|beginning|as of|effective|on)\s+|自|从)(\d{4})[-/年](\d{1,2})[-/月](\d{1,2})日?/iu
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']
const ZH_WEEKDAYS = '日一二三四五六'

/**
 * The day a change yet to come takes effect (ISO date, UTC), read from its text and the time it
 * was written: an explicit date ("from 2027-01-05", "自 2027 年 1 月 5 日起"), tomorrow, next week
 * (its Monday), next Monday..Sunday, next month (its first day), next year (1 January). Null when
 * the text gives no day to count from.
 */
export function effectiveFrom(text: string, written: string): string | null {
  const t = text.normalize('NFKC').toLowerCase()
  const iso = ISO_DAY.exec(t)
  if (iso !== null) return `${iso[1]}-${(iso[2] as string).padStart(2, '0')}-${(iso[3] as string).padStart(2, '0')}`
  const at = Date.parse(written)
  if (!Number.isFinite(at)) return null
  const day = new Date(at - (at % DAY_MS))
  const plus = (n: number) => new Date(day.getTime() + n * DAY_MS).toISOString().slice(0, 10)
  const weekday = /\bnext\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/u.exec(t)?.[1] ?? null
  const zhWeekday = /下(?:周|星期|礼拜)([一二三四五六日天])/u.exec(t)?.[1] ?? null
  const target = weekday !== null ? WEEKDAYS.indexOf(weekday) : zhWeekday !== null ? ZH_WEEKDAYS.indexOf(zhWeekday === '天' ? '日' : zhWeekday) : -1
  const dow = day.getUTCDay()
  if (target >= 0) return plus((target - dow + 7) % 7 || 7)
  if (/\btomorrow\b|明天/u.test(t)) return plus(1)
  if (/\bnext\s+week\b|下周|下星期|下个星期|下礼拜/u.test(t)) return plus(((8 - dow) % 7) || 7)
  if (/\bnext\s+month\b|下个?月/u.test(t)) return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
  if (/\bnext\s+year\b|明年/u.test(t)) return `${day.getUTCFullYear() + 1}-01-01`
  return null
}

/**
 * The memory announces a change that has not taken effect at `nowMs`: a change yet to come
 * (futureChange) whose day is unknown or still ahead, or one dated explicitly after the day it
 * was written ("from 2027-01-05").
 */
export function pendingChange(e: Pick<IndexEntry, 'summary' | 'time'>, nowMs: number): boolean {
  const from = effectiveFrom(e.summary, e.time)
  if (from === null) return futureChange(e.summary)
  if (!futureChange(e.summary) && from <= e.time.slice(0, 10)) return false
  return Date.parse(`${from}T00:00:00Z`) > nowMs
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
  return neg !== null && first.every((i) => neg.index < i)
}

/** How a memory's subject stands to the claim's: the same words, the words of one inside the other's, half of the smaller shared, or neither. */
export type SubjectRelation = 'same' | 'overlap' | 'sibling' | 'other'

const hasHan = (s: string) => /\p{Script=Han}/u.test(s)

/** Words that name an organisation or a role of a thing, not which thing: "company VPN client" is about the VPN. */
const GENERIC = /\b(?:company|companies|service|services|team|teams|client|server|our|we)\b|服务|公司|团队|我们/giu
/** The condition a derived subject carries ("API server port [staging]"). */
const CONDITION = /\s*\[([^\]]*)\]\s*$/u

/** A subject's words without its condition and the generic words (all of them when nothing else is left). */
function coreTerms(subject: string): string[] {
  const plain = subject.normalize('NFKC').replace(CONDITION, '')
  const core = subjectTerms(plain.replace(GENERIC, ' '))
  return core.length > 0 ? core : subjectTerms(plain)
}

const conditionOf = (subject: string) => CONDITION.exec(subject)?.[1]?.trim().toLowerCase() ?? ''

export function relateSubjects(a: string, b: string): SubjectRelation {
  const x = coreTerms(a)
  const y = new Set(coreTerms(b))
  if (x.length === 0 || y.size === 0) return 'other'
  const shared = x.filter((t) => y.has(t)).length
  if (shared === x.length && shared === y.size) return 'same'
  if (shared === x.length || shared === y.size) return 'overlap'
  return shared > 0 && shared / Math.min(x.length, y.size) >= 0.5 ? 'sibling' : 'other'
}

/** The attribute word a subject ends in ("token TTL" -> ttl, "客服首响 SLA" -> sla, "回调重试次数" -> 次数). */
function headOf(subject: string): string | null {
  const terms = termsInOrder(subject)
  const last = terms.at(-1)
  if (last === undefined) return null
  if (!hasHan(last) || last.length > 1) return last
  const prev = terms.at(-2)
  return prev !== undefined && hasHan(prev) && prev.length === 1 ? `${prev}${last}` : null
}

function holdsHead(head: string, text: string): boolean {
  if (hasHan(head)) return text.includes(head)
  return termsInOrder(text).includes(head)
}

/** Capitalised names in a subject ("Alice home" names Alice): two subjects naming different ones are about two things. */
function namedIn(subject: string): Set<string> {
  return new Set(mentionsOf(CAPITALISED, subject))
}

function namesOtherThing(a: string, b: readonly string[]): boolean {
  const x = namedIn(a)
  if (x.size === 0) return false
  return b.some((s) => {
    const y = namedIn(s)
    return y.size > 0 && ![...y].some((n) => x.has(n))
  })
}

/**
 * A claim no subject was read from ("回调最多重试 5 次", "Escalation goes to 王磊"), as the doubt
 * reads it: its subject is its words without numbers, counts and a closing name; its value is all of it.
 */
export function unstructuredClaim(text: string): DoubtClaim {
  let subject = text.normalize('NFKC').replace(COUNT, ' ').replace(/\d[\d.:,]*\s*[\p{L}%]{0,8}/gu, ' ')
  subject = subject.replace(PERSON_NAME, (m, at: number) => (at > 0 ? ' ' : m)).replace(/\s+/gu, ' ').trim()
  return { text, subject, value: text, frame: frameOf(text) }
}

export interface DoubtReader {
  subjectsOf(e: IndexEntry): string[]
}

/** How the subjects `e` speaks about stand to the claim's; a memory with no subject read is about the claim's subject only when it names all of it. */
export function relationTo(e: IndexEntry, claim: Pick<DoubtClaim, 'subject'>, reader: DoubtReader): SubjectRelation {
  const subjects = reader.subjectsOf(e)
  return subjects.length > 0 ? best(subjects.map((x) => relateSubjects(claim.subject, x))) : namesAll(claim.subject, `${e.title}\n${e.summary}`) ? 'overlap' : 'other'
}

/**
 * Why `e`, a current memory that does not state the claim, casts doubt on a support as old as it
 * or older (or, older itself, stands in a conflict with it nobody resolved), or null when it does
 * not. The caller leaves out the support itself, raw text, retractions, guards and memories under
 * other premises.
 */
export function doubtOf(e: IndexEntry, support: IndexEntry, claim: DoubtClaim, reader: DoubtReader): string | null {
  const text = `${e.title}\n${e.summary}`
  const subjects = reader.subjectsOf(e)
  // Under another condition ("In staging, ...") it speaks of other premises.
  if (subjects.some((x) => conditionOf(x) !== conditionOf(claim.subject))) return null
  const relation = relationTo(e, claim, reader)
  if (e.time < support.time) return olderConflict(e, support, claim, relation)
  // A move ("transferred to", 转到) tells of a change as a cue word does.
  const cued = changeCues(e.summary).length > 0 || tellsOfMove(e.summary)
  const typed = typedOther(claim, text)
  // A move to another place ("we moved our headquarters to Zhongguancun") doubts where the claim
  // puts its subject, however the subject is worded; never a move of another named thing ("Alice moved to Dublin").
  if (relation !== 'same' && movedElsewhere(claim, text) && !namesOtherThing(claim.subject, subjects) && !moverNamedOtherwise(claim, text)) return 'says something moved to another place'
  switch (relation) {
    case 'same':
      if (typed || otherValue(claim.frame, text)) return 'gives the subject another value'
      if (cued) return 'says the subject changed'
      return NEGATION.test(e.summary.normalize('NFKC')) ? 'negates something of the subject' : null
    case 'overlap':
      // One subject inside the other ("Alice" / "Alice home"): another attribute may be meant, so only a typed value or a change counts.
      if (typed) return 'gives a subject inside or around the claim\'s another value of the same kind'
      return cued ? 'says a subject inside or around the claim\'s changed' : null
    case 'sibling':
      if (namesOtherThing(claim.subject, subjects)) return null
      if (typed) return cued ? 'says a like-named subject changed to another value of the same kind' : 'gives a like-named subject another value of the same kind'
      return cued && shapedOther(claim, text) ? 'says a like-named subject changed to another value of the same shape' : null
    case 'other': {
      if (namesOtherThing(claim.subject, subjects)) return null
      if (!typed) return cued && shapedOther(claim, text) ? 'says something changed to another value of the same shape' : null
      if (cued) return 'says something changed to another value of the same kind'
      const head = headOf(claim.subject)
      if ((head !== null && holdsHead(head, subjects.length > 0 ? subjects.join(' ') : text)) || sharesSaid(claim, text)) return 'says as much of the same attribute, with another value of the same kind'
      return hasHan(claim.subject) !== hasHan(subjects[0] ?? e.summary) ? 'gives a subject in the other language another value of the same kind' : null
    }
  }
}

/**
 * An older memory, still current, casts doubt only as the other side of a conflict nobody
 * resolved: it gives the claim's subject (the same words, or one inside the other's)
 * another value of the same typed kind ("团队周报用石墨文档写" before "团队周报写在语雀上"),
 * and the support says nothing changed (no change cue, no move). Had the support replaced it, a
 * write would have superseded it, or the support would say so.
 */
function olderConflict(e: IndexEntry, support: IndexEntry, claim: DoubtClaim, relation: SubjectRelation): string | null {
  if ((relation !== 'same' && relation !== 'overlap') || changeCues(support.summary).length > 0 || tellsOfMove(support.summary)) return null
  return typedOther(claim, `${e.title}\n${e.summary}`) ? 'is older, but no write superseded it, and it gives the subject another value of the same kind: a conflict nobody resolved' : null
}

/** Words of the claim beyond its value and generic words ("listens", "port"): the text says one of them. */
function sharesSaid(claim: DoubtClaim, text: string): boolean {
  const value = new Set(tokenize(claim.value))
  const t = new Set(tokenize(text))
  return tokenize(claim.text.normalize('NFKC').replace(GENERIC, ' ')).some((w) => isStrongTerm(w) && !value.has(w) && !/\d/u.test(w) && t.has(w))
}

function namesAll(subject: string, text: string): boolean {
  const t = new Set(subjectTerms(text))
  return coreTerms(subject).every((w) => t.has(w))
}

const CLOSENESS: readonly SubjectRelation[] = ['same', 'overlap', 'sibling', 'other']

function best(relations: SubjectRelation[]): SubjectRelation {
  return CLOSENESS.find((r) => relations.includes(r)) ?? 'other'
}
