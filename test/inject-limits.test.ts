/**
 * Per-turn injection limits (seed 002): at most `profileTopN` memories get a line (default 8),
 * the next are listed as `#id` lines while they fit, the rest counted; a token budget
 * (`injectTokenBudget`, 1.5 tokens a Han character, 4 other characters a token) bounds the text
 * beside the character budget, so Chinese is not counted as cheap as English; an untitled memory
 * prints its summary once, not "X.: X.". Through the library: resident injection is the DSH
 * host's per-turn context; MCP has no per-turn injection to test.
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
    expect(lines.slice(8)).toEqual(written.slice(0, 4).reverse().map((w) => `#${w.id}`))
    // The summary once: no "X: X" for a memory written without a title.
    expect(lines[0]).toBe('> Harbour note 11: the ferry leaves pier 11.')
    await saveConfigPatch(backend, { profileTopN: 3 })
    const capped = injectionText(backend)
    expect([capped.included, capped.indexed]).toEqual([3, 9])
    expect(injectionText(backend, { maxMemories: 12 }).included).toBe(12)
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
