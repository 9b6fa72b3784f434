/**
 * The real host (issue 5, acceptance "The real host"): the packed package, added to DSH profiles
 * of the real `@deepseek-ai/dsh` 0.1.0-rc.8 running on Node 22.
 *
 *   (a) no LLM: a driver plugin loaded with `--patch` lists the host's tool registry, executes
 *       every tool through ctx.tools.execute (write_memory, then memory_search_hybrid finds it;
 *       the others on the memories written), and assembles the system prompt, which must carry
 *       our resident-injection context;
 *   (b) one full agent turn against a scripted mock LLM (DEEPSEEK_BASE_URL): the model calls
 *       write_memory, then memory_search_hybrid, whose tool result must contain the written text;
 *   (c) `dsh web` (the web profile, our package added to it): the panel API on the host's own web
 *       server answers the panel with the key from the link the plugin prints, and refuses what
 *       it must (403 without or with a wrong key, with forged Origin and panel header; 413 over
 *       64 KB; 405 for GET);
 *   (e) consolidation in the real host reaches the mock LLM through the host's LLM service
 *       (ctx.llm, dsh-llm-deepseek on DEEPSEEK_BASE_URL, the host's default model) and takes the
 *       model's grounded fact;
 *   (d) the settings panel inside the real DSH web UI, in headless Chromium: the host serves our
 *       client artifact from its boot graph, the link's key unlocks it, Settings → Memory shows
 *       the store, and a memory written there is found by the panel's search (in Chinese, the
 *       browser's language); an English browser without the key sees the locked view in English.
 *
 * Run with `npm run test:host` (it builds, installs the host with scripts/dsh-host-setup.sh, then
 * runs vitest with vitest.host.config.ts). Set DSH_HOST_TEST_KEEP=1 to keep the sandbox.
 */

import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DRIVER,
  HOST_PROMPT_MODULE,
  REPO,
  assertHostInstalled,
  createSandbox,
  describeRun,
  packPlugin,
  profileManifest,
  reports,
  setBundles,
  writePatch,
  type Sandbox,
} from './host-harness.js'
import { contentText, startMockLlm } from './mock-llm.js'
import { FACT, HISTORY, script, ZH_SUMMARY } from '../consolidation-model-kit.js'
import { artifacts, ensureChromium, launchBrowser } from '../panel/harness.js'
import type { Page } from 'playwright-core'

const PACKAGE = 'dsh-memory-agent'
const HEADING = '## 长期记忆 (dsh-memory-agent)'

let sandbox: Sandbox
let tarball: string
let toolNames: string[]
let failed = false

beforeAll(async () => {
  assertHostInstalled()
  const api = await import(path.join(REPO, 'lib/api.js'))
  toolNames = api.TOOLS.map((t: { name: string }) => t.name)
  expect(toolNames).toContain('write_memory')
  expect(toolNames).toContain('memory_search_hybrid')
  sandbox = createSandbox()
  tarball = packPlugin(path.join(sandbox.dir, 'pack'))
})

afterAll(() => {
  if (!sandbox) return
  if (failed || process.env.DSH_HOST_TEST_KEEP) console.log(`real-host sandbox kept at ${sandbox.dir}`)
  else sandbox.remove()
})

/** `dsh plugin --profile <profile> add <tarball>`: pnpm installs the packed package into the profile. */
async function addPlugin(profile: string): Promise<void> {
  const r = await sandbox.dsh(['plugin', '--profile', profile, 'add', tarball], { cwd: sandbox.workspace(`add-${profile}`), timeoutMs: 120_000 })
  if (r.code !== 0) {
    failed = true
    throw new Error(describeRun(`dsh plugin --profile ${profile} add`, r))
  }
  const manifest = profileManifest(sandbox, profile)
  expect(Object.keys(manifest.dependencies ?? {})).toContain(PACKAGE)
  // A dependency with a `dsh.bundle` is appended to the profile's bundles by `plugin add`.
  expect(manifest.dsh.profile.bundles[0]).toBe('@deepseek-ai/dsh-base')
  expect(manifest.dsh.profile.bundles.at(-1)).toBe(PACKAGE)
}

describe('the real DSH host (rc.8, Node 22)', () => {
  it('(a) no LLM: every tool registered and executed through the host registry, memory context in the prompt', async () => {
    try {
      await addPlugin('memdrive')
      const summary = 'The staging database of project Kestrel is PostgreSQL 16 listening on port 6543'
      const key = 'kestrel-staging-db'
      // Every tool once, with valid input, in an order whose later calls use earlier ids ("$n.id").
      const calls = [
        /* 1 */ { name: 'write_memory', arguments: { summary, key, tags: ['database'] } },
        /* 2 */ { name: 'memory_search_hybrid', arguments: { query: 'Kestrel staging database port' } },
        /* 3 */ { name: 'memory_nav', arguments: {} },
        /* 4 */ { name: 'memory_assemble', arguments: { task: 'connect to the Kestrel staging database' } },
        /* 5 */ { name: 'write_memory', arguments: { summary: 'Kestrel deploys go out on Fridays', requireConfirmation: true } },
        /* 6 */ { name: 'memory_confirm', arguments: { id: '$5.id' } },
        /* 7 */ { name: 'write_memory', arguments: { summary: 'The Kestrel staging database moved to port 6544', key, expectConflict: true } },
        /* 8 */ { name: 'memory_resolve', arguments: { id: '$1.id', action: 'keep' } },
        /* 9 */ { name: 'memory_digest', arguments: { key } },
        /* 10 */ { name: 'memory_sweep', arguments: {} },
        /* 11 */ { name: 'write_memory', arguments: { summary: 'We debugged the Kestrel login page', raw: 'user: the login page 500s\nassistant: fixed the cookie path', session_id: 'host-test-session' } },
        /* 12 */ { name: 'forget_memories_by_session', arguments: { session_id: 'host-test-session' } },
        /* 13 */ { name: 'memory_verify', arguments: { claim: 'The Kestrel staging database listens on port 6543' } },
        { name: 'memory_history', arguments: { id: '$1.id' } },
        { name: 'memory_lineage', arguments: { id: '$1.id' } },
        { name: 'memory_search_hybrid', arguments: { query: 'Kestrel staging database', asOf: '2000-01-01T00:00:00Z' } },
        { name: 'memory_forget', arguments: { id: '$5.id' } },
        { name: 'memory_purge', arguments: { id: '$5.id' } },
        /* 19 */ { name: 'write_memory', arguments: { summary: 'Kestrel backups run nightly at 02:00 UTC.', title: 'Kestrel backups' } },
        /* 20 */ { name: 'write_memory', arguments: { summary: 'Kestrel backups run nightly at 02:00 UTC', title: 'Backup schedule' } },
        /* 21 */ { name: 'memory_duplicates', arguments: {} },
        /* 22 */ { name: 'memory_merge', arguments: { ids: ['$19.id', '$20.id'], dryRun: false } },
        /* 23 */ { name: 'memory_undemote', arguments: { ids: ['$22.folded.0.id'] } },
        // Rooms, navigation and decay (issue 8 part B): read-only walks, a decay preview, an empty restore.
        { name: 'memory_rooms', arguments: {} },
        { name: 'memory_timeline', arguments: { order: 'tour' } },
        { name: 'memory_neighbors', arguments: { id: '$1.id', hops: 2 } },
        { name: 'memory_decay', arguments: {} },
        { name: 'memory_restore', arguments: { ids: ['$1.id'] } },
        { name: 'memory_audit_forgotten', arguments: {} },
        // Retrieval practice and the evidence gate (issue 8 part C); "$30" is the search just below: keep it 30th.
        /* 30 */ { name: 'memory_search_hybrid', arguments: { query: 'Kestrel staging database', session_id: 'host-test-session' } },
        { name: 'memory_assess', arguments: { batchId: '$30.batch_id', evidenceRefs: ['$30.hits.0.ref'], nextStrategy: 'answer', sufficient: true, session_id: 'host-test-session' } },
        { name: 'memory_review_queue', arguments: {} },
        { name: 'memory_review', arguments: { id: '$1.id' } },
        { name: 'memory_report', arguments: { id: '$1.id', grade: 4 } },
        // Consolidation (issue 17): a preview.
        { name: 'memory_consolidate', arguments: {} },
        // Vectors (issue 19): no embedder configured, nothing to embed.
        { name: 'memory_embed', arguments: {} },
        // The model's judgements (issue 27): with no model, nothing to undo for a memory.
        { name: 'memory_undo_judgement', arguments: { ids: ['$1.id'] } },
        // Answers with citations and the store in numbers (issue 29).
        { name: 'memory_answer', arguments: { question: 'Which port does the Kestrel staging database listen on?' } },
        { name: 'memory_stats', arguments: {} },
        // Workspaces (issue 29): the projects this machine has worked in, from the personal store.
        { name: 'memory_workspaces', arguments: {} },
      ]
      const patch = writePatch(sandbox, 'driver.patch.yml', [
        {
          insert: [
            {
              id: 'test-driver',
              name: DRIVER, // absolute: a relative name resolves against the profile dir
              config: { waitFor: toolNames, promptModule: HOST_PROMPT_MODULE, calls },
            },
          ],
        },
      ])
      const r = await sandbox.dsh(['--profile', 'memdrive', '--patch', patch], { cwd: sandbox.workspace('drive'), timeoutMs: 60_000 })
      const why = describeRun('dsh --profile memdrive --patch driver', r)
      expect(r.code, why).toBe(0)
      const lines = reports(r.stdout)
      expect(lines.find((l) => l.kind === 'error'), why).toBeUndefined()
      expect(lines.at(-1)?.kind, why).toBe('done')

      const registered: string[] = lines.find((l) => l.kind === 'tools').names
      for (const tool of toolNames) expect(registered, `${tool} in ctx.tools.schemas()`).toContain(tool)
      expect(new Set(registered).size).toBe(registered.length)

      const results = lines.filter((l) => l.kind === 'call')
      expect(results.map((l) => l.name)).toEqual(calls.map((c) => c.name))
      for (const [i, l] of results.entries()) expect(l.result.isError, `call ${i + 1} ${l.name}: ${JSON.stringify(l.result)}`).toBe(false)
      expect(new Set(results.map((l) => l.name)), 'every tool executed').toEqual(new Set(toolNames))

      const [write, search] = results
      const id: string = write.result.value.id
      expect(id).toMatch(/\S/)
      const hits: { id: string; summary: string }[] = search.result.value.hits
      expect(hits.map((h) => h.id)).toContain(id)
      expect(hits.find((h) => h.id === id)?.summary).toBe(summary)
      expect(contentText(search.result.content)).toContain(summary)
      expect(results[5].result.value.status, 'memory_confirm').toBe('active')
      expect(results[6].result.value.variants, 'write with expectConflict').toContain(id)
      expect(results[12].result.value.verdict, 'memory_verify after the conflict was kept for port 6543').toBe('supported')

      const prompt = lines.find((l) => l.kind === 'prompt')
      const ours = prompt.contexts.find((c: { text: string | null }) => c.text?.includes(HEADING))
      expect(ours, JSON.stringify(prompt.contexts)).toBeDefined()
      expect(prompt.snapshot).toContain(HEADING)
      expect(prompt.snapshot).toContain('Kestrel')
      expect(prompt.tools).toBeGreaterThanOrEqual(toolNames.length)
    } catch (err) {
      failed = true
      throw err
    }
  })

  it('(b) one agent turn against a scripted LLM: write_memory, then memory_search_hybrid finds it', async () => {
    const summary = '项目 Kestrel 的预发布数据库是 PostgreSQL 16，端口 6543 (staging)'
    const mock = await startMockLlm({
      script: [
        { name: 'write_memory', arguments: { summary, tags: ['database'] } },
        { name: 'memory_search_hybrid', arguments: { query: 'Kestrel 数据库 端口' } },
      ],
      maxRequests: 10,
      timeoutMs: 90_000,
    })
    try {
      await addPlugin('memturn')
      // The headless one-shot runner answers one task and exits.
      setBundles(sandbox, 'memturn', ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-headless', PACKAGE])
      // A guard in the workspace's store whose trigger the task matches: the host hands the
      // turn's agent to our context, whose latest user message is the cue.
      const ws = sandbox.workspace('turn')
      const api = await import(path.join(REPO, 'lib/api.js'))
      const seeded = api.createFileBackend(path.join(ws, '.agent/memory'))
      await api.writeHandler(seeded, { summary: 'Staging changes need a ticket.', guard_trigger: 'Kestrel staging database', guard_action: 'open a change ticket first' })
      await api.flushCaches(seeded)
      const r = await sandbox.dsh(['--profile', 'memturn', 'remember where the Kestrel staging database lives, then check it'], {
        cwd: ws,
        env: { DEEPSEEK_API_KEY: 'sk-mock', DEEPSEEK_BASE_URL: mock.baseUrl },
        timeoutMs: 60_000,
      })
      const log = mock.requests.map((q) => `#${q.id} ${q.url} -> ${q.answer}`).join('\n')
      const why = `${describeRun('dsh --profile memturn <task>', r)}\n--- mock llm\n${log}`
      expect(r.code, why).toBe(0)

      const turns = mock.requests.filter((q) => q.answer !== 'title')
      expect(turns.map((q) => q.answer), why).toEqual(['tools', 'tools', 'final'])
      const offered: string[] = turns[0]!.body.tools.map((t: any) => t.function.name)
      for (const tool of toolNames) expect(offered, `${tool} offered to the model`).toContain(tool)

      // The conversation the host sent back with the final request: both tool results.
      const messages: any[] = turns[2]!.body.messages
      const toolMessages = messages.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, text: contentText(m.content) }))
      expect(toolMessages.map((m) => m.id), why).toEqual(['call_1_1', 'call_2_1'])
      const [wrote, found] = toolMessages
      expect(wrote!.text, 'write_memory result').not.toMatch(/^Error:/)
      expect(found!.text, 'memory_search_hybrid result').not.toMatch(/^Error:/)
      // A hit, not the zero-hit guidance (which also quotes the latest memory): the rendered
      // result starts with "<n> hit(s)" and lists the written memory by its id.
      const id = /\bmem_[0-9a-z]+\b/.exec(wrote!.text)?.[0]
      expect(id, `an id in the write_memory result: ${wrote!.text}`).toBeDefined()
      expect(Number(/^(\d+) hit/.exec(found!.text)?.[1] ?? 0), found!.text).toBeGreaterThan(0)
      expect(found!.text, 'the search result lists the written memory').toContain(id!)
      expect(found!.text, 'the search result contains the written text').toContain(summary)
      // The resident injection reached the model: a runtime-context message after the write.
      const contexts = messages.filter((m) => m.role === 'user').map((m) => contentText(m.content))
      expect(contexts.some((t) => t.includes(HEADING) && t.includes('Kestrel')), 'memory context sent to the model').toBe(true)
      expect(contexts.some((t) => t.includes('[GUARD] when Kestrel staging database: open a change ticket first')), 'guard cued by the task').toBe(true)
      // The headless runner prints the final answer (the mock echoes the last tool result).
      expect(r.stdout).toContain('MOCK FINAL:')
      expect(r.stdout).toContain(summary)
    } catch (err) {
      failed = true
      throw err
    } finally {
      await mock.close()
    }
  })

  it('(e) consolidation asks the host LLM (the default model, dsh-llm-deepseek) and takes its grounded fact', async () => {
    const mock = await startMockLlm({ script: [], complete: script, maxRequests: 20, timeoutMs: 90_000 })
    try {
      await addPlugin('memmodel')
      const calls = [
        ...HISTORY.map(([session_id, time, summary]) => ({ name: 'write_memory', arguments: { summary, type: 'episode', session_id, time } })),
        { name: 'memory_consolidate', arguments: { dryRun: false } },
      ]
      const patch = writePatch(sandbox, 'model.patch.yml', [{ insert: [{ id: 'test-driver', name: DRIVER, config: { waitFor: ['memory_consolidate'], calls } }] }])
      const r = await sandbox.dsh(['--profile', 'memmodel', '--patch', patch], {
        cwd: sandbox.workspace('model'),
        env: { DEEPSEEK_API_KEY: 'sk-mock', DEEPSEEK_BASE_URL: mock.baseUrl },
        timeoutMs: 90_000,
      })
      const log = mock.requests.map((q) => `#${q.id} ${q.url} -> ${q.answer}`).join('\n')
      const why = `${describeRun('dsh --profile memmodel --patch driver', r)}\n--- mock llm\n${log}`
      expect(r.code, why).toBe(0)
      const consolidated = reports(r.stdout).filter((l) => l.kind === 'call').at(-1)
      expect(consolidated?.result.isError, why).toBe(false)
      const report = consolidated.result.value
      // The host's default selection for new agents (dsh-base: deepseek-official / deepseek-v4-flash).
      expect(report.model, why).toMatchObject({ id: 'dsh:deepseek-official/deepseek-v4-flash', calls: 5 })
      expect(report.degraded, why).toBeUndefined()
      expect(report.promoted.map((p: { summary: string }) => p.summary)).toEqual([FACT])
      const summaries = new Map(report.reflected.map((x: { session: string; summary: string }) => [x.session, x.summary]))
      expect(summaries.get('s4')).toBe(`会话 s4（2026-02-10，2 条）: ${ZH_SUMMARY}`)
      // The invented summary and the empty answer (the host's EMPTY_RESPONSE) fall back item by item.
      expect(report.model.fallbacks.map((f: { item: string }) => f.item)).toEqual(['s2', 's3'])
      const asked = mock.requests.filter((q) => q.answer === 'complete')
      expect(asked, why).toHaveLength(5)
      expect(asked[0]!.body.model).toBe('deepseek-v4-flash')
    } catch (err) {
      failed = true
      throw err
    } finally {
      await mock.close()
    }
  })

  it('(c) dsh web: the panel API on the host web server, 403 without the key, 413 over 64 KB', async () => {
    await addPlugin('web')
    const ws = sandbox.workspace('web')
    const server = sandbox.start(['web', '--no-open', '--host', '127.0.0.1', '--port', '0'], { cwd: ws })
    try {
      const [, base] = await server.waitFor(/dsh web: (http:\/\/127\.0\.0\.1:\d+)/, 60_000)
      const [, link, key] = await server.waitFor(/unlocks with (http:\S+#memory-agent-key=([A-Za-z0-9_-]+))/, 10_000)
      expect(new URL(link!).origin).toBe(base)
      // The key is the store's, under the session workspace (the cwd), owner-only.
      expect(readFileSync(path.join(ws, '.agent/memory/.cache/panel-key'), 'utf8').trim()).toBe(key)

      const api = `${base}/memory-agent/api`
      const post = async (body: string, headers: Record<string, string>) => {
        const res = await fetch(api, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
        return { status: res.status, json: await res.json().catch(() => null) }
      }
      const panel = { 'x-dsh-memory-agent': 'panel', 'x-dsh-memory-agent-token': key! }
      const status = await post(JSON.stringify({ op: 'status' }), panel)
      expect(status.status, JSON.stringify(status.json)).toBe(200)
      expect(status.json.result.root).toBe(path.join(ws, '.agent/memory'))

      const created = await post(JSON.stringify({ op: 'create', summary: 'dsh web serves the memory panel API' }), panel)
      expect(created.status, JSON.stringify(created.json)).toBe(200)
      const found = await post(JSON.stringify({ op: 'search', query: 'memory panel API' }), panel)
      expect(found.json.result.hits.map((h: { id: string }) => h.id)).toContain(created.json.result.id)

      // A local process that forges Origin and the panel header but has no key.
      const forged = { origin: base!, 'x-dsh-memory-agent': 'panel' }
      expect((await post(JSON.stringify({ op: 'status' }), forged)).status).toBe(403)
      expect((await post(JSON.stringify({ op: 'status' }), { ...forged, 'x-dsh-memory-agent-token': 'x'.repeat(43) })).status).toBe(403)
      expect((await post(JSON.stringify({ op: 'export' }), {})).status).toBe(403)
      expect((await post(JSON.stringify({ op: 'search', query: 'x'.repeat(70 * 1024) }), panel)).status).toBe(413)
      expect((await fetch(api)).status).toBe(405)
      // The rest of the host is still there: the web UI.
      expect((await fetch(`${base}/`)).status).toBe(200)
    } catch (err) {
      failed = true
      throw err
    } finally {
      const r = await server.stop()
      if (failed) console.log(describeRun('dsh web', r))
    }
  })

  it('(d) dsh web in headless Chromium: Settings → Memory is our panel, unlocked by the printed link', async () => {
    ensureChromium()
    await addPlugin('web')
    const ws = sandbox.workspace('web-ui')
    const server = sandbox.start(['web', '--no-open', '--host', '127.0.0.1', '--port', '0'], { cwd: ws })
    // Wide enough for the host's sidebar to show its labels.
    const wide = { viewport: { width: 1280, height: 900 } }
    const browser = await launchBrowser(wide)
    // The stranger's browser is in English: the host and our panel follow it.
    const stranger = await launchBrowser({ ...wide, locale: 'en-US' })
    try {
      const [, base] = await server.waitFor(/dsh web: (http:\/\/127\.0\.0\.1:\d+)/, 60_000)
      const [, link] = await server.waitFor(/unlocks with (http:\S+#memory-agent-key=[A-Za-z0-9_-]+)/, 10_000)
      // The host composes our client bundle into the page's boot graph and serves it.
      const index = await (await fetch(`${base}/`)).text()
      expect(index).toMatch(/"id":"dsh-memory-agent","url":"\/plugins\/dsh-memory-agent\/client\.js/)

      const page = browser.pages()[0] ?? (await browser.newPage())
      const errors: string[] = []
      page.on('pageerror', (err) => errors.push(err.message))
      await page.goto(link!)
      await openMemorySettings(page)
      // The key left the address bar; the panel shows the store of the session workspace.
      expect(new URL(page.url()).hash).toBe('')
      await page.getByText(path.join(ws, '.agent/memory')).waitFor({ timeout: 15_000 })
      await page.screenshot({ path: path.join(artifacts, 'dsh-web-settings-memory.png') })

      const summary = 'The DSH web panel writes memories straight into the store'
      await page.getByPlaceholder(/What to remember|要记住的内容|记住什么/).fill(summary)
      await page.getByRole('button', { name: /Save memory|保存记忆/ }).click()
      await page.getByPlaceholder(/Search memories|搜索记忆/).fill('DSH web panel')
      await page.getByRole('button', { name: /^(Search|搜索)$/ }).click()
      await page.getByText(summary).first().waitFor({ timeout: 15_000 })
      await page.screenshot({ path: path.join(artifacts, 'dsh-web-settings-memory-search.png') })

      // A browser that never saw the link: the panel stays locked and says how to unlock it.
      const other = stranger.pages()[0] ?? (await stranger.newPage())
      await other.goto(`${base}/`)
      await openMemorySettings(other)
      await other.getByText('The panel is locked').waitFor({ timeout: 15_000 })
      await other.getByText(/memory-agent panel-key/).first().waitFor({ timeout: 15_000 })
      await other.screenshot({ path: path.join(artifacts, 'dsh-web-settings-memory-locked.png') })
      expect(errors).toEqual([])
    } catch (err) {
      failed = true
      throw err
    } finally {
      await Promise.all([browser.close(), stranger.close()])
      const r = await server.stop()
      if (failed) console.log(describeRun('dsh web (UI)', r))
    }
  })
})

/** Past the host's first-run notice and provider onboarding, then Settings → Memory. */
async function openMemorySettings(page: Page): Promise<void> {
  const settings = page.getByText(/^(Settings|设置)$/).filter({ visible: true }).first()
  await settings.waitFor({ timeout: 30_000 })
  // Dialogs that make the rest of the page inert on a first run; each may or may not come.
  for (const name of [/^(Continue|继续)$/, /^(Configure later|稍后配置)$/]) {
    await page.getByRole('button', { name }).click({ timeout: 5_000 }).catch(() => undefined)
  }
  await settings.click()
  await page.getByText(/^(Memory|记忆)$/).filter({ visible: true }).first().click()
}
