/**
 * What kind of value a text gives, for the doubt before `supported` (doubt.ts): does a memory
 * give another value of a kind the claim's value is? Typed kinds (a unit class of a number, a
 * port, a time of day, a rate, a count, a known kind of thing, an everyday kind, a person in a
 * role) and weaker shapes (a host, an identifier, a day, a capitalised name, a place something
 * moved to), which doubt a subject worded otherwise only beside a change cue. Pure; split from
 * doubt.ts.
 */

import { kindMentions, kindOfValue } from './claim-extract.js'
import { stripValueEdges } from './claim-kinds.js'
import type { Frame } from './claim-frame.js'
import { atomsWithin, unitClass, valueAtoms, zhNumber } from './claim-value.js'

const PORT = /(?:\bports?\b|端口)\D{0,12}?(\d{2,5})\b|\b(\d{2,5})\s*(?:端口|port\b)/giu

/** Port numbers a text names. */
function ports(text: string): string[] {
  return [...text.normalize('NFKC').matchAll(PORT)].map((m) => String(Number(m[1] ?? m[2])))
}

export const COUNT = /(\d+|[一二两三四五六七八九十]+)\s*(?:(次|个|台|位|件|核|条)(?![数])|(times|retries|attempts|cores|threads|workers|replicas|nodes|seats)(?![a-z]))/giu

/** Counts a text names, with what they count ("5 次", "3 replicas"). */
function counts(text: string): Array<{ n: string; unit: string }> {
  return [...text.normalize('NFKC').toLowerCase().matchAll(COUNT)].map((m) => ({ n: String(/\d/u.test(m[1] as string) ? Number(m[1]) : (zhNumber(m[1] as string) ?? m[1])), unit: (m[2] ?? m[3]) as string }))
}

/**
 * Everyday kinds of thing beside claim-extract.ts's technical ones, each a pattern that names one
 * of the kind: a school, a documents tool, a chat tool, a VPN, a CDN.
 */
const EVERYDAY: readonly RegExp[] = [
  /幼儿园|小学|中学|初中|高中|大学|学院|学校|\b(?:kindergarten|nursery|preschool|school|elementary|primary|college|university|academy)\b/iu,
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

/**
 * Words of a role a person holds: a value said of one names a person. Besides role nouns, the
 * phrases that say who does a thing ("the person running the front office", "管前台的是").
 */
const PERSON_ROLE =
  /\b(?:manager|contact|owner|leads?|led by|run by|heads?|headed by|in charge|reports? to|goes to|escalat\w*|on-?call|assignee|reviewer|maintainer|boss|mentor|doctor|dentist|accountant|landlord|person|responsible for|manag(?:es|ing|ed by)|looks after|took over|takes over|handed over to)\b|负责人|联系人|经理|老板|主管|对接人|值班|导师|医生|房东|会计|负责|接手|接管|管[\p{Script=Han}]{1,6}的(?:是|人)/iu
/**
 * A person's name: capitalised Latin words, or two or three Chinese characters standing alone or
 * closing a clause after 是, 为, 由, 归 or 叫 ("现在管前台的是李强"), or between 由 and what they do ("由刘洋负责").
 */
export const PERSON_NAME =
  /(?<![\p{L}])(?:\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)?)(?![\p{L}])|(?:(?<![\p{Script=Han}])|(?<=[是为由归叫]\s*))\p{Script=Han}{2,3}(?=\s*[.。,，;；!！]?\s*$)|(?<=由\s*)\p{Script=Han}{2,3}(?=\s*(?:负责|主管|管理|带|接手|接管))/gu

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

/** A name written with a capital ("Metabase", "ThinkPad", "Alice"). */
export const CAPITALISED = /(?<=[\s(（"'“]|\p{Script=Han})\p{Lu}[\p{Ll}\d]+(?:\p{Lu}[\p{Ll}\d]+)*(?:\s+\p{Lu}[\p{Ll}\d]+)*/gu

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
  CAPITALISED,
]

export const mentionsOf = (re: RegExp, text: string) => [...` ${text.normalize('NFKC')}`.matchAll(re)].map((m) => m[0].toLowerCase())

/** The text gives another value of a shape the claim's value has (SHAPES). */
export function shapedOther(claim: DoubtClaim, text: string): boolean {
  const said = squash(`${claim.subject} ${claim.value}`)
  return SHAPES.some((re) => {
    const mine = mentionsOf(re, claim.value)
    return mine.length > 0 && mentionsOf(re, text).some((m) => !mine.includes(m) && !said.includes(squash(m)))
  })
}


/** A word that says where a thing is: a claim with one in its subject says where its subject is. */
const PLACE_WORD =
  /\b(?:home|office|offices|headquarters|hq|location|located|address|based|hosted|housed|region|data ?cent(?:er|re)s?|site|campus|lives?|living)\b|住址|地址|办公地点|办公室|办公|位置|地点|所在地|总部|机房|园区|住在|位于|坐落/iu
/** What a value after it is a place: "in", "at", 在, 位于. */
const BEFORE_PLACE = /(?:\b(?:in|at)|在|位于|于)\s*$/iu
/** A move and where to ("moved our headquarters to Zhongguancun", "已经迁到上海了"): the place is the group that closes. */
const MOVED_TO =
  /\b(?:moved|relocated|migrated|transferred)\b(?:\s+[\w'’-]+){0,4}?\s+(?:to|into)\s+(?:the\s+|a\s+|an\s+|our\s+)?([^,.;!?\n]+)|(?:搬到|搬去|搬进|搬至|迁到|迁往|迁至|迁移到|迁移至|转到|转去|转入|挪到)了?\s*([^，。；,.;！!？?\n]+)/giu

/** The claim says where its subject is: a word of place in its subject, or its value after one ("is hosted in Frankfurt", "在望京 SOHO"). */
function placeClaim(claim: DoubtClaim): boolean {
  if (PLACE_WORD.test(claim.subject)) return true
  const text = claim.text.normalize('NFKC')
  const at = text.indexOf(claim.value.normalize('NFKC'))
  return at > 0 && BEFORE_PLACE.test(text.slice(0, at))
}

/** The text tells of a move ("relocated", "transferred to", 转到): a change, whatever cue words it has. */
export function tellsOfMove(text: string): boolean {
  return new RegExp(MOVED_TO.source, 'iu').test(text.normalize('NFKC'))
}

/** Places a text says something moved to, as said; a time or an amount moved to ("moved to 4am") is no place. */
function movedTo(text: string): string[] {
  return [...text.normalize('NFKC').matchAll(MOVED_TO)]
    .map((m) => stripValueEdges((m[1] ?? m[2]) as string))
    .filter((v) => v !== '' && clocks(v).size === 0 && !valueAtoms(v).numbers.some((n) => unitClass(n) !== null) && !SHAPES.slice(3, 5).some((re) => mentionsOf(re, v).length > 0))
}

/** The claim says where its subject is, and the text says something moved to a place the claim does not name. */
export function movedElsewhere(claim: DoubtClaim, text: string): boolean {
  if (!placeClaim(claim)) return false
  const said = squash(`${claim.subject} ${claim.value}`)
  return movedTo(text).some((v) => !said.includes(squash(v)))
}

/** Words that open a sentence with a capital and name nothing. */
const FUNCTION_WORD = /^(?:the|a|an|our|my|we|they|he|she|it|its|his|her|their|this|that|these|those|i|you|your|last|next|this|yesterday|today)$/u

/** Capitalised names a text gives before its first move ("Alice moved to Dublin" names Alice) that the claim does not: the move is another named thing's. */
export function moverNamedOtherwise(claim: DoubtClaim, text: string): boolean {
  const t = text.normalize('NFKC')
  const at = t.search(new RegExp(MOVED_TO.source, 'iu'))
  if (at <= 0) return false
  const said = squash(claim.text)
  return mentionsOf(CAPITALISED, t.slice(0, at)).some((n) => !FUNCTION_WORD.test(n) && !said.includes(squash(n)))
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

