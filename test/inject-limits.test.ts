/**
 * Per-turn injection limits (seed 002): at most `profileTopN` memories get a line (default 8),
 * the next are listed as `#id` lines while they fit, the rest counted; a token budget
 * (`injectTokenBudget`, 1.5 tokens a Han character, 4 other characters a token) bounds the text
 * beside the character budget, so Chinese is not counted as cheap as English; an untitled memory
 * prints its summary once, not "X.: X."; every memory line and `#id` line carries its place
 * (room#slot) and a room directory counts by room what got no line of its own (seed 002).
 * Through the library: resident injection is the DSH host's per-turn context; MCP has no
 * per-turn injection to test.
 */

import { describe, expect, it } from 'vitest'
import { injectionText, injectionTokens, saveConfigPatch, writeHandler } from '../src/api.js'
import { tempStores } from './store-kit.js'

const store = tempStores('dsh-inject-limits-')

describe('resident injection limits', () => {
  it('caps lines at profileTopN and lists the next by #id; untitled memories print once', async () => {
    const { backend } = await store()
    const written = []
    for (let i = 0; i < 12; i++) written.push(await writeHandler(backend, { summary: `Harbour note ${i}: the ferry leaves pier ${i}.`, time: `2026-01-01T00:00:${String(10 + i)}Z` }))
    const out = injectionText(backend)
    expect(out.included).toBe(8)
    expect(out.indexed).toBe(4)
    expect(out.omitted).toBe(0)
    const lines = out.text.split('\n').slice(2)
    expect(lines.slice(0, 8).every((l) => l.startsWith('> Harbour note '))).toBe(true)
    // The next by id with their places, then the directory of what got no line: 9 slots a room.
    expect(lines.slice(8, 12)).toEqual(written.slice(0, 4).reverse().map((w) => `#${w.id} @topics#${written.indexOf(w) + 1}`))
    expect(lines[12]).toBe('房间目录（其余 4 条）：topics 4；memory_rooms 看房间')
    expect(lines).toHaveLength(13)
    // The summary once: no "X: X" for a memory written without a title; its place at the end.
    expect(lines[0]).toBe('> Harbour note 11: the ferry leaves pier 11. @topics-2#3')
    await saveConfigPatch(backend, { profileTopN: 3 })
    const capped = injectionText(backend)
    expect([capped.included, capped.indexed]).toEqual([3, 9])
    expect(injectionText(backend, { maxMemories: 12 }).included).toBe(12)
  })

  it('room coordinates on every line, and a directory by room of the memories without a line, in Chinese and English free text', async () => {
    const { backend } = await store()
    const placed = new Map<string, string>()
    for (let i = 0; i < 14; i++) {
      const w = await writeHandler(backend, i % 2 === 0 ? { summary: `第${i}条：港口渡轮每天早上从${i}号码头出发。` } : { summary: `Harbour note ${i}: the ferry leaves pier ${i}.` })
      placed.set(w.id, w.location as string)
    }
    const episode = await writeHandler(backend, { summary: '聊了聊周末去西湖散步。', raw: '用户：周末去西湖走走。', session_id: 's1' })
    placed.set(episode.id, episode.location as string)
    const out = injectionText(backend, { maxMemories: 3, budgetChars: 8000 })
    const lines = out.text.split('\n').slice(2)
    const memoryLines = lines.filter((l) => l.startsWith('> '))
    const idLines = lines.filter((l) => l.startsWith('#'))
    expect(memoryLines).toHaveLength(3)
    for (const l of memoryLines) expect(l).toMatch(/ @(topics|topics-2|episodes)#\d+$/)
    for (const l of idLines) {
      const [id, at] = l.slice(1).split(' @')
      expect(placed.get(id as string)).toBe(at)
    }
    // Every memory without a line of its own is counted in its room: 15 memories, 3 with a line.
    const directory = lines.at(-1) as string
    const counts = Object.fromEntries([...directory.matchAll(/([a-z0-9-]+) (\d+)/g)].map((m) => [m[1], Number(m[2])]))
    expect(directory).toMatch(/^房间目录（其余 12 条）：/)
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(12)
    const expected: Record<string, number> = {}
    for (const at of placed.values()) {
      const room = at.split('#')[0] as string
      expected[room] = (expected[room] ?? 0) + 1
    }
    for (const l of memoryLines) {
      const room = (/ @([a-z0-9-]+)#/.exec(l) as RegExpExecArray)[1] as string
      expected[room] = (expected[room] ?? 0) - 1
    }
    expect(counts).toEqual(Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0)))
    // Within a small budget the directory still fits: the text never passes its budget.
    const tight = injectionText(backend, { budgetChars: 300 })
    expect(tight.text.length).toBeLessThanOrEqual(300)
    expect(tight.text.split('\n').at(-1)).toMatch(/^(房间目录|（另有)/)
  })

  it('the token budget counts Chinese at 1.5 a character: a Chinese store stops within it, an English one within its characters', async () => {
    expect(injectionTokens('数据库')).toBe(5)
    expect(injectionTokens('abcdefgh')).toBe(2)
    const { backend } = await store()
    for (let i = 0; i < 40; i++) await writeHandler(backend, { summary: `第${i}条：港口渡轮每天早上从${i}号码头出发，下午返回，节假日停航。`, title: `渡轮班次${i}` })
    const byChars = injectionText(backend, { tokenBudget: 0 })
    const byTokens = injectionText(backend, { tokenBudget: 300, maxMemories: 64 })
    expect(injectionTokens(byTokens.text)).toBeLessThanOrEqual(300)
    expect(byTokens.text.length).toBeLessThan(byChars.text.length)
    expect(byTokens.included + byTokens.indexed + byTokens.omitted).toBe(40)
    // The default (1024 tokens) holds the default 1500 characters of Chinese to its tokens.
    const defaults = injectionText(backend, { maxMemories: 64 })
    expect(injectionTokens(defaults.text)).toBeLessThanOrEqual(1024)
  })
})
