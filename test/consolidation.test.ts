/**
 * Consolidation (src/memory/consolidation/): free-text episodes from several sessions, as an
 * agent or auto-settle writes them (no key, no title), in English and Chinese. Promotion of what
 * repeats or was confirmed, session summaries, archive of what a topic covers, revision, the
 * dry run, caps, the lease, the ledger and lineage, stale derived memories, and a SIGKILL in the
 * middle of a run followed by a rerun (built library: run `npm run build` first).
 */

import { spawn, spawnSync } from 'node:child_process'
import { existsSync, promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  confirmHandler,
  consolidate,
  consolidateHandler,
  forgetValueHandler,
  lineageHandler,
  restoreHandler,
  searchHandler,
  softDelete,
  writeHandler,
  type IndexEntry,
  type MemoryBackend,
} from '../src/api.js'
import { LEASE_FILE } from '../src/memory/consolidation/consolidate.js'
import { EXCHANGE_TAG } from '../src/memory/consolidation/fold.js'
import { SESSION_SUMMARY_TAG } from '../src/memory/consolidation/reflect.js'
import { expectCode, tempStores } from './store-kit.js'

const store = tempStores('consolidation-')
const repo = path.resolve(import.meta.dirname, '..')
const WORKER = path.join(repo, 'test', 'workers', 'consolidate-run.mjs')

async function episode(b: MemoryBackend, session: string, time: string, summary: string): Promise<string> {
  return (await writeHandler(b, { summary, type: 'episode', session_id: session, time })).id
}

async function entries(b: MemoryBackend): Promise<IndexEntry[]> {
  return [...(await b.indexView()).values()]
}

/** Promoted topics: derived, and not a folded exchange (test/consolidation-fold.test.ts has those). */
const derivedTopics = async (b: MemoryBackend) => (await entries(b)).filter((e) => e.type === 'topic' && e.derived_from !== undefined && !e.tags.includes(EXCHANGE_TAG))

/** A small history: one fact in three sessions (English and Chinese), one-offs, chatter. */
async function history(b: MemoryBackend): Promise<Record<string, string>> {
  return {
    lisbon1: await episode(b, 's1', '2026-02-02T08:30:00Z', 'User mentioned they are based in Lisbon, so a 9:00 UTC call works for them.'),
    hook: await episode(b, 's1', '2026-02-02T08:40:00Z', 'Set up the pre-commit hook for ruff in the scraper repo.'),
    hello1: await episode(b, 's1', '2026-02-02T08:45:00Z', 'Said hello to the assistant.'),
    lisbon2: await episode(b, 's2', '2026-02-05T14:00:00Z', 'Scheduled the vendor sync for 10:00 Lisbon time, since that is where the user lives.'),
    notes: await episode(b, 's2', '2026-02-05T14:10:00Z', 'Drafted the release notes for v2.3.'),
    hello2: await episode(b, 's3', '2026-02-09T16:00:00Z', 'Said hello to the assistant.'),
    lisbon3: await episode(b, 's3', '2026-02-09T16:20:00Z', '用户说他住在 Lisbon，想找周末徒步的路线。'),
  }
}

describe('promote', () => {
  it('a fact said in three sessions (English and Chinese) becomes one topic naming its episodes; one-offs and chatter stay', async () => {
    const { backend: b } = await store()
    const ids = await history(b)
    const report = await consolidate(b, { dryRun: false })
    expect(report.promoted).toHaveLength(1)
    const [p] = report.promoted
    expect(p?.derived_from.sort()).toEqual([ids.lisbon1, ids.lisbon2, ids.lisbon3].sort())
    expect(p?.sessions.sort()).toEqual(['s1', 's2', 's3'])
    expect(p?.status).toBe('active')
    const topics = await derivedTopics(b)
    expect(topics.map((t) => t.id)).toEqual([p?.id])
    expect(topics[0]?.summary).toMatch(/Lisbon/)
    // The file says where it came from, for a person as for the index.
    const text = await b.readFile(topics[0]?.path as string)
    expect(text).toContain('derived_from:')
    // The topic is found by search; lineage shows the promotion.
    expect((await searchHandler(b, { query: 'Lisbon' })).hits.map((h) => h.id)).toContain(p?.id)
    const lineage = await lineageHandler(b, { id: p?.id as string })
    expect(lineage.events.map((e) => e.event)).toEqual(expect.arrayContaining(['write', 'promote']))
    // A rerun changes nothing; a fourth mention reinforces the same topic.
    const again = await consolidate(b, { dryRun: false })
    expect([again.promoted.length, again.reinforced.length]).toEqual([0, 0])
    const more = await episode(b, 's4', '2026-02-12T10:00:00Z', 'Booked the team offsite in Lisbon, close to where the user lives.')
    const fourth = await consolidate(b, { dryRun: false })
    expect(fourth.promoted).toEqual([])
    expect(fourth.reinforced).toEqual([{ id: p?.id, added: [more], status: 'active' }])
    expect((await b.indexView()).get(p?.id as string)?.derived_from).toContain(more)
  })

  it('thin evidence waits at the confirmation gate; a third session lets the topic through', async () => {
    const { backend: b } = await store()
    await episode(b, 'g1', '2026-02-02T08:30:00Z', 'User mentioned they are based in Lisbon.')
    await episode(b, 'g2', '2026-02-09T16:20:00Z', '用户说他住在 Lisbon，想找周末徒步的路线。')
    const first = await consolidate(b, { dryRun: false })
    expect(first.promoted.map((p) => p.status)).toEqual(['suggested'])
    const third = await episode(b, 'g3', '2026-02-12T10:00:00Z', 'Booked the Lisbon co-working desk the user asked for, near where they live.')
    const second = await consolidate(b, { dryRun: false })
    expect(second.reinforced).toEqual([{ id: first.promoted[0]?.id, added: [third], status: 'active' }])
    expect((await b.indexView()).get(first.promoted[0]?.id as string)?.status).toBe('active')
  })

  it('a statement confirmed by the user is promoted from one session', async () => {
    const { backend: b } = await store()
    const out = await writeHandler(b, { summary: '用户确认：生产数据库每天凌晨 3 点备份。', type: 'episode', session_id: 'z1', time: '2026-01-05T03:00:00Z', requireConfirmation: true })
    await confirmHandler(b, { id: out.id })
    await episode(b, 'z1', '2026-01-05T03:05:00Z', '帮用户调整了日志级别。')
    const report = await consolidate(b, { dryRun: false })
    expect(report.promoted.map((p) => [p.reason, p.derived_from])).toEqual([['confirmed', [out.id]]])
  })

  it('two services with their own ports, or one name with two versions, are one-offs, not one fact', async () => {
    const { backend: b } = await store()
    await episode(b, 'p1', '2026-01-01T10:00:00Z', 'The auth service listens on port 8080.')
    await episode(b, 'p2', '2026-01-03T10:00:00Z', 'The billing service listens on port 9090.')
    await episode(b, 'p3', '2026-01-04T10:00:00Z', 'The mobile app supports iOS 16 and later.')
    await episode(b, 'p4', '2026-01-06T10:00:00Z', "The user's own phone is on iOS 17.")
    expect((await consolidate(b, { dryRun: false })).promoted).toEqual([])
  })

  it('a fact is its subject and what is said of it: a shared value, a shared owner or a shared attribute ties nothing (zh)', async () => {
    const { backend: b } = await store()
    // One value for two owners' intervals; one owner (the order service) with two attributes; one
    // attribute of two services with two values. Each said in a session of its own, on days 1-5.
    const said = ['短信网关的重试间隔是 45 秒。', '搜索集群的刷新间隔是 45 秒。', '订单服务的日志保留 14 天。', '给订单服务接入了链路追踪。', '库存服务的日志保留 30 天。']
    for (const [i, text] of said.entries()) await episode(b, `o${i}`, `2026-01-0${i + 1}T10:00:00Z`, text)
    expect((await consolidate(b, { dryRun: false })).promoted).toEqual([])
    // The same owner's same attribute said again is one fact, and only that one.
    const again = await episode(b, 'o6', '2026-01-09T10:00:00Z', '订单服务的日志还是只保留 14 天，够排查用了。')
    const { promoted } = await consolidate(b, { dryRun: false })
    expect(promoted.map((p) => p.derived_from.length)).toEqual([2])
    expect(promoted[0]?.derived_from).toContain(again)
  })

  it('an old value said in two sessions is not promoted once a later session changes it; the new value said twice is', async () => {
    const { backend: b } = await store()
    await episode(b, 'v1', '2026-01-01T10:00:00Z', "The user's piano lesson is on Mondays at 5pm.")
    await episode(b, 'v2', '2026-01-03T10:00:00Z', 'Reminded the user about the Monday 5pm piano lesson.')
    const moved = await episode(b, 'v3', '2026-01-05T10:00:00Z', 'The user moved the piano lesson to Thursdays at 6pm.')
    const first = await consolidate(b, { dryRun: false })
    // The new value is said once: nothing about the lesson is promoted.
    expect(first.promoted).toEqual([])
    const again = await episode(b, 'v4', '2026-01-08T10:00:00Z', 'Blocked Thursday 6pm in the calendar for the piano lesson.')
    const second = await consolidate(b, { dryRun: false })
    expect(second.promoted.map((p) => p.derived_from.sort())).toEqual([[moved, again].sort()])
    expect(second.promoted[0]?.summary).toMatch(/Thursday.*6pm/)
  })

  it('something done restates a fact it names in passing, never makes one with another event (en, zh)', async () => {
    const { backend: b } = await store()
    const stated = await episode(b, 'r1', '2026-01-01T10:00:00Z', 'Feature flags are managed in LaunchDarkly.')
    const done = await episode(b, 'r2', '2026-01-03T10:00:00Z', 'Fixed a stale LaunchDarkly flag that hid the new checkout.')
    await episode(b, 'r3', '2026-01-04T10:00:00Z', '用户下个月要去成都参加婚礼。')
    await episode(b, 'r4', '2026-01-06T10:00:00Z', '帮用户订了婚礼那天的酒店。')
    const { promoted } = await consolidate(b, { dryRun: false })
    expect(promoted.map((p) => [p.summary, p.derived_from.sort()])).toEqual([['Feature flags are managed in LaunchDarkly.', [stated, done].sort()]])
  })

  it('a date shared by two deadlines ties nothing; the same deadline said again is one fact', async () => {
    const { backend: b } = await store()
    const tax = await episode(b, 'd1', '2026-01-01T10:00:00Z', "The user's tax filing deadline is April 15.")
    await episode(b, 'd2', '2026-01-03T10:00:00Z', 'The conference talk proposal is due on April 15 as well.')
    const again = await episode(b, 'd3', '2026-01-05T10:00:00Z', 'Set a reminder a week before the April 15 tax deadline.')
    const { promoted } = await consolidate(b, { dryRun: false })
    expect(promoted.map((p) => p.derived_from.sort())).toEqual([[tax, again].sort()])
  })

  it('a correction said once revises the promoted topic (automatic revision)', async () => {
    const { backend: b } = await store()
    await episode(b, 'r1', '2026-01-01T10:00:00Z', 'The gateway port is 8443.')
    await episode(b, 'r2', '2026-01-04T10:00:00Z', 'The gateway port is 8443.')
    const first = await consolidate(b, { dryRun: false })
    expect(first.promoted).toHaveLength(1)
    await episode(b, 'r3', '2026-01-09T10:00:00Z', 'The gateway port is now 9443.')
    const second = await consolidate(b, { dryRun: false })
    expect(second.promoted.map((p) => [p.reason, p.superseded])).toEqual([['revision', [first.promoted[0]?.id]]])
    expect((await searchHandler(b, { query: 'gateway port' })).hits[0]?.summary).toMatch(/9443/)
  })
})

describe('revise: a changed value restated in free text', () => {
  for (const lang of [
    { said: '我每天坐地铁上班。', again: '我还是每天坐地铁上班。', other: '我哥哥现在改开车上班了。', changed: '我现在改骑自行车上班了，不坐地铁了。', old: /地铁/u, now: /自行车/u, query: '用户 通勤' },
    { said: 'I take the subway to work.', again: 'The user said again that they take the subway to work.', other: 'My brother now drives to work.', changed: 'I bike to work now instead of taking the subway.', old: /subway/u, now: /bike/u, query: 'commute' },
  ]) {
    it(`a new commute supersedes the promoted topic; another person and a repeat do not; as-of still sees the old value (${lang.said})`, async () => {
      const { backend: b } = await store()
      await episode(b, 'c1', '2026-03-01T10:00:00Z', lang.said)
      await episode(b, 'c2', '2026-03-04T10:00:00Z', lang.said)
      const first = await consolidate(b, { dryRun: false })
      expect(first.promoted).toHaveLength(1)
      const topic = first.promoted[0]?.id as string
      await episode(b, 'c3', '2026-03-08T10:00:00Z', lang.other)
      await episode(b, 'c4', '2026-03-09T10:00:00Z', lang.again)
      const second = await consolidate(b, { dryRun: false })
      expect(second.promoted.flatMap((p) => p.superseded)).toEqual([])
      expect((await b.indexView()).get(topic)?.status).toBe('active')
      await episode(b, 'c5', '2026-03-15T10:00:00Z', lang.changed)
      const third = await consolidate(b, { dryRun: false })
      expect(third.promoted.map((p) => [p.reason, p.superseded])).toEqual([['revision', [topic]]])
      const revised = (await b.indexView()).get(third.promoted[0]?.id as string)
      expect(revised?.supersedes).toBe(topic)
      const topTopic = async (asOf?: string) => (await searchHandler(b, { query: lang.query, top_k: 10, ...(asOf !== undefined ? { asOf } : {}) })).hits.find((h) => h.type === 'topic')
      expect((await topTopic())?.summary).toMatch(lang.now)
      expect((await topTopic('2026-03-10T00:00:00Z'))?.summary).toMatch(lang.old)
    })
  }
})

describe('reflect, archive, stale', () => {
  it('each finished session of two or more episodes gets one summary derived from the episodes it quotes, once', async () => {
    const { backend: b } = await store()
    const ids = await history(b)
    const report = await consolidate(b, { dryRun: false })
    // s3's hello is the same memory as s1's (an exact repeat gains a source): s3 has one episode of
    // its own. s2's summary would quote both its episodes whole (nothing marked: its first and
    // last): the session again, so it gets none.
    expect(report.reflected.map((r) => r.session).sort()).toEqual(['s1'])
    const s1 = report.reflected.find((r) => r.session === 's1')
    // It quotes what was done (the hook), so that is what it is derived from; it counts the whole session.
    expect(s1?.derived_from).toEqual([ids.hook])
    expect(s1?.summary).toMatch(/^Session s1 \(2026-02-02, 3 episodes\): Done: Set up the pre-commit hook/)
    const summary = (await b.indexView()).get(s1?.id as string)
    expect(summary?.tags).toContain(SESSION_SUMMARY_TAG)
    expect(summary?.session_id).toBe('s1')
    expect((await consolidate(b, { dryRun: false })).reflected).toEqual([])
  })

  it('a session summary asserts no fact: one session\'s summary never supersedes or conflicts with another\'s (zh, en)', async () => {
    const { backend: b } = await store()
    // Two episodes a day, one session a day; the later sessions' texts carry change cues.
    // Three episodes a session, so that a summary quotes some, not all (one quoting all is not written).
    const days: Array<[string, string, string, string]> = [
      ['a', '我叫李明。', '看了一眼监控面板。', '今天修了登录的 bug。'],
      ['b', '我们讨论了发布计划。', '看了一眼告警邮件。', '数据库端口现在是 5433。'],
      ['c', 'The deploy target is staging.', 'Looked at the dashboards.', 'Reviewed the payment PR.'],
      ['d', 'The cache TTL is now 60 s.', 'Read the incident report.', 'Drafted the release notes.'],
    ]
    for (const [i, [session, ...said]] of days.entries()) {
      for (const [k, summary] of said.entries()) await episode(b, session, `2026-03-0${i + 1}T10:${String(k * 5).padStart(2, '0')}:00Z`, summary)
    }
    const { reflected } = await consolidate(b, { dryRun: false })
    expect(reflected).toHaveLength(4)
    const view = await b.indexView()
    for (const r of reflected) expect([view.get(r.id as string)?.status, view.get(r.id as string)?.key], r.summary).toEqual(['active', null])
  })

  it('a fact of a summarised session said again later is promoted to a topic; the session summary holds no fact and gains no source', async () => {
    const { backend: b } = await store()
    const lisbon1 = await episode(b, 's1', '2026-02-02T08:30:00Z', 'User mentioned they are based in Lisbon, so a 9:00 UTC call works for them.')
    const hook = await episode(b, 's1', '2026-02-02T08:40:00Z', 'Set up the pre-commit hook for ruff in the scraper repo.')
    const first = await consolidate(b, { dryRun: false })
    expect([first.promoted.length, first.reflected.length]).toEqual([0, 1])
    const lisbon2 = await episode(b, 's2', '2026-02-05T14:00:00Z', 'Scheduled the vendor sync for 10:00 Lisbon time, since that is where the user lives.')
    const second = await consolidate(b, { dryRun: false })
    expect(second.reinforced).toEqual([])
    expect(second.promoted.map((p) => p.derived_from.sort())).toEqual([[lisbon1, lisbon2].sort()])
    const summary = (await b.indexView()).get(first.reflected[0]?.id as string)
    expect(summary?.derived_from).toEqual([hook])
  })

  it('episodes a topic covers, idle past the window, leave search; memory_restore brings one back', async () => {
    const { backend: b } = await store()
    const ids = await history(b)
    const report = await consolidate(b, { dryRun: false })
    // The Lisbon episode the topic is made of (its words are the topic's); the hook and the hello
    // after it folded into one exchange. The other two Lisbon episodes say more than the topic (a
    // call at 9:00 UTC, a vendor sync): they stay searchable.
    expect(report.promoted[0]?.summary).toBe('用户说他住在 Lisbon，想找周末徒步的路线。')
    expect(report.archived.sort()).toEqual([ids.lisbon3, ids.hook, ids.hello1].sort())
    expect(report.exchanges.map((x) => x.derived_from)).toEqual([[ids.hook, ids.hello1]])
    const view = await b.indexView()
    expect([ids.lisbon3, ids.lisbon1, ids.lisbon2, ids.notes].map((id) => view.get(id)?.status)).toEqual(['archived', 'active', 'active', 'active'])
    const hits = (await searchHandler(b, { query: 'Lisbon' })).hits.map((h) => h.id)
    expect(hits).not.toContain(ids.lisbon3)
    expect(hits).toContain(report.promoted[0]?.id)
    expect((await restoreHandler(b, { ids: [ids.lisbon3] })).restored).toEqual([{ id: ids.lisbon3, status: 'active' }])
  })

  it('a topic whose source is forgotten is made again without it (issue 28); one whose source is soft-deleted is reported stale', async () => {
    const { backend: b } = await store()
    const ids = await history(b)
    const { promoted } = await consolidate(b, { dryRun: false })
    await forgetValueHandler(b, { id: ids.notes })
    expect((await consolidate(b, { dryRun: true })).stale).toEqual([])
    await restoreHandler(b, { ids: [ids.lisbon2] })
    const forgot = await forgetValueHandler(b, { id: ids.lisbon2 })
    expect(forgot.rebuilt.map((r) => r.was)).toEqual([promoted[0]?.id])
    const next = (await b.indexView()).get(forgot.rebuilt[0]?.id ?? '')
    expect(next?.derived_from?.length).toBeGreaterThan(0)
    expect(next?.derived_from).not.toContain(ids.lisbon2)
    expect((await consolidate(b, { dryRun: true })).stale).toEqual([])
    // A soft delete does not follow lineage: the topic drawing on it is reported stale.
    await softDelete(b, next?.derived_from?.[0] ?? '')
    expect((await consolidate(b, { dryRun: true })).stale.map((s) => s.id)).toContain(next?.id)
  })
})

describe('the run itself', () => {
  it('a dry run changes nothing and says what a run would do', async () => {
    const { backend: b, root } = await store()
    await history(b)
    const before = [await fs.readFile(path.join(root, 'index.jsonl'), 'utf8'), await fs.readFile(path.join(root, 'ledger.jsonl'), 'utf8')]
    const dry = await consolidateHandler(b, {})
    expect(dry.dry_run).toBe(true)
    expect(dry.promoted.map((p) => [p.id, p.status])).toEqual([[null, 'would-promote']])
    expect(dry.reflected).toHaveLength(1)
    expect(dry.guidance).toMatch(/^Dry run, nothing changed/)
    expect([await fs.readFile(path.join(root, 'index.jsonl'), 'utf8'), await fs.readFile(path.join(root, 'ledger.jsonl'), 'utf8')]).toEqual(before)
  })

  it('stops at its item cap, says what it skipped, and a rerun goes on; the ledger counts each run', async () => {
    const { backend: b } = await store()
    await history(b)
    const first = await consolidate(b, { dryRun: false, maxItems: 1 })
    expect(first.promoted.length + first.reflected.length).toBe(1)
    expect(first.skipped.length).toBeGreaterThan(0)
    expect(first.guidance).toMatch(/Stopped early: .*item cap 1 reached/)
    const second = await consolidate(b, { dryRun: false })
    expect(second.skipped).toEqual([])
    expect(first.reflected.length + second.reflected.length).toBe(1)
    const runs = (await b.readLedger()).filter((e) => e.event === 'consolidate')
    expect(runs).toHaveLength(2)
    expect(runs[0]?.skipped).toBeDefined()
  })

  it('one run at a time: a live lease refuses a second run, a dead one is taken over', async () => {
    const { backend: b, root } = await store()
    await history(b)
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
    try {
      await fs.mkdir(path.join(root, '.cache'), { recursive: true })
      await fs.writeFile(path.join(root, LEASE_FILE), JSON.stringify({ pid: sleeper.pid, at: new Date().toISOString() }))
      const err = await expectCode(consolidate(b, { dryRun: false }), 'INVALID_STATE')
      expect(err.message).toMatch(/a consolidation of this store is running/)
      // A dry run reads only: it needs no lease.
      expect((await consolidate(b, { dryRun: true })).promoted).toHaveLength(1)
    } finally {
      sleeper.kill('SIGKILL')
    }
    await new Promise((resolve) => sleeper.once('exit', resolve))
    expect((await consolidate(b, { dryRun: false })).promoted).toHaveLength(1)
    expect(existsSync(path.join(root, LEASE_FILE))).toBe(false)
  })

  it('SIGKILL in the middle of a run, then a rerun: every fact promoted once, nothing lost', async () => {
    const { backend: b, root } = await store()
    const FACTS = 24
    const facts: string[][] = []
    for (let i = 0; i < FACTS; i++) {
      const name = `Service${String.fromCharCode(65 + (i % 26))}${i}`
      facts.push([
        await episode(b, `k${i}a`, `2026-01-0${1 + (i % 8)}T10:00:00Z`, `${name} keeps its queue in Redis, the user said.`),
        await episode(b, `k${i}b`, `2026-01-1${1 + (i % 8)}T10:00:00Z`, `${name} uses Redis for its job queue (from the ops review).`),
      ])
    }
    const all = facts.flat()
    // Kill the run once its first promotion is in the ledger.
    const child = spawn(process.execPath, [WORKER, root], { stdio: ['ignore', 'pipe', 'pipe'] })
    const ledger = path.join(root, 'ledger.jsonl')
    const deadline = Date.now() + 60_000
    let killedAfter = -1
    while (Date.now() < deadline && child.exitCode === null) {
      const text = await fs.readFile(ledger, 'utf8')
      const promotions = text.split('\n').filter((l) => l.includes('"event":"promote"')).length
      if (promotions > 0) {
        child.kill('SIGKILL')
        killedAfter = promotions
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)))
    expect(killedAfter, 'the run was killed mid-way').toBeGreaterThan(0)
    // The rerun takes over the dead run's lease and finishes the work.
    const rerun = spawnSync(process.execPath, [WORKER, root], { encoding: 'utf8' })
    expect(rerun.status, rerun.stderr).toBe(0)
    const topics = (await derivedTopics(b)).filter((t) => t.status === 'active' || t.status === 'suggested')
    expect(topics).toHaveLength(FACTS)
    // Each episode is the source of exactly one topic; every episode is still there.
    const sources = topics.flatMap((t) => t.derived_from ?? [])
    expect(sources.sort()).toEqual([...all].sort())
    const view = await b.indexView()
    for (const id of all) expect(existsSync(path.join(root, view.get(id)?.path as string))).toBe(true)
    console.log(`[consolidation] killed after ${killedAfter} promotion(s); rerun made ${FACTS - killedAfter}+; ${topics.length} topics for ${FACTS} facts, ${sources.length} sources`)
  }, 120_000)
})
