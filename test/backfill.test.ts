/**
 * History backfill against sessions shaped like the host's session store (`ctx.sessions`:
 * `list()` of `{ id, deriveMessages() }`, deep-frozen messages whose user-typed ones carry
 * `source { kind: "user", rpcId }`, beside host injections, assistant turns and tool calls; see
 * /work/shared/reference/dsh-host.md): a dry run estimates and writes nothing, a run interrupted
 * half-way resumes without duplicates, and backfilled memories stay out of the review queue.
 */

import { describe, expect, it } from 'vitest'
import { findTool } from '../src/api.js'
import type { BackfillSession as HostSession, BackfillSessionSource as SessionStore } from '../src/lifecycle/backfill.js'
import type { HostMessage } from '../src/lifecycle/auto-settle.js'
import { backfillHistory, BACKFILL_TURN_EVENT, type BackfillProgress } from '../src/lifecycle/backfill.js'
import { tempStores } from './store-kit.js'

const newStore = tempStores('dsh-memory-backfill-')
let rpc = 0
const typed = (t: string): HostMessage => ({ role: 'user', content: [{ type: 'text', text: t }], source: { kind: 'user', rpcId: `rpc-${++rpc}` } })
const injected = (t: string): HostMessage => ({ role: 'user', content: [{ type: 'text', text: t }], source: { kind: 'runtime-context' } })
const assistant = (t: string): HostMessage => ({ role: 'assistant', content: [{ type: 'reasoning', text: 'thinking' }, { type: 'text', text: t }, { type: 'tool-call' }] })

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x)
    Object.freeze(v)
  }
  return v
}

function hostSession(id: string, typedTexts: string[]): HostSession {
  const messages = deepFreeze([injected('Current time: 2026-01-01'), ...typedTexts.flatMap((t) => [typed(t), assistant('好的，明白。')])])
  return { id, deriveMessages: () => messages }
}

const SESSIONS: SessionStore = {
  list: () => [
    hostSession('sess-a', [
      '我习惯用 pnpm 管理依赖，不要用 npm。',
      '记住：测试服务器的地址是 10.0.0.8，端口 8443。',
      '帮我看看这个报错怎么回事？',
      '我们约定提交信息用英文写，使用 conventional commits 格式。',
    ]),
    hostSession('sess-b', ['我偏好用 vim 编辑配置文件，不喜欢图形界面。', '运行一下测试', '项目约定：所有时间都用 UTC 存储，显示时再转换。']),
  ],
}

describe('history backfill', () => {
  it('estimates first and writes nothing', async () => {
    const { backend } = await newStore()
    const est = await backfillHistory(backend, SESSIONS)
    expect(est).toMatchObject({ dryRun: true, sessions: 2, turns: 7, alreadyDone: 0, planned: 7, remaining: 0, written: [], turnsDone: 0 })
    expect(est.candidates).toBeGreaterThanOrEqual(4)
    expect(Object.values(est.dropped).reduce((a, b) => a + (b ?? 0), 0)).toBeGreaterThan(0)
    expect((await backend.readIndex()).length).toBe(0)
    const capped = await backfillHistory(backend, SESSIONS, { maxTotalTurns: 3, maxTurnsPerSession: 2 })
    expect(capped).toMatchObject({ turns: 4, planned: 3, remaining: 1 })
  })

  it('resumes an interrupted run without duplicates, with progress, out of the review queue', async () => {
    const { backend } = await newStore()
    const full = await backfillHistory(backend, SESSIONS, { dryRun: true })
    const stop = new AbortController()
    const progress: BackfillProgress[] = []
    const first = await backfillHistory(backend, SESSIONS, {
      dryRun: false,
      signal: stop.signal,
      onProgress: (p) => {
        progress.push(p)
        if (p.turnsDone === 3) stop.abort()
      },
    })
    expect(first).toMatchObject({ interrupted: true, turnsDone: 3, remaining: 4, failed: 0 })
    expect(progress.map((p) => `${p.session_id}#${p.turn}`)).toEqual(['sess-a#0', 'sess-a#1', 'sess-a#2'])

    const again = await backfillHistory(backend, SESSIONS, { dryRun: true })
    expect(again).toMatchObject({ alreadyDone: 3, planned: 4 })
    const second = await backfillHistory(backend, SESSIONS, { dryRun: false })
    expect(second).toMatchObject({ interrupted: false, turnsDone: 4, remaining: 0, duplicates: 0, failed: 0 })
    const third = await backfillHistory(backend, SESSIONS, { dryRun: false })
    expect(third).toMatchObject({ planned: 0, turnsDone: 0, written: [] })

    const written = [...first.written, ...second.written]
    expect(written.length).toBe(full.candidates)
    const episodes = (await backend.readIndex()).filter((e) => e.type === 'episode')
    expect(episodes.length).toBe(written.length)
    expect(new Set(episodes.map((e) => e.summary)).size).toBe(episodes.length)
    expect(episodes.every((e) => e.status === 'suggested' && e.tags.includes('backfill') && e.review === 'off')).toBe(true)
    expect(episodes.some((e) => e.summary.includes('10.0.0.8') && e.session_id === 'sess-a')).toBe(true)
    const turns = (await backend.readLedger()).filter((e) => e.event === BACKFILL_TURN_EVENT)
    expect(turns.length).toBe(7)
    expect(new Set(turns.map((e) => `${e.session_id}#${e.turn}`)).size).toBe(7)

    // Confirmed or not, backfilled memories never join today's review queue.
    for (const e of episodes) await findTool('memory_confirm')!.handler(backend, { id: e.id })
    const queue = (await findTool('memory_review_queue')!.handler(backend, {})) as { due_total: number }
    expect(queue.due_total).toBe(0)
  })

  it('redoes a turn cut short mid-way and finds its sentences already stored', async () => {
    const { backend } = await newStore()
    // A crash after the first sentence of a turn was stored, before the turn was marked done.
    const one: SessionStore = { list: () => [hostSession('sess-c', ['我偏好用 vim 编辑配置文件。我们约定提交信息用英文写，使用 conventional commits 格式。'])] }
    const est = await backfillHistory(backend, one)
    expect(est.candidates).toBe(2)
    await findTool('write_memory')!.handler(backend, {
      type: 'episode',
      summary: '我偏好用 vim 编辑配置文件。',
      raw: 'x',
      session_id: 'sess-c',
      requireConfirmation: true,
    })
    const run = await backfillHistory(backend, one, { dryRun: false })
    expect(run).toMatchObject({ turnsDone: 1, duplicates: 1 })
    expect(run.written.length).toBe(1)
  })
})
