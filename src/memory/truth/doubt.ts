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
import { changeCues, kindMentions, kindOfValue } from './claim-extract.js'
import { frameOf, otherValue, type Frame } from './claim-frame.js'
import { atomsWithin, unitClass, valueAtoms, zhNumber } from './claim-value.js'

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

const PORT = /(?:\bports?\b|端口)\D{0,12}?(\d{2,5})\b|\b(\d{2,5})\s*(?:端口|port\b)/giu

/** Port numbers a text names. */
function ports(text: string): string[] {
  return [...text.normalize('NFKC').matchAll(PORT)].map((m) => String(Number(m[1] ?? m[2])))
}

const COUNT = /(\d+|[一二两三四五六七八九十]+)\s*(?:(次|个|台|位|件|核|条)(?![数])|(times|retries|attempts|cores|threads|workers|replicas|nodes|seats)(?![a-z]))/giu

/** Counts a text names, with what they count ("5 次", "3 replicas"). */
function counts(text: string): Array<{ n: string; unit: string }> {
  return [...text.normalize('NFKC').toLowerCase().matchAll(COUNT)].map((m) => ({ n: String(/\d/u.test(m[1] as string) ? Number(m[1]) : (zhNumber(m[1] as string) ?? m[1])), unit: (m[2] ?? m[3]) as string }))
}

/**
 * Everyday kinds of thing beside claim-extract.ts's technical ones, each a pattern that names one
 * of the kind: a school, a documents tool, a chat tool, a VPN, a CDN.
 */
const EVERYDAY: readonly RegExp[] = [
  /幼儿园|小学|中学|初中|高中|大学|学院|学校|\b(?:kindergarten|nursery|preschool|school|college|university|academy)\b/iu,
  /石墨|语雀|飞书文档|腾讯文档|\b(?:notion|confluence|google docs|coda|quip|sharepoint)\b/iu,
  /钉钉|飞书|企业微信|微信|\b(?:slack|teams|discord|mattermost|zulip)\b/iu,
  /\b(?:openvpn|wireguard|tailscale|zerotier|ipsec|anyconnect|globalprotect)\b/iu,
  /网宿|\b(?:cloudflare|akamai|fastly|cloudfront|bunny ?cdn)\b|(?:阿里云|腾讯云|华为云)\s*cdn/iu,
]

const squash = (t: string) => t.normalize('NFKC').toLowerCase().replace(/\s+/gu, '')

/** The text names a thing of an everyday kind the claim's value is, without the claim's value. */
function otherEveryday(claim: DoubtClaim, text: string): boolean {
  const value = squash(claim.value)
  return value !== '' && EVERYDAY.some((k) => k.test(claim.value) && k.test(text)) && !squash(text).includes(value)
}

/** Words of a role a person holds: a value said of one names a person. */
const PERSON_ROLE = /\b(?:manager|contact|owner|leads?|led by|run by|heads?|headed by|in charge|reports? to|goes to|escalat\w*|on-?call|assignee|reviewer|maintainer|boss|mentor|doctor|dentist|accountant|landlord)\b|负责人|联系人|经理|老板|主管|对接人|值班|导师|医生|房东|会计/iu
/** A person's name: capitalised Latin words, or two or three Chinese characters standing alone. */
const PERSON_NAME = /(?<![\p{L}])(?:\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)?)(?![\p{L}])|(?<![\p{Script=Han}])\p{Script=Han}{2,3}(?=\s*[.。,，;；!！]?\s*$)/gu

/** Claim and text both speak of a person's role, and the text names a person the claim does not. */
function otherPerson(claim: DoubtClaim, text: string): boolean {
  const said = `${claim.subject} ${claim.value}`
  if (!PERSON_ROLE.test(said) || !PERSON_ROLE.test(text)) return false
  const mine = squash(claim.value)
  return text.split(/\n/u).some((line) => [...line.trim().matchAll(PERSON_NAME)].some((m) => m.index > 0 && !mine.includes(squash(m[0])) && !squash(said).includes(squash(m[0]))))
}

const RATE = /(\d+(?:\.\d+)?)\s*(?:requests?|reqs?|calls?|messages?|emails?|jobs?|events?|queries|请求|次)?\s*(?:per|\/|a|an|each|every|每)\s*(second|sec|s|minute|min|hour|hr|h|day|秒|分钟|小时|天)\b/giu

/** Rates a text names ("100 requests per minute"), with their period. */
function rates(text: string): Array<{ n: string; per: string }> {
  return [...text.normalize('NFKC').toLowerCase().matchAll(RATE)].map((m) => ({ n: String(Number(m[1])), per: (m[2] as string).replace(/^(?:sec|second|秒)$/u, 's').replace(/^(?:minute|分钟)$/u, 'min').replace(/^(?:hour|hr|小时)$/u, 'h').replace(/^(?:day|天)$/u, 'day') }))
}

const TWELVE_HOUR = /\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?/giu

/** Times of day a text names, as H:MM on a 24-hour clock ("2am", "2:00", "凌晨两点" are 2:00). */
function clocks(text: string): Set<string> {
  const out = new Set<string>()
  const rest = text.normalize('NFKC').replace(TWELVE_HOUR, (_, h: string, m: string | undefined, half: string) => {
    const hour = (Number(h) % 12) + (half.toLowerCase() === 'p' ? 12 : 0)
    out.add(`${hour}:${m ?? '00'}`)
    return ' '
  })
  for (const n of valueAtoms(rest).numbers) if (unitClass(n) === 'time') out.add(n)
  return out
}

/**
 * Shapes of value that say what kind of thing they are without a known name: a host or URL, an
 * identifier of letters and digits with dots or dashes ("t3.large", "eu-west-1"), a secret-like
 * word with digits ("sunflower42"), a day of the week or a part of the day, and a product or
 * place name written with a capital ("Metabase", "ThinkPad"). Weaker than a typed kind: they doubt
 * a subject worded otherwise only beside a change cue.
 */
const SHAPES: readonly RegExp[] = [
  /https?:\/\/\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|dev|cn|app|ai|co|internal|local)\b/giu,
  /\b(?=[\w.-]*\d)(?=[\w.-]*[a-z])[a-z0-9]+(?:[.-][a-z0-9]+)+\b/giu,
  /\b[a-z]{3,}\d{2,}\b/giu,
  /\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天]/giu,
  /\b(?:morning|afternoon|evening|night)s?\b|上午|下午|中午|晚上|早上|凌晨|傍晚/giu,
  /(?<=[\s(（"'“]|\p{Script=Han})\p{Lu}[\p{Ll}\d]+(?:\p{Lu}[\p{Ll}\d]+)*(?:\s+\p{Lu}[\p{Ll}\d]+)*/gu,
]

const mentionsOf = (re: RegExp, text: string) => [...` ${text.normalize('NFKC')}`.matchAll(re)].map((m) => m[0].toLowerCase())

/** The text gives another value of a shape the claim's value has (SHAPES). */
export function shapedOther(claim: DoubtClaim, text: string): boolean {
  const said = squash(`${claim.subject} ${claim.value}`)
  return SHAPES.some((re) => {
    const mine = mentionsOf(re, claim.value)
    return mine.length > 0 && mentionsOf(re, text).some((m) => !mine.includes(m) && !said.includes(squash(m)))
  })
}

/** Capitalised names in a subject ("Alice home" names Alice): two subjects naming different ones are about two things. */
function namedIn(subject: string): Set<string> {
  return new Set(mentionsOf(SHAPES[SHAPES.length - 1] as RegExp, subject))
}

function namesOtherThing(a: string, b: readonly string[]): boolean {
  const x = namedIn(a)
  if (x.size === 0) return false
  return b.some((s) => {
    const y = namedIn(s)
    return y.size > 0 && ![...y].some((n) => x.has(n))
  })
}

/** The claim as the doubt reads it. */
export interface DoubtClaim {
  /** The claim as said. */
  text: string
  subject: string
  value: string
  /** The claim's value as a frame: what another value (any name, any number) is measured against. */
  frame: Pick<Frame, 'atoms' | 'names'>
}

/**
 * The text gives another value of a typed kind the claim has: a number of its unit class, a port
 * it does not name, or another thing of its known kind.
 */
export function typedOther(claim: DoubtClaim, text: string): boolean {
  const mine = valueAtoms(claim.value).numbers.filter((n) => unitClass(n) !== null)
  const classes = new Set(mine.map(unitClass))
  if (mine.length > 0 && valueAtoms(text).numbers.some((n) => classes.has(unitClass(n)) && !atomsWithin({ numbers: [n], words: [] }, { numbers: mine, words: [] }))) return true
  const myPorts = ports(`${claim.subject} ${claim.value}`)
  const bare = valueAtoms(claim.value).numbers
  if ((myPorts.length > 0 || /\bports?\b|端口/iu.test(claim.subject)) && ports(text).some((p) => !myPorts.includes(p) && !bare.includes(p))) return true
  const myClocks = clocks(claim.value)
  if (myClocks.size > 0 && [...clocks(text)].some((c) => !myClocks.has(c))) return true
  const myRates = rates(claim.value)
  if (myRates.length > 0 && rates(text).some((r) => r.per === myRates[0]?.per && !myRates.some((m) => m.n === r.n))) return true
  const myCounts = counts(claim.value)
  if (myCounts.length > 0 && counts(text).some((c) => c.unit === myCounts[0]?.unit && !myCounts.some((m) => m.n === c.n))) return true
  if (otherEveryday(claim, text) || otherPerson(claim, text)) return true
  const kind = kindOfValue(claim.value)
  if (kind === null) return false
  const named = new Set(kindMentions(claim.value, kind))
  return kindMentions(text, kind).some((k) => !named.has(k) && ![...named].some((n) => n.includes(k) || k.includes(n)))
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
 * or older, or null when it does not. The caller leaves out the support itself, raw text,
 * retractions, guards and memories under other premises.
 */
export function doubtOf(e: IndexEntry, support: IndexEntry, claim: DoubtClaim, reader: DoubtReader): string | null {
  if (e.time < support.time) return null
  const text = `${e.title}\n${e.summary}`
  const subjects = reader.subjectsOf(e)
  // Under another condition ("In staging, ...") it speaks of other premises.
  if (subjects.some((x) => conditionOf(x) !== conditionOf(claim.subject))) return null
  const relation = relationTo(e, claim, reader)
  const cued = changeCues(e.summary).length > 0
  const typed = typedOther(claim, text)
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
