/**
 * Values as things to compare: what a memory says a subject is ("port 9090", "redis 6",
 * "15 minutes", "素食者") broken into atoms (numbers with their normalised unit, versions,
 * words, Chinese 2-grams) so that "15 min" equals "15 minutes", "7.0" equals "7", and
 * "elasticsearch 8" differs from "opensearch 2". Pure; no model, no vectors.
 *
 * Two values are the SAME when the atoms of one are all among the atoms of the other (a less
 * specific statement agrees: "redis" and "redis 6"), DIFFERENT when each has atoms the other
 * lacks, with numbers compared before words ("port 8080" vs "port 9090"). Negation is a
 * property of the claim, compared by the caller.
 */

import { simplifyHan } from '../../language/han-variants.js'
import { stem } from '../../language/tokenizer.js'

export interface ValueAtoms {
  /** Numbers with their unit when one follows: `15min`, `8080`, `2:00`, `3.11`, `512mb`. */
  numbers: string[]
  /** Other content: stemmed words and Chinese 2-grams (a one-character run counts alone). */
  words: string[]
}

/** Units folded onto one spelling; a number keeps the unit that follows it. */
const UNITS: ReadonlyArray<[RegExp, string]> = [
  [/^(?:ms|msec|millisecond|milliseconds|毫秒)$/u, 'ms'],
  [/^(?:s|sec|secs|second|seconds|秒|秒钟)$/u, 's'],
  [/^(?:m|min|mins|minute|minutes|分钟|分)$/u, 'min'],
  [/^(?:h|hr|hrs|hour|hours|小时|个小时|钟头)$/u, 'h'],
  [/^(?:d|day|days|天|日)$/u, 'd'],
  [/^(?:w|wk|wks|week|weeks|周|星期|个星期)$/u, 'w'],
  [/^(?:month|months|个月|月)$/u, 'mo'],
  [/^(?:y|yr|yrs|year|years|年)$/u, 'y'],
  [/^(?:岁|years?old)$/u, 'age'],
  [/^(?:b|byte|bytes|字节)$/u, 'b'],
  [/^(?:k|kb|kib|kilobytes?)$/u, 'kb'],
  [/^(?:mb|mib|megabytes?|兆)$/u, 'mb'],
  [/^(?:g|gb|gib|gigabytes?)$/u, 'gb'],
  [/^(?:t|tb|tib|terabytes?)$/u, 'tb'],
  [/^(?:%|percent|pct|百分之)$/u, '%'],
  [/^(?:rps|req\/s|requests?\/s|qps)$/u, 'rps'],
  [/^(?:点|点钟|o'?clock)$/u, 'oclock'],
  [/^(?:usd|dollars?|美元|美金)$/u, 'usd'],
  [/^(?:cny|rmb|元|块|人民币)$/u, 'cny'],
  [/^(?:eur|euros?|欧元)$/u, 'eur'],
  [/^(?:gbp|pounds?|英镑)$/u, 'gbp'],
  [/^(?:个|条|次|台|人|位|件|行|核|cores?|threads?|workers?|replicas?|retries|times|x)$/u, 'count'],
]

const EN_NUMBERS: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18,
  nineteen: 19, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, ninety: 90, hundred: 100,
}

const ZH_DIGITS: Readonly<Record<string, number>> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 }
/** A Chinese numeral, taken only before a unit or measure word or at the end ("统一" is a word, not 1). */
const ZH_NUMERAL = /[零〇一二两三四五六七八九十百千万]+(?=[个点分秒小钟时天日周星月年岁条次台人位件行核兆毫倍%]|\s|$)/gu

/** A Chinese numeral (up to the ten thousands) as a number; null when it is not one. */
export function zhNumber(text: string): number | null {
  let total = 0
  let section = 0
  let digit: number | null = null
  for (const ch of text) {
    if (ch in ZH_DIGITS) {
      digit = ZH_DIGITS[ch] as number
      continue
    }
    const scale = ch === '十' ? 10 : ch === '百' ? 100 : ch === '千' ? 1000 : ch === '万' ? 10000 : 0
    if (scale === 0) return null
    if (scale === 10000) {
      total = (total + section + (digit ?? 0)) * 10000
      section = 0
    } else section += (digit ?? 1) * scale
    digit = null
  }
  return total + section + (digit ?? 0)
}

/** Units of time, as the atoms spell them. */
const TIME_UNITS: ReadonlySet<string> = new Set(['ms', 's', 'min', 'h', 'd', 'w', 'mo', 'y'])
const SIZE_UNITS: ReadonlySet<string> = new Set(['b', 'kb', 'mb', 'gb', 'tb'])

/** The unit class of a number atom ("15min" is a duration, "20usd/mo" a rate of its own), or null for a bare number. */
export function unitClass(n: string): string | null {
  if (n.includes(':')) return 'time'
  const unit = /[a-z%/]+$/u.exec(n)?.[0]
  if (unit === undefined) return null
  if (TIME_UNITS.has(unit)) return 'duration'
  if (SIZE_UNITS.has(unit)) return 'size'
  return unit
}

function unitOf(word: string): string | null {
  const w = word.toLowerCase()
  for (const [re, unit] of UNITS) if (re.test(w)) return unit
  return null
}

/** "7.0" is "7", "02" is "2", "v1.2" is "1.2". */
function normaliseNumber(n: string): string {
  // A time: hours without a leading zero, minutes (and seconds) with two digits.
  if (/^\d{1,2}(?::\d{1,2}){1,2}$/u.test(n)) return n.split(':').map((p, i) => (i === 0 ? String(Number(p)) : p.padStart(2, '0'))).join(':')
  return n
    .replace(/^v(?=\d)/i, '')
    .split(/([.:])/)
    .map((part) => (/^\d+$/.test(part) ? String(Number(part)) : part))
    .join('')
    .replace(/(?:\.0+)+$/, '')
}

const TOKEN = /(\d+(?:[.:]\d+)*|v\d+(?:\.\d+)*)|([\p{Script=Han}]+)|([\p{L}\p{N}][\p{L}\p{N}+#/'-]*)|(%)/giu

/** Function words of values: they never make two values differ. */
const VALUE_STOP = new Set(
  (
    'a an the of to in on at by for from with as and or its it is are be been was were now currently still also ' +
    'just only very about around approximately roughly set using use uses used running runs run their our my your ' +
    'this that these those which who than then there'
  ).split(' '),
)
/** Chinese glue in values: dropped before 2-grams are taken. */
const ZH_VALUE_GLUE = /[的了着过是为在用地得很也都就还又再吧呢啊呀嘛哦个]/gu

/** The atoms of a value, Traditional Chinese read as Simplified. Pure. */
export function valueAtoms(value: string): ValueAtoms {
  const text = simplifyHan(value.normalize('NFKC').toLowerCase()).replace(ZH_NUMERAL, (m) => {
    const n = zhNumber(m)
    return n === null ? m : ` ${n} `
  })
  const numbers: string[] = []
  const words: string[] = []
  const parts: string[] = []
  // "10,000" is one number; "$20" is 20 dollars.
  const plain = text
    .replace(/(\d),(?=\d{3}(?:\D|$))/gu, '$1')
    .replace(/\b(usd|eur|gbp|cny|\d+)\/(?=(?:s|sec|min|h|hr|hour|d|day|w|week|mo|month|y|yr|year)\b)/giu, '$1 per ')
    .replace(/([$€£¥])\s*(\d[\d.]*)/gu, (_, sign: string, n: string) => `${n} ${sign === '$' ? 'usd' : sign === '€' ? 'eur' : sign === '£' ? 'gbp' : 'cny'}`)
  for (const m of plain.matchAll(TOKEN)) parts.push(m[0])
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string
    if (/^v?\d/.test(p)) {
      let n = normaliseNumber(p)
      const next = parts[i + 1]
      let unit = next === undefined ? null : unitOf(next)
      // A Chinese unit glued to what follows ("2小时后") is a run of Han: try its head.
      if (unit === null && next !== undefined && /^\p{Script=Han}/u.test(next)) {
        for (const len of [3, 2, 1]) {
          const head = next.slice(0, len)
          const u = unitOf(head)
          if (u !== null) {
            unit = u
            const rest = next.slice(len).replace(ZH_VALUE_GLUE, '')
            if (rest !== '') parts.splice(i + 2, 0, rest)
            break
          }
        }
        if (unit !== null) i++
      } else if (unit !== null) i++
      if (unit === 'oclock') {
        n = `${n}:00`
        unit = null
      }
      // "$20 per month", "24 usd/month": a rate keeps its period.
      const per = parts[i + 1] !== undefined && /^(?:per|a|an|each|every)$/u.test(parts[i + 1] as string) ? 2 : 1
      const period = parts[i + per] === undefined ? null : unitOf(parts[i + per] as string)
      const rate = unit !== null && unit !== 'count' && period !== null && TIME_UNITS.has(period) && !TIME_UNITS.has(unit)
      if (rate) i += per
      numbers.push(unit === null || unit === 'count' ? n : rate ? `${n}${unit}/${period}` : `${n}${unit}`)
      continue
    }
    if (p in EN_NUMBERS) {
      const next = parts[i + 1]
      const unit = next === undefined ? null : unitOf(next)
      if (unit !== null) i++
      const n = String(EN_NUMBERS[p])
      numbers.push(unit === null || unit === 'count' ? n : `${n}${unit}`)
      continue
    }
    if (p === '%') {
      // "%" after a number was taken as its unit; alone it says nothing.
      continue
    }
    if (/\p{Script=Han}/u.test(p)) {
      const run = Array.from(p.replace(ZH_VALUE_GLUE, ''))
      if (run.length === 1) words.push(run[0] as string)
      for (let k = 0; k + 1 < run.length; k++) words.push(`${run[k]}${run[k + 1]}`)
      continue
    }
    const w = p.replace(/'s$/, '')
    if (VALUE_STOP.has(w)) continue
    words.push(/[+#/.]/.test(w) ? w : stem(w))
  }
  return { numbers: [...new Set(numbers)], words: [...new Set(words)] }
}

function bare(n: string): string {
  return n.replace(/[a-z%]+$/u, '')
}

/** Numbers agree when equal, or when one side gives no unit and the digits are equal. */
function numberIn(n: string, list: readonly string[]): boolean {
  return list.some((m) => m === n || (bare(m) === n && m !== n && bare(n) === n) || (bare(n) === m && bare(m) === m))
}

/** Every atom of `a` is among the atoms of `b`: `a` says no more than `b`. */
export function atomsWithin(a: ValueAtoms, b: ValueAtoms): boolean {
  if (!a.numbers.every((n) => numberIn(n, b.numbers))) return false
  const words = new Set(b.words)
  return a.words.every((w) => words.has(w))
}

/** Whether a value's words are all Chinese, all of other scripts, or both. */
function wordScript(a: ValueAtoms): 'han' | 'other' | 'mixed' {
  const han = a.words.filter((w) => /\p{Script=Han}/u.test(w)).length
  return han === a.words.length ? 'han' : han === 0 ? 'other' : 'mixed'
}

/**
 * Two values in words of two languages and no number ("素食者" and "vegetarian"): whether they
 * agree is no rule's to tell. (A name in Latin letters inside Chinese text, "迁移到 Cloudflare",
 * is another matter: the caller asks this only of texts written in two languages.)
 */
export function acrossLanguages(a: ValueAtoms, b: ValueAtoms): boolean {
  if (a.numbers.length > 0 || b.numbers.length > 0 || isEmptyValue(a) || isEmptyValue(b)) return false
  const [x, y] = [wordScript(a), wordScript(b)]
  return x !== y && x !== 'mixed' && y !== 'mixed'
}

export function isEmptyValue(a: ValueAtoms): boolean {
  return a.numbers.length === 0 && a.words.length === 0
}

/**
 * How two values relate: `same` when one says no more than the other, `different` when each
 * has something the other lacks (numbers first: two sets of numbers that disagree differ
 * whatever the words), `empty` when either says nothing comparable.
 */
export function compareValues(a: ValueAtoms, b: ValueAtoms): 'same' | 'different' | 'empty' {
  if (isEmptyValue(a) || isEmptyValue(b)) return 'empty'
  if (a.numbers.length > 0 && b.numbers.length > 0) {
    const aIn = a.numbers.every((n) => numberIn(n, b.numbers))
    const bIn = b.numbers.every((n) => numberIn(n, a.numbers))
    if (!aIn && !bIn) return 'different'
    // The same times, durations or sizes: the words around them ("早上", "every weekday") add no value.
    if (aIn && bIn && [...a.numbers, ...b.numbers].every((n) => /[:a-z%]/u.test(n))) return 'same'
  }
  if (atomsWithin(a, b) || atomsWithin(b, a)) return 'same'
  return 'different'
}
