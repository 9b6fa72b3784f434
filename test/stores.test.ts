/**
 * Two stores (src/stores/): two projects and one personal store, through the routed tool list.
 * Project memories never leak into the other project; personal preferences are visible from
 * both; writes go by kind unless `store` says otherwise; merged answers say each memory's store
 * and satisfy the declared output schemas. Project identity is checked on real git repositories
 * (ssh and https origins equal, worktrees resolve to the main repository, path-hash fallback).
 */

import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import {
  TOOLS,
  findTool,
  injectionText,
  kindsOf,
  normaliseRemote,
  outputViolation,
  projectIdentity,
  routeTools,
  storeForKinds,
  type MemoryBackend,
  type ToolDeclaration,
} from '../src/api.js'
import { INJECTION_HEADING } from '../src/memory/reading/inject.js'
import { PERSONAL_LABEL, residentInjection } from '../src/stores/inject.js'
import { expectCode, tempStores } from './store-kit.js'

const store = tempStores('stores-test-')

type Out = Record<string, unknown>
type Hit = { id: string; title: string; store?: string }

/** A project as an adapter serves it: its own backend, the shared personal store bound in. */
interface Served {
  backend: MemoryBackend
  call(name: string, input: unknown): Promise<Out>
}

function serve(project: MemoryBackend, user: MemoryBackend, projectId: string): Served {
  const tools = routeTools(TOOLS, { user, projectId })
  return {
    backend: project,
    async call(name, input) {
      const tool = tools.find((t) => t.name === name) as ToolDeclaration
      const out = (await (tool.handler as (b: MemoryBackend, i: unknown) => Promise<Out>)(project, input)) as Out
      expect(outputViolation(tool.output, out), `${name} output`).toBeNull()
      return out
    },
  }
}

async function setup(): Promise<{ a: Served; b: Served; user: MemoryBackend }> {
  const [pa, pb, u] = await Promise.all([store(), store(), store()])
  return { a: serve(pa.backend, u.backend, 'github.com/acme/alpha'), b: serve(pb.backend, u.backend, 'github.com/acme/beta'), user: u.backend }
}

const hitsOf = (out: Out) => out['hits'] as Hit[]

describe('two projects and one personal store', () => {
  it('keeps project memories apart and shows personal preferences from both', async () => {
    const { a, b } = await setup()
    const conv = await a.call('write_memory', { summary: 'Alpha uses pnpm; never run npm install.', title: 'package manager', tags: ['convention'] })
    expect(conv['store']).toBe('project')
    const envB = await b.call('write_memory', { summary: 'Beta deploys to the staging cluster kube-beta.', title: 'deploy target', tags: ['environment'] })
    expect(envB['store']).toBe('project')
    const pref = await a.call('write_memory', { summary: '用户偏好简洁的中文回答，代码注释用英文。', title: '回答风格', tags: ['偏好'] })
    expect(pref['store']).toBe('user')

    // Alpha's convention is not visible from beta, beta's environment not from alpha.
    expect(hitsOf(await b.call('memory_search_hybrid', { query: 'pnpm npm install' }))).toEqual([])
    expect(hitsOf(await a.call('memory_search_hybrid', { query: 'staging cluster kube-beta' }))).toEqual([])
    await expectCode(b.call('memory_confirm', { id: conv['id'] }), 'NOT_FOUND')
    await expectCode(a.call('memory_history', { id: envB['id'] }), 'NOT_FOUND')

    // The preference, written from alpha, is found from both projects and says it is personal.
    for (const p of [a, b]) {
      const hits = hitsOf(await p.call('memory_search_hybrid', { query: '中文回答' }))
      expect(hits.map((h) => [h.id, h.store])).toEqual([[pref['id'], 'user']])
    }
    const fromB = await b.call('memory_nav', {})
    expect((fromB['entries'] as Hit[]).map((e) => [e.title, e.store]).sort()).toEqual([
      ['deploy target', 'project'],
      ['回答风格', 'user'],
    ])
    expect(fromB['total']).toBe(2)
    // Beta can work on the personal memory by id: the router finds the store that holds it.
    const history = await b.call('memory_history', { id: pref['id'] })
    expect(history['store']).toBe('user')
  })

  it('routes writes by kind, and store overrides the kind', async () => {
    const { a, user } = await setup()
    const identity = await a.call('write_memory', { summary: 'The user is a backend engineer in Shanghai.', tags: ['identity'] })
    const decision = await a.call('write_memory', { summary: 'We chose PostgreSQL over MySQL for billing.', tags: ['decision'] })
    const plain = await a.call('write_memory', { summary: 'The nightly job takes about 40 minutes.' })
    const mixed = await a.call('write_memory', { summary: 'Team rule: answers in review are written in English.', tags: ['preference', 'convention'] })
    const forced = await a.call('write_memory', { summary: 'I like tabs over spaces, but this repo uses spaces.', tags: ['preference'], store: 'project' })
    const forcedUser = await a.call('write_memory', { summary: 'I keep my scratch notes under ~/notes.', store: 'user' })
    expect([identity, decision, plain, mixed, forced, forcedUser].map((o) => o['store'])).toEqual(['user', 'project', 'project', 'project', 'project', 'user'])
    await expectCode(a.call('write_memory', { summary: 'x', store: 'all' }), 'INVALID_INPUT')
    await expectCode(a.call('write_memory', { summary: 'x', store: 'team' }), 'INVALID_INPUT')

    // A write routed to the personal store records the project it came from.
    const routed = (await user.readLedger()).filter((e) => e.event === 'store-route')
    expect(routed.map((e) => [e.id, e['project']])).toEqual([
      [identity['id'], 'github.com/acme/alpha'],
      [forcedUser['id'], 'github.com/acme/alpha'],
    ])
    const lineage = await a.call('memory_lineage', { id: identity['id'] })
    expect(JSON.stringify(lineage['events'])).toContain('github.com/acme/alpha')
  })

  it('merges search by score with the store on every hit, and keeps top_k', async () => {
    const { a } = await setup()
    for (let i = 0; i < 4; i++) await a.call('write_memory', { summary: `Redis cache note ${i}: ${['session', 'token', 'page', 'search'][i]} keys expire after ${i + 1} hours.`, tags: ['environment'] })
    for (let i = 0; i < 4; i++) await a.call('write_memory', { summary: `For my ${['work', 'hobby', 'school', 'club'][i]} projects I prefer Redis as the cache.`, tags: ['preference'] })
    const all = await a.call('memory_search_hybrid', { query: 'redis cache', top_k: 5 })
    const hits = all['hits'] as Array<Hit & { score: number }>
    expect(all['store']).toBe('all')
    expect(hits).toHaveLength(5)
    expect(new Set(hits.map((h) => h.store))).toEqual(new Set(['project', 'user']))
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score)
    expect(all['eligible']).toBe(8)
    // Hits from both stores: each store's count, labelled, never one store's count said as the total.
    expect(all['guidance']).toMatch(/^\[project store\] \d+ memor(y|ies) matched\..*\n\[user store\] \d+ memor(y|ies) matched\./s)
    const onlyUser = await a.call('memory_search_hybrid', { query: 'redis cache', store: 'user' })
    expect(onlyUser['store']).toBe('user')
    expect(hitsOf(onlyUser).every((h) => h.store === 'user')).toBe(true)
  })

  it('a merged search is one evidence batch: memory_assess accepts the ref of a personal hit', async () => {
    const { a } = await setup()
    await a.call('write_memory', { summary: 'The staging Redis cache lives on port 6380.', tags: ['environment'] })
    await a.call('write_memory', { summary: 'I prefer Redis over Memcached for every cache.', tags: ['preference'] })
    const all = await a.call('memory_search_hybrid', { query: 'redis cache', session_id: 's1' })
    const hits = all['hits'] as Array<Hit & { ref: string }>
    const personal = hits.find((h) => h.store === 'user')
    expect(personal).toBeDefined()
    const verdict = await a.call('memory_assess', { batchId: all['batch_id'], evidenceRefs: [personal!.ref], nextStrategy: 'answer', sufficient: true, session_id: 's1' })
    expect(verdict['verdict']).toBe('sufficient')
  })

  it('pages nav across both stores without gaps or repeats', async () => {
    const { a } = await setup()
    for (let i = 0; i < 5; i++) await a.call('write_memory', { summary: `Project fact ${i}.`, title: `p${i}`, time: `2026-01-0${i + 1}T00:00:00Z` })
    for (let i = 0; i < 4; i++) await a.call('write_memory', { summary: `Personal habit ${i}.`, title: `u${i}`, tags: ['preference'], time: `2026-02-0${i + 1}T00:00:00Z` })
    const seen: string[] = []
    let offset = 0
    for (;;) {
      const page = await a.call('memory_nav', { limit: 2, offset, sort: 'oldest' })
      seen.push(...(page['entries'] as Hit[]).map((e) => e.title))
      expect(page['total']).toBe(9)
      if (page['has_more'] !== true) break
      offset += 2
    }
    expect(seen).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'u0', 'u1', 'u2', 'u3'])
    // An id opens in the store that holds it.
    const ids = (await a.call('memory_nav', { store: 'user' }))['entries'] as Hit[]
    const file = await a.call('memory_nav', { path: ids[0]!.id })
    expect(file['store']).toBe('user')
    expect((file['file'] as { text: string }).text).toContain('Personal habit')
  })

  it('verify takes the decisive verdict; forget by session counts both; ids of two stores do not merge', async () => {
    const { a } = await setup()
    await a.call('write_memory', { summary: 'The user prefers dark mode in every editor.', title: 'editor theme', tags: ['preference'], session_id: 's1' })
    await a.call('write_memory', { summary: 'The service listens on port 8080.', title: 'service port', tags: ['environment'], session_id: 's1', raw: 'we set the port to 8080' })
    const v = await a.call('memory_verify', { claim: 'The user prefers dark mode in every editor.' })
    expect(v['verdict']).toBe('supported')
    expect(v['store']).toBe('user')
    expect((v['support'] as Hit).store).toBe('user')
    const forgot = await a.call('forget_memories_by_session', { session_id: 's1', scope: 'include_shared_unlink' })
    expect(forgot['store']).toBe('all')
    expect(forgot['deleted_episode_count']).toBe(1)
    expect(forgot['unlinked_topic_count']).toBe(1)

    const p = await a.call('write_memory', { summary: 'Builds run on Node 20.', tags: ['environment'] })
    const u = await a.call('write_memory', { summary: 'I run builds on Node 20 at home too.', tags: ['preference'] })
    await expectCode(a.call('memory_merge', { ids: [p['id'], u['id']] }), 'INVALID_INPUT')
    // Tools that cannot merge two stores answer for one, project by default.
    expect((await a.call('memory_sweep', {}))['store']).toBe('project')
    expect((await a.call('memory_assemble', { task: 'dark mode', store: 'user' }))['store']).toBe('user')
  })
})

describe('kind classifier', () => {
  it('reads kinds from tags, English and Chinese, project kinds winning', () => {
    expect(kindsOf(['Preference', 'pnpm'])).toEqual(['preference'])
    expect(kindsOf(['身份'])).toEqual(['identity'])
    expect(storeForKinds(kindsOf(['偏好']))).toBe('user')
    expect(storeForKinds(kindsOf(['约定', '偏好']))).toBe('project')
    expect(storeForKinds(kindsOf(['环境']))).toBe('project')
    expect(storeForKinds(kindsOf(undefined))).toBe('project')
  })
})

describe('project identity', () => {
  const dirs: string[] = []
  afterAll(async () => {
    await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
  })
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-C', cwd, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    })
  async function repo(origin?: string): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stores-git-'))
    dirs.push(dir)
    git(dir, 'init', '-q')
    if (origin !== undefined) git(dir, 'remote', 'add', 'origin', origin)
    return dir
  }

  it('normalises ssh, ssh:// and https origins to host/owner/repo', () => {
    const forms = [
      'git@github.com:acme/alpha.git',
      'git@github.com:acme/alpha',
      'ssh://git@github.com/acme/alpha.git',
      'ssh://git@GitHub.com:22/acme/alpha/',
      'https://github.com/acme/alpha',
      'https://user:token@github.com/acme/alpha.git',
    ]
    for (const f of forms) expect(normaliseRemote(f), f).toBe('github.com/acme/alpha')
    expect(normaliseRemote('/srv/git/alpha.git')).toBeNull()
    expect(normaliseRemote('file:///srv/git/alpha.git')).toBeNull()
  })

  it('gives clones with ssh and https origins one identity, and a worktree its main repository', async () => {
    const ssh = await repo('git@github.com:acme/alpha.git')
    const https = await repo('https://github.com/acme/alpha')
    expect(projectIdentity(ssh)).toMatchObject({ id: 'github.com/acme/alpha', via: 'git-origin' })
    expect(projectIdentity(https).id).toBe(projectIdentity(ssh).id)

    await fs.writeFile(path.join(ssh, 'a.txt'), 'a')
    git(ssh, 'add', 'a.txt')
    git(ssh, 'commit', '-q', '-m', 'init')
    const tree = path.join(path.dirname(ssh), `${path.basename(ssh)}-wt`)
    dirs.push(tree)
    git(ssh, 'worktree', 'add', '-q', tree)
    const sub = path.join(tree, 'sub')
    await fs.mkdir(sub)
    const fromTree = projectIdentity(sub)
    expect(fromTree.id).toBe('github.com/acme/alpha')
    expect(fromTree.root).toBe(await fs.realpath(ssh))
  })

  it('falls back to the hash of the full path, the same for a worktree, different for a sibling', async () => {
    const plain = await repo()
    const sibling = await repo()
    const id = projectIdentity(plain)
    expect(id.via).toBe('path')
    expect(id.id).toMatch(/^path:[0-9a-f]{64}$/)
    expect(projectIdentity(sibling).id).not.toBe(id.id)
    await fs.writeFile(path.join(plain, 'a.txt'), 'a')
    git(plain, 'add', 'a.txt')
    git(plain, 'commit', '-q', '-m', 'init')
    const tree = `${plain}-wt`
    dirs.push(tree)
    git(plain, 'worktree', 'add', '-q', tree)
    expect(projectIdentity(tree).id).toBe(id.id)
    const loose = await fs.mkdtemp(path.join(os.tmpdir(), 'stores-nogit-'))
    dirs.push(loose)
    expect(projectIdentity(loose)).toMatchObject({ via: 'path', root: await fs.realpath(loose) })
  })
})

describe('command line with two stores (built CLI: run `npx tsc -p .` first)', () => {
  const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')
  const dirs: string[] = []
  afterAll(async () => {
    await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
  })

  it('--user-root moves the personal store (default ~/.agent/memory); --no-user-root and --user serve one store', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stores-cli-'))
    dirs.push(dir)
    // A home of this test's own: the default personal store is ~/.agent/memory.
    const home = path.join(dir, 'home')
    const env = { ...process.env, HOME: home, USERPROFILE: home }
    delete env['MEMORY_AGENT_ROOT']
    delete env['MEMORY_AGENT_USER_ROOT']
    const run = (...args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', env })
      return { code: r.status, out: r.stdout, err: r.stderr }
    }
    const both = ['--root', path.join(dir, 'alpha'), '--user-root', path.join(dir, 'me')]
    const pref = JSON.parse(run('write', 'I prefer short answers.', '--tag', 'preference', '--json', ...both).out) as Out
    expect(pref['store']).toBe('user')
    const text = run('search', 'short answers', ...both).out
    expect(text).toContain(`${String(pref['id'])} [topic, active, user store`)
    // Another project with the same personal store sees it; one with another personal store does not.
    expect(run('search', 'short answers', '--json', '--root', path.join(dir, 'beta'), '--user-root', path.join(dir, 'me')).out).toContain(String(pref['id']))
    expect(run('search', 'short answers', '--json', '--root', path.join(dir, 'beta')).out).not.toContain(String(pref['id']))
    // Without --user-root the personal store is ~/.agent/memory (the suite's own HOME); --no-user-root leaves it out.
    const tabs = JSON.parse(run('write', 'I prefer tabs to spaces.', '--tag', 'preference', '--json', '--root', path.join(dir, 'gamma')).out) as Out
    expect(tabs['store']).toBe('user')
    expect(existsSync(path.join(home, '.agent', 'memory', String(tabs['path'])))).toBe(true)
    expect(run('search', 'tabs spaces', '--json', '--root', path.join(dir, 'delta')).out).toContain(String(tabs['id']))
    expect(run('search', 'tabs spaces', '--json', '--root', path.join(dir, 'delta'), '--no-user-root').out).not.toContain(String(tabs['id']))
    const alone = JSON.parse(run('write', 'I prefer dark mode.', '--tag', 'preference', '--json', '--root', path.join(dir, 'delta'), '--no-user-root').out) as Out
    expect(existsSync(path.join(dir, 'delta', String(alone['path'])))).toBe(true)
    expect(run('nav', '--json', '--user', '--user-root', path.join(dir, 'me')).out).toContain(String(pref['id']))
    expect(run('search', 'short answers', '--store', 'team', ...both).code).toBe(2)
  })
})

describe('resident injection over two stores (residentInjection)', () => {
  const write = (b: MemoryBackend, summary: string, title: string) => findTool('write_memory')!.handler(b, { summary, title })

  it('puts the project store first, a personal section after it, under one heading and within every budget', async () => {
    const project = (await store()).backend
    const user = (await store()).backend
    for (let i = 0; i < 12; i++) await write(project, `Project fact number ${i}: the build runs on runner ${i}.`, `Project fact ${i}`)
    for (let i = 0; i < 6; i++) await write(user, `The user prefers style ${i} in every answer.`, `Preference ${i}`)
    for (const budgetChars of [200, 300, 450, 600, 1000, 1500, 3000, 8000]) {
      const r = residentInjection(project, user, { budgetChars })
      expect(r.text.length, `budget ${budgetChars}`).toBeLessThanOrEqual(budgetChars)
      // A budget too small for one line of either store injects nothing at all.
      expect(r.text.split(INJECTION_HEADING)).toHaveLength(r.text === '' ? 1 : 2)
      expect(r.budgetChars).toBe(budgetChars)
      if (budgetChars >= 600) {
        expect(r.text.indexOf(PERSONAL_LABEL)).toBeGreaterThan(r.text.indexOf('Project fact'))
        expect(r.text.slice(r.text.indexOf(PERSONAL_LABEL))).toContain('The user prefers style')
      }
    }
    // Too small a budget to share: the project store alone, as before.
    expect(residentInjection(project, user, { budgetChars: 200 }).text).toBe(injectionText(project, { budgetChars: 200 }).text)
    expect(residentInjection(project, user, { budgetChars: 1500, enabled: false }).text).toBe('')
  })

  it('shows the personal store under the heading when the project store is empty, and the project alone when the personal one is', async () => {
    const project = (await store()).backend
    const user = (await store()).backend
    expect(residentInjection(project, user).text).toBe('')
    await write(user, 'The user prefers answers in Chinese.', 'Language')
    const personalOnly = residentInjection(project, user)
    expect(personalOnly.text.startsWith(`${INJECTION_HEADING}\n`)).toBe(true)
    expect(personalOnly.text).toContain(`${PERSONAL_LABEL}\n> Language`)
    expect(personalOnly.included).toBe(1)
    const other = (await store()).backend
    await write(project, 'The repository uses pnpm.', 'Package manager')
    expect(residentInjection(project, other).text).toBe(injectionText(project).text)
  })
})
