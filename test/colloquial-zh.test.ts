/**
 * Colloquial Chinese questions (issue 19 item 6) through the real file backend and keyless
 * writes: question words read as what they ask for (language/question-words.ts), colloquial
 * synonym groups (language/zh-synonyms.ts) as alias terms ranked below the words of the query.
 */

import { describe, expect, it } from 'vitest'
import { searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { answerTermsFor, readQuestion } from '../src/language/question-words.js'
import { tokenize } from '../src/language/tokenizer.js'
import { ZH_SYNONYM_GROUPS } from '../src/language/zh-synonyms.js'
import { tempStores } from './store-kit.js'

const tempStore = tempStores('mem-colloquial-')
const store = async (): Promise<MemoryBackend> => (await tempStore()).backend

async function writeAll(b: MemoryBackend, summaries: readonly string[]): Promise<string[]> {
  const ids: string[] = []
  for (const summary of summaries) ids.push((await writeHandler(b, { summary })).id)
  return ids
}

const search = async (b: MemoryBackend, query: string) => (await searchHandler(b, { query, top_k: 5 })).hits

describe('question words', () => {
  it('are taken out of the query and named by what they ask for', () => {
    expect(readQuestion('开会是啥时候')).toEqual({ text: '开会是 ', asks: ['time'], removed: 1 })
    expect(readQuestion('小猫几岁了')).toEqual({ text: '小猫 了', asks: ['age'], removed: 1 })
    expect(readQuestion('他住哪儿')).toEqual({ text: '他住 ', asks: ['place'], removed: 1 })
    expect(readQuestion('谁管上线')).toEqual({ text: ' 管上线', asks: ['person'], removed: 1 })
    expect(readQuestion('咋报销')).toEqual({ text: ' 报销', asks: ['manner'], removed: 1 })
    // Traditional forms are read as Simplified; a thing in general names nothing.
    expect(readQuestion('護照啥時候到期').asks).toEqual(['time'])
    expect(readQuestion('开的啥车')).toEqual({ text: '开的 车', asks: [], removed: 1 })
    // 几 asks "how many" before a character, not in 几乎 and not at the end.
    expect(readQuestion('上几年级').asks).toEqual(['amount'])
    expect(readQuestion('几乎每天')).toEqual({ text: '几乎每天', asks: [], removed: 0 })
    expect(readQuestion('茶几上的钥匙').asks).toEqual([])
    expect(readQuestion('哪吒的电影').asks).toEqual([])
    // English is untouched.
    expect(readQuestion('when is the standup?')).toEqual({ text: 'when is the standup?', asks: [], removed: 0 })
  })

  it('leave no 2-gram of their own in the query, and an age question names the terms of an age', () => {
    const tokens = tokenize(readQuestion('开会是啥时候').text)
    expect(tokens).toEqual(['开', '开会', '会'])
    expect(answerTermsFor(['age'])).toContain('岁')
    expect(answerTermsFor(['time'])).toEqual(expect.arrayContaining(['上午', '点', '周']))
  })
})

describe('synonym groups', () => {
  it('every member is searched by all its characters (no grammar character drops one)', () => {
    for (const [name, members] of Object.entries(ZH_SYNONYM_GROUPS)) {
      expect(members.length, name).toBeGreaterThan(1)
      for (const m of members) {
        const tokens = tokenize(m, { cjkUnigrams: 'isolated' })
        const chars = Array.from(m)
        expect(tokens.join(''), `${name}: ${m}`).toBe(chars.length === 1 ? m : chars.slice(0, -1).map((c, i) => c + chars[i + 1]).join(''))
      }
    }
  })
})

describe('colloquial questions find the memory that answers them', () => {
  it('the three known misses: 开会是啥时候, 小猫几岁了, 忌口', async () => {
    const b = await store()
    const [meeting, cat, diet] = await writeAll(b, [
      '周会时间是每周一上午九点半，在二楼会议室',
      '用户家的猫咪叫豆豆，今年三岁',
      '用户对花生过敏，也不吃香菜',
      '用户在学吉他，每周练两次',
      '项目的周报由小王汇总',
    ])
    expect((await search(b, '开会是啥时候'))[0]?.id).toBe(meeting)
    expect((await search(b, '小猫几岁了'))[0]?.id).toBe(cat)
    const dietHits = await search(b, '忌口')
    expect(dietHits[0]?.id).toBe(diet)
    // Found only through the synonym group, and it says so.
    expect(dietHits[0]?.reason).toBe('alias')
  })

  it('a memory saying the words of the question ranks above one found through a synonym', async () => {
    const b = await store()
    const [kitten, cat] = await writeAll(b, ['用户小时候养过一只小猫，后来送人了', '用户现在养的猫咪叫豆豆'])
    const hits = await search(b, '小猫')
    expect(hits.map((h) => h.id)).toEqual([kitten, cat])
    expect(hits.map((h) => h.reason)).toEqual(['match', 'alias'])
  })

  it('an alias does not make an unrelated memory outrank the right one', async () => {
    const b = await store()
    const [panda, catFood] = await writeAll(b, ['用户最喜欢的动物是熊猫，去过成都看熊猫', '用户的猫咪只吃鸡肉味的猫粮'])
    // 熊猫 holds 猫, which brings the cat group in: the panda memory still comes first.
    const pandaHits = await search(b, '熊猫')
    expect(pandaHits[0]?.id).toBe(panda)
    expect(pandaHits.find((h) => h.id === catFood)?.reason ?? 'alias').toBe('alias')

    const c = await store()
    const [allergy, lunch] = await writeAll(c, ['孩子对芒果过敏', '用户中午不吃饭，只喝咖啡'])
    // "不吃" is in the diet group with 过敏, yet a question that says 过敏 finds the allergy first.
    expect((await search(c, '孩子过敏'))[0]?.id).toBe(allergy)
    expect((await search(c, '中午不吃饭'))[0]?.id).toBe(lunch)
  })

  it('a question-word answer term never makes a hit on its own', async () => {
    const b = await store()
    await writeAll(b, ['用户每周三上午十点去游泳', '用户今年三十二岁'])
    // 啥时候 asks a time and both memories hold time words, yet neither is about a concert.
    expect(await search(b, '音乐会啥时候')).toEqual([])
    expect(await search(b, '几岁')).toEqual([])
  })

  it('Traditional forms of a colloquial question find a Simplified memory, and the other way', async () => {
    const b = await store()
    const [passport, meeting] = await writeAll(b, ['用户的护照将在2027年6月过期', '例會定在每週五下午三點'])
    expect((await search(b, '護照啥時候到期'))[0]?.id).toBe(passport)
    expect((await search(b, '开会是啥时候'))[0]?.id).toBe(meeting)
  })

  it('English queries are read as before', async () => {
    const b = await store()
    const [standup] = await writeAll(b, ['The team standup is at 9:30 every Monday', 'The cat is three years old'])
    const hits = await search(b, 'when is the standup')
    expect(hits.map((h) => h.id)).toEqual([standup])
    expect(hits[0]?.reason).toBe('match')
  })
})
