/**
 * Sentence and fact splitting: a statement's frame taken off (a speaker's label, "remember:",
 * "更正：", a hedge), its sentences and clauses, a condition it opens with, the topic a Chinese
 * clause leaves out, and whether a text is short enough to be one statement. Pure.
 */

import { simplifyHan } from '../../language/han-variants.js'
import { hasHan, HEDGES, words } from './claim-text.js'
import { ATTRIBUTE_WORDS, valueLike } from './claim-kinds.js'

const SPEAKER = /^(?:user|assistant|human|ai|me)\s*[:：]\s*/i
/** Lead-ins that frame a statement; the `correcting` ones are change cues themselves. */
const LEAD_IN = /^(?:(please\s+)?remember(?:\s+that)?|note(?:\s+that)?|fyi|btw|by the way|reminder|heads[- ]up|important|(correction|corrected|update|updated|actually)|记住|请记住|记一下|记得|注意|备注|提醒|(更正|纠正|更新|订正)|补充|另外|顺便说一下|顺便)\s*(?:[:：,，\-–—]\s*|\s+|(?=\p{Script=Han}))/iu

export const QUESTION_WORDS = /^(?:what|which|who|whom|whose|when|where|why|how|is|are|do|does|did|can|could|should|would|will|shall)\b/iu
export const ZH_QUESTION = /[吗呢么]$|什么|哪个|哪些|哪里|怎么|为什么|是否|多少|几[个点]?/u

export const CONDITION_EN = /^(?:in|on|for|during|under|within|inside|when|if|while|at)\s+([^,]{1,40}),\s*(.+)$/iu
export const CONDITION_ZH = /^(?:在|当|如果|若|对于|对|于)(.{1,20}?)(?:时|下|中|里|上|的时候|环境下|环境中)?[，,]\s*(.+)$/u
export const CONDITION_ZH_INLINE = /(?:在|于)([^，,。\s]{1,12}?(?:环境|集群|机房|服务器上|机器上))(?:下|中|里|上)?/u
export const CONDITION_EN_TAIL = /\s+(?:in|on|for|during)\s+((?:the\s+)?(?:staging|production|prod|dev|development|test|testing|qa|ci|local|weekends?|weekdays?|holidays?|eu|us|china)(?:\s+(?:environment|env|cluster|region))?)$/iu

/** The sentences of a text (a decimal point or a domain's dot does not end one). */
export function splitSentences(text: string): string[] {
  return text
    .split(/[。！？!?；;\n]+|(?<!\b(?:Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|vs))\.(?=\s|$)/u)
    .map((c) => c.trim())
    .filter((c) => c !== '')
}

export function splitClauses(sentence: string): string[] {
  return sentence
    .split(/[，,]\s*/u)
    .map((c) => c.trim())
    .filter((c) => c !== '')
}

/**
 * The clauses of a text's first sentence, where a semicolon joins clauses rather than ending the
 * sentence ("The API moved to port 9090; the database is Postgres 16" states two facts).
 */
export function firstSentenceClauses(text: string): string[] {
  const first = text.split(/[。！？!?\n]+|(?<!\b(?:Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|vs))\.(?=\s|$)/u).map((c) => c.trim()).find((c) => c !== '') ?? ''
  return first.split(/\s*[；;]\s*/u).flatMap(splitClauses)
}

/** A clause cut where "and" / 并且 joins two statements; one part when nothing joins. */
export function splitFacts(clause: string): string[] {
  return clause
    .split(hasHan(clause) ? /\s*(?:并且|而且|同时|此外)\s*/u : /\s+(?:and also|and|plus)\s+/iu)
    .map((c) => c.trim())
    .filter((c) => c !== '')
}

/** Where a Chinese clause's subject stops: an adverb, a preposition or a verb of its predicate. */
const ZH_PREDICATE_START = /已经|现在|目前|如今|从|在|是|把|被|用|去年|上周|最近|刚|又|也|还|不|没|搬|改|换|迁|升|降|调|开始/u

/**
 * Chinese leaves a repeated subject out ("王芳已经离职，现在在蓝海数据工作"): a later clause that
 * starts with its predicate gets the first clause's subject.
 */
export function carryTopic(clauses: string[]): string[] {
  const first = clauses[0]
  if (first === undefined || !hasHan(first)) return clauses
  const at = ZH_PREDICATE_START.exec(first)?.index ?? -1
  const topic = at > 0 ? first.slice(0, at) : null
  if (topic === null || Array.from(topic).length > 10) return clauses
  return clauses.map((c, i) => (i > 0 && /^(?:现在|目前|如今|后来|以后|已经|又|也|还|在|是|用|改|搬)/u.test(c) ? `${topic}${c}` : c))
}

/**
 * "Caroline: I live in Boston now": a speaker's line. The speaker is who "I" is; the label is no
 * subject of its own. Only for a line of talk (a sentence after the label), never "Region: eu-west-1".
 */
function unspeak(t: string): { text: string; speaker: string | null } {
  const en = /^(\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*)?)\s*:\s*(.+)$/u.exec(t)
  const label = (en?.[1] ?? '').toLowerCase().split(' ').pop() as string
  const said = en?.[2] ?? ''
  if (en !== null && !ATTRIBUTE_WORDS.has(label) && label !== 'db' && words(said).length >= 2 && (words(said).length >= 4 || !valueLike(said))) {
    const name = en[1] as string
    return { text: (en[2] as string).replace(/^(?:I am|I'm|I)\b/u, (m) => (m === 'I' ? name : `${name} is`)).replace(/^my\b/iu, `${name}'s`), speaker: name }
  }
  const zh = /^([\p{Script=Han}]{1,4})\s*[:：]\s*(.{4,})$/u.exec(t)
  if (zh !== null && /^[我你他她]|[。！？!?]$|[吗呢吧啊]/u.test(zh[2] as string)) return { text: (zh[2] as string).replace(/^我/u, zh[1] as string), speaker: zh[1] as string }
  return { text: t, speaker: null }
}

/** "I'm vegetarian now", "we're using Bun": the copula spelled out, as the relation forms read it. */
function uncontract(t: string): string {
  return t
    .replace(/\b(I)['’]m\b/gu, '$1 am')
    .replace(/\b(we|they|you)['’]re\b/giu, '$1 are')
    .replace(/\b(I|we|they|you)['’]ve\b/giu, '$1 have')
}

/** A time a change takes effect at ("next Monday", "June 1", "2026-03-01"). */
const WHEN_EN =
  '(?:(?:next|this|the coming|coming)\\s+(?:week|month|year|quarter|sprint|release|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|tomorrow|tonight|(?:on\\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:on\\s+|in\\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?(?:\\s+\\d{1,2}(?:st|nd|rd|th)?)?|\\d{4}-\\d{2}-\\d{2})'
const TAKES_EFFECT_EN = new RegExp(`^(?:(?:starting|beginning|from|as of|effective|after)\\s+${WHEN_EN}\\s*,?|${WHEN_EN}(?:\\s*,|(?=\\s+(?:the|our|my|we|i|they|his|her|its)\\b)))\\s*`, 'iu')
const TAKES_EFFECT_ZH = /^(?:从)?(?:(?:下|本|这|下个|这个)(?:周|星期|礼拜|个?月|季度|年)[一二三四五六日天]?|明天|后天|\d{1,2}\s*月\s*\d{1,2}\s*[日号]|\d{1,2}\s*[日号])(?:起|开始)[，,]?\s*/u

/** "will listen on", "is going to move to": the future read as the statement it will be ("will be" is "is"). */
function unmodal(t: string): string {
  return t.replace(/\b(?:will|is going to|are going to)\s+be\b/giu, 'is').replace(/\b(?:will|is going to|are going to)\s+(?=[a-z])/giu, '')
}

export function unframe(text: string): { text: string; cue: string | null; speaker: string | null } {
  // Traditional Chinese is read as Simplified, so its cues and attribute words are the ones below.
  const spoken = unspeak(unmodal(uncontract(simplifyHan(text.normalize('NFKC')).replace(/\s+/g, ' ').trim())))
  let t = spoken.text
  let cue: string | null = null
  for (let i = 0; i < 3; i++) {
    const before = t
    t = t.replace(SPEAKER, '')
    const lead = LEAD_IN.exec(t)
    if (lead !== null) {
      if (lead[2] !== undefined || lead[3] !== undefined) cue = (lead[2] ?? lead[3] ?? '').toLowerCase()
      t = t.slice(lead[0].length)
    }
    t = t.replace(HEDGES, '')
    // "Starting next Monday, ...", "下个月起...": when a change takes effect frames the statement.
    t = t.replace(TAKES_EFFECT_EN, '').replace(TAKES_EFFECT_ZH, '')
    // "Branch naming changed: ...", "From now on, ...", "变更：": a frame that announces a change.
    const framed = /^(?:[^:：]{1,40}?\s(?:changed|updated|moved|switched|update|change)\s*[:：]|(?:from now on|going forward|as of (?:today|now))\s*[,，]?|(?:变更|调整|新规则|新的约定)\s*[:：])\s*/iu.exec(t)
    if (framed !== null && framed[0].length < t.length) {
      cue = cue ?? 'changed'
      t = t.slice(framed[0].length)
    }
    if (t === before) break
  }
  return { text: t.trim(), cue, speaker: spoken.speaker }
}

/** At most this many sentences and characters: a statement, not a conversation (frame revision reads only statements). */
export const STATEMENT_SENTENCES = 2
export const STATEMENT_CHARS = 240

/** A text short enough to be one statement: two sentences at most, 240 characters at most. */
export function isStatement(text: string): boolean {
  return text.length <= STATEMENT_CHARS && splitSentences(text).length <= STATEMENT_SENTENCES
}
