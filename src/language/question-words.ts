/**
 * The question words of a Chinese query, read as what they ask for. "小猫几岁了" asks an age, "开会是
 * 啥时候" a time, "住哪儿" a place: the words themselves are never in the memory that answers
 * (it says "今年两岁", "每周三上午十点", "住在杭州"), so as search terms they only add noise
 * 2-grams (啥时, 几岁) that match other questions. Here they are taken out of the query text, and
 * what they ask for is named, with the terms a memory stating such a value tends to hold (岁,
 * 上午, 点, 住...). The search weighs those low and never lets them make a hit alone
 * (retrieve/search.ts).
 *
 * Colloquial and written forms alike: 啥/什么, 啥时候/什么时候/几时/多会儿, 咋/怎么, 哪儿/哪里, 谁.
 * A question word that asks for a thing in general (啥, 什么, 哪个) is taken out and names nothing.
 * Written for this project from ordinary Mandarin usage, no list copied. Pure; Traditional text
 * is read as Simplified first (han-variants.ts).
 */

import { simplifyHan } from './han-variants.js'
import { tokenize } from './tokenizer.js'

export type Asked = 'time' | 'age' | 'place' | 'person' | 'manner' | 'amount'

/** Question words by what they ask for; null: a thing in general. The longest match wins. */
const QUESTION_WORDS: ReadonlyArray<readonly [Asked | null, string]> = [
  ['time', '啥时候 什么时候 啥时 几时 多会儿 何时 哪天 哪一天 哪日 几号 几点 几点钟 星期几 周几 礼拜几 哪年 哪一年 几月 几月份 多久'],
  ['age', '几岁 多大岁数 多大年纪 多大了 多大 多少岁 岁数多少 年纪多大'],
  ['place', '在哪儿 在哪里 在哪 哪儿 哪里 哪 什么地方 啥地方 何处'],
  ['person', '谁 哪位 什么人 啥人'],
  ['manner', '咋样 咋办 咋 怎么样 怎么办 怎么 怎样 如何'],
  ['amount', '多少钱 多少 几个 几次 几位 几 多高 多重 多长 多远'],
  [null, '啥 什么 哪个 哪些 哪家'],
].flatMap(([asked, words]) => (words as string).split(' ').map((w) => [asked as Asked | null, w] as const))

/** Terms of a memory that states such a value: a time, an age, a place... (tokenised as the index is). */
const ANSWER_WORDS: Readonly<Record<Asked, string>> = {
  time: '时间 日期 每天 每周 每月 每年 星期 周一 周二 周三 周四 周五 周六 周日 早上 上午 中午 下午 晚上 点 号 日 月 年 周',
  age: '岁 周岁 年龄 年纪 岁数 今年 出生',
  place: '地址 位置 位于 附近 旁边 住 省 市 区 路 街 楼',
  person: '负责 名字 叫 由 医生 老师 同事',
  manner: '方法 方式 步骤 流程 通过 用',
  amount: '元 块 钱 公斤 斤 米 分钟 小时 个 次 位',
}

/**
 * Tokenised on first use, not on import: tokenising Chinese builds the Traditional-to-Simplified
 * converter (tens of milliseconds), which a process that never reads a Chinese question never needs.
 */
let answerTerms: ReadonlyMap<Asked, readonly string[]> | null = null
const answerTermsByAsk = () =>
  (answerTerms ??= new Map(
    (Object.entries(ANSWER_WORDS) as Array<[Asked, string]>).map(([asked, words]) => [
      asked,
      [...new Set(words.split(' ').flatMap((w) => tokenize(w, { cjkUnigrams: 'isolated' })))],
    ]),
  ))

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')
const askedBy = new Map(QUESTION_WORDS.map(([asked, word]) => [word, asked]))
/**
 * 几 alone asks "how many" only before another character, and not in 几乎 ("almost") or 茶几 (a
 * tea table); 哪 is no question in the name 哪吒.
 */
const QUESTION_PATTERN = new RegExp(
  [...askedBy.keys()]
    .sort((a, b) => b.length - a.length)
    .map((w) => (w === '几' ? '(?<!茶)几(?![乎\\P{Script=Han}])' : w === '哪' ? '哪(?!吒)' : escape(w)))
    .join('|'),
  'gu',
)

export interface QuestionReading {
  /** The query with its question words replaced by spaces (so they join no 2-gram). */
  text: string
  /** What the question words ask for, in the order they stand, without repeats. */
  asks: Asked[]
  /** How many question words were taken out (0: `text` is the query, normalised). */
  removed: number
}

/** The query read as a question: its question words out, what they ask for named. */
export function readQuestion(query: string): QuestionReading {
  const asks: Asked[] = []
  let removed = 0
  const text = simplifyHan(query.normalize('NFKC')).replace(QUESTION_PATTERN, (word) => {
    const asked = askedBy.get(word) ?? null
    if (asked !== null && !asks.includes(asked)) asks.push(asked)
    removed++
    return ' '
  })
  return { text, asks, removed }
}

/** The index terms of a memory that states what these questions ask for. */
export function answerTermsFor(asks: readonly Asked[]): string[] {
  return asks.length === 0 ? [] : [...new Set(asks.flatMap((a) => answerTermsByAsk().get(a) ?? []))]
}
