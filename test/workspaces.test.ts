/**
 * Project identity by git origin (issue 29, item 6; seed 002): a folder's project store is found
 * by the project, not by the folder alone. Real git repositories: a main checkout with an ssh
 * origin, a worktree of it (`git worktree add`), and a clone by a file:// URL whose origin is then
 * set to the https form of the same repository (`git remote set-url`), with another host case and
 * no `.git`. The worktree finds the main checkout's store through its repository, the clone
 * through the workspaces the personal store records; `memory_workspaces` lists them. Through the
 * library, the CLI and the MCP server (built CLI: `npm run build` first). Keyless free text in
 * Chinese and English.
 */

import { spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOOLS, createFileBackend, flushCaches, outputViolation, searchHandler, writeHandler } from '../src/api.js'
import { WORKSPACES_FILE, readWorkspaces } from '../src/store/workspaces.js'
import { knownProjectsIn, noteWorkspace, resolveProjectStore } from '../src/stores/project-store.js'
import { routeTool } from '../src/stores/route.js'
import { PROJECT, gitWorld as world, type GitWorld as World } from './git-kit.js'
import { BUILT_CLI as CLI, mcpClients, processEnv } from './mcp-kit.js'

const workspacesTool = TOOLS.find((t) => t.name === 'memory_workspaces')!

const bases: string[] = []
afterAll(async () => {
  await Promise.all(bases.map((d) => fs.rm(d, { recursive: true, force: true })))
})

describe('the project store by identity (library)', () => {
  let w: World
  beforeAll(async () => {
    w = await world()
    bases.push(w.base)
  })

  it('a new checkout gets its own store; its worktree finds it through the repository; a clone by another URL through the recorded workspaces', async () => {
    const first = resolveProjectStore(w.main, [])
    expect(first).toMatchObject({ root: path.join(w.main, '.agent', 'memory'), found: 'new', identity: { id: PROJECT, via: 'git-origin' } })
    const store = createFileBackend(first.root)
    const zh = await writeHandler(store, { summary: '发布前要先跑冒烟测试，再通知客服团队' })
    const en = await writeHandler(store, { summary: 'The staging database listens on port 5433' })
    await flushCaches(store)
    expect(resolveProjectStore(w.main, []).found).toBe('folder')

    // The worktree has no store of its own: the repository's main working tree has.
    const fromTree = resolveProjectStore(w.tree, [])
    expect(fromTree).toMatchObject({ root: first.root, found: 'repository', identity: { id: PROJECT } })
    const sub = path.join(w.tree, 'src', 'deep')
    await fs.mkdir(sub, { recursive: true })
    expect(resolveProjectStore(sub, []).root).toBe(first.root)

    // The clone is another repository on disk: without a record it would start a store of its own.
    expect(resolveProjectStore(w.clone, [])).toMatchObject({ found: 'new', root: path.join(w.clone, '.agent', 'memory'), identity: { id: PROJECT } })
    const personal = createFileBackend(w.personal)
    // A personal store not made yet records nothing: a read never makes a store.
    expect(await noteWorkspace(personal, first, w.main)).toBe(false)
    await expect(fs.access(w.personal)).rejects.toThrow()
    await writeHandler(personal, { summary: '我喜欢简短的中文回答', tags: ['preference'] })
    expect(await noteWorkspace(personal, first, w.main)).toBe(true)
    const fromClone = resolveProjectStore(w.clone, knownProjectsIn(w.personal))
    expect(fromClone).toMatchObject({ root: first.root, found: 'origin' })
    const cloneStore = createFileBackend(fromClone.root)
    expect((await searchHandler(cloneStore, { query: '冒烟测试', top_k: 3 })).hits.map((h) => h.id)).toEqual([zh.id])
    expect((await searchHandler(cloneStore, { query: 'staging database port', top_k: 3 })).hits.map((h) => h.id)).toEqual([en.id])

    // Another repository is another project.
    expect(resolveProjectStore(w.other, knownProjectsIn(w.personal))).toMatchObject({ found: 'new', identity: { id: 'github.com/Acme/Gadget' } })
    await flushCaches(cloneStore)
  })

  it('memory_workspaces lists each project with its stores and folders, from the personal store, once per folder', async () => {
    const personal = createFileBackend(w.personal)
    const main = resolveProjectStore(w.main, [])
    for (const folder of [w.tree, w.clone, w.tree]) await noteWorkspace(personal, main, folder)
    // A store that does not exist yet records nothing.
    await noteWorkspace(personal, resolveProjectStore(w.other, []), w.other)
    const lines = (await fs.readFile(path.join(w.personal, WORKSPACES_FILE), 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(3)
    const routed = routeTool(workspacesTool, { user: personal })
    const handler = routed.handler as unknown as (b: unknown, input: unknown) => Promise<Record<string, unknown>>
    // Routed: the personal store answers, whatever project store the adapter passes.
    const out = await handler(createFileBackend(main.root), {})
    expect(outputViolation(routed.output, out)).toBeNull()
    const projects = out['projects'] as Array<{ project: string; via: string; stores: Array<{ store: string; folders: string[] }> }>
    expect(projects.map((p) => [p.project, p.via])).toEqual([[PROJECT, 'git-origin']])
    expect(projects[0]!.stores.map((s) => s.store)).toEqual([main.root])
    expect([...projects[0]!.stores[0]!.folders].sort()).toEqual([w.main, w.tree, w.clone].sort())
    expect(out['store']).toBe('user')
    const one = await handler(createFileBackend(main.root), { project: 'github.com/acme/nothing' })
    expect(one['projects']).toEqual([])
    expect(one['guidance']).toMatch(/known: github.com\/Acme\/Widget/)
    // A torn line is skipped, the rest still read.
    await fs.appendFile(path.join(w.personal, WORKSPACES_FILE), '{"at":"2026-')
    expect((await readWorkspaces(personal)).map((p) => p.project)).toEqual([PROJECT])
    await flushCaches(personal)
  })
})

describe('the project store by identity over the CLI and MCP (built CLI: run `npm run build` first)', () => {
  let w: World
  const connect = mcpClients('workspaces-test')
  beforeAll(async () => {
    w = await world()
    bases.push(w.base)
  })

  const env = (): Record<string, string> => {
    const out = processEnv()
    delete out['MEMORY_AGENT_ROOT']
    return { ...out, MEMORY_AGENT_USER_ROOT: w.personal }
  }
  const cli = (cwd: string, ...args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env: env(), encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    return r.stdout
  }

  it('a write in the checkout is found from the worktree and from the https clone; workspaces lists all three folders', async () => {
    // The personal store exists once a preference went there; from then on folders are recorded.
    expect(JSON.parse(cli(w.main, 'write', 'I prefer short answers.', '--tags', 'preference', '--json')).store).toBe('user')
    const written = JSON.parse(cli(w.main, 'write', '周五晚上发布新版本，先冻结代码', '--json')) as { id: string; store: string }
    expect(written.store).toBe('project')
    await fs.access(path.join(w.main, '.agent', 'memory', 'index.jsonl'))
    // The worktree's CLI finds it through the repository.
    const fromTree = JSON.parse(cli(w.tree, 'search', '发布 冻结', '--json')) as { hits: Array<{ id: string }> }
    expect(fromTree.hits.map((h) => h.id)).toContain(written.id)

    // The clone over MCP: the checkout was recorded by the write above.
    const mcp = await connect(['--tools', 'all'], { cwd: w.clone, env: env() })
    const call = async (name: string, args: Record<string, unknown>) => (await mcp(name, args)).structuredContent as Record<string, unknown>
    const found = await call('memory_search_hybrid', { query: '发布新版本' })
    expect((found['hits'] as Array<{ id: string }>).map((h) => h.id)).toContain(written.id)
    const english = await call('write_memory', { summary: 'Release notes are drafted in the wiki before the freeze' })
    expect(english['store']).toBe('project')
    await expect(fs.access(path.join(w.clone, '.agent'))).rejects.toThrow()
    expect(JSON.parse(cli(w.main, 'search', 'release notes wiki', '--json')).hits.map((h: { id: string }) => h.id)).toContain(english['id'])

    const listed = await call('memory_workspaces', {})
    expect(outputViolation(workspacesTool.output, listed)).toBeNull()
    const project = (listed['projects'] as Array<{ project: string; stores: Array<{ store: string; folders: string[] }> }>).find((p) => p.project === PROJECT)
    expect(project?.stores.map((s) => s.store)).toEqual([path.join(w.main, '.agent', 'memory')])
    expect([...(project?.stores[0]?.folders ?? [])].sort()).toEqual([w.main, w.tree, w.clone].sort())
    // The CLI command of the tool says the same.
    expect(cli(w.other, 'workspaces')).toContain(PROJECT)
  }, 90_000)
})
