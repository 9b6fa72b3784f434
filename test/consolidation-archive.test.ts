/**
 * What consolidation lets leave search, and when (issue 17, Archive and Merge): an episode whose
 * statement a topic holds (holdsStatement) after `consolidateArchiveDays` (7); small talk merged
 * word for word across sessions, never promoted as a fact; no session summary that only repeats
 * its episodes. Keyless, untitled episodes in Chinese and English, real stores, the clock moved.
 */

import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { consolidate, restoreHandler, searchHandler, writeHandler, type IndexEntry, type MemoryBackend } from '../src/api.js'
import { EXCHANGE_TAG, FOLD_JOINER } from '../src/memory/consolidation/fold.js'
import { holdsStatement } from '../src/memory/consolidation/promote.js'
import { tempStores } from './store-kit.js'

const store = tempStores('consolidation-archive-')
const DAY = 86_400_000
const dayAfter = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString()

async function episode(b: MemoryBackend, session: string, time: string, summary: string): Promise<string> {
  return (await writeHandler(b, { summary, type: 'episode', session_id: session, time })).id
}

const statusOf = async (b: MemoryBackend, id: string) => (await b.indexView()).get(id)?.status
const topics = async (b: MemoryBackend) => [...(await b.indexView()).values()].filter((e: IndexEntry) => e.type === 'topic' && e.status === 'active')

describe('holdsStatement: a topic holds what an episode says', () => {
  it('its words, the same subject and value, or a near restatement (en, zh)', () => {
    expect(holdsStatement('Set up the hook ‖ Said hello to the assistant.', 'Said hello to the assistant.')).toBe(true)
    expect(holdsStatement('我住在杭州。', '用户说我住在杭州。')).toBe(true)
    expect(holdsStatement('The staging database port is 5433.', 'The user said the staging database port is 5433.')).toBe(true)
    expect(holdsStatement('我每天坐地铁上班。', '我每天都坐地铁上班。')).toBe(true)
  })

  it('not another fact of the same person, another value, or more than the topic says (en, zh)', () => {
    expect(holdsStatement('李强的生日是3月14日。', '李强喜欢摄影，最近在研究镜头。')).toBe(false)
    expect(holdsStatement('我每天坐地铁上班。', '我现在改骑自行车上班了。')).toBe(false)
    expect(holdsStatement('The staging database port is 5433.', 'The staging database port is 6543.')).toBe(false)
    expect(holdsStatement('The user lives in Lisbon.', 'Scheduled the vendor sync for 10:00 Lisbon time, since that is where the user lives.')).toBe(false)
  })
})

describe('archive window for covered episodes', () => {
  for (const lang of [
    { name: 'zh', said: ['我的工位在三楼东区。', '用户又说了一次：我的工位在三楼东区。', '我的工位在三楼东区。'] },
    { name: 'en', said: ['My desk is on the third floor, east wing.', 'The user said again that my desk is on the third floor, east wing.', 'My desk is on the third floor, east wing.'] },
  ]) {
    it(`an episode the topic holds leaves search after consolidateArchiveDays, not before; a restore wins (${lang.name})`, async () => {
      const t0 = '2026-05-01T10:00:00.000Z'
      const { backend: b, at } = await store(t0)
      const ids: string[] = []
      for (const [i, s] of lang.said.slice(0, 2).entries()) {
        at(dayAfter(t0, i))
        ids.push(await episode(b, `s${i}`, dayAfter(t0, i), s))
      }
      at(dayAfter(t0, 2))
      const first = await consolidate(b, { dryRun: false })
      expect(first.promoted).toHaveLength(1)
      expect(first.archived).toEqual([])
      // Six and a half days after the oldest statement: still inside the window.
      at(dayAfter(t0, 6.5))
      expect((await consolidate(b, { dryRun: false })).archived).toEqual([])
      at(dayAfter(t0, 8.5))
      const due = await consolidate(b, { dryRun: false })
      expect(due.archived.sort()).toEqual([...ids].sort())
      expect((await searchHandler(b, { query: lang.said[0] as string, top_k: 5 })).hits.map((h) => h.id)).toEqual([first.promoted[0]?.id])
      await restoreHandler(b, { ids: [ids[0] as string] })
      at(dayAfter(t0, 20))
      expect((await consolidate(b, { dryRun: false })).archived).toEqual([])
      expect(await statusOf(b, ids[0] as string)).toBe('active')
    })
  }

  it('the window is the store\'s setting: 30 days keeps them a month', async () => {
    const t0 = '2026-05-01T10:00:00.000Z'
    const { backend: b, at, root } = await store(t0)
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateArchiveDays: 30 }))
    await episode(b, 's0', t0, 'My desk is on the third floor, east wing.')
    await episode(b, 's1', dayAfter(t0, 1), 'The user said again that my desk is on the third floor, east wing.')
    at(dayAfter(t0, 20))
    const run = await consolidate(b, { dryRun: false })
    expect(run.promoted).toHaveLength(1)
    expect(run.archived).toEqual([])
    at(dayAfter(t0, 32))
    expect((await consolidate(b, { dryRun: false })).archived).toHaveLength(2)
  })

  it('a fact is not joined by another fact of the same person: the birthday said again is one topic, the hobby stays searchable (zh)', async () => {
    const t0 = '2026-05-01T10:00:00.000Z'
    const { backend: b, at } = await store(t0)
    const said = ['李强的生日是3月14日。', '李强喜欢摄影，最近在研究镜头。', '给李强挑了生日礼物，他的生日是3月14日。']
    const ids: string[] = []
    for (const [i, s] of said.entries()) ids.push(await episode(b, `d${i}`, dayAfter(t0, 3 * i), s))
    at(dayAfter(t0, 20))
    await consolidate(b, { dryRun: false })
    // The birthday is said in two sessions: one topic, of the two birthday episodes only.
    const [topic, ...more] = await topics(b)
    expect(more).toEqual([])
    expect(topic?.derived_from?.sort()).toEqual([ids[0], ids[2]].sort())
    // The hobby was said once and shares only the name: it stays searchable.
    expect(await statusOf(b, ids[1] as string)).toBe('active')
    expect((await searchHandler(b, { query: '李强 摄影', top_k: 1 })).hits[0]?.id).toBe(ids[1])
  })
})

describe('small talk', () => {
  for (const lang of [
    { name: 'zh', talk: ['今天天气不错，随便聊了聊周末计划。', '随便聊了聊周末去西湖散步。'], lone: '聊了一部新上映的电影，觉得还行。', fact: ['今天天气不错，随便聊了聊，我的工位在三楼东区。', '我的工位在三楼东区。'] },
    { name: 'en', talk: ['Chatted about the Lakers game with the user.', 'Small talk about the Lakers game again, a close one.'], lone: 'Chatted about a new film, it was fine.', fact: ['I live in Porto, and the weather is nice.', 'I live in Porto.'] },
  ]) {
    it(`said again in other words, it is merged word for word, never promoted; a lone line stays; a fact said over small talk is promoted (${lang.name})`, async () => {
      const t0 = '2026-05-01T10:00:00.000Z'
      const { backend: b, at } = await store(t0)
      const a = await episode(b, 'd1', t0, lang.talk[0] as string)
      const lone = await episode(b, 'd2', dayAfter(t0, 1), lang.lone)
      const c = await episode(b, 'd3', dayAfter(t0, 2), lang.talk[1] as string)
      await episode(b, 'd4', dayAfter(t0, 3), lang.fact[0] as string)
      await episode(b, 'd5', dayAfter(t0, 4), lang.fact[1] as string)
      at(dayAfter(t0, 5))
      // A preview shows the merge, and archives nothing written inside the window.
      const preview = await consolidate(b, { dryRun: true })
      expect([preview.exchanges.map((x) => x.derived_from), preview.archived]).toEqual([[[a, c]], []])
      const run = await consolidate(b, { dryRun: false })
      // The fact is promoted; the small talk is not a fact.
      expect(run.promoted.map((p) => p.summary)).toEqual([lang.fact[1]])
      const merged = (await topics(b)).filter((t) => t.tags.includes(EXCHANGE_TAG))
      expect(merged.map((t) => [t.summary, t.derived_from])).toEqual([[`${lang.talk[0]}${FOLD_JOINER}${lang.talk[1]}`, [a, c]]])
      expect(run.exchanges).toEqual([{ id: merged[0]?.id, session: 'd1, d3', derived_from: [a, c] }])
      // Nothing new: a second run merges nothing again.
      expect((await consolidate(b, { dryRun: false })).exchanges).toEqual([])
      at(dayAfter(t0, 13))
      const later = await consolidate(b, { dryRun: false })
      expect(later.archived).toEqual(expect.arrayContaining([a, c]))
      expect(await statusOf(b, lone)).toBe('active')
      expect((await searchHandler(b, { query: lang.talk[1] as string, top_k: 1 })).hits[0]?.id).toBe(merged[0]?.id)
    })
  }
})

describe('session summaries', () => {
  for (const lang of [
    { name: 'zh', two: ['我叫李明。', '我住在杭州。'], three: ['我养了一只叫豆豆的猫。', '看了一眼监控面板。', '我对花生过敏。'] },
    { name: 'en', two: ['My name is Ana.', 'I live in Porto.'], three: ['I have a cat named Tom.', 'Looked at the dashboards.', 'I am allergic to peanuts.'] },
  ]) {
    it(`none that would quote every episode whole; one that quotes some (${lang.name})`, async () => {
      const t0 = '2026-05-01T10:00:00.000Z'
      const { backend: b, at } = await store(t0)
      for (const [i, s] of lang.two.entries()) await episode(b, 'short', dayAfter(t0, i / 100), s)
      for (const [i, s] of lang.three.entries()) await episode(b, 'long', dayAfter(t0, 1 + i / 100), s)
      at(dayAfter(t0, 2))
      const run = await consolidate(b, { dryRun: false })
      expect(run.reflected.map((r) => r.session)).toEqual(['long'])
      expect(run.reflected[0]?.summary).not.toContain(lang.three[1])
    })
  }
})
