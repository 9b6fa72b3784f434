/**
 * What a write says it did (issue 29, seed 000): `outcome` from a closed set, `replaced` with the
 * replaced memory's id, version and summary, `neighbours` (the same quiet read as `may_revise`),
 * `importance` on write; a repeated episode keeps its new raw text; and importance as a live
 * signal (seeds 000, 002): repeats and search hits strengthen a memory, within a bound, fading with
 * time, folded into the file by consolidation, while decay still sets the unimportant aside.
 * Keyless, untitled free-text writes in English and Chinese, through the library (tool handlers,
 * outputs checked against their declared schema).
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import * as api from '../src/api.js'
import { backfillHistory } from '../src/lifecycle/backfill.js'
import { importanceLookup } from '../src/memory/organisation/strength-fold.js'
import { STRENGTH } from '../src/memory/organisation/strength.js'
import { signalsSettled } from '../src/memory/organisation/signals.js'
import { expectCode, tempStores } from './store-kit.js'

const newStore = tempStores('write-results-')
const DAY = 86_400_000
const plus = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString()
const T0 = '2026-03-01T09:00:00.000Z'

/** A write through the tool handler, its output checked against the declared schema. */
async function write(backend: api.MemoryBackend, input: Parameters<typeof api.writeHandler>[1]) {
  const out = await api.writeHandler(backend, input)
  expect(api.outputViolation(api.writeMemoryTool.output, out)).toBeNull()
  await signalsSettled(backend)
  return out
}

async function search(backend: api.MemoryBackend, query: string): Promise<string[]> {
  const out = await api.searchHandler(backend, { query })
  await signalsSettled(backend)
  return out.hits.map((h) => h.id)
}

const LANGS = [
  {
    lang: 'en',
    fact: 'The team lunch is on Fridays at noon.',
    correction: 'The team lunch is on Thursdays now.',
    third: 'The team lunch is on Wednesdays now.',
    pair: ['Alice drinks green tea daily.', 'Bruno drinks green tea daily.'],
    query: 'green tea',
    episode: 'Planning call about the launch checklist.',
  },
  {
    lang: 'zh',
    fact: '我平时坐公交上班。',
    correction: '我改骑电动车上班了。',
    third: '我现在改坐地铁上班了。',
    pair: ['小王每天喝绿茶。', '小李每天喝绿茶。'],
    query: '绿茶',
    episode: '讨论了发布前的检查清单。',
  },
] as const

describe.each(LANGS)('write results, keyless free text ($lang)', (c) => {
  it('created, duplicate, updated with replaced {id, version, summary}; neighbours equal may_revise', async () => {
    const { backend } = await newStore()
    const first = await write(backend, { summary: c.fact })
    expect(first.outcome).toBe('created')
    expect(first.replaced).toBeUndefined()

    const again = await write(backend, { summary: c.fact })
    expect(again).toMatchObject({ outcome: 'duplicate', dedupe: 'exact', id: first.id })

    const second = await write(backend, { summary: c.correction })
    expect(second.outcome).toBe('updated')
    expect(second.superseded).toEqual([first.id])
    expect(second.replaced).toEqual({ id: first.id, version: 1, summary: c.fact })

    const third = await write(backend, { summary: c.third })
    expect(third.outcome).toBe('updated')
    expect(third.replaced).toEqual({ id: second.id, version: 2, summary: c.correction })

    // Something near that is not a version of it: listed with why, once, as neighbour and as may_revise.
    const near = await write(backend, { summary: c.pair[0] })
    expect(near.outcome).toBe('created')
    const other = await write(backend, { summary: c.pair[1] })
    expect(other.neighbours?.map((n) => n.id)).toContain(near.id)
    expect(other.neighbours?.every((n) => n.why.length > 0 && n.summary.length > 0)).toBe(true)
    expect(other.may_revise).toEqual(other.neighbours)
    // A repeat revises nothing: neighbours only, never itself.
    const repeat = await write(backend, { summary: c.pair[1] })
    expect(repeat.may_revise).toBeUndefined()
    expect(repeat.neighbours?.map((n) => n.id)).not.toContain(other.id)
  })

  it('a repeated episode summary with new raw text keeps that text (appended); the same text again is a duplicate', async () => {
    const { backend, root } = await newStore()
    const first = await write(backend, { summary: c.episode, raw: `${c.lang}: first transcript`, session_id: 's1' })
    const second = await write(backend, { summary: c.episode, raw: `${c.lang}: second transcript`, session_id: 's2' })
    expect(second).toMatchObject({ outcome: 'appended', dedupe: 'exact', id: first.id, raw_ref: first.raw_ref })
    const raw = await fs.readFile(path.join(root, first.raw_ref as string), 'utf8')
    expect(raw).toContain(`${c.lang}: first transcript`)
    expect(raw).toContain(`${c.lang}: second transcript`)
    expect(raw).toContain('Said again in session s2')
    const third = await write(backend, { summary: c.episode, raw: `${c.lang}: second transcript`, session_id: 's3' })
    expect(third.outcome).toBe('duplicate')
    const after = await fs.readFile(path.join(root, first.raw_ref as string), 'utf8')
    expect(after.split('second transcript')).toHaveLength(2)
    const dedupes = (await backend.readLedger()).filter((e) => e.event === 'dedupe')
    expect(dedupes.map((e) => e.raw_appended === true)).toEqual([true, false])
  })

  it('importance on write: validated, in the front-matter, and it weighs the ranking', async () => {
    const { backend, root } = await newStore()
    await expectCode(write(backend, { summary: c.fact, importance: 1.5 }), 'INVALID_INPUT')
    const err = await api.writeHandler(backend, { summary: c.fact, importance: -0.1 }).catch((e: unknown) => e)
    expect((err as api.MemoryError).field).toBe('importance')

    const plain = await write(backend, { summary: c.pair[0] })
    const weighty = await write(backend, { summary: c.pair[1], importance: 0.9 })
    const file = await fs.readFile(path.join(root, weighty.path), 'utf8')
    expect(file).toMatch(/^importance: 0\.9$/m)
    expect((await backend.indexView()).get(weighty.id)?.importance).toBe(0.9)
    // Equal words, equal length: the important one comes first whichever id sorts first.
    expect(await search(backend, c.query)).toEqual([weighty.id, plain.id])
  })
})

describe.each([
  { lang: 'zh', said: '记住：我的电脑是 M2 MacBook Air。', first: '先到这里。', second: '明天继续。' },
  { lang: 'en', said: 'Remember: my laptop is an M2 MacBook Air.', first: 'That is all for today.', second: 'More tomorrow.' },
])('auto-settle and backfill say the outcome ($lang)', (c) => {
  it('a sentence settled again from another message keeps that message as raw text (appended)', async () => {
    const { backend, root } = await newStore()
    let rpc = 0
    const typed = (t: string): api.HostMessage => ({ role: 'user', content: [{ type: 'text', text: t }], source: { kind: 'user', rpcId: `rpc-${++rpc}` } })
    const one = await api.settleCandidates(backend, { sessionId: 's1', messages: [typed(`${c.said} ${c.first}`)] })
    expect(one.errors).toEqual([])
    expect(one.written.map((w) => w.outcome)).toEqual(['held'])
    const two = await api.settleCandidates(backend, { sessionId: 's2', messages: [typed(`${c.said} ${c.second}`)] })
    expect(two.skipped).toMatchObject([{ id: one.written[0]?.id, outcome: 'appended' }])
    const entry = (await backend.indexView()).get(one.written[0]?.id as string) as api.IndexEntry
    const raw = await fs.readFile(path.join(root, entry.raw_ref as string), 'utf8')
    expect(raw).toContain(c.first)
    expect(raw).toContain(c.second)
  })

  it('backfill counts a sentence said again in another session as a duplicate whose turn text was kept', async () => {
    const { backend } = await newStore()
    let rpc = 0
    const typed = (t: string): api.HostMessage => ({ role: 'user', content: [{ type: 'text', text: t }], source: { kind: 'user', rpcId: `rpc-${++rpc}` } })
    const session = (id: string, t: string) => ({ id, deriveMessages: () => [typed(t)] })
    const report = await backfillHistory(backend, { list: () => [session('b1', `${c.said} ${c.first}`), session('b2', `${c.said} ${c.second}`)] }, { dryRun: false })
    expect(report).toMatchObject({ written: [expect.any(String)], duplicates: 1, appended: 1, failed: 0 })
  })
})

describe.each(LANGS)('importance as a live signal ($lang)', (c) => {
  it('a repeated fact rises above its equal; the gain is bounded and fades with time', async () => {
    const { backend, at } = await newStore(T0)
    const a = await write(backend, { summary: c.pair[0] })
    const b = await write(backend, { summary: c.pair[1] })
    const before = await search(backend, c.query)
    expect(new Set(before)).toEqual(new Set([a.id, b.id]))
    const [, second] = before as [string, string]
    const behind = second === a.id ? c.pair[0] : c.pair[1]
    // The one behind is said again: it rises.
    expect((await write(backend, { summary: behind })).outcome).toBe('duplicate')
    expect(await search(backend, c.query)).toEqual([second, before[0]])

    const entry = (id: string) => backend.indexView().then((v) => v.get(id) as api.IndexEntry)
    const now = async (id: string) => (await importanceLookup(backend))(await entry(id))
    const fresh = (await now(second)) - 0.5
    expect(fresh).toBeGreaterThan(STRENGTH.repeatGain * 0.75)
    // A half-life later about half the gain is left (a little more: the sum is saturated).
    at(plus(T0, STRENGTH.halfLifeDays))
    const faded = (await now(second)) - 0.5
    expect(faded / fresh).toBeGreaterThan(0.5)
    expect(faded / fresh).toBeLessThan(0.6)
    // Said fifty times more that day: still within the bound.
    for (let i = 0; i < 50; i++) await write(backend, { summary: behind })
    const many = (await now(second)) - 0.5
    expect(many).toBeGreaterThan(fresh)
    expect(many).toBeLessThanOrEqual(STRENGTH.max)
    // A year later almost nothing is left.
    at(plus(T0, STRENGTH.halfLifeDays + 365))
    expect((await now(second)) - 0.5).toBeLessThan(0.01)
  })

  it('consolidation folds the strength into the file; without usage.jsonl the file keeps it', async () => {
    const { backend, root, at } = await newStore(T0)
    const a = await write(backend, { summary: c.pair[0] })
    const b = await write(backend, { summary: c.pair[1] })
    for (let i = 0; i < 3; i++) await write(backend, { summary: c.pair[1] })
    at(plus(T0, 1))
    const report = await api.consolidateHandler(backend, { dryRun: false })
    expect(api.outputViolation(api.memoryConsolidateTool.output, report)).toBeNull()
    expect(report.strengthened).toContain(b.id)
    const file = await fs.readFile(path.join(root, b.path), 'utf8')
    expect(file).toMatch(/^strength: 0\.\d+$/m)
    expect(file).toMatch(/^strength_at: /m)
    expect((await backend.readLedger()).some((e) => e.event === 'strength' && e.id === b.id)).toBe(true)
    // Nothing new since: a second run writes nothing.
    expect((await api.consolidateHandler(backend, { dryRun: false })).strengthened).toEqual([])
    // usage.jsonl is derived; lost, the folded strength still ranks b first.
    await fs.rm(path.join(root, 'usage.jsonl'))
    expect(await search(backend, c.query)).toEqual([b.id, a.id])
  })

  it('learnFromSearches false: searches teach nothing, the query log still grows, a repeat still counts', async () => {
    const { backend, root } = await newStore(T0)
    await api.saveConfigPatch(backend, { learnFromSearches: false })
    const a = await write(backend, { summary: c.pair[0] })
    for (let i = 0; i < 3; i++) await search(backend, c.query)
    const usage = () => fs.readFile(path.join(root, 'usage.jsonl'), 'utf8').catch(() => '')
    expect(await usage()).toBe('')
    expect((await fs.readFile(path.join(root, 'query-log.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(3)
    expect((await write(backend, { summary: c.pair[0] })).outcome).toBe('duplicate')
    expect(JSON.parse((await usage()).trim())).toMatchObject({ id: a.id, repeat: true })
  })

  it('decay still works: an unimportant idle memory is archived, the same said again recently is kept', async () => {
    const { backend, at } = await newStore(T0)
    const idle = await write(backend, { summary: c.pair[0], importance: 0.1 })
    const repeated = await write(backend, { summary: c.pair[1], importance: 0.1 })
    const ordinary = await write(backend, { summary: c.fact })
    at(plus(T0, 95))
    expect((await write(backend, { summary: c.pair[1] })).outcome).toBe('duplicate')
    at(plus(T0, 100))
    const preview = await api.decayHandler(backend, { days: 90 })
    expect(api.outputViolation(api.memoryDecayTool.output, preview)).toBeNull()
    expect(preview.archived.map((x) => x.id)).toEqual([idle.id])
    expect(preview.archived[0]?.reason).toContain('importance 0.1 < 0.3')
    const run = await api.decayHandler(backend, { days: 90, dryRun: false })
    expect(run.archived.map((x) => x.id)).toEqual([idle.id])
    const view = await backend.indexView()
    expect(view.get(idle.id)?.status).toBe('archived')
    expect(view.get(repeated.id)?.status).toBe('active')
    expect(view.get(ordinary.id)?.status).toBe('active')
  })
})
