/**
 * memory_verify: the four verdicts and the evidence lists. The rule under test: a claim about a
 * slot whose current value differs is contradicted, never supported by an old version; an old
 * version that states the claim is listed in superseded_matches.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, memoryVerifyTool, outputViolation, resolveHandler, verifyHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { claimTerms } from '../src/memory/truth/verify.js'
import { effectiveFrom } from '../src/memory/truth/doubt.js'
import { renderValue } from '../src/tools/render/text.js'

const roots: string[] = []
const backends: MemoryBackend[] = []
async function store(clock?: { now: string }): Promise<MemoryBackend> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-verify-'))
  roots.push(root)
  const b = createFileBackend(root, clock !== undefined ? { now: () => clock.now } : {})
  backends.push(b)
  return b
}
afterAll(async () => {
  for (const b of backends) await flushCaches(b)
  for (const r of roots) await fs.rm(r, { recursive: true, force: true })
})

async function verify(b: MemoryBackend, input: { claim: string; scope?: string; asOf?: string }) {
  const out = await verifyHandler(b, input)
  expect(outputViolation(memoryVerifyTool.output, out)).toBeNull()
  return out
}

describe('memory_verify', () => {
  it('supports a claim the current memory states, in other words too', async () => {
    const b = await store()
    const m = await writeHandler(b, { summary: 'billing service database -> mysql', key: 'billing service database', tags: ['database'] })
    for (const claim of ['billing service database -> mysql', 'The billing service uses MySQL as its database', 'billing service database is MySQL']) {
      const v = await verify(b, { claim })
      expect(v.verdict, claim).toBe('supported')
      expect(v.support?.id).toBe(m.id)
      expect(v.support?.coverage).toBeGreaterThanOrEqual(0.8)
      expect(v.contradicting).toEqual([])
      expect(v.note).toMatch(new RegExp(`^SUPPORTED by ${m.id}`))
    }
  })

  it('a claim that matches an old version is contradicted by the current one, and the old one is a superseded match', async () => {
    const b = await store()
    const old = await writeHandler(b, { summary: 'billing service database -> postgres', key: 'billing service database' })
    const cur = await writeHandler(b, { summary: 'billing service database -> mysql', key: 'billing service database' })
    expect(cur.superseded).toEqual([old.id])
    for (const claim of ['billing service database -> postgres', 'The billing service database is Postgres']) {
      const v = await verify(b, { claim })
      expect(v.verdict, claim).toBe('contradicted')
      expect(v.support).toBeNull()
      expect(v.contradicting.map((r) => r.id)).toEqual([cur.id])
      expect(v.superseded_matches.map((r) => r.id)).toEqual([old.id])
      expect(v.superseded_matches[0]?.status).toBe('superseded')
      expect(v.note).toContain(`CONTRADICTED: memory's current statement is ${cur.id}: billing service database -> mysql`)
      expect(v.note).toContain(`older version: ${old.id} (superseded)`)
    }
  })

  it('a claim quoting an old version word for word is contradicted even when it does not name the key', async () => {
    const b = await store()
    const key = 'kestrel-staging-db'
    const old = await writeHandler(b, { summary: 'The staging database of project Kestrel is PostgreSQL 16 listening on port 6543', key })
    const cur = await writeHandler(b, { summary: 'The staging database of project Kestrel moved to port 6544', key })
    const v = await verify(b, { claim: 'The staging database of project Kestrel is PostgreSQL 16 listening on port 6543' })
    expect(v.verdict).toBe('contradicted')
    expect(v.support).toBeNull()
    expect(v.superseded_matches.map((r) => r.id)).toEqual([old.id])
    expect(v.contradicting.map((r) => r.id)).toEqual([cur.id])
  })

  it('a claim naming a slot with another value is contradicted even without history (another number, or nothing shared beyond the key)', async () => {
    const b = await store()
    const port = await writeHandler(b, { summary: 'The API server now listens on port 9090.', key: 'API port' })
    const v = await verify(b, { claim: 'The API server port is 8080' })
    expect(v.verdict).toBe('contradicted')
    expect(v.contradicting.map((r) => r.id)).toEqual([port.id])
    expect(v.superseded_matches).toEqual([])
    const lang = await writeHandler(b, { summary: 'Python 3.12 with uv', key: 'toolchain' })
    expect((await verify(b, { claim: 'toolchain: Rust and cargo' })).contradicting.map((r) => r.id)).toEqual([lang.id])
    // More detail than memory holds is not a contradiction: unknown, with the closest memory named.
    const more = await verify(b, { claim: 'The API server listens on port 9090 behind an nginx proxy with TLS termination' })
    expect(more.verdict).toBe('unknown')
    expect(more.note).toContain(`Closest: ${port.id}`)
  })

  it('numbers must all be stated: a claim with a wrong number is never supported by a memory that shares its other words', async () => {
    const b = await store()
    await writeHandler(b, { summary: 'Nightly backups keep 14 days of snapshots in the eu-west bucket.' })
    expect((await verify(b, { claim: 'Nightly backups keep 14 days of snapshots in the eu-west bucket' })).verdict).toBe('supported')
    expect((await verify(b, { claim: 'Nightly backups keep 30 days of snapshots in the eu-west bucket' })).verdict).toBe('unknown')
  })

  it('unknown: nothing states it; the note says to say so instead of guessing', async () => {
    const b = await store()
    const empty = await verify(b, { claim: 'The cafeteria serves ramen on Fridays' })
    expect(empty.verdict).toBe('unknown')
    expect(empty.note).toMatch(/^UNKNOWN: no memory states this\..*Say it is not in memory rather than guessing\.$/)
    await writeHandler(b, { summary: 'The office cafeteria opens at 11:30.' })
    const v = await verify(b, { claim: 'The cafeteria serves ramen on Fridays' })
    expect(v.verdict).toBe('unknown')
    expect(v.support).toBeNull()
    // A claim of stop words only has nothing to check.
    const nothing = await verify(b, { claim: 'it is what it is' })
    expect(nothing.verdict).toBe('unknown')
    expect(nothing.note).toContain('no words memory could be checked against')
    expect(claimTerms('it is what it is').size).toBe(0)
  })

  it('an unresolved conflict in the slot makes a supported claim contested (unknown); resolving it decides', async () => {
    const b = await store()
    const a = await writeHandler(b, { summary: 'Release day is Tuesday.', key: 'release day' })
    const c = await writeHandler(b, { summary: 'Release day is Thursday.', key: 'release day', expectConflict: true })
    const v = await verify(b, { claim: 'Release day is Tuesday' })
    expect(v.verdict).toBe('unknown')
    expect(v.support?.id).toBe(a.id)
    expect(v.contradicting.map((r) => r.id)).toEqual([c.id])
    expect(v.note).toMatch(/^UNKNOWN \(contested\)/)
    await resolveHandler(b, { id: c.id, action: 'keep' })
    expect((await verify(b, { claim: 'Release day is Tuesday' })).verdict).toBe('contradicted')
    expect((await verify(b, { claim: 'Release day is Thursday' })).verdict).toBe('supported')
  })

  it('an unkeyed mention does not outweigh the slot: the slot current value contradicts, the mention is reported', async () => {
    const b = await store()
    const ep = await writeHandler(b, { summary: 'We tried: billing service database -> postgres, for a week.', session_id: 's1', raw: 'chat' })
    const cur = await writeHandler(b, { summary: 'billing service database -> mysql', key: 'billing service database' })
    const v = await verify(b, { claim: 'billing service database -> postgres' })
    expect(v.verdict).toBe('contradicted')
    expect(v.support?.id).toBe(ep.id)
    expect(v.contradicting.map((r) => r.id)).toEqual([cur.id])
    expect(v.note).toContain(`${ep.id} mentions it, but the slot's current statement overrides a mention`)
  })

  it('newer related memories make the support stale', async () => {
    const clock = { now: '2026-01-01T00:00:00.000Z' }
    const b = await store(clock)
    const first = await writeHandler(b, { summary: 'The search cluster runs on three nodes.', entities: ['search cluster'] })
    clock.now = '2026-03-01T00:00:00.000Z'
    const later = await writeHandler(b, { summary: 'Scaled the search cluster down to two nodes to save cost.', entities: ['search cluster'] })
    const v = await verify(b, { claim: 'The search cluster runs on three nodes' })
    // The newer memory gives the same subject another number: the old one is no ground to assert it.
    expect(v.verdict).toBe('unknown')
    expect(v.support?.id).toBe(first.id)
    expect(v.stale_support).toBe(true)
    expect(v.newer_related.map((r) => r.id)).toEqual([later.id])
    expect(v.note).toContain(`STALE SUPPORT?: newer related memories exist (${later.id})`)
    expect(renderValue('memory_verify', v).split('\n')[0]).toBe('Verdict: unknown (stale support?).')
    // Without another value, a newer memory about the subject only marks the support stale.
    const c = await store(clock)
    const only = await writeHandler(c, { summary: 'The search cluster runs on three nodes.', entities: ['search cluster'] })
    clock.now = '2026-04-01T00:00:00.000Z'
    await writeHandler(c, { summary: 'Added a dashboard for the search cluster latency.', entities: ['search cluster'] })
    const w = await verify(c, { claim: 'The search cluster runs on three nodes' })
    expect(w.verdict).toBe('supported')
    expect(w.support?.id).toBe(only.id)
    expect(w.stale_support).toBe(true)
  })

  it('asOf: judged by memory as it was then, when the old value was current', async () => {
    const clock = { now: '2026-01-01T00:00:00.000Z' }
    const b = await store(clock)
    await writeHandler(b, { summary: 'billing service database -> postgres', key: 'billing service database' })
    clock.now = '2026-02-01T00:00:00.000Z'
    await writeHandler(b, { summary: 'billing service database -> mysql', key: 'billing service database' })
    expect((await verify(b, { claim: 'billing service database -> postgres', asOf: '2026-01-15T00:00:00Z' })).verdict).toBe('supported')
    expect((await verify(b, { claim: 'billing service database -> mysql', asOf: '2026-01-15T00:00:00Z' })).verdict).toBe('contradicted')
    expect((await verify(b, { claim: 'billing service database -> postgres' })).verdict).toBe('contradicted')
    await expect(verifyHandler(b, { claim: 'x', asOf: 'last week' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'asOf' })
  })

  it('renders the verdict, the quotable note and one line per memory through the shared renderer', async () => {
    const b = await store()
    const old = await writeHandler(b, { summary: 'Staging runs Node 18.', key: 'staging node', scope: 'env=staging' })
    const cur = await writeHandler(b, { summary: 'Staging runs Node 20.', key: 'staging node', scope: 'env=staging' })
    const v = await verify(b, { claim: 'Staging runs Node 18' })
    const text = renderValue('memory_verify', v)
    const lines = text.split('\n')
    expect(lines[0]).toBe('Verdict: contradicted.')
    expect(lines[1]).toBe(v.note)
    expect(lines).toContain(`- contradicting ${cur.id} [topic, active] [ASSERTED] [scope: env=staging] Staging runs Node 20. (${cur.path.length > 0 ? v.contradicting[0]?.time.slice(0, 10) : ''}, ${cur.path})`)
    expect(text).toContain(`- old version ${old.id} [topic, superseded]`)
  })
})

describe('memory_verify on rules alone: what never supports (issue 27)', () => {
  it('a memory that negates the value never supports it', async () => {
    const b = await store()
    await writeHandler(b, { summary: 'Nadia no longer plays the cello.' })
    const v = await verifyHandler(b, { claim: 'Nadia plays the cello' })
    expect(v.verdict).not.toBe('supported')
  })

  it('a change yet to come supports nothing now, and casts doubt on the value it replaces', async () => {
    const b = await store()
    await writeHandler(b, { summary: 'The design review is on Thursdays.' })
    const later = await writeHandler(b, { summary: 'Starting next month, the design review is on Mondays.' })
    expect((await verifyHandler(b, { claim: 'The design review is on Mondays' })).verdict).not.toBe('supported')
    const old = await verifyHandler(b, { claim: 'The design review is on Thursdays' })
    expect(old.verdict).not.toBe('supported')
    expect(old.note).toContain(later.id)
  })

  it('a sibling subject that shares none of the claim beyond the subject word leaves the support alone', async () => {
    const b = await store()
    const m = await writeHandler(b, { summary: 'Lucia prefers green tea.' })
    await writeHandler(b, { summary: 'Lucia moved her desk to floor 4.' })
    const v = await verifyHandler(b, { claim: 'Lucia prefers green tea' })
    expect(v.verdict).toBe('supported')
    expect(v.support?.id).toBe(m.id)
  })
})

describe('memory_verify on rules alone: a precise doubt before supported (issue 27)', () => {
  it('a memory at least as new about an overlapping subject with another value or a change makes the answer unknown, naming it', async () => {
    const b = await store()
    await writeHandler(b, { summary: 'The company VPN client is OpenVPN.' })
    const later = await writeHandler(b, { summary: "VPN update: it's WireGuard now, IT rolled it out to every laptop last week." })
    const v = await verify(b, { claim: 'The company VPN client is OpenVPN' })
    expect(v.verdict).toBe('unknown')
    expect(v.note).toMatch(/^UNKNOWN \(doubt\)/)
    expect(v.note).toContain(later.id)
    const zh = await store()
    await writeHandler(zh, { summary: '客服首响 SLA 是 2 小时。' })
    const zhLater = await writeHandler(zh, { summary: '客服首次响应 SLA 是 4 小时。' })
    const z = await verify(zh, { claim: '客服首响 SLA 为两小时' })
    expect(z.verdict).toBe('unknown')
    expect(z.note).toContain(zhLater.id)
  })

  it('a subject worded otherwise doubts only with a value of the same typed kind (a port, a time of day), in English and Chinese', async () => {
    const b = await store()
    // Two words for one thing that the subject term list leaves apart ("the API" and "backend
    // service" are one term there, and a write supersedes one with the other).
    await writeHandler(b, { summary: 'The gateway listens on port 8080.' })
    const port = await writeHandler(b, { summary: 'Our proxy listens on port 9090.' })
    const v = await verify(b, { claim: 'The gateway listens on port 8080' })
    expect(v.verdict).toBe('unknown')
    expect(v.note).toContain(port.id)
    const zh = await store()
    await writeHandler(zh, { summary: '报表服务每天凌晨两点跑。' })
    const moved = await writeHandler(zh, { summary: '数据导出任务改到凌晨四点了。' })
    const z = await verify(zh, { claim: '报表服务每天凌晨两点跑' })
    expect(z.verdict).toBe('unknown')
    expect(z.note).toContain(moved.id)
  })

  it('notes about other attributes of one service leave a support alone, even with a change cue', async () => {
    const b = await store()
    const db = await writeHandler(b, { summary: 'billing service database -> postgres' })
    await writeHandler(b, { summary: 'note that billing service currency -> EUR' })
    await writeHandler(b, { summary: 'note that billing service request timeout -> 30 s' })
    await writeHandler(b, { summary: 'moved the billing CSV export to a background job' })
    const v = await verify(b, { claim: 'The billing service uses postgres as its database' })
    expect(v.verdict).toBe('supported')
    expect(v.support?.id).toBe(db.id)
    const zh = await store()
    const cache = await writeHandler(zh, { summary: '缓存服务用的是 redis 6' })
    await writeHandler(zh, { summary: '缓存服务最大内存配了 4 GB' })
    const z = await verify(zh, { claim: '缓存服务用的是 redis 6' })
    expect(z.verdict).toBe('supported')
    expect(z.support?.id).toBe(cache.id)
  })

  it('different named things never doubt each other', async () => {
    const b = await store()
    const alice = await writeHandler(b, { summary: 'Alice lives in Berlin.' })
    await writeHandler(b, { summary: 'Bob moved to Paris.' })
    const v = await verify(b, { claim: 'Alice lives in Berlin' })
    expect(v.verdict).toBe('supported')
    expect(v.support?.id).toBe(alice.id)
  })

  it('5(a): two current memories of one fact under different premises; a caller naming a premise neither conflicts with is not contradicted', async () => {
    const b = await store()
    const staging = await writeHandler(b, { summary: 'The API server listens on port 8080.', scope: 'env=staging' })
    const prod = await writeHandler(b, { summary: 'The API server listens on port 9090.', scope: 'env=prod' })
    for (const [claim, id] of [['The API server listens on port 9090', prod.id], ['The API server listens on port 8080', staging.id]] as const) {
      const v = await verify(b, { claim, scope: 'region=eu' })
      expect(v.verdict, claim).toBe('supported')
      expect(v.support?.id).toBe(id)
      expect(v.contradicting).toEqual([])
    }
    const zh = await store()
    await writeHandler(zh, { summary: 'API 服务监听 8080 端口。', scope: 'env=staging' })
    const zhProd = await writeHandler(zh, { summary: 'API 服务监听 9090 端口。', scope: 'env=prod' })
    const z = await verify(zh, { claim: 'API 服务监听 9090 端口', scope: 'region=eu' })
    expect(z.verdict).toBe('supported')
    expect(z.support?.id).toBe(zhProd.id)
  })

  it('5(b): a memory that says several things supports each clause; a bare name with another untyped value is unknown', async () => {
    const b = await store()
    const mimi = await writeHandler(b, { summary: "Mimi is the family's pet, she sleeps on the sofa." })
    const sofa = await verify(b, { claim: 'Mimi sleeps on the sofa' })
    expect(sofa.verdict).toBe('supported')
    expect(sofa.support?.id).toBe(mimi.id)
    expect((await verify(b, { claim: 'Mimi is a kitten' })).verdict).toBe('unknown')
    expect((await verify(b, { claim: 'Mimi sleeps in the garden' })).verdict).toBe('unknown')
    const zh = await store()
    const cat = await writeHandler(zh, { summary: '咪咪是家里的宠物，它睡在沙发上。' })
    const z = await verify(zh, { claim: '咪咪睡在沙发上' })
    expect(z.verdict).toBe('supported')
    expect(z.support?.id).toBe(cat.id)
    expect((await verify(zh, { claim: '咪咪是一只小猫' })).verdict).toBe('unknown')
  })
})

describe('memory_verify: a change yet to come on a known day (issue 27)', () => {
  // The write files the change as the slot's new version (the old one superseded); until its day the old value is still current.
  const CHANGES = {
    en: { now: 'Standup is at 10:00 every day.', next: 'Starting next week, standup moves to 9:30.', claimNow: 'Standup is at 10:00 every day', claimNext: 'Standup is at 9:30' },
    zh: { now: '站会在每天上午十点。', next: '下周起站会改到上午九点半。', claimNow: '站会在每天上午十点', claimNext: '站会在上午九点半' },
  } as const
  it.each(Object.entries(CHANGES))('the current value is supported until the day, both named; from the day (and asOf after it) the new value is (%s)', async (_, c) => {
    const clock = { now: '2026-12-07T10:00:00.000Z' }
    const b = await store(clock)
    const old = await writeHandler(b, { summary: c.now })
    const next = await writeHandler(b, { summary: c.next })
    expect(next.superseded).toEqual([old.id])
    const before = await verify(b, { claim: c.claimNow })
    expect(before.verdict).toBe('supported')
    expect(before.support?.id).toBe(old.id)
    expect(before.note).toContain(`SUPPORTED until 2026-12-14 by ${old.id}`)
    expect(before.note).toContain(`then ${next.id}`)
    expect((await verify(b, { claim: c.claimNext })).verdict).not.toBe('supported')
    const asOf = await verify(b, { claim: c.claimNext, asOf: '2026-12-15T00:00:00Z' })
    expect(asOf.verdict).toBe('supported')
    expect(asOf.support?.id).toBe(next.id)
    clock.now = '2026-12-15T09:00:00.000Z'
    expect((await verify(b, { claim: c.claimNext })).support?.id).toBe(next.id)
    expect((await verify(b, { claim: c.claimNow })).verdict).not.toBe('supported')
  })

  it('reads the day from the text and the time written: a date, tomorrow, next week, next month, 下周起', () => {
    const at = '2026-12-09T10:00:00.000Z' // a Wednesday
    expect(effectiveFrom('From 2027-01-05 the on-call rotation is weekly.', at)).toBe('2027-01-05')
    expect(effectiveFrom('Starting next week, standup is at 9:30.', at)).toBe('2026-12-14')
    expect(effectiveFrom('Starting next Monday, standup is at 9:30.', at)).toBe('2026-12-14')
    expect(effectiveFrom('Starting next month, the design review is on Mondays.', at)).toBe('2027-01-01')
    expect(effectiveFrom('From tomorrow the office opens at 8.', at)).toBe('2026-12-10')
    expect(effectiveFrom('下个月起房租涨到 5000 元。', at)).toBe('2027-01-01')
    expect(effectiveFrom('The office opens at 8.', at)).toBeNull()
  })
})
