/**
 * When consolidation is due by itself (src/memory/consolidation/triggers.ts): after
 * consolidateAfterEpisodes new episodes since the last run, not within
 * consolidateMinIntervalMinutes of it, not past the daily cap, not while a live process holds
 * the lease; 0 turns it off. Real stores in temp folders, with a clock the test moves.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { consolidate, consolidationDue, writeHandler, type MemoryBackend } from '../src/api.js'
import { BackgroundConsolidation } from '../src/lifecycle/background-consolidation.js'
import { LEASE_FILE } from '../src/memory/consolidation/consolidate.js'
import { tempStores } from './store-kit.js'

const store = tempStores('consolidation-triggers-')
const T0 = '2026-03-01T09:00:00.000Z'

async function episodes(b: MemoryBackend, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) await writeHandler(b, { summary: `Fixed flaky test number ${i} in the billing suite.`, type: 'episode', session_id: `s${i}` })
}

const minutesAfter = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString()

describe('consolidationDue', () => {
  it('counts episodes since the store began, then since the last run; topics do not count', async () => {
    const { backend: b, root } = await store(T0)
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateAfterEpisodes: 3 }))
    expect(await consolidationDue(b)).toMatchObject({ due: false, newEpisodes: 0, lastRunAt: null })
    await episodes(b, 2)
    await writeHandler(b, { summary: 'The billing suite runs on Postgres 16.', type: 'topic' })
    expect(await consolidationDue(b)).toMatchObject({ due: false, newEpisodes: 2, reason: '2 of 3 new episodes since the last run' })
    await episodes(b, 1, 2)
    expect(await consolidationDue(b)).toMatchObject({ due: true, newEpisodes: 3 })

    await consolidate(b, { dryRun: false })
    // A dry run is not a run: it leaves no consolidate event.
    await consolidate(b, { dryRun: true })
    expect(await consolidationDue(b)).toMatchObject({ due: false, newEpisodes: 0, lastRunAt: T0 })
    await episodes(b, 3, 3)
    const early = await consolidationDue(b, Date.parse(minutesAfter(T0, 59)))
    expect(early).toMatchObject({ due: false, newEpisodes: 3, reason: 'the last run was less than 60 minutes ago' })
    expect(await consolidationDue(b, Date.parse(minutesAfter(T0, 60)))).toMatchObject({ due: true, newEpisodes: 3 })
  })

  it('0 turns it off; the interval and the daily cap come from config.json', async () => {
    const { backend: b, root, at } = await store(T0)
    const config = (patch: object) => fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateAfterEpisodes: 1, ...patch }))
    await config({ consolidateAfterEpisodes: 0 })
    // Two sessions of three episodes each (a summary quotes two): once they are finished, a run summarises both (2 changes).
    for (const s of ['a', 'b']) {
      await writeHandler(b, { summary: `Reviewed the retry policy of payment queue ${s} with the team.`, type: 'episode', session_id: s })
      await writeHandler(b, { summary: `Looked at the dashboards of payment queue ${s}.`, type: 'episode', session_id: s })
      await writeHandler(b, { summary: `We decided to cap retries of payment queue ${s} at five.`, type: 'episode', session_id: s })
    }
    expect(await consolidationDue(b)).toMatchObject({ due: false, newEpisodes: 6, reason: 'automatic consolidation is off (consolidateAfterEpisodes is 0)' })
    // With a daily cap of 2, a run that changed 2 memories today leaves nothing due until tomorrow.
    await config({ consolidateMinIntervalMinutes: 0, consolidateDailyItems: 2 })
    at(minutesAfter(T0, 180))
    expect((await consolidate(b, { dryRun: false })).reflected).toHaveLength(2)
    await episodes(b, 1)
    expect(await consolidationDue(b)).toMatchObject({ due: false, newEpisodes: 1, reason: 'daily cap 2 reached' })
    expect(await consolidationDue(b, Date.parse('2026-03-02T00:00:00Z'))).toMatchObject({ due: true })
  })

  it('a live process holding the lease means not now; a dead one does not count', async () => {
    const { backend: b, root } = await store(T0)
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateAfterEpisodes: 1 }))
    await episodes(b, 1)
    await fs.mkdir(path.join(root, '.cache'), { recursive: true })
    await fs.writeFile(path.join(root, LEASE_FILE), JSON.stringify({ pid: process.pid, at: T0 }))
    expect(await consolidationDue(b)).toMatchObject({ due: false, reason: `a run is in progress (process ${process.pid})` })
    await fs.writeFile(path.join(root, LEASE_FILE), JSON.stringify({ pid: 2 ** 22 + 7, at: T0 }))
    expect((await consolidationDue(b)).due).toBe(true)
  })

  it('reads the ledger again only when it changed', async () => {
    const { backend: b, root } = await store(T0)
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateAfterEpisodes: 2 }))
    await episodes(b, 1)
    let reads = 0
    const readLedger = b.readLedger.bind(b)
    b.readLedger = () => (reads++, readLedger())
    for (let i = 0; i < 5; i++) await consolidationDue(b)
    expect(reads).toBe(1)
    await episodes(b, 1, 1)
    expect(await consolidationDue(b)).toMatchObject({ due: true, newEpisodes: 2 })
    expect(reads).toBe(2)
  })
})

describe('BackgroundConsolidation', () => {
  it('runs once when due however often it is poked, and not again until due', async () => {
    const { backend: b, root } = await store()
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateAfterEpisodes: 2 }))
    await episodes(b, 2)
    const runner = new BackgroundConsolidation(b)
    for (let i = 0; i < 5; i++) runner.poke()
    await runner.idle()
    runner.poke()
    await runner.idle()
    expect((await b.readLedger()).filter((e) => e.event === 'consolidate')).toHaveLength(1)
  })

  it('a failure is a console warning, never thrown, and is not retried at once', async () => {
    const { backend: b, root } = await store()
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateAfterEpisodes: 1 }))
    await episodes(b, 1)
    // A cache folder that is a file: the run cannot take its lease.
    const cache = path.join(root, '.cache')
    await fs.rm(cache, { recursive: true, force: true })
    await fs.writeFile(cache, 'not a folder')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    try {
      const runner = new BackgroundConsolidation(b)
      runner.poke()
      await runner.idle()
      runner.poke()
      await runner.idle()
      expect(warn).toHaveBeenCalledTimes(1)
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/^dsh-memory-agent: background consolidation of /)
      expect((await b.readLedger()).filter((e) => e.event === 'consolidate')).toEqual([])
    } finally {
      warn.mockRestore()
      await fs.rm(cache, { force: true })
    }
  })
})
