/**
 * The DSH plugin serves each session the project store of the session's own folder (issue 29,
 * item 6), not the store of the folder it loaded in: real cordis `Context`, `SystemPrompt`,
 * `ToolRuntime` and web server of the host's pinned packages, real git repositories (a checkout,
 * its worktree, an https clone, an unrelated repository; test/git-kit.ts), calls and turns whose
 * agent's session carries `header.cwd` as the host's sessions do. Tools, the resident injection,
 * memory_workspaces and the panel's history backfill each go by the session's folder; a session
 * without one is served the load folder's store.
 */

import { existsSync, promises as fs } from 'node:fs'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { SystemPrompt, renderContextSnapshot } from '@deepseek-ai/dsh-system-prompt'
import { ToolRuntime } from '@deepseek-ai/dsh-tools'
import { WebServer } from '@deepseek-ai/dsh-host-webserver'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as plugin from '../src/host/index.js'
import { API_PATH, PANEL_HEADER, TOKEN_HEADER } from '../src/host/api.js'
import { PANEL_KEY_FILE } from '../src/host/panel-key.js'
import { createFileBackend } from '../src/store/file-backend.js'
import { WORKSPACES_FILE } from '../src/store/workspaces.js'
import type { HostMessage } from '../src/lifecycle/auto-settle.js'
import { PROJECT, gitWorld, type GitWorld } from './git-kit.js'

interface Result {
  isError: boolean
  value?: Record<string, unknown>
  error?: unknown
}

const signal = new AbortController().signal
let calls = 0

/** A session as the host gives it: an id, its folder in the header, and user-typed messages. */
function session(id: string, cwd: string | undefined, typed: string[] = []) {
  const messages: HostMessage[] = typed.flatMap((text, i): HostMessage[] => [
    { role: 'user', content: [{ type: 'text', text }], source: { kind: 'user', rpcId: `${id}-${i}` } },
    { role: 'assistant', content: [{ type: 'text', text: '好的。' }] },
  ])
  return { id, header: cwd === undefined ? {} : { cwd }, deriveMessages: () => messages }
}

describe('the DSH plugin: a store per session folder', () => {
  let w: GitWorld
  let load: string
  let root: Context
  let web: { dispose(): Promise<unknown> }
  let fiber: Awaited<ReturnType<Context['plugin']>>
  const startedIn = process.cwd()
  const info = vi.spyOn(console, 'info').mockImplementation(() => undefined)

  const run = async (name: string, args: Record<string, unknown>, cwd: string | undefined): Promise<Record<string, unknown>> => {
    const r = (await root.tools.execute({ callId: `call-${++calls}`, name, arguments: args, signal, agent: { session: session('s-call', cwd) } } as never)) as Result
    expect(r.isError, `${name} in ${cwd}: ${JSON.stringify(r.error)}`).toBe(false)
    return r.value as Record<string, unknown>
  }
  const prompt = async (cwd: string | undefined) => renderContextSnapshot(await root.systemPrompt.assemble({ agent: { session: session('s-turn', cwd) } } as never))
  const storeOf = (folder: string) => path.join(folder, '.agent', 'memory')

  beforeAll(async () => {
    w = await gitWorld()
    load = path.join(w.base, 'load')
    await fs.mkdir(load)
    // The folder the host started in: the plugin's fallback store is <load>/.agent/memory.
    process.chdir(load)
    root = new Context()
    await root.plugin(SystemPrompt, {})
    await root.plugin(ToolRuntime, {})
    web = await root.plugin(WebServer as never, { host: '127.0.0.1', port: 0 })
    fiber = await root.plugin(plugin as never, { userRoot: w.personal })
  })
  afterAll(async () => {
    await fiber.dispose()
    await web.dispose()
    process.chdir(startedIn)
    info.mockRestore()
    await fs.rm(w.base, { recursive: true, force: true })
  })

  it('writes in the checkout, finds it from the worktree and the https clone, and injects it there; not in another repository', async () => {
    // A preference makes the personal store, where the workspaces are recorded.
    expect((await run('write_memory', { summary: '我喜欢先看结论再看细节', tags: ['preference'] }, w.main))['store']).toBe('user')
    const zh = await run('write_memory', { summary: '发布前先在预发布环境跑冒烟测试' }, w.main)
    expect(zh['store']).toBe('project')
    expect((await createFileBackend(storeOf(w.main)).readIndex()).map((e) => e.id)).toEqual([zh['id']])
    // The load folder's store holds the panel key, but none of the memory.
    expect(await createFileBackend(storeOf(load)).readIndex()).toEqual([])
    const en = await run('write_memory', { summary: 'The Widget staging cluster is called kestrel-2' }, w.tree)
    // The worktree wrote into the checkout's store, not a store of its own.
    expect(existsSync(path.join(w.tree, '.agent'))).toBe(false)
    expect((await createFileBackend(storeOf(w.main)).readIndex()).map((e) => e.id).sort()).toEqual([zh['id'], en['id']].sort())

    // The checkout is recorded as a workspace (after its store exists); the clone then finds it by origin.
    const recorded = async (folder: string) => existsSync(path.join(w.personal, WORKSPACES_FILE)) && (await fs.readFile(path.join(w.personal, WORKSPACES_FILE), 'utf8')).includes(`"folder":${JSON.stringify(folder)}`)
    for (let i = 0; i < 50 && !(await recorded(w.main)); i++) {
      await run('memory_nav', {}, w.main)
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(await recorded(w.main)).toBe(true)
    const found = await run('memory_search_hybrid', { query: '冒烟测试' }, w.clone)
    expect((found['hits'] as Array<{ id: string }>).map((h) => h.id)).toEqual([zh['id']])
    expect(existsSync(path.join(w.clone, '.agent'))).toBe(false)
    expect(await prompt(w.clone)).toContain('kestrel-2')
    expect(await prompt(w.tree)).toContain('冒烟测试')
    // An unrelated repository, and a session without a folder, see none of it.
    expect(await prompt(w.other)).not.toContain('kestrel-2')
    expect(((await run('memory_search_hybrid', { query: 'kestrel' }, w.other))['hits'] as unknown[]).length).toBe(0)
    const loose = await run('write_memory', { summary: 'A note from a session with no folder' }, undefined)
    expect((await createFileBackend(storeOf(load)).readIndex()).map((e) => e.id)).toEqual([loose['id']])

    const listed = await run('memory_workspaces', {}, w.other)
    const project = (listed['projects'] as Array<{ project: string; stores: Array<{ store: string; folders: string[] }> }>).find((p) => p.project === PROJECT)
    expect(project?.stores.map((s) => s.store)).toEqual([storeOf(w.main)])
    expect(project?.stores[0]?.folders).toEqual(expect.arrayContaining([w.main, w.tree, w.clone]))
  })

  it("history backfill writes each session's memories to the store of its own folder", async () => {
    root.provide('sessions', {
      list: () => [
        session('past-clone', w.clone, ['我们约定提交信息用英文写，使用 conventional commits 格式。']),
        session('past-other', w.other, ['我们约定 Gadget 的接口统一返回 snake_case 字段。']),
      ],
    })
    await new Promise((r) => setTimeout(r, 0))
    const key = (await fs.readFile(path.join(storeOf(load), PANEL_KEY_FILE), 'utf8')).trim()
    const port = (root as unknown as { webServer: { port: number } }).webServer.port
    const res = await fetch(`http://127.0.0.1:${port}${API_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [PANEL_HEADER]: 'panel', [TOKEN_HEADER]: key },
      body: JSON.stringify({ op: 'backfill', dryRun: false }),
    })
    expect(res.status).toBe(200)
    const { result } = (await res.json()) as { result: { written: string[]; failed: number } }
    expect(result.failed).toBe(0)
    const backfilled = async (folder: string) => (await createFileBackend(storeOf(folder)).readIndex()).filter((e) => e.tags.includes('backfill')).map((e) => e.summary)
    expect((await backfilled(w.main)).join('\n')).toContain('conventional commits')
    expect((await backfilled(w.other)).join('\n')).toContain('snake_case')
    expect(existsSync(path.join(w.clone, '.agent'))).toBe(false)
    expect(await backfilled(load)).toEqual([])
    expect(result.written.length).toBe(2)
  })
})
