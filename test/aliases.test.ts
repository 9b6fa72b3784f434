/**
 * Alias groups of a person's attributes (src/retrieve/aliases.ts): a question names the attribute
 * ("用户的姓名", "the user's hobbies") and a keyless statement of it does not ("我叫王芳", "I like
 * hiking"). Real stores, keyless writes through the write handler, search through its handler.
 */

import { describe, expect, it } from 'vitest'
import { aliasTerms, searchHandler, tokenize, writeHandler, type MemoryBackend } from '../src/api.js'
import { BUILTIN_ALIAS_GROUPS, buildAliasTable } from '../src/retrieve/aliases.js'
import { tempStores } from './store-kit.js'

const store = tempStores('mem-aliases-')

/** Keyless episodes of one session each, as an agent or auto-settle writes them; returns their ids. */
async function said(b: MemoryBackend, summaries: readonly string[]): Promise<string[]> {
  const ids: string[] = []
  for (const [i, summary] of summaries.entries()) ids.push((await writeHandler(b, { summary, type: 'episode', session_id: `s${i}` })).id)
  return ids
}

describe('aliases of a person\'s attributes', () => {
  it('a question naming the attribute finds the statement that leaves it unnamed, ahead of talk that only shares the person', async () => {
    const { backend: b } = await store()
    const [name, home, pet, hobby] = await said(b, ['我叫王芳。', '我家住在成都。', '我家有一只狗叫旺财。', '王芳喜欢爬山。', '用户说今天有点累。', '用户问了下周末的天气。'])
    const top = async (query: string) => (await searchHandler(b, { query, top_k: 3 })).hits[0]
    expect((await top('用户的姓名'))?.id).toBe(name)
    expect((await top('用户住哪'))?.id).toBe(home)
    expect((await top('用户的宠物'))?.id).toBe(pet)
    const h = await top('王芳的爱好')
    expect(h?.id).toBe(hobby)
    expect(h?.reason).toBe('match')

    const { backend: e } = await store()
    const [cat, likes] = await said(e, ['Our cat Miso sleeps on the keyboard.', 'Mira likes pottery and hiking.', 'Mira said the meeting ran long.'])
    expect((await searchHandler(e, { query: 'pets', top_k: 3 })).hits[0]?.id).toBe(cat)
    expect((await searchHandler(e, { query: 'Mira hobbies', top_k: 3 })).hits[0]?.id).toBe(likes)
  })

  it('a hit found only through an alias says so, and an attribute brings in no other attribute', async () => {
    const { backend: b } = await store()
    const [cat] = await said(b, ['Our cat Miso sleeps on the keyboard.', 'The quarterly report is due Friday.'])
    const hits = (await searchHandler(b, { query: 'pets', top_k: 3 })).hits
    expect(hits.map((h) => [h.id, h.reason])).toEqual([[cat, 'alias']])
    const table = buildAliasTable(BUILTIN_ALIAS_GROUPS)
    const expanded = new Set(table.expand(tokenize('用户的姓名')))
    expect(expanded.has('名字')).toBe(true)
    for (const other of ['住址', '宠物', '爱好', '喜欢']) expect(expanded.has(other), other).toBe(false)
    expect(table.expand(tokenize('用户的饮食'))).toEqual([])
  })

  it('aliasTerms gives a reader the words search adds: built-in groups and the store\'s aliases.json, nothing for a word in no group', async () => {
    const { backend: b } = await store()
    const home = new Set(await aliasTerms(b, ['居住']))
    for (const w of ['住址', '家住']) expect(home.has(w), w).toBe(true)
    expect(home.has('居住')).toBe(false)
    for (const other of ['城市', '名字', '宠物']) expect(home.has(other), other).toBe(false)
    expect(new Set(await aliasTerms(b, tokenize('pets'))).has('cat')).toBe(true)
    expect(await aliasTerms(b, ['密码'])).toEqual([])
    expect(await aliasTerms(b, ['password'])).toEqual([])
    // The store's own groups count as search counts them, and a change to the file is read again.
    await b.writeFileAtomic('aliases.json', JSON.stringify({ bank: ['银行卡', '储蓄卡'] }))
    expect(await aliasTerms(b, tokenize('银行卡'))).toContain('储蓄')
  })
})
