/**
 * Retrieval practice over simulated days: the store's clock moves, memory_review_queue shows cues
 * only, memory_review reveals, memory_report schedules with SM-2 (1 -> 6 -> round(prev x ease),
 * failure resets, ease floor 1.3), the schedule lives in front-matter, and injection counts what
 * is due.
 */

import { describe, expect, it } from 'vitest'
import { findTool, injectionText, rebuildIndex, writeMemoryTool } from '../src/api.js'
import { MAX_INTERVAL_DAYS, schedule, initialState } from '../src/memory/organisation/sm2.js'
import { isUnderReview } from '../src/store/review-fields.js'
import { expectCode, tempStores } from './store-kit.js'

const newStore = tempStores('dsh-memory-review-')
const DAY = 86_400_000
const day = (n: number, hour = 9) => new Date(Date.UTC(2026, 0, 1 + n, hour)).toISOString()
const tool = (name: string) => {
  const t = findTool(name)
  if (t === undefined) throw new Error(`no tool ${name}`)
  return t.handler as (b: unknown, input: unknown) => Promise<any>
}
const queue = tool('memory_review_queue')
const review = tool('memory_review')
const report = tool('memory_report')

describe('SM-2 (pure)', () => {
  it('runs 1 -> 6 -> round(prev x ease), resets on failure, keeps ease at 1.3 or more', () => {
    let s = initialState(day(0))
    const intervals: number[] = []
    for (const q of [5, 5, 5, 5]) {
      s = schedule(s, q, day(0))
      intervals.push(s.interval)
    }
    // Ease grows by 0.1 per grade 5: 2.6, 2.7, 2.8; each interval uses the ease in force before it.
    expect(intervals).toEqual([1, 6, Math.round(6 * 2.7), Math.round(Math.round(6 * 2.7) * 2.8)])
    const failed = schedule(s, 1, day(0))
    expect(failed).toMatchObject({ interval: 1, reps: 0, lapses: 1 })
    let low = initialState(day(0))
    for (let i = 0; i < 20; i++) low = schedule(low, 0, day(0))
    expect(low.ease).toBe(1.3)
    expect(low.importance).toBe(0)
  })

  it('caps the interval at MAX_INTERVAL_DAYS: a hundred clear recalls in a row still give a date', () => {
    let s = initialState(day(0))
    for (let i = 0; i < 100; i++) s = schedule(s, 5, day(0))
    expect(s.interval).toBe(MAX_INTERVAL_DAYS)
    expect(Date.parse(s.due) - Date.parse(day(0))).toBe(MAX_INTERVAL_DAYS * 86_400_000)
  })
})

describe('retrieval practice over simulated days', () => {
  it('queues cues only, reveals, schedules in front-matter, counts due in injection', async () => {
    const { backend, at } = await newStore(day(0))
    const w = await writeMemoryTool.handler(backend, { summary: 'The staging database listens on port 6543, not 5432.', title: 'Staging DB port' })
    const path = w.path
    expect(await backend.readFile(path)).toContain(`review_due: '${day(1)}'`)

    // Day 0: nothing due yet, injection says nothing about recall.
    expect((await queue(backend, {})).due_total).toBe(0)
    expect(injectionText(backend).text).not.toContain('今日待回忆')

    // Day 1: due; the cue is the title and place, never the summary.
    at(day(1))
    const q1 = await queue(backend, {})
    expect(q1.due_total).toBe(1)
    expect(q1.items[0]).toMatchObject({ id: w.id, cue_kind: 'title', cue: 'Staging DB port', days_overdue: 0, reps: 0 })
    expect(JSON.stringify(q1)).not.toContain('6543')
    expect(injectionText(backend).text).toContain('今日待回忆 1 条')
    const shown = await review(backend, { id: w.id })
    expect(shown.summary).toContain('6543')

    // Recall on days 1, 2 and 8: intervals 1, 6, round(6 x 2.6).
    const r1 = await report(backend, { id: w.id, grade: 5 })
    expect(r1.next).toMatchObject({ interval: 1, reps: 1, due: day(2), importance: 0.55 })
    expect(isUnderReview((await backend.indexView()).get(w.id) ?? {})).toBe(true)
    at(day(1, 20))
    expect((await queue(backend, {})).due_total).toBe(0)
    at(day(2))
    expect((await report(backend, { id: w.id, outcome: 'success' })).next).toMatchObject({ interval: 6, reps: 2, due: day(8) })
    at(day(5))
    expect((await queue(backend, {})).due_total).toBe(0)
    at(day(10))
    const q3 = await queue(backend, {})
    expect(q3.items[0]).toMatchObject({ id: w.id, days_overdue: 2 })
    const r3 = await report(backend, { id: w.id, grade: 4 })
    expect(r3.previous.ease).toBe(2.6)
    expect(r3.next.interval).toBe(Math.round(6 * 2.6))
    expect(Date.parse(r3.next.due) - Date.parse(day(10))).toBe(r3.next.interval * DAY)

    // A failure starts over at one day, with a lapse and less importance.
    at(day(30))
    const r4 = await report(backend, { id: w.id, outcome: 'failure' })
    expect(r4.next).toMatchObject({ interval: 1, reps: 0, lapses: 1, due: day(31) })
    expect(r4.next.importance).toBeCloseTo(r3.next.importance - 0.1, 5)

    // The schedule is in the file: the index is a projection of it.
    const text = (await backend.readFile(path)) ?? ''
    expect(text).toMatch(/review_interval: 1\n/)
    expect(text).toMatch(/reviewed_at: /)
    const before = (await backend.readIndex()).find((e) => e.id === w.id)
    await rebuildIndex(backend)
    expect((await backend.readIndex()).find((e) => e.id === w.id)).toEqual(before)
    const events = (await backend.readLedger()).filter((e) => e.event === 'review')
    expect(events.map((e) => e.grade)).toEqual([5, 4, 4, 1])
  })

  it('orders the most overdue first, cuts at limit, and refuses bad reports', async () => {
    const { backend, at } = await newStore(day(0))
    const a = await writeMemoryTool.handler(backend, { summary: 'Alpha fact about the deploy window on Fridays.' })
    at(day(3))
    const b = await writeMemoryTool.handler(backend, { summary: 'Beta fact about the release train cadence.' })
    at(day(10))
    const q = await queue(backend, { limit: 1 })
    expect(q).toMatchObject({ due_total: 2, has_more: true })
    expect(q.items[0]).toMatchObject({ id: a.id, days_overdue: 9 })
    await expectCode(report(backend, { id: b.id }), 'INVALID_INPUT')
    await expectCode(report(backend, { id: b.id, grade: 3, outcome: 'success' }), 'INVALID_INPUT')
    await expectCode(report(backend, { id: b.id, grade: 6 }), 'INVALID_INPUT')
    await expectCode(report(backend, { id: 'mem_nope' }), 'INVALID_INPUT')
    await expectCode(report(backend, { id: 'mem_nope', grade: 3 }), 'NOT_FOUND')
  })

  it('leaves out memories with review: off, and suggested ones', async () => {
    const { backend, at } = await newStore(day(0))
    await writeMemoryTool.handler(backend, { summary: 'A gated note about the VPN endpoint rotation.', requireConfirmation: true })
    await backend.writeFileAtomic('topics/hand-written.md', `---\nid: mem_hand\nreview: off\nreview_due: '${day(0)}'\n---\n# Hand note\n\nKept out of practice.\n`)
    await rebuildIndex(backend)
    at(day(20))
    expect((await queue(backend, {})).due_total).toBe(0)
  })
})
