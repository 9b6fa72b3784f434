/**
 * Thirty days of one user, in the spirit of seed 003's evaluation: 25 writes across daily
 * sessions (stable facts, two values that change, a three-hop chain, chit-chat, repeats), one
 * forget request, and 12 questions answered only through the tool handlers, with the store's
 * clock moved day by day (createFileBackend's `now`, so ledger and memory times agree):
 *   3 stable facts, 2 current values after a change, 2 values as of an earlier day,
 *   1 multi-hop question, and 4 around the forget (answerable before; refused after, reworded,
 *   and as of a day before the forget).
 * The answerer is deliberately plain: the top search hit's summary, or a refusal when no hit
 * covers at least half of the question's words; the judge checks for the expected words (or a
 * refusal that does not leak the value). All 12 must be right.
 */

import { describe, expect, it } from 'vitest'
import {
  digestHandler,
  forgetValueHandler,
  injectionText,
  rebuildIndex,
  searchHandler,
  tokenize,
  writeHandler,
  type MemoryBackend,
} from '../src/api.js'
import { tempStores } from './store-kit.js'

const REFUSAL = '记忆里没有这件事。'
const day = (n: number) => `2026-04-${String(n).padStart(2, '0')}T10:00:00.000Z`

interface Write {
  day: number
  summary: string
  title?: string
  raw?: string
  entities?: string[]
}

/** 25 writes. Facts are topics (title = slot); chit-chat is episodes with raw text. */
const WRITES: Write[] = [
  { day: 1, summary: '我叫李明。', title: '姓名' },
  { day: 1, summary: '我住在杭州。', title: '居住城市' },
  { day: 2, summary: '我的饮食是素食。', title: '饮食' },
  { day: 3, summary: '今天天气不错，随便聊了聊周末计划。', raw: '用户：今天天气真好。\n助手：周末有什么计划？' },
  { day: 4, summary: '我每天坐地铁上班。', title: '通勤方式' },
  { day: 5, summary: '我哥哥叫李强。', title: '哥哥', entities: ['李强'] },
  { day: 6, summary: '聊了一部新上映的电影，觉得还行。', raw: '用户：昨天看了新电影。\n助手：感觉怎么样？' },
  { day: 7, summary: '李强的生日是3月14日。', title: '李强生日', entities: ['李强'] },
  { day: 8, summary: '我在一家做支付的公司当后端工程师。', title: '职业' },
  { day: 9, summary: '用户说今天有点累，想早点睡。', raw: '用户：好累，想早点睡。' },
  { day: 10, summary: '李强喜欢摄影，最近在研究镜头。', title: '李强爱好', entities: ['李强'] },
  { day: 11, summary: '我的银行卡密码是 739105。', title: '银行卡密码' },
  { day: 12, summary: '聊了聊最近看的一本科幻小说。', raw: '用户：最近在看《三体》。' },
  { day: 13, summary: '我养了一只叫豆豆的猫。', title: '宠物' },
  { day: 14, summary: '今天天气不错，随便聊了聊周末计划。', raw: '用户：天气又不错。' },
  { day: 15, summary: '我最近开始吃鸡胸肉了，不再只吃素。', title: '饮食' },
  { day: 16, summary: '提醒：我对花生过敏。', title: '过敏' },
  { day: 17, summary: '用户问了下明天会不会下雨。', raw: '用户：明天会下雨吗？' },
  { day: 18, summary: '我现在改骑自行车上班了，不坐地铁。', title: '通勤方式' },
  { day: 19, summary: '我喜欢喝美式咖啡，不加糖。', title: '咖啡' },
  { day: 20, summary: '用户说卡的密码 739105 记在手机备忘录里。', raw: '用户：卡的密码 739105 我记在备忘录里了。' },
  { day: 21, summary: '随便聊了聊周末去西湖散步。', raw: '用户：周末去西湖走走。' },
  { day: 22, summary: '李强下个月要去云南旅游。', title: '李强旅行', entities: ['李强'] },
  { day: 23, summary: '我最喜欢的运动是羽毛球。', title: '运动' },
  { day: 24, summary: '用户说今天有点累，想早点睡。', raw: '用户：今天也好累。' },
]

interface Question {
  /** The day it is asked on (the forget happens on day 25). */
  day: number
  category: string
  question: string
  /** Words the answer must hold; null: the right answer is a refusal. */
  expect: string[] | null
  asOf?: string
  hops?: boolean
}

const QUESTIONS: Question[] = [
  { day: 30, category: 'stable', question: '用户的姓名', expect: ['李明'] },
  { day: 30, category: 'stable', question: '用户的居住城市', expect: ['杭州'] },
  { day: 30, category: 'stable', question: '用户的宠物', expect: ['豆豆'] },
  { day: 30, category: 'current value', question: '用户的饮食', expect: ['鸡胸肉'] },
  { day: 30, category: 'current value', question: '用户的通勤方式', expect: ['自行车'] },
  { day: 30, category: 'as of', question: '用户的饮食', asOf: day(10), expect: ['素食'] },
  { day: 30, category: 'as of', question: '用户的通勤方式', asOf: day(12), expect: ['地铁'] },
  { day: 30, category: 'multi-hop', question: '哥哥的生日送什么礼物', hops: true, expect: ['3月14日', '摄影'] },
  { day: 24, category: 'before forget', question: '用户的银行卡密码', expect: ['739105'] },
  { day: 30, category: 'after forget', question: '用户的银行卡密码', expect: null },
  { day: 30, category: 'reworded probe', question: '卡的密码是多少', expect: null },
  { day: 30, category: 'as-of probe', question: '用户的银行卡密码', asOf: day(21), expect: null },
]

const newStore = tempStores('scenario-30-')

/** Words of two or more characters (CJK 2-grams, latin words): what a question asks about. */
const strongTerms = (text: string) => new Set(tokenize(text).filter((t) => Array.from(t).length >= 2))

/**
 * The top hit's summary, or a refusal. A hit that covers less than half of the question's words
 * does not answer it (a memory that only shares "用户" with a question about a password).
 */
async function lookUp(backend: MemoryBackend, query: string, asOf?: string): Promise<{ text: string; entities: string[] }> {
  const out = await searchHandler(backend, { query, top_k: 3, ...(asOf !== undefined ? { asOf } : {}) })
  const top = out.hits[0]
  const asked = strongTerms(query)
  const covered = top === undefined ? 0 : [...strongTerms(`${top.title} ${top.summary}`)].filter((t) => asked.has(t)).length
  if (top === undefined || covered * 2 < asked.size) return { text: REFUSAL, entities: [] }
  const entry = (await backend.indexView()).get(top.id)
  return { text: top.summary, entities: entry?.entities ?? [] }
}

/** Three hops: who the brother is, his birthday, what he likes; each hop searches with the name found. */
async function answerByHops(backend: MemoryBackend): Promise<string> {
  const brother = await lookUp(backend, '哥哥')
  const name = brother.entities[0]
  if (name === undefined) return REFUSAL
  const birthday = await lookUp(backend, `${name} 生日`)
  const hobby = await lookUp(backend, `${name} 爱好`)
  if (birthday.text === REFUSAL || hobby.text === REFUSAL) return REFUSAL
  return `${name}：${birthday.text}${hobby.text}可以送和这个爱好有关的礼物。`
}

async function answer(backend: MemoryBackend, q: Question): Promise<string> {
  if (q.hops === true) return answerByHops(backend)
  return (await lookUp(backend, q.question, q.asOf)).text
}

function judge(q: Question, text: string): boolean {
  if (q.expect === null) return text === REFUSAL && !text.includes('739105')
  return q.expect.every((w) => text.includes(w))
}

describe('a 30-day user, answered through the tools', () => {
  it('gets all 12 questions right: stable facts, current values, as-of values, a multi-hop chain, refusal after a forget', { timeout: 60_000 }, async () => {
    const { backend, at } = await newStore(day(1))

    const answers: Array<{ q: Question; text: string; right: boolean }> = []
    const ask = async (q: Question) => {
      at(day(q.day))
      const text = await answer(backend, q)
      answers.push({ q, text, right: judge(q, text) })
    }

    let dedupes = 0
    for (const w of WRITES) {
      at(day(w.day))
      const out = await writeHandler(backend, {
        summary: w.summary,
        session_id: `day-${String(w.day).padStart(2, '0')}`,
        ...(w.title !== undefined ? { title: w.title } : {}),
        ...(w.raw !== undefined ? { raw: w.raw } : {}),
        ...(w.entities !== undefined ? { entities: w.entities } : {}),
      })
      if (out.dedupe !== undefined) dedupes++
    }
    expect(WRITES).toHaveLength(25)
    // The two repeated chit-chats are recognised, not stored again.
    expect(dedupes).toBe(2)

    for (const q of QUESTIONS.filter((x) => x.day <= 24)) await ask(q)

    // Day 25: "forget my bank card password". The other memory that repeats the number goes too.
    at(day(25))
    const forgot = await forgetValueHandler(backend, { query: '银行卡密码' })
    expect(forgot.forgotten.map((f) => f.reason).sort()).toEqual(['query', 'repeats'])

    for (const q of QUESTIONS.filter((x) => x.day > 24)) await ask(q)

    const report = answers.map((a) => `${a.right ? 'ok  ' : 'FAIL'} [${a.q.category}] ${a.q.question}${a.q.asOf ? ` (as of ${a.q.asOf.slice(0, 10)})` : ''} -> ${a.text}`).join('\n')
    expect(answers).toHaveLength(12)
    expect(answers.filter((a) => a.right).length, report).toBe(12)

    // Nothing else says the forgotten value: resident injection, digests, the whole store's search.
    expect(injectionText(backend, { budgetChars: 8000 }).text).not.toContain('739105')
    const slots = await digestHandler(backend, { refresh: true })
    expect(JSON.stringify(slots)).not.toContain('739105')
    expect((await searchHandler(backend, { query: '739105' })).hits).toEqual([])
    expect(await rebuildIndex(backend)).toMatchObject({ badIndexLines: 0 })
  })
})
