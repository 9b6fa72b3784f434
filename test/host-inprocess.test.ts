/**
 * The DSH plugin in process (route 1 of the host reference, Node 20): the real cordis `Context`,
 * `SystemPrompt` and `ToolRuntime` of the host's pinned packages, and the plugin with its store in
 * a temp folder. Every tool is registered and executed through `ctx.tools.execute`, each result
 * checked against the declared output schema by dsh-tools' own validator and by ours; invalid
 * input gives a stable code; the assembled prompt holds the resident injection and no `{{`; the
 * two ways of building definitions agree; disposing the plugin leaves nothing behind.
 */

import { createHook } from 'node:async_hooks'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import { SystemPrompt, renderContextSnapshot } from '@deepseek-ai/dsh-system-prompt'
import { ToolRuntime, assertSupportedJsonSchema, defineTool, validateJsonSchemaValue } from '@deepseek-ai/dsh-tools'
import { WebServer } from '@deepseek-ai/dsh-host-webserver'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import * as plugin from '../src/host/index.js'
import { compileDsl, compileParameters, dshTool, loadDshTools, toDsl } from '../src/host/tools.js'
import { API_BODY_LIMIT, API_PATH, PANEL_HEADER, TOKEN_HEADER, handleApiRequest } from '../src/host/api.js'
import { storeApiDeps } from '../src/host/http.js'
import { PANEL_KEY_FILE } from '../src/host/panel-key.js'
import { INJECTION_HEADING } from '../src/memory/reading/inject.js'
import { PERSONAL_LABEL } from '../src/stores/inject.js'
import { createFileBackend } from '../src/store/file-backend.js'
import { flushCaches } from '../src/retrieve/retriever.js'
import { TOOLS, findTool } from '../src/tools/index.js'
import { outputViolation } from '../src/tools/declare/schema.js'
import type { HostMessage } from '../src/lifecycle/auto-settle.js'

interface ExecResult {
  isError: boolean
  value?: unknown
  content: { type: string; text?: string }[]
  error?: { message: string; info?: { name: string; code: string } }
}

const RECALL_CONTEXT = 'memory-agent:recall'

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x)
    Object.freeze(v)
  }
  return v
}

/** A past session as the host's session store gives it: deep-frozen messages, user-typed ones with an rpcId. */
function pastSession(id: string, typed: string[]): { id: string; deriveMessages: () => readonly HostMessage[] } {
  const messages = deepFreeze<HostMessage[]>([
    { role: 'user', content: [{ type: 'text', text: 'Current time: 2026-01-01' }], source: { kind: 'runtime-context' } },
    ...typed.flatMap((text, i): HostMessage[] => [
      { role: 'user', content: [{ type: 'text', text }], source: { kind: 'user', rpcId: `${id}-rpc-${i}` } },
      { role: 'assistant', content: [{ type: 'text', text: '好的，明白。' }] },
    ]),
  ])
  return { id, deriveMessages: () => messages }
}
const signal = new AbortController().signal
let calls = 0

async function host(options: { web?: boolean } = {}): Promise<Context> {
  const root = new Context()
  await root.plugin(SystemPrompt, {})
  await root.plugin(ToolRuntime, {})
  // The host's own web server (what `dsh web` runs), on a free loopback port.
  if (options.web) webFibers.set(root, await root.plugin(WebServer as never, { host: '127.0.0.1', port: 0 }))
  return root
}

const webFibers = new WeakMap<Context, { dispose(): Promise<unknown> }>()

/** POST to the panel API of the in-process web server, as the panel would (key and header optional). */
async function postApi(root: Context, body: string, key: string | null): Promise<{ status: number; json: any }> {
  const port = (root as unknown as { webServer: { port: number } }).webServer.port
  const headers: Record<string, string> = { 'content-type': 'application/json', [PANEL_HEADER]: 'panel' }
  if (key !== null) headers[TOKEN_HEADER] = key
  const res = await fetch(`http://127.0.0.1:${port}${API_PATH}`, { method: 'POST', headers, body })
  const text = await res.text()
  return { status: res.status, json: text === '' ? null : JSON.parse(text) }
}

function execute(root: Context, name: string, args: unknown): Promise<ExecResult> {
  return root.tools.execute({ callId: `call-${++calls}`, name, arguments: args, signal } as never) as Promise<ExecResult>
}

async function tempDir(prefix: string): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix))
}

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src') + path.sep

/**
 * Timers and file watchers created by the project's own code while tracking, and which of them
 * are still alive. async_hooks sees unref'd timers and watchers too, which
 * process.getActiveResourcesInfo() leaves out (they do not keep the loop alive, but they would
 * still outlive the plugin).
 */
function trackResources() {
  const live = new Map<number, string>()
  const kinds = new Set<string>()
  const hook = createHook({
    init(id, type) {
      if (type !== 'Timeout' && type !== 'FSEVENTWRAP' && type !== 'STATWATCHER') return
      const limit = Error.stackTraceLimit
      Error.stackTraceLimit = 40
      const stack = new Error().stack ?? ''
      Error.stackTraceLimit = limit
      const frame = stack.split('\n').find((line) => line.includes(SRC))
      // Node's HTTP server caches the Date header for a second with a timer of its own.
      if (frame === undefined || stack.includes('utcDate')) return
      kinds.add(type)
      live.set(id, `${type} ${frame.trim()}`)
    },
    destroy(id) {
      live.delete(id)
    },
  })
  hook.enable()
  return { live, kinds, stop: () => hook.disable() }
}

describe('the DSH plugin in process', () => {
  let root: Context
  let dir: string
  let fiber: Awaited<ReturnType<Context['plugin']>>
  const covered = new Set<string>()
  let resources: ReturnType<typeof trackResources>
  let info: ReturnType<typeof vi.spyOn>

  /** Executes a call that must succeed and checks the value against the registered output schema and ours. */
  async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await execute(root, name, args)
    expect(r.isError, `${name} ${JSON.stringify(args)} -> ${JSON.stringify(r.error)}`).toBe(false)
    const def = root.tools.get(name)
    expect(def).toBeDefined()
    expect(validateJsonSchemaValue(def!.output.schema as never, r.value, 'value')).toEqual([])
    expect(outputViolation(findTool(name)!.output, r.value)).toBeNull()
    expect(r.content.length).toBeGreaterThan(0)
    expect(r.content[0]?.text ?? '').not.toBe('')
    covered.add(name)
    return r.value as Record<string, unknown>
  }

  async function fails(name: string, args: unknown): Promise<string> {
    const r = await execute(root, name, args)
    expect(r.isError, `${name} ${JSON.stringify(args)} should fail`).toBe(true)
    const code = r.error?.info?.code
    expect(code, JSON.stringify(r.error)).toBeDefined()
    expect(r.content[0]?.text).toMatch(/^Error: /)
    return code as string
  }

  beforeAll(async () => {
    resources = trackResources()
    dir = await tempDir('mem-host-')
    root = await host({ web: true })
    info = vi.spyOn(console, 'info').mockImplementation(() => undefined)
    fiber = await root.plugin(plugin as never, { root: path.join(dir, 'store'), userRoot: path.join(dir, 'personal') })
  })
  afterAll(async () => {
    resources.stop()
    info.mockRestore()
    await webFibers.get(root)?.dispose()
    await fs.rm(dir, { recursive: true, force: true })
  })

  it('loads with the seed defaults filled in and registers every tool', () => {
    expect(fiber.state).toBe(2) // ACTIVE
    expect(fiber.config).toEqual({
      root: path.join(dir, 'store'),
      userRoot: path.join(dir, 'personal'),
      requireConfirmation: false,
      defaultBudget: 1200,
      maxTopK: 200,
      injectEnabled: true,
      injectBudgetChars: 1500,
      autoSettleEnabled: false,
      consolidateAfterEpisodes: 20,
      consolidateMinIntervalMinutes: 60,
      consolidationModel: 'auto',
      consolidateModelTokensPerRun: 20000,
      consolidateModelTokensPerDay: 200000,
      lifecycle: { enabled: false, audit: true, autoSettle: { enabled: false, minIntervalMs: 90000, minMessages: 4, maxCandidates: 3 } },
    })
    const names = root.tools.schemas().map((s: { name: string }) => s.name)
    expect([...names].sort()).toEqual(TOOLS.map((t) => t.name).sort())
    for (const t of TOOLS) {
      const def = root.tools.get(t.name)!
      assertSupportedJsonSchema(def.output.schema)
      assertSupportedJsonSchema(def.parameters)
    }
  })

  it('injects nothing while the store is empty', async () => {
    const asm = await root.systemPrompt.assemble({})
    expect(renderContextSnapshot(asm)).not.toContain(INJECTION_HEADING)
  })

  it('executes every tool with valid input; each value satisfies the declared output schema', async () => {
    // write: topic, episode with raw, exact repeat, new version of a slot, conflict, suggested, redaction
    const topic = await ok('write_memory', { summary: '项目用 pnpm 管理依赖，不用 npm', title: '包管理器', key: 'package-manager', tags: ['约定'], entities: ['pnpm'] })
    expect(topic.status).toBe('active')
    const episode = await ok('write_memory', {
      summary: '用户在排查部署失败：CI 的 Node 版本是 18，项目要求 20',
      raw: '用户：CI 又挂了\n助手：Node 版本不对，CI 是 18，项目要 20',
      session_id: 'session-a',
      tags: ['ci'],
      confidence: 0.9,
    })
    expect(episode.raw_ref).not.toBeNull()
    const repeat = await ok('write_memory', { summary: '项目用 pnpm 管理依赖，不用 npm', title: '包管理器', key: 'package-manager' })
    expect(repeat.dedupe).toBe('exact')
    const newer = await ok('write_memory', { summary: '项目从 pnpm 换成了 bun 管理依赖', title: '包管理器', key: 'package-manager' })
    expect(newer.superseded).toEqual([topic.id])
    const conflict = await ok('write_memory', { summary: '项目其实还在用 pnpm 管理依赖', key: 'package-manager', expectConflict: true })
    expect((conflict.variants as string[]).length).toBeGreaterThan(0)
    const suggested = await ok('write_memory', { summary: '数据库是 PostgreSQL 16，部署在 eu-west', requireConfirmation: true, session_id: 'session-b' })
    expect(suggested.status).toBe('suggested')
    const secret = await ok('write_memory', { summary: '测试环境的 key 是 sk-abcdefghijklmnopqrstuvwx，别提交', tags: ['secret'] })
    expect(secret.redactions).toEqual(['api-key'])

    // confirm and resolve
    expect((await ok('memory_confirm', { id: suggested.id })).status).toBe('active')
    const resolved = await ok('memory_resolve', { id: conflict.id, action: 'keep' })
    expect(resolved.status).toBe('active')

    // search: hits (with tags), zero hits (common tags offered)
    const found = await ok('memory_search_hybrid', { query: 'PostgreSQL 数据库', top_k: 5 })
    expect((found.hits as { id: string }[]).map((h) => h.id)).toContain(suggested.id)
    const none = await ok('memory_search_hybrid', { query: 'kubernetes helm chart' })
    expect(none.hits).toEqual([])
    expect(none.guidance).toEqual(expect.any(String))

    // digest of one slot and the list; nav of everything, a folder and a file; sweep; assemble
    const digest = await ok('memory_digest', { key: 'package-manager' })
    expect(digest.text).toEqual(expect.any(String))
    expect((await ok('memory_digest', {})).slots).toEqual(expect.any(Array))
    const page = await ok('memory_nav', {})
    expect(page.total).toBeGreaterThan(0)
    await ok('memory_nav', { path: 'topics/', limit: 2 })
    const file = await ok('memory_nav', { path: episode.id })
    expect((file.file as { text: string }).text).toContain('CI 的 Node 版本')
    await ok('memory_sweep', { days: 1, limit: 5 })
    // verify: the value the conflict was resolved to supports; the one it replaced is contradicted
    expect((await ok('memory_verify', { claim: '项目其实还在用 pnpm 管理依赖' })).verdict).toBe('supported')
    expect((await ok('memory_verify', { claim: '项目从 pnpm 换成了 bun 管理依赖' })).verdict).toBe('contradicted')
    const stale = await ok('memory_verify', { claim: 'The moon is made of cheese', scope: 'env=prod' })
    expect(stale.verdict).toBe('unknown')
    const assembled = await ok('memory_assemble', { task: '项目用什么管理依赖', budget: 300 })
    expect(assembled.used_tokens as number).toBeLessThanOrEqual(300)

    // history, lineage, as-of, forget and purge
    const history = await ok('memory_history', { id: topic.id })
    expect((history.versions as { id: string }[]).map((v) => v.id)).toEqual(expect.arrayContaining([topic.id, newer.id]))
    expect((await ok('memory_lineage', { id: newer.id })).chain).toEqual(expect.any(Array))
    expect((await ok('memory_nav', { asOf: '2000-01-01T00:00:00Z' })).total).toBe(0)
    const doomed = await ok('write_memory', { summary: '临时门禁密码是 4711', title: '门禁密码' })
    const forgot = await ok('memory_forget', { query: '门禁密码' })
    expect((forgot.forgotten as { id: string }[]).map((f) => f.id)).toEqual([doomed.id])
    expect((await ok('memory_purge', { id: doomed.id })).already_purged).toBe(false)

    // duplicates, merge (preview, then applied), undemote
    const one = await ok('write_memory', { summary: '备份每晚 02:00 UTC 跑到 S3。', title: '备份' })
    const two = await ok('write_memory', { summary: '备份每晚 02:00 UTC 跑到 S3', title: '备份时间' })
    expect(JSON.stringify((await ok('memory_duplicates', {})).groups)).toContain(String(two.id))
    expect((await ok('memory_merge', { ids: [one.id, two.id] })).dryRun).toBe(true)
    const merged = await ok('memory_merge', { ids: [one.id, two.id], dryRun: false })
    const folded = (merged.folded as { id: string }[]).map((f) => f.id)
    expect((await ok('memory_undemote', { ids: folded })).restored).toHaveLength(1)
    expect((await ok('memory_undo_judgement', { ids: folded })).unchanged).toEqual(folded)

    // rooms, navigation and decay
    expect(((await ok('memory_rooms', {})).rooms as unknown[]).length).toBeGreaterThan(0)
    expect((await ok('memory_timeline', { order: 'tour' })).total as number).toBeGreaterThan(0)
    expect((await ok('memory_neighbors', { id: one.id })).id).toBe(one.id)
    expect((await ok('memory_decay', {})).dry_run).toBe(true)
    expect((await ok('memory_consolidate', {})).dry_run).toBe(true)
    expect((await ok('memory_restore', { ids: [one.id] })).unchanged).toEqual([one.id])
    expect((await ok('memory_audit_forgotten', {})).total).toBe(0)

    // retrieval practice and the evidence gate
    const batch = await ok('memory_search_hybrid', { query: 'nightly backups', session_id: 'gate-session' })
    const refs = (batch.hits as { ref: string }[]).map((h) => h.ref).slice(0, 1)
    expect((await ok('memory_assess', { batchId: batch.batch_id, evidenceRefs: refs, nextStrategy: 'answer', sufficient: true, session_id: 'gate-session' })).batchKnown).toBe(true)
    expect((await ok('memory_review_queue', {})).due_total).toEqual(expect.any(Number))
    expect((await ok('memory_review', { id: one.id })).id).toBe(one.id)
    expect((await ok('memory_report', { id: one.id, grade: 4 })).recalled).toBe(true)
    // No embedder configured: nothing to embed, and it says how to configure one.
    expect(await ok('memory_embed', {})).toMatchObject({ embedded: 0, pending: 0, migrated: false })
    // answer with citations, the store in numbers (issue 29)
    const answered = await ok('memory_answer', { question: '备份每晚几点跑？' })
    expect(answered.abstained).toBe(false)
    expect((answered.citations as { id: string }[]).map((c) => c.id).every((id) => (answered.retrieved as string[]).includes(id))).toBe(true)
    expect((await ok('memory_stats', {})).total as number).toBeGreaterThan(0)
    // Workspaces (issue 29): the store here is configured, so no folder was recorded.
    expect((await ok('memory_workspaces', {})).projects).toEqual([])

    // forget: soft, then hard
    await ok('forget_memories_by_session', { session_id: 'session-a' })
    const hard = await ok('forget_memories_by_session', { session_id: 'session-a', mode: 'hard', scope: 'include_shared_unlink' })
    expect(hard.mode).toBe('hard')

    expect([...covered].sort()).toEqual(TOOLS.map((t) => t.name).sort())
  })

  it('renders concise text for the model', async () => {
    const r = await execute(root, 'memory_search_hybrid', { query: 'PostgreSQL' })
    const text = r.content[0]?.text ?? ''
    expect(text).toMatch(/^1 hit\(s\)/)
    expect(text).toMatch(/\n- mem_\S+ \[topic, active, project store\] /)
    const write = await execute(root, 'write_memory', { summary: '周报每周五下午发', title: '周报' })
    expect(write.content[0]?.text).toMatch(/^Stored mem_\S+ in the project store as topic, status active, at topics\//)
  })

  it('invalid input fails with INVALID_ARGS (registry) or our code (handler)', async () => {
    expect(await fails('write_memory', {})).toBe('INVALID_ARGS')
    expect(await fails('write_memory', { summary: 42 })).toBe('INVALID_ARGS')
    expect(await fails('memory_search_hybrid', { query: 'x', top_k: 'ten' })).toBe('INVALID_ARGS')
    // Bounds and closed objects are the handler's: the DSL cannot say them.
    expect(await fails('write_memory', { summary: '' })).toBe('INVALID_INPUT')
    expect(await fails('write_memory', { summary: 'x', colour: 'red' })).toBe('INVALID_INPUT')
    expect(await fails('memory_search_hybrid', { query: 'x', top_k: 0 })).toBe('INVALID_INPUT')
    expect(await fails('write_memory', { summary: 'x', raw: 'y' })).toBe('INVALID_INPUT') // an episode needs a session
    expect(await fails('memory_confirm', { id: 'mem_missing' })).toBe('NOT_FOUND')
    expect(await fails('memory_nav', { path: '../outside' })).toMatch(/^(PATH_OUTSIDE_ROOT|NOT_FOUND)$/)
    const r = await execute(root, 'memory_confirm', { id: 'mem_missing' })
    expect(r.content[0]?.text).toMatch(/^Error: NOT_FOUND: /)
  })

  it('the assembled prompt holds the resident injection, with every {{ neutralised', async () => {
    await ok('write_memory', { summary: 'the user wrote {{name}} and {{{x}}} literally in a template', title: 'template {{title}}' })
    const asm = await root.systemPrompt.assemble({})
    const names = asm.contexts.map((c: { name: string }) => c.name)
    expect(names).toContain(RECALL_CONTEXT)
    const snapshot = renderContextSnapshot(asm)
    expect(snapshot).toContain(INJECTION_HEADING)
    expect(snapshot).toContain('周报每周五下午发')
    expect(snapshot).toContain('literally')
    expect(snapshot).not.toContain('{{')
  })

  it("a guard's [GUARD] line reaches the prompt when the turn's latest user message matches its trigger", async () => {
    await ok('write_memory', { summary: 'Before a release, run the smoke suite.', guard_trigger: 'cut a release', guard_action: 'run scripts/smoke.sh first' })
    const turn = (text: string) => ({
      agent: {
        session: {
          id: 'session-guard',
          deriveMessages: () => [
            { role: 'user', content: [{ type: 'text', text: 'earlier: cut a release' }], source: { kind: 'user', rpcId: 'rpc-1' } },
            { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
            { role: 'user', content: [{ type: 'text', text }], source: { kind: 'user', rpcId: 'rpc-2' } },
          ],
        },
      },
    })
    const guarded = renderContextSnapshot(await root.systemPrompt.assemble(turn('please cut a release of the billing service') as never))
    expect(guarded).toContain('[GUARD] when cut a release: run scripts/smoke.sh first')
    // Only the latest user message counts, and no agent (a preview) means no cue.
    expect(renderContextSnapshot(await root.systemPrompt.assemble(turn('what time is it') as never))).not.toContain('[GUARD]')
    expect(renderContextSnapshot(await root.systemPrompt.assemble({}))).not.toContain('[GUARD]')
  })

  it('write_memory and forget_memories_by_session default session_id to the session the call runs in', async () => {
    const inSession = (name: string, args: Record<string, unknown>) =>
      root.tools.execute({ callId: `call-${++calls}`, name, arguments: args, signal, agent: { session: { id: 'session-now' } } } as never) as Promise<ExecResult>
    // The model is offered session_id as optional, defaulting to the current session.
    for (const name of ['write_memory', 'forget_memories_by_session']) {
      const params = root.tools.get(name)!.parameters as { required?: string[]; properties?: Record<string, { description?: string }> }
      expect(params.required ?? [], name).not.toContain('session_id')
      expect(params.properties?.['session_id']?.description, name).toMatch(/Default: the current session/)
    }
    const episode = await inSession('write_memory', { summary: 'Paired on the flaky login test; it was a race in the session cache.', raw: 'user: the login test is flaky\nassistant: a race in the session cache' })
    expect(episode.isError, JSON.stringify(episode.error)).toBe(false)
    const written = episode.value as { id: string; path: string }
    expect(await fs.readFile(path.join(dir, 'store', written.path), 'utf8')).toMatch(/session_id: session-now/)
    // A session_id the model gives still wins; without a session and without session_id an episode is refused as before.
    const other = await inSession('write_memory', { summary: 'Another session wrote this episode about deploy keys.', raw: 'raw text', session_id: 'session-other' })
    expect(await fs.readFile(path.join(dir, 'store', (other.value as { path: string }).path), 'utf8')).toMatch(/session_id: session-other/)
    expect((await execute(root, 'write_memory', { summary: 'No session anywhere for this episode.', raw: 'raw' })).isError).toBe(true)
    const forgot = await inSession('forget_memories_by_session', {})
    expect(forgot.isError, JSON.stringify(forgot.error)).toBe(false)
    expect((forgot.value as { session_id: string }).session_id).toBe('session-now')
    expect(JSON.stringify(forgot.value)).toContain(written.id)
    expect(JSON.stringify(forgot.value)).not.toContain((other.value as { id: string }).id)
  })

  it('config.json (the panel) overrides the cordis config; the cordis config reaches the handlers', async () => {
    await fs.writeFile(path.join(dir, 'store', 'config.json'), JSON.stringify({ injectEnabled: false }))
    expect(renderContextSnapshot(await root.systemPrompt.assemble({}))).not.toContain(INJECTION_HEADING)
    await fs.rm(path.join(dir, 'store', 'config.json'))
    expect(renderContextSnapshot(await root.systemPrompt.assemble({}))).toContain(INJECTION_HEADING)

    const other = await host()
    const otherDir = await tempDir('mem-host-config-')
    const otherFiber = await other.plugin(plugin as never, { root: otherDir, userRoot: await tempDir('mem-host-personal-'), requireConfirmation: true, injectBudgetChars: 200 })
    try {
      const r = await execute(other, 'write_memory', { summary: '确认闸门由 cordis 配置打开' })
      expect((r.value as { status: string }).status).toBe('suggested')
      await fs.writeFile(path.join(otherDir, 'config.json'), JSON.stringify({ requireConfirmation: false }))
      const r2 = await execute(other, 'write_memory', { summary: '面板写的 config.json 优先于 cordis 配置' })
      expect((r2.value as { status: string }).status).toBe('active')
    } finally {
      await otherFiber.dispose()
      await fs.rm(otherDir, { recursive: true, force: true })
    }
  })

  it('serves the panel API on the host web server, only with the store key that the printed link carries', async () => {
    const key = (await fs.readFile(path.join(dir, 'store', PANEL_KEY_FILE), 'utf8')).trim()
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect((await fs.stat(path.join(dir, 'store', PANEL_KEY_FILE))).mode & 0o777).toBe(0o600)
    const printed = info.mock.calls.map((c) => String(c[0])).find((line) => line.includes('memory-agent-key='))
    expect(printed).toContain(`#memory-agent-key=${key}`)

    const status = await postApi(root, JSON.stringify({ op: 'status' }), key)
    expect(status.status).toBe(200)
    expect(status.json.ok).toBe(true)
    expect(status.json.result.root).toBe(path.join(dir, 'store'))
    expect((await postApi(root, JSON.stringify({ op: 'status' }), null)).status).toBe(403)
    expect((await postApi(root, JSON.stringify({ op: 'status' }), `${key.slice(1)}x`)).status).toBe(403)
    expect((await postApi(root, JSON.stringify({ op: 'search', query: 'x'.repeat(API_BODY_LIMIT) }), key)).status).toBe(413)
    expect((await postApi(root, JSON.stringify({ op: 'shell' }), key)).status).toBe(400)
  })

  it('the resident injection holds the personal store too: project first, then a personal section, within the budget', async () => {
    const pref = await ok('write_memory', { summary: 'The user prefers answers in short bullet points.', title: 'Answer style', tags: ['preference'] })
    expect(pref.store).toBe('user')
    const asm = await root.systemPrompt.assemble({})
    const recall = asm.contexts.find((c: { name: string }) => c.name === RECALL_CONTEXT)?.text ?? ''
    expect(recall.startsWith(INJECTION_HEADING)).toBe(true)
    expect(recall.split(INJECTION_HEADING)).toHaveLength(2) // one heading
    expect(recall).toContain('周报每周五下午发') // the project store's
    const label = recall.indexOf(PERSONAL_LABEL)
    expect(label).toBeGreaterThan(recall.indexOf('周报每周五下午发'))
    expect(recall.indexOf('short bullet points')).toBeGreaterThan(label)
    expect(recall.length).toBeLessThanOrEqual(1500)
    expect(renderContextSnapshot(asm)).toContain('short bullet points')
  })

  it('the panel API of the DSH route shows the personal store beside the project store: counts, rows with their store, tools routed', async () => {
    const key = (await fs.readFile(path.join(dir, 'store', PANEL_KEY_FILE), 'utf8')).trim()
    const api = async (body: Record<string, unknown>) => (await postApi(root, JSON.stringify(body), key)).json.result
    const status = await api({ op: 'status' })
    expect(status.stores.user).toMatchObject({ root: path.join(dir, 'personal'), exists: true })
    const personal = await api({ op: 'list', store: 'user', limit: 200 })
    expect(personal.total).toBe(status.stores.user.counts.all)
    const pref = personal.entries.find((e: { title: string }) => e.title === 'Answer style')
    expect(pref).toMatchObject({ store: 'user' })
    expect((await api({ op: 'list', store: 'project', limit: 200 })).entries.some((e: { id: string }) => e.id === pref.id)).toBe(false)
    // A tool naming the personal memory finds it in the personal store, as the registered tools do.
    expect((await api({ op: 'tool', name: 'memory_history', input: { id: pref.id } })).store).toBe('user')
  })

  it('backfills the host sessions through the panel API: 409 without them, estimate, run routed by kind, then nothing new', async () => {
    const key = (await fs.readFile(path.join(dir, 'store', PANEL_KEY_FILE), 'utf8')).trim()
    const backfill = (args: Record<string, unknown>) => postApi(root, JSON.stringify({ op: 'backfill', ...args }), key)
    // Before the host offers sessions, and in `memory-agent serve` (no provider at all): INVALID_STATE.
    const none = await backfill({})
    expect(none.status).toBe(409)
    expect(none.json.error).toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining('no host sessions here') })
    const serve = await handleApiRequest(
      { method: 'POST', headers: { 'content-type': 'application/json', [PANEL_HEADER]: 'panel', [TOKEN_HEADER]: key }, remoteAddress: '127.0.0.1', body: '{"op":"backfill"}' },
      storeApiDeps(createFileBackend(path.join(dir, 'store')), key),
    )
    expect(serve.status).toBe(409)
    expect((await backfill({ maxTurns: 0 })).status).toBe(400)

    const sessions = [
      pastSession('past-a', ['我习惯用 pnpm 管理依赖，不要用 npm。', '帮我看看这个报错怎么回事？', '我们约定提交信息用英文写，使用 conventional commits 格式。']),
      pastSession('past-b', ['我偏好用 vim 编辑配置文件，不喜欢图形界面。', '运行一下测试']),
    ]
    root.provide('sessions', { list: () => sessions })
    await new Promise((resolve) => setTimeout(resolve, 0))
    const project = createFileBackend(path.join(dir, 'store'))
    const personal = createFileBackend(path.join(dir, 'personal'))
    const backfilled = async (b: typeof project) => (await b.readIndex()).filter((e) => e.tags.includes('backfill'))

    const estimate = await backfill({})
    expect(estimate.status).toBe(200)
    expect(estimate.json.result).toMatchObject({ dryRun: true, sessions: 2, turns: 5, alreadyDone: 0, planned: 5, written: [] })
    expect(estimate.json.result.candidates).toBeGreaterThanOrEqual(3)
    expect(await backfilled(project)).toEqual([])
    expect(await backfilled(personal)).toEqual([])

    const run = await backfill({ dryRun: false })
    expect(run.status).toBe(200)
    expect(run.json.result).toMatchObject({ dryRun: false, turnsDone: 5, failed: 0, remaining: 0 })
    expect(run.json.result.written.length).toBeGreaterThanOrEqual(3)
    // Preferences went to the personal store, the convention stayed with the project.
    const mine = await backfilled(personal)
    const ours = await backfilled(project)
    expect(mine.map((e) => e.summary).join('\n')).toContain('pnpm')
    expect(mine.map((e) => e.summary).join('\n')).toContain('vim')
    expect(mine.every((e) => e.tags.includes('偏好'))).toBe(true)
    expect(ours.map((e) => e.summary).join('\n')).toContain('conventional commits')
    expect([...mine, ...ours].map((e) => e.id).sort()).toEqual([...run.json.result.written].sort())
    expect([...mine, ...ours].every((e) => e.status === 'suggested')).toBe(true)

    const again = await backfill({ dryRun: false })
    expect(again.json.result).toMatchObject({ alreadyDone: 5, planned: 0, written: [], duplicates: 0 })
    expect((await backfilled(personal)).length + (await backfilled(project)).length).toBe(mine.length + ours.length)
  })

  it('disposing the plugin leaves no tool, no context, no route and no timer', async () => {
    const key = (await fs.readFile(path.join(dir, 'store', PANEL_KEY_FILE), 'utf8')).trim()
    await fiber.dispose()
    // No route: the host's web server has no fallback here, so it answers 404.
    expect((await postApi(root, JSON.stringify({ op: 'status' }), key)).status).toBe(404)
    expect(fiber.state).toBe(4) // DISPOSED
    expect(root.tools.schemas()).toEqual([])
    const asm = await root.systemPrompt.assemble({})
    expect(asm.contexts.map((c: { name: string }) => c.name)).not.toContain(RECALL_CONTEXT)
    expect(renderContextSnapshot(asm)).toBe('')
    // Keep-alive sockets of the requests above belong to the host's server, not the plugin: close it.
    await webFibers.get(root)?.dispose()
    // The plugin did run timers (the search index's delayed save) and a folder watcher while it was active.
    expect([...resources.kinds].sort()).toEqual(['FSEVENTWRAP', 'Timeout'])
    // Destroy hooks of closed handles arrive on a later turn of the loop.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect([...resources.live.values()]).toEqual([])
  })
})

describe('tool definitions', () => {
  let dir: string
  beforeAll(async () => {
    dir = await tempDir('mem-host-defs-')
  })
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true })
  })

  it('defineTool and the built-in compiler produce equal definitions', async () => {
    const dsh = await loadDshTools()
    expect(dsh).not.toBeNull()
    expect(dsh?.HarnessError?.name).toBe('HarnessError')
    const backend = createFileBackend(dir)
    for (const tool of TOOLS) {
      const viaDefineTool = dshTool(tool, backend, dsh)
      const builtIn = dshTool(tool, backend, null)
      expect(builtIn.name).toBe(viaDefineTool.name)
      expect(builtIn.description).toBe(viaDefineTool.description)
      expect(builtIn.parameters, tool.name).toStrictEqual(viaDefineTool.parameters)
      expect(builtIn.output.schema, tool.name).toStrictEqual(viaDefineTool.output.schema)
      // Same key order too: the model receives exactly the same JSON either way.
      expect(JSON.stringify(builtIn.parameters)).toBe(JSON.stringify(viaDefineTool.parameters))
      expect(JSON.stringify(builtIn.output.schema)).toBe(JSON.stringify(viaDefineTool.output.schema))
      assertSupportedJsonSchema(builtIn.output.schema)
      // The compiler agrees with dsh-tools' own for the same DSL (defineTool is not needed for it).
      const probe = defineTool({ name: 'p', description: 'p', parameters: {}, output: { schema: toDsl(tool.output) as never, render: () => [] }, execute: async () => null as never })
      expect(compileDsl(toDsl(tool.output))).toStrictEqual(probe.output.schema)
      expect(compileParameters({})).toStrictEqual(probe.parameters)
    }
  })

  it('puts the bounds the DSL cannot express into descriptions', () => {
    const params = dshTool(findTool('write_memory')!, createFileBackend(dir), null).parameters
    expect(params.properties?.summary?.description).toMatch(/\(1-2000 characters\)$/)
    expect(params.properties?.confidence?.description).toMatch(/\(0 to 1\)$/)
    expect(params.properties?.anchors?.description).toMatch(/\(at most 8 items\)$/)
    expect(JSON.stringify(params)).not.toMatch(/minLength|maxLength|minimum|maximum|maxItems/)
  })

  it('without dsh-tools, errors still carry the code in the message and as `code`', async () => {
    const def = dshTool(findTool('memory_confirm')!, createFileBackend(dir), null)
    const err = await def.execute({ id: 'mem_missing' }, {}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).message).toMatch(/^NOT_FOUND: /)
    expect((err as { code?: string }).code).toBe('NOT_FOUND')
  })
})

describe('first use in the DSH host', () => {
  it('with no root configured, a new workspace\'s first search, verify, nav and answer through ctx.tools.execute say "nothing stored yet", create nothing; a write then starts the store', async () => {
    const workspace = await fs.realpath(await tempDir('mem-host-first-'))
    const before = process.cwd()
    // The plugin opens the store of the folder it runs in, as the host's session workspace.
    process.chdir(workspace)
    const root = await host()
    const fiber = await root.plugin(plugin as never, { userRoot: null })
    try {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['memory_search_hybrid', { query: 'staging database port' }],
        ['memory_verify', { claim: 'The staging database listens on port 6543.' }],
        ['memory_nav', {}],
        ['memory_answer', { question: 'Which port does the staging database listen on?' }],
      ]
      for (const [name, args] of calls) {
        const r = await execute(root, name, args)
        expect(r.isError, `${name}: ${JSON.stringify(r.error)}`).toBe(false)
        expect(r.content[0]?.text, name).toContain('nothing stored yet')
        expect(validateJsonSchemaValue(root.tools.get(name)!.output.schema as never, r.value, 'value'), name).toEqual([])
      }
      const [search, verify, nav] = await Promise.all(calls.slice(0, 3).map(([name, args]) => execute(root, name, args)))
      expect((search?.value as { reason: string }).reason).toBe('nothing-stored')
      expect((verify?.value as { verdict: string }).verdict).toBe('unknown')
      expect((nav?.value as { total: number }).total).toBe(0)
      expect(await fs.readdir(workspace)).toEqual([])
      // The first write starts the store; search finds it.
      const written = await execute(root, 'write_memory', { summary: 'The staging database listens on port 6543.' })
      expect(written.isError).toBe(false)
      const found = await execute(root, 'memory_search_hybrid', { query: 'staging database port' })
      expect((found.value as { reason: string; hits: unknown[] }).hits).toHaveLength(1)
      expect(await fs.readdir(path.join(workspace, '.agent', 'memory'))).toContain('index.jsonl')
    } finally {
      await fiber.dispose()
      process.chdir(before)
      await fs.rm(workspace, { recursive: true, force: true })
    }
  })
})

describe('without @deepseek-ai/dsh-tools', () => {
  afterEach(() => {
    vi.doUnmock('@deepseek-ai/dsh-tools')
    vi.resetModules()
  })

  it('warns once and registers the built-in definitions, which the real registry accepts and runs', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    vi.resetModules()
    vi.doMock('@deepseek-ai/dsh-tools', () => {
      throw new Error("Cannot find package '@deepseek-ai/dsh-tools'")
    })
    const tools = await import('../src/host/tools.js')
    expect(await tools.loadDshTools()).toBeNull()
    const fresh = await import('../src/host/index.js')
    const dir = await tempDir('mem-host-fallback-')
    const root = await host()
    const fiber = await root.plugin(fresh as never, { root: dir })
    try {
      expect(warn).toHaveBeenCalledTimes(1)
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/built-in compiler/)
      expect(root.tools.schemas()).toHaveLength(TOOLS.length)
      const written = await execute(root, 'write_memory', { summary: '降级路径也能写入' })
      expect(written.isError).toBe(false)
      expect(validateJsonSchemaValue(root.tools.get('write_memory')!.output.schema as never, written.value, 'value')).toEqual([])
      // Without the host's HarnessError there is no info.code; the code still leads the message.
      const missing = await execute(root, 'memory_confirm', { id: 'mem_missing' })
      expect(missing.isError).toBe(true)
      expect(missing.error?.message).toMatch(/^NOT_FOUND: /)
      const invalid = await execute(root, 'write_memory', {})
      expect(invalid.error?.message).toMatch(/^INVALID_INPUT: write_memory: summary/)
    } finally {
      await fiber.dispose()
      warn.mockRestore()
      await fs.rm(dir, { recursive: true, force: true })
    }
  })
})

describe('package boundaries', () => {
  it('the library API (dsh-memory-agent/api) reaches no @deepseek-ai package and no host module', async () => {
    const seen = new Set<string>()
    const bare = new Set<string>()
    const visit = async (file: string): Promise<void> => {
      if (seen.has(file)) return
      seen.add(file)
      const text = await fs.readFile(file, 'utf8')
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        const spec = m[1] as string
        if (spec.startsWith('.')) await visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')))
        else bare.add(spec)
      }
    }
    await visit(path.join(SRC, 'api.ts'))
    expect([...bare].filter((spec) => spec.startsWith('@deepseek-ai/'))).toEqual([])
    expect([...seen].filter((file) => file.startsWith(path.join(SRC, 'host')))).toEqual([])
    expect(seen.size).toBeGreaterThan(20)
  })
})

describe('optional host services', () => {
  let warn: ReturnType<typeof vi.spyOn>
  afterEach(() => warn?.mockRestore())

  it('auto-settle runs from the prompt heartbeat while ctx.sessions exists; session hooks audit', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const dir = await tempDir('mem-host-settle-')
    const root = await host()
    const messages: HostMessage[] = [
      { role: 'user', content: [{ type: 'text', text: '记住：我们的数据库部署在 PostgreSQL 16 上，别用 MySQL。' }], source: { kind: 'user', rpcId: 'rpc-1' } },
      { role: 'user', content: [{ type: 'text', text: `${INJECTION_HEADING}\n> 旧记忆：我喜欢用 vim 写代码，记住这个偏好` }], source: { kind: 'runtime-context' } },
    ]
    let derived = 0
    const session = { id: 'session-live', deriveMessages: () => (derived++, messages) }
    const fiber = await root.plugin(plugin as never, {
      root: dir,
      userRoot: null,
      lifecycle: { enabled: true, audit: true, autoSettle: { enabled: true, minIntervalMs: 60_000, minMessages: 1, maxCandidates: 3 } },
    })
    try {
      // No sessions service: the plugin loaded anyway and the heartbeat does nothing.
      expect(fiber.state).toBe(2)
      await root.systemPrompt.assemble({})
      root.provide('sessions', { list: () => [session] })
      await new Promise((resolve) => setTimeout(resolve, 0))
      root.emit('session/created', session)
      await root.systemPrompt.assemble({}) // the heartbeat starts an attempt
      const backend = createFileBackend(dir)
      let settled: { status: string; tags: string[] }[] = []
      for (let i = 0; i < 100 && settled.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        settled = (await backend.readIndex()).filter((e) => e.tags.includes('auto-settle'))
      }
      expect(settled).toHaveLength(1)
      expect(settled[0]?.status).toBe('suggested')
      // The attempt's audit line follows its write: wait for it rather than race it on a loaded machine.
      let events: string[] = []
      for (let i = 0; i < 100 && !events.includes('lifecycle/auto-settle'); i++) {
        events = (await backend.readLedger()).map((e) => e.event)
        if (!events.includes('lifecycle/auto-settle')) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(events).toContain('lifecycle/auto-settle')
      expect(events).toContain('lifecycle/attach')
      // Within minIntervalMs of the attempt, later turns do not even derive the session's messages.
      const before = derived
      for (let i = 0; i < 5; i++) await root.systemPrompt.assemble({})
      expect(derived).toBe(before)
    } finally {
      await fiber.dispose()
      await fs.rm(dir, { recursive: true, force: true })
    }
    expect(warn).not.toHaveBeenCalled()
  })

  it('the prompt heartbeat consolidates in the background after consolidateAfterEpisodes new episodes: never below, never at 0, once at a time', async () => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const dir = await tempDir('mem-host-consolidate-')
    const backend = createFileBackend(dir)
    const consolidations = async () => (await backend.readLedger()).filter((e) => e.event === 'consolidate')
    // One fact said in three sessions: a run promotes it to a topic.
    const said = [
      ['s1', '2026-02-02T08:30:00Z', 'User mentioned they are based in Lisbon, so a 9:00 UTC call works for them.'],
      ['s2', '2026-02-05T14:00:00Z', 'Scheduled the vendor sync for 10:00 Lisbon time, since that is where the user lives.'],
      ['s3', '2026-02-09T16:20:00Z', '用户说他住在 Lisbon，想找周末徒步的路线。'],
    ] as const
    /** Loads the plugin on the store, writes episodes through the host's tool runtime, then assembles prompts. */
    async function session(consolidateAfterEpisodes: number, episodes: ReadonlyArray<readonly [string, string, string]>, turns: number) {
      const root = await host()
      const fiber = await root.plugin(plugin as never, { root: dir, userRoot: null, consolidateAfterEpisodes })
      for (const [session_id, time, summary] of episodes) {
        const r = await execute(root, 'write_memory', { summary, type: 'episode', session_id, time })
        expect(r.isError).toBe(false)
      }
      // The write path never consolidates.
      expect(await consolidations()).toEqual([])
      for (let i = 0; i < turns; i++) await root.systemPrompt.assemble({})
      return { root, fiber }
    }
    try {
      // Below the threshold: turns go by, nothing runs (disposing waits for anything in flight).
      await (await session(3, said.slice(0, 2), 3)).fiber.dispose()
      expect(await consolidations()).toEqual([])
      // Switched off (0): a third episode and more turns, still nothing.
      await (await session(0, said.slice(2), 3)).fiber.dispose()
      expect(await consolidations()).toEqual([])
      // At the threshold: the first turn starts one run in the background; the turns after it start no second one.
      const { root, fiber } = await session(3, [], 1)
      let ran = await consolidations()
      for (let i = 0; i < 200 && ran.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        ran = await consolidations()
      }
      expect(ran).toEqual([expect.objectContaining({ event: 'consolidate', promoted: 1 })])
      const topics = (await backend.readIndex()).filter((e) => e.type === 'topic' && e.derived_from !== undefined)
      expect(topics).toHaveLength(1)
      expect(topics[0]?.summary).toMatch(/Lisbon/)
      expect((await backend.readLedger()).filter((e) => e.event === 'promote').map((e) => e.id)).toEqual([topics[0]?.id])
      for (let i = 0; i < 5; i++) await root.systemPrompt.assemble({})
      await fiber.dispose()
      expect(await consolidations()).toHaveLength(1)
    } finally {
      await flushCaches(backend)
      await fs.rm(dir, { recursive: true, force: true })
    }
    expect(warn).not.toHaveBeenCalled()
  })
})
