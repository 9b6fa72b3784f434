/**
 * Thirty days of one user, in the spirit of seed 003's evaluation (bench/scenario-data.ts holds
 * the writes, the forget, the 12 questions, the answerer and the judge, shared with
 * bench/scenario.ts): the keyed arm, facts written with a title, answered only through the tool
 * handlers with the store's clock moved day by day (createFileBackend's `now`, so ledger and
 * memory times agree). All 12 must be right.
 */

import { describe, expect, it } from 'vitest'
import * as api from '../src/api.js'
import { FORGOTTEN_VALUE, WRITES, answerReport, day, playScenario } from '../bench/scenario-data.js'
import { tempStores } from './store-kit.js'

const newStore = tempStores('scenario-30-')

describe('a 30-day user, answered through the tools', () => {
  it('gets all 12 questions right: stable facts, current values, as-of values, a multi-hop chain, refusal after a forget', { timeout: 60_000 }, async () => {
    const { backend, at } = await newStore(day(1))
    const run = await playScenario(api, backend, at, 'keyed')

    expect(WRITES).toHaveLength(25)
    // The two repeated chit-chats are recognised, not stored again.
    expect(run.dedupes).toBe(2)
    // Day 25: "forget my bank card password". The other memory that repeats the number goes too.
    expect([...run.forgotten].sort()).toEqual(['query', 'repeats'])

    expect(run.answers).toHaveLength(12)
    expect(run.answers.filter((a) => a.right).length, answerReport(run.answers)).toBe(12)

    // Nothing else says the forgotten value: resident injection, digests, the whole store's search.
    expect(api.injectionText(backend, { budgetChars: 8000 }).text).not.toContain(FORGOTTEN_VALUE)
    const slots = await api.digestHandler(backend, { refresh: true })
    expect(JSON.stringify(slots)).not.toContain(FORGOTTEN_VALUE)
    expect((await api.searchHandler(backend, { query: FORGOTTEN_VALUE })).hits).toEqual([])
    expect(await api.rebuildIndex(backend)).toMatchObject({ badIndexLines: 0 })
  })

  it('keyless, untitled writes get the same 12 right, and consolidated daily, with fewer searchable memories', { timeout: 60_000 }, async () => {
    const { backend, at } = await newStore(day(1))
    const naive = await playScenario(api, backend, at, 'free text, naive')
    expect(naive.answers.filter((a) => a.right).length, answerReport(naive.answers)).toBe(12)
    const { backend: other, at: atOther } = await newStore(day(1))
    const consolidated = await playScenario(api, other, atOther, 'free text, consolidated')
    expect(consolidated.answers.filter((a) => a.right).length, answerReport(consolidated.answers)).toBe(12)
    // The weather-and-weekend small talk of days 3, 14 and 21 is merged into one record and set
    // aside a week later; no fact is lost from search.
    expect(consolidated.records.searchable).toBeLessThan(naive.records.searchable)
    expect(consolidated.consolidation.exchanges).toBe(1)
  })
})
