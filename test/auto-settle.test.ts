/**
 * Auto-settle: (a) the keep / drop decision for real-looking chat messages, sentence by sentence;
 * (b) the writer against a real temp store, fed a deep-frozen fake session in the host's message
 * shapes; (c) the throttle and the tracker of settled messages.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  AUTO_SETTLE_DEFAULTS,
  INJECTION_HEADING,
  SettledMessages,
  confirmHandler,
  createFileBackend,
  extractCandidates,
  isUserTyped,
  judgeMessage,
  messageText,
  searchHandler,
  settleCandidates,
  shouldRun,
  type DropReason,
  type HostContentBlock,
  type HostMessage,
  type MemoryBackend,
  type SignalClass,
} from '../src/api.js'

// ---------------------------------------------------------------------------------------------
// Host message shapes (seed: deriveMessages() gives deep-frozen messages; 7 block types; the
// source says who produced a user-role message).

let rpcSeq = 0
const text = (t: string): HostContentBlock => ({ type: 'text', text: t })
/** Typed into the chat box: kind "user" with the rpcId of the chat RPC. */
const typed = (t: string): HostMessage => ({ role: 'user', content: [text(t)], source: { kind: 'user', rpcId: `rpc-${++rpcSeq}` } })
/** Put into a user-role message by the host or another producer. */
const injected = (kind: string, t: string, rpcId?: string): HostMessage => ({
  role: 'user',
  content: [text(t)],
  source: rpcId === undefined ? { kind } : { kind, rpcId },
})
/** An older host that records no source at all. */
const sourceless = (t: string): HostMessage => ({ role: 'user', content: [text(t)] })

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

// ---------------------------------------------------------------------------------------------
// (a) The table. `expect` lists each sentence's outcome in order: the signal classes of a kept
// sentence, or the rule that dropped it; 'injected' when the message is not user-typed at all.

type Outcome = SignalClass[] | DropReason
interface Row {
  lang: 'zh' | 'en' | 'mixed'
  message: HostMessage
  expect: 'injected' | Outcome[]
}

const TABLE: Row[] = [
  // Chinese, kept: facts about the environment, preferences, conventions, remember, identity.
  { lang: 'zh', message: typed('我们的生产环境是 Ubuntu 22.04，数据库用 PostgreSQL 15'), expect: [['环境']] },
  { lang: 'zh', message: typed('我更喜欢用 pnpm，不要用 npm'), expect: [['偏好']] },
  { lang: 'zh', message: typed('约定：所有提交信息用英文写'), expect: [['约定']] },
  { lang: 'zh', message: typed('记住我的电脑是 M2 MacBook Air'), expect: [['记住', '身份']] },
  { lang: 'zh', message: typed('我的 GitHub 账号是 dsh-dev，别搞错了'), expect: [['身份']] },
  { lang: 'zh', message: typed('以后一律用 Vitest 写测试，不再用 Jest'), expect: [['约定']] },
  { lang: 'zh', message: typed('我习惯用 tab 缩进，一个 tab 显示成 4 个空格'), expect: [['偏好']] },
  { lang: 'zh', message: typed('我的开发环境是 WSL2 加 Node 20'), expect: [['环境', '身份']] },
  { lang: 'zh', message: typed('我讨厌在代码里写分号，prettier 里 semi 设成 false 就好'), expect: [['偏好']] },
  // Several statements in one message: each sentence is judged on its own.
  {
    lang: 'zh',
    message: typed('好的。记住：我们的项目代号叫 Aurora，对外不要提。你觉得把发布日期往后挪一周的方案行不行'),
    expect: ['too-short', ['记住'], 'question-particle'],
  },
  // Chinese, dropped.
  { lang: 'zh', message: typed('我的意思是先别合并，等 CI 跑完再说'), expect: ['no-signal'] },
  { lang: 'zh', message: typed('我的问题是测试一直超时，不知道为什么'), expect: ['no-signal'] },
  { lang: 'zh', message: typed('这个方案行不行'), expect: ['too-short'] },
  { lang: 'zh', message: typed('你觉得把数据库换成 PostgreSQL 16 的这个方案行不行'), expect: ['question-particle'] },
  { lang: 'zh', message: typed('要不要把测试环境也一起升级到 Node 20'), expect: ['question-particle'] },
  { lang: 'zh', message: typed('生产环境的数据库用的是不是 PostgreSQL 15'), expect: ['question-particle'] },
  { lang: 'zh', message: typed('你还记住我上次说的那个测试环境端口吗'), expect: ['question-particle'] },
  { lang: 'zh', message: typed('我们的生产环境用的是 Ubuntu 22.04 吧？'), expect: ['question-mark'] },
  { lang: 'zh', message: typed('帮我把这个函数重构一下'), expect: ['too-short'] },
  { lang: 'zh', message: typed('帮我把生产环境的 Node 版本升级到 20'), expect: ['imperative'] },
  { lang: 'zh', message: typed('查一下测试环境的磁盘空间还剩多少'), expect: ['imperative'] },
  // The seed's order puts the imperative rule before the signals: a polite 请记住 is dropped.
  { lang: 'zh', message: typed('请记住我们的代码规范是两个空格缩进'), expect: ['imperative'] },
  { lang: 'zh', message: typed('好的'), expect: ['too-short'] },
  { lang: 'zh', message: typed('继续'), expect: ['too-short'] },
  { lang: 'zh', message: typed('这个 bug 今天下午之前一定要修好，别拖到明天'), expect: ['no-signal'] },
  { lang: 'zh', message: typed('这个接口在移动端特别用得上，体验好很多'), expect: ['no-signal'] },
  // English, kept.
  { lang: 'en', message: typed('I prefer pnpm over npm in every repo.'), expect: [['偏好']] },
  { lang: 'en', message: typed('Remember that our staging database is db-staging.internal, not localhost.'), expect: [['记住', '环境']] },
  { lang: 'en', message: typed('We agreed that all commit messages are written in English.'), expect: [['约定']] },
  { lang: 'en', message: typed('My work laptop is a 14-inch MacBook Pro with macOS 14.'), expect: [['身份']] },
  { lang: 'en', message: typed('From now on, never push directly to main.'), expect: [['约定']] },
  { lang: 'en', message: typed('Our production environment runs Ubuntu 22.04 with PostgreSQL 15.'), expect: [['环境']] },
  { lang: 'en', message: typed('Keep in mind that the API server is deployed on Fly.io in Frankfurt.'), expect: [['记住', '环境']] },
  // English, dropped: requests, questions without a question mark, no signal, too short.
  { lang: 'en', message: typed('can you check the logs'), expect: ['imperative'] },
  { lang: 'en', message: typed('Please remember to run the migrations before deploying'), expect: ['imperative'] },
  { lang: 'en', message: typed("Let's switch the staging environment to Node 20"), expect: ['imperative'] },
  { lang: 'en', message: typed('Help me set up my dev environment for this project'), expect: ['imperative'] },
  { lang: 'en', message: typed('should we move the production database to Postgres 16'), expect: ['question-particle'] },
  { lang: 'en', message: typed('Is the production environment still on Ubuntu 20.04'), expect: ['question-particle'] },
  { lang: 'en', message: typed('Do you prefer tabs or spaces?'), expect: ['question-mark'] },
  { lang: 'en', message: typed('My point is that we should wait for CI before merging'), expect: ['no-signal'] },
  { lang: 'en', message: typed('The tests failed again after the last commit.'), expect: ['no-signal'] },
  { lang: 'en', message: typed('ok thanks'), expect: ['too-short'] },
  // Mixed languages, code and URLs.
  { lang: 'mixed', message: typed('我的 VPN 账号是 dev-01, I prefer SSH over HTTPS for git.'), expect: [['偏好', '身份']] },
  { lang: 'mixed', message: typed('Remember: 我们的部署脚本在 scripts/deploy.sh，不要改路径'), expect: [['记住']] },
  { lang: 'mixed', message: typed('```ts\nconst env = process.env.NODE_ENV // 生产环境\n```'), expect: [] },
  { lang: 'mixed', message: typed('https://github.com/deepseek-ai/dsh/issues/42?tab=comments#environment'), expect: [] },
  { lang: 'mixed', message: typed('`pnpm install --frozen-lockfile` 以后一律用这个命令装依赖'), expect: [['约定']] },
  // Length counts after stripping: 9 characters are left here.
  { lang: 'mixed', message: typed('我更喜欢看 https://vitest.dev/guide/ 的文档'), expect: ['too-short'] },
  { lang: 'en', message: typed('Do not use npm in this repo, only pnpm.'), expect: [['偏好']] },
  { lang: 'mixed', message: typed('- 我们约定分支名用 feat/ 前缀\n- 帮我建一个新分支'), expect: [['约定'], 'too-short'] },
  // Not typed by the user: the host's injections (five kinds), kind "user" without an rpcId,
  // an assistant message, and a source-less echo of this plugin's own injection.
  {
    lang: 'en',
    message: injected('agent-instructions', 'You are a coding agent. Always use pnpm; never use npm. The convention is English commit messages.'),
    expect: 'injected',
  },
  {
    lang: 'mixed',
    message: injected(
      'runtime-context',
      `Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\nCurrent DSH file policy: workspace-write.\n\n${INJECTION_HEADING}\n- 我更喜欢用 pnpm，不要用 npm`,
    ),
    expect: 'injected',
  },
  { lang: 'en', message: injected('skill-catalog', 'Available skills: deploy (remember that it runs on the production environment).'), expect: 'injected' },
  { lang: 'en', message: injected('time-context', 'Current time: 2026-01-02T10:00:00+08:00. The environment timezone is Asia/Shanghai.'), expect: 'injected' },
  { lang: 'en', message: injected('user-approval', 'The user approved: always run npm test in this environment without asking.'), expect: 'injected' },
  { lang: 'zh', message: injected('runtime-context', '约定：运行环境的默认 shell 是 bash', 'rpc-looks-real'), expect: 'injected' },
  { lang: 'zh', message: injected('user', '/plan 约定：先写测试再写实现，所有改动都要有用例'), expect: 'injected' },
  { lang: 'zh', message: injected('user', '子代理续跑：记住我的项目目录是 /work/app', ''), expect: 'injected' },
  { lang: 'zh', message: { role: 'assistant', content: [text('好的，我记住了：你更喜欢用 pnpm，不要用 npm。')] }, expect: 'injected' },
  { lang: 'zh', message: sourceless(`${INJECTION_HEADING}\n- 我的电脑是 M2 MacBook Air\n- 我更喜欢用 pnpm`), expect: 'injected' },
  // A source-less message without the heading is accepted (older hosts).
  { lang: 'zh', message: sourceless('我的电脑是 M2 MacBook Air，内存 16G'), expect: [['身份']] },
  // Only text blocks count: reasoning, images, files and tool blocks are never read.
  {
    lang: 'zh',
    message: {
      role: 'user',
      content: [{ type: 'image' }, { type: 'reasoning', text: '记住：用户偏好 yarn' }, text('我的手机是 Pixel 8，测试 App 用它')],
      source: { kind: 'user', rpcId: 'rpc-img' },
    },
    expect: [['身份']],
  },
  {
    lang: 'zh',
    message: { role: 'user', content: [{ type: 'reasoning', text: '记住：我的电脑是 M2 MacBook Air' }, { type: 'file' }], source: { kind: 'user', rpcId: 'rpc-file' } },
    expect: [],
  },
]

/** The outcome of each sentence, or 'injected' when the message is not the user's own. */
function decide(message: HostMessage): 'injected' | Outcome[] {
  if (!isUserTyped(message)) return 'injected'
  return judgeMessage(messageText(message)).map(({ judgement }) => (judgement.kept ? judgement.classes : judgement.reason))
}

const kept = (row: Row) => row.expect !== 'injected' && row.expect.some((o) => Array.isArray(o))

describe('auto-settle extraction table', () => {
  it('covers enough real-looking messages of each kind', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(30)
    expect(TABLE.filter((r) => r.lang === 'zh').length).toBeGreaterThanOrEqual(12)
    expect(TABLE.filter((r) => r.lang === 'en').length).toBeGreaterThanOrEqual(10)
    expect(TABLE.filter((r) => r.lang === 'mixed').length).toBeGreaterThanOrEqual(3)
    expect(TABLE.filter(kept).length).toBeGreaterThanOrEqual(10)
    expect(TABLE.filter((r) => !kept(r)).length).toBeGreaterThanOrEqual(10)
  })

  it.each(TABLE.map((row) => [messageText(row.message).slice(0, 60), row] as const))('%s', (_label, row) => {
    expect(decide(row.message)).toEqual(row.expect)
  })

  it('returns the stripped sentence as the candidate, classes in a fixed order', () => {
    expect(extractCandidates('我更喜欢看官方文档 https://vitest.dev/guide/ 而不是博客')).toEqual([{ text: '我更喜欢看官方文档 而不是博客', classes: ['偏好'] }])
    expect(extractCandidates('记住我的电脑是 M2 MacBook Air。你觉得行不行')).toEqual([{ text: '记住我的电脑是 M2 MacBook Air。', classes: ['记住', '身份'] }])
    expect(extractCandidates('')).toEqual([])
  })

  it('treats an empty rpcId, a missing role match or an unknown kind as not typed', () => {
    expect(isUserTyped(typed('x'))).toBe(true)
    expect(isUserTyped(injected('user', 'x', ''))).toBe(false)
    expect(isUserTyped(injected('user', 'x'))).toBe(false)
    expect(isUserTyped(injected('something-new', 'x', 'rpc-1'))).toBe(false)
    expect(isUserTyped({ role: 'tool', content: [text('x')] })).toBe(false)
  })
})

// ---------------------------------------------------------------------------------------------
// (b) The writer against a real store.

const FAKE_KEY = 'sk-test1234567890abcdefXYZ'

/** A session as deriveMessages() gives it: injections, typed messages, assistant and tool turns. */
function fakeSession(): readonly HostMessage[] {
  return deepFreeze<HostMessage[]>([
    injected('agent-instructions', 'You are a coding agent. Always use pnpm; never use npm.'),
    injected('skill-catalog', 'Available skills: deploy. Remember that it runs in production.'),
    injected('time-context', 'Current time: 2026-01-02T10:00:00+08:00.'),
    typed('我们的生产环境是 Ubuntu 22.04，数据库用 PostgreSQL 15'),
    injected('runtime-context', `Current runtime context.\n\n${INJECTION_HEADING}\n- 我的电脑是 M2 MacBook Air`),
    { role: 'assistant', content: [{ type: 'reasoning', text: '用户说了环境。' }, text('好的，记住了。'), { type: 'tool-call' }] },
    { role: 'tool', content: [text('saved')] },
    typed('帮我看看测试为什么挂了'),
    typed(`记住我们的 OpenAI key 是 ${FAKE_KEY}，测试环境用这个`),
    injected('user-approval', 'The user approved: always allow npm test in this environment.'),
    typed('我更喜欢用 pnpm，不要用 npm。约定：所有提交信息用英文写'),
    injected('user', '/plan 约定：先写测试再写实现'),
    typed('这个方案行不行'),
  ])
}

describe('settleCandidates', () => {
  let dir: string
  let backend: MemoryBackend
  let warn: ReturnType<typeof vi.spyOn>

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-settle-'))
    backend = createFileBackend(path.join(dir, 'store'))
    warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
  })
  afterEach(async () => {
    warn.mockRestore()
    await fs.rm(dir, { recursive: true, force: true })
  })

  it('never mutates the frozen host messages', () => {
    const session = fakeSession()
    expect(() => {
      ;(session[3]?.content as HostContentBlock[]).push(text('x'))
    }).toThrow(TypeError)
  })

  it('writes suggested episodes with raw text, tags and redaction; at most maxCandidates; then the rest', async () => {
    const tracker = new SettledMessages()
    const session = fakeSession()
    const first = await settleCandidates(backend, { sessionId: 's1', messages: session, tracker, options: { maxCandidates: 3 } })
    expect(first.errors).toEqual([])
    expect(first.written.map((w) => w.classes)).toEqual([['环境'], ['记住', '环境'], ['偏好']])
    expect(first.pending).toBe(2) // the message cut short, and the one after it

    const index = await backend.readIndex()
    for (const w of first.written) {
      const entry = index.find((e) => e.id === w.id)
      expect(entry?.status).toBe('suggested')
      expect(entry?.type).toBe('episode')
      expect(entry?.session_id).toBe('s1')
      expect(entry?.sources).toEqual([{ session_id: 's1', kind: 'user' }])
      expect(entry?.tags).toEqual(['auto-settle', ...w.classes])
      expect(entry?.raw_ref).not.toBeNull()
    }

    // The raw is the whole original message, redacted before the disk.
    const secret = first.written[1]
    expect(secret?.redactions).toEqual(['api-key'])
    const secretEntry = index.find((e) => e.id === secret?.id)
    const rawFile = await backend.readFile(secretEntry?.raw_ref ?? '')
    expect(rawFile).toContain('记住我们的 OpenAI key 是 [已脱敏:api-key]，测试环境用这个')
    const episodeFile = await backend.readFile(secretEntry?.path ?? '')
    expect(`${rawFile}${episodeFile}`).not.toContain(FAKE_KEY)
    const prefRaw = await backend.readFile(index.find((e) => e.id === first.written[2]?.id)?.raw_ref ?? '')
    expect(prefRaw).toContain('我更喜欢用 pnpm，不要用 npm。约定：所有提交信息用英文写')

    const ledger = (await backend.readLedger()).filter((e) => e.event === 'lifecycle/auto-settle')
    expect(ledger).toHaveLength(1)
    expect(ledger[0]).toMatchObject({ session_id: 's1', ids: first.written.map((w) => w.id), candidates: 4, kept: 3 })
    expect(typeof ledger[0]?.at).toBe('string')

    // The next call picks up the cut message: its first sentence is a dedupe, the second is new.
    const second = await settleCandidates(backend, { sessionId: 's1', messages: session, tracker, options: { maxCandidates: 3 } })
    expect(second.written.map((w) => w.summary)).toEqual(['约定：所有提交信息用英文写'])
    expect(second.skipped.map((s) => s.dedupe)).toEqual(['exact'])
    expect(second.pending).toBe(0)

    // Everything is settled now: nothing new, and no ledger event for an empty call.
    const third = await settleCandidates(backend, { sessionId: 's1', messages: session, tracker })
    expect(third).toEqual({ written: [], skipped: [], errors: [], candidates: 0, pending: 0 })
    expect((await backend.readLedger()).filter((e) => e.event === 'lifecycle/auto-settle')).toHaveLength(2)
    expect((await backend.readIndex()).filter((e) => e.type === 'episode')).toHaveLength(4)
  })

  it('writes nothing new on a second run without a tracker: the write path dedupes', async () => {
    const session = fakeSession()
    const first = await settleCandidates(backend, { sessionId: 's1', messages: session, options: { maxCandidates: 10 } })
    expect(first.written).toHaveLength(4)
    const again = await settleCandidates(backend, { sessionId: 's1', messages: session, options: { maxCandidates: 10 } })
    expect(again.written).toEqual([])
    expect(again.skipped.map((s) => s.id).sort()).toEqual(first.written.map((w) => w.id).sort())
    expect((await backend.readIndex()).filter((e) => e.type === 'episode')).toHaveLength(4)
  })

  it('keeps settled memories out of search until memory_confirm', async () => {
    const result = await settleCandidates(backend, { sessionId: 's1', messages: fakeSession(), options: { maxCandidates: 10 } })
    const pnpm = result.written.find((w) => w.classes.includes('偏好'))
    expect(pnpm).toBeDefined()
    expect((await searchHandler(backend, { query: 'pnpm' })).hits).toEqual([])
    expect((await searchHandler(backend, { query: 'PostgreSQL' })).hits).toEqual([])

    await confirmHandler(backend, { id: pnpm?.id ?? '' })
    const hits = (await searchHandler(backend, { query: 'pnpm' })).hits
    expect(hits.map((h) => h.id)).toEqual([pnpm?.id])
    expect(hits[0]?.tags).toEqual(['auto-settle', '偏好'])
    expect((await searchHandler(backend, { query: 'PostgreSQL' })).hits).toEqual([])
  })

  it('settles nothing from a session of injections only', async () => {
    const session = deepFreeze([injected('runtime-context', `${INJECTION_HEADING}\n- 我更喜欢用 pnpm，不要用 npm`), sourceless(`${INJECTION_HEADING}\n- 记住我的电脑是 M2`)])
    const result = await settleCandidates(backend, { sessionId: 's1', messages: session })
    expect(result).toEqual({ written: [], skipped: [], errors: [], candidates: 0, pending: 0 })
    expect(await backend.readIndex()).toEqual([])
  })

  it('only warns when the store fails, and never throws', async () => {
    const failing = new Proxy(backend, {
      get(target, prop) {
        if (prop === 'withLock') return () => Promise.reject(new Error('disk full'))
        const value: unknown = Reflect.get(target, prop, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const result = await settleCandidates(failing, { sessionId: 's1', messages: fakeSession(), options: { maxCandidates: 10 } })
    expect(result.written).toEqual([])
    expect(result.errors.length).toBeGreaterThanOrEqual(4)
    expect(result.errors.every((e) => e.includes('disk full'))).toBe(true)
    expect(result.errors.join('\n')).not.toContain(FAKE_KEY)
    expect(warn).toHaveBeenCalled()
  })
})

// ---------------------------------------------------------------------------------------------
// (c) Throttle and tracker.

describe('auto-settle throttle', () => {
  const options = AUTO_SETTLE_DEFAULTS
  const t0 = Date.parse('2026-01-02T10:00:00Z')

  it('uses the seed defaults', () => {
    expect(AUTO_SETTLE_DEFAULTS).toEqual({ minIntervalMs: 90_000, minMessages: 4, maxCandidates: 3 })
  })

  it.each([
    ['first attempt with enough messages', { now: t0, lastRunAt: null, userMessageCount: 4 }, true],
    ['too few user messages', { now: t0, lastRunAt: null, userMessageCount: 3 }, false],
    ['too few even after a long wait', { now: t0 + 3_600_000, lastRunAt: t0, userMessageCount: 0 }, false],
    ['inside the interval', { now: t0 + 89_999, lastRunAt: t0, userMessageCount: 10 }, false],
    ['exactly at the interval', { now: t0 + 90_000, lastRunAt: t0, userMessageCount: 10 }, true],
    ['long after the interval', { now: t0 + 600_000, lastRunAt: t0, userMessageCount: 5 }, true],
    ['clock set back', { now: t0 - 1_000, lastRunAt: t0, userMessageCount: 5 }, true],
  ] as const)('%s', (_label, input, expected) => {
    expect(shouldRun({ ...input, options })).toBe(expected)
  })

  it('honours custom options', () => {
    const custom = { minIntervalMs: 1_000, minMessages: 1 }
    expect(shouldRun({ now: t0 + 1_000, lastRunAt: t0, userMessageCount: 1, options: custom })).toBe(true)
    expect(shouldRun({ now: t0 + 999, lastRunAt: t0, userMessageCount: 1, options: custom })).toBe(false)
  })

  it('tracks settled messages per session', () => {
    const tracker = new SettledMessages()
    tracker.add('s1', 'k1')
    expect(tracker.has('s1', 'k1')).toBe(true)
    expect(tracker.has('s2', 'k1')).toBe(false)
    tracker.forget('s1')
    expect(tracker.has('s1', 'k1')).toBe(false)
  })
})
