/**
 * The tokenizer for indexing and querying, Chinese and English alike. Pure and deterministic.
 *
 * - NFKC first, so full-width letters and digits equal their ASCII forms; then lower case; then
 *   Traditional Chinese read as Simplified (language/han-variants.ts), so 資料庫 and 数据库 are one term.
 * - CJK runs become single characters plus adjacent 2-grams: Chinese has no spaces, so single
 *   characters keep recall and 2-grams keep precision.
 * - Letter and digit runs become words with light stemming (ies -> y; ing / ed / es / s trimmed).
 * - Stop words in both languages are dropped, and so is every 2-gram containing a stop
 *   character: grammatical glue such as 的 or 是 would otherwise flatten BM25 scores.
 * - Everything else (punctuation, spaces, symbols) separates tokens.
 *
 * Persisted indexes depend on its output: change anything here and bump TOKENIZER_VERSION.
 */

import { simplifyHan } from './han-variants.js'

export const TOKENIZER_VERSION = 3

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const WORD = /[\p{L}\p{N}]/u

/** Characters that are grammar, not content: dropped alone and in every 2-gram. */
const CJK_STOP_CHARS = new Set(Array.from('的了着吗呢吧啊呀嘛哦么是在和与及或也就都很又把被给让我你他她它们这那个'))

/** Chinese function words: dropped as 2-grams (their characters still count alone). */
const ZH_STOP_WORDS = new Set(
  (
    '非常 感到 觉得 一个 一些 一下 一点 一起 一直 一定 什么 怎么 怎样 为什么 如何 这么 那么 这样 那样 ' +
    '因为 所以 但是 可是 不过 还是 或者 而且 并且 然后 如果 虽然 只是 就是 不是 还有 已经 可以 可能 应该 ' +
    '没有 自己 大家 之后 之前 时候 其实 真的 特别 比较 所有 每个 有些 有点 起来 出来 一样'
  ).split(' '),
)

const EN_STOP_WORDS = new Set(
  (
    'a an the and or but if then than so of to in on at by for from with about into over under as ' +
    'is am are was were be been being do does did doing have has had having will would shall should can could may might must ' +
    'i me my mine we us our you your he him his she her it its they them their this that these those there here ' +
    'what which who whom whose when where why how ' +
    'not no nor too very just also only own same such both each few more most other some any all ' +
    's t don didn doesn isn wasn aren weren won wouldn couldn shouldn ll re ve d m'
  ).split(' '),
)

/** Light English stemming: folds common inflections onto one stem. Pure. */
export function stem(word: string): string {
  let w = word
  if (w.length <= 3 || /\d/.test(w)) return w
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (w.endsWith('sses')) w = w.slice(0, -2)
  else if (/(?:ss|x|z|ch|sh)es$/.test(w) && w.length > 4) w = w.slice(0, -2)
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1)
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3)
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2)
  if (/([bdfgmnprt])\1$/.test(w)) w = w.slice(0, -1)
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1)
  return w
}

export interface TokenizeOptions {
  /** Emit CJK single characters (default true). Queries may leave them out of long runs. */
  cjkUnigrams?: boolean | 'isolated'
}

/** Splits text into index terms. Order follows the text; duplicates are kept (they are term frequency). */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const unigrams = options.cjkUnigrams ?? true
  const tokens: string[] = []
  const chars = Array.from(simplifyHan(text.normalize('NFKC').toLowerCase()))
  let i = 0
  while (i < chars.length) {
    const c = chars[i] as string
    if (CJK.test(c)) {
      let j = i
      while (j < chars.length && CJK.test(chars[j] as string)) j++
      const run = chars.slice(i, j)
      const isolated = run.length === 1
      for (let k = 0; k < run.length; k++) {
        const ch = run[k] as string
        const stop = CJK_STOP_CHARS.has(ch)
        if (!stop && (unigrams === true || (unigrams === 'isolated' && isolated))) tokens.push(ch)
        const next = run[k + 1]
        if (next !== undefined && !stop && !CJK_STOP_CHARS.has(next) && !ZH_STOP_WORDS.has(ch + next)) tokens.push(ch + next)
      }
      i = j
    } else if (WORD.test(c)) {
      let j = i
      while (j < chars.length && WORD.test(chars[j] as string) && !CJK.test(chars[j] as string)) j++
      const word = chars.slice(i, j).join('')
      if (!EN_STOP_WORDS.has(word)) tokens.push(stem(word))
      i = j
    } else {
      i++
    }
  }
  return tokens
}

/** About how many words some strong terms of one text stand for: overlapping CJK 2-grams run about two to a word. */
export function wordCount(terms: Iterable<string>): number {
  let n = 0
  for (const t of terms) n += CJK.test(t) ? 0.5 : 1
  return n
}

/** A strong term can make a hit on its own: a CJK 2-gram or a word of two or more characters. */
export function isStrongTerm(term: string): boolean {
  return Array.from(term).length >= 2
}
