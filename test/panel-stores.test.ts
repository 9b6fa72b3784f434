/**
 * The panel API over the project store and the personal store (src/host/panel-stores.ts through
 * handleApiRequest): each store's list counts equal to the rows of each list, the list merged
 * with each row's store, ops on a personal memory going to the personal store, the `tool` op
 * serving every registry tool (routed over both stores, or over one when there is no personal
 * store), the operation log, and the health score and its parts. Keyless free text in Chinese
 * and English.
 */

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { handleApiRequest, TOKEN_HEADER, type ApiDeps } from '../src/host/api.js'
import { HEALTH_PARTS, healthScore, type Health, type LedgerView } from '../src/host/panel-stores.js'
import { DEFAULT_CONFIG, createFileBackend, flushCaches, softDelete, writeHandler, type MemoryBackend } from '../src/api.js'
import { MEMORY_STATUSES } from '../src/types.js'
import { TOOLS } from '../src/tools/index.js'

const SECRET = 'stores-secret-0123456789abcdef'
const opened: MemoryBackend[] = []
afterEach(async () => {
  for (const b of opened.splice(0)) await flushCaches(b)
})

function backend(name: string): MemoryBackend {
  const b = createFileBackend(mkdtempSync(join(tmpdir(), `panel-stores-${name}-`)))
  opened.push(b)
  return b
}

function depsOf(project: MemoryBackend, user?: MemoryBackend): ApiDeps {
  return { backend: project, secret: SECRET, config: { get: () => DEFAULT_CONFIG, set: () => DEFAULT_CONFIG }, ...(user !== undefined ? { user, projectId: 'test-project' } : {}) }
}

async function call(deps: ApiDeps, body: Record<string, unknown>): Promise<{ status: number; ok: boolean; result: never; error?: { code: string; message: string } }> {
  const res = await handleApiRequest(
    { method: 'POST', headers: { host: '127.0.0.1:1', origin: 'http://127.0.0.1:1', 'content-type': 'application/json', [TOKEN_HEADER]: SECRET }, remoteAddress: '127.0.0.1', body: JSON.stringify(body) },
    deps,
  )
  return { status: res.status, ...(JSON.parse(res.body) as { ok: boolean; result: never; error?: { code: string; message: string } }) }
}

async function twoStores() {
  const project = backend('project')
  const user = backend('user')
  const ids = {
    deploy: (await writeHandler(project, { summary: '部署脚本放在 scripts/deploy.sh 里。' })).id,
    tests: (await writeHandler(project, { summary: 'Unit tests run with vitest.' })).id,
    pending: (await writeHandler(project, { summary: 'Deploys only on Tuesdays.', requireConfirmation: true })).id,
    preference: (await writeHandler(user, { summary: '我喜欢简短的中文回答。', tags: ['偏好'] })).id,
    short: (await writeHandler(user, { summary: 'I prefer answers that lead with the conclusion.', tags: ['preference'] })).id,
  }
  await softDelete(project, ids.tests)
  return { project, user, ids, deps: depsOf(project, user) }
}

type Row = { id: string; store: string; status: string }

describe('the panel API over two stores', () => {
  it('status gives each store’s list counts, and every list has as many rows as its count, in every scope', async () => {
    const { deps, project, user } = await twoStores()
    const status = (await call(deps, { op: 'status' })).result as { stores: Record<string, { root: string; exists: boolean; counts: Record<string, number> }> }
    expect(status.stores['project']).toMatchObject({ root: project.root, exists: true, counts: { all: 2, active: 1, suggested: 1, deleted_pending: 1 } })
    expect(status.stores['user']).toMatchObject({ root: user.root, exists: true, counts: { all: 2, active: 2 } })
    for (const scope of ['all', 'project', 'user'] as const) {
      const stores = scope === 'all' ? ['project', 'user'] : [scope]
      for (const filter of ['all', ...MEMORY_STATUSES] as const) {
        const page = (await call(deps, { op: 'list', store: scope, limit: 200, ...(filter !== 'all' ? { status: filter } : {}) })).result as { entries: Row[]; total: number }
        const counted = stores.reduce((n, s) => n + (status.stores[s]?.counts[filter] ?? 0), 0)
        expect([page.entries.length, page.total], `${scope} ${filter}`).toEqual([counted, counted])
        for (const e of page.entries) expect(stores).toContain(e.store)
      }
    }
  })

  it('lists both stores newest first, pages across them, and each row says its store', async () => {
    const { deps, ids } = await twoStores()
    const all = ((await call(deps, { op: 'list' })).result as { entries: Row[] }).entries
    expect(all.map((e) => [e.id, e.store])).toEqual([
      [ids.short, 'user'],
      [ids.preference, 'user'],
      [ids.pending, 'project'],
      [ids.deploy, 'project'],
    ])
    const second = (await call(deps, { op: 'list', limit: 2, offset: 2 })).result as { entries: Row[]; has_more: boolean; total: number }
    expect(second).toMatchObject({ total: 4, has_more: false })
    expect(second.entries.map((e) => e.id)).toEqual([ids.pending, ids.deploy])
  })

  it('acts on a personal memory in the personal store: detail, soft delete and restore by store, tools routed by id', async () => {
    const { deps, ids, user, project } = await twoStores()
    expect((await call(deps, { op: 'detail', id: ids.preference })).status).toBe(404)
    expect(((await call(deps, { op: 'detail', id: ids.preference, store: 'user' })).result as { text: string }).text).toContain('我喜欢简短的中文回答')
    expect((await call(deps, { op: 'softDelete', id: ids.preference, store: 'user' })).ok).toBe(true)
    expect((await user.indexView()).get(ids.preference)?.status).toBe('deleted_pending')
    expect((await call(deps, { op: 'restore', id: ids.preference, store: 'user' })).ok).toBe(true)
    // A write the panel makes with a preference tag goes to the personal store, as write_memory routes it.
    const created = (await call(deps, { op: 'create', summary: 'I like dark themes.', tags: ['preference'] })).result as { id: string; store: string }
    expect(created.store).toBe('user')
    expect((await user.indexView()).get(created.id)?.status).toBe('active')
    expect((await project.indexView()).get(created.id)).toBeUndefined()
    expect(await user.readLedger()).toContainEqual(expect.objectContaining({ event: 'store-route', id: created.id, project: 'test-project' }))
  })

  it('the tool op serves every registry tool; an edit through write_memory supersedes and is in the history', async () => {
    const { deps, ids, project } = await twoStores()
    const unknown = await call(deps, { op: 'tool', name: 'memory_nope', input: {} })
    expect(unknown).toMatchObject({ status: 400, error: { code: 'INVALID_INPUT' } })
    for (const t of TOOLS) expect(unknown.error?.message).toContain(t.name)
    expect((await call(deps, { op: 'tool', name: 'memory_history', input: { id: ids.deploy, nope: 1 } })).error?.message).toMatch(/nope/)

    const edit = (await call(deps, { op: 'tool', name: 'write_memory', input: { summary: '部署脚本现在放在 bin/deploy.sh 里。', supersedes: [ids.deploy], source: 'user', store: 'project' } })).result as { id: string; superseded: string[]; store: string }
    expect(edit).toMatchObject({ superseded: [ids.deploy], store: 'project' })
    expect((await project.indexView()).get(ids.deploy)?.status).toBe('superseded')
    const history = (await call(deps, { op: 'tool', name: 'memory_history', input: { id: edit.id } })).result as { versions: Array<{ id: string }> }
    expect(history.versions.map((v) => v.id)).toEqual([ids.deploy, edit.id])
    // The supersedes guard: a memory no longer current is not replaced again.
    const again = await call(deps, { op: 'tool', name: 'write_memory', input: { summary: '部署脚本放在 opt/deploy.sh。', supersedes: [ids.deploy], store: 'project' } })
    expect(again).toMatchObject({ status: 400, error: { code: 'INVALID_INPUT' } })
    expect(again.error?.message).toContain(`memory ${ids.deploy} is superseded, not current`)
  })

  it('without a personal store the tools take no store: project and all are the one store, user is refused', async () => {
    const project = backend('alone')
    const id = (await writeHandler(project, { summary: 'The API listens on port 8080.' })).id
    const deps = depsOf(project)
    const status = (await call(deps, { op: 'status' })).result as { stores: Record<string, unknown> }
    expect(Object.keys(status.stores)).toEqual(['project'])
    expect(((await call(deps, { op: 'tool', name: 'memory_history', input: { id, store: 'project' } })).result as { id: string }).id).toBe(id)
    expect((await call(deps, { op: 'search', query: 'port', store: 'all' })).ok).toBe(true)
    const refused = await call(deps, { op: 'tool', name: 'memory_history', input: { id, store: 'user' } })
    expect(refused).toMatchObject({ status: 400, error: { code: 'INVALID_INPUT' } })
    expect(refused.error?.message).toMatch(/store: "project" \(no personal store/)
    expect((await call(deps, { op: 'detail', id, store: 'user' })).status).toBe(400)
  })

  it('ledger: both ledgers newest first, each event with its store and the memory it names, filtered by kind', async () => {
    const { deps, ids } = await twoStores()
    const view = (await call(deps, { op: 'ledger' })).result as LedgerView
    expect(view.total).toBe(view.events.length)
    expect(view.events.map((e) => e.at)).toEqual([...view.events.map((e) => e.at)].sort().reverse())
    expect(view.events[0]).toMatchObject({ event: 'soft-delete', store: 'project', id: ids.tests, memory: { status: 'deleted_pending' } })
    expect(view.events.find((e) => e.id === ids.preference)).toMatchObject({ event: 'write', store: 'user', memory: { title: '我喜欢简短的中文回答。', status: 'active' } })
    expect(view.kinds).toContainEqual({ event: 'write', n: 5 })
    const writes = (await call(deps, { op: 'ledger', event: 'write', store: 'user', limit: 1 })).result as LedgerView
    expect(writes).toMatchObject({ total: 2, events: [{ event: 'write', store: 'user', id: ids.short }] })
  })
})

describe('the health score', () => {
  it('is 100 minus each part’s cost, a cost capped per part', () => {
    const zero = Object.fromEntries(HEALTH_PARTS.map((p) => [p, 0])) as Record<(typeof HEALTH_PARTS)[number], number>
    expect(healthScore(zero).score).toBe(100)
    const h = healthScore({ ...zero, broken: 1, conflicts: 2, reviewBacklog: 40 })
    expect(h.parts.map((p) => [p.name, p.count, p.penalty])).toEqual([
      ['broken', 1, 10],
      ['conflicts', 2, 10],
      ['stale', 0, 0],
      ['unembedded', 0, 0],
      ['reviewBacklog', 40, 15],
    ])
    expect(h.score).toBe(65)
    expect(healthScore({ ...zero, broken: 9, conflicts: 9, stale: 99, unembedded: 99, reviewBacklog: 99 }).score).toBe(0)
  })

  it('counts a broken file, the conflicts and the review backlog of both stores', async () => {
    const { deps, project, user, ids } = await twoStores()
    await writeHandler(user, { summary: 'Lunch is at noon.', key: 'lunch' })
    await writeHandler(user, { summary: 'Lunch is at one.', key: 'lunch', expectConflict: true })
    const before = (await call(deps, { op: 'health' })).result as Health
    expect(before.parts.find((p) => p.name === 'conflicts')).toMatchObject({ count: 2, penalty: 10 })
    expect(before.parts.find((p) => p.name === 'broken')).toMatchObject({ count: 0 })
    const file = join(project.root, (await project.indexView()).get(ids.deploy)?.path ?? '?')
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: [broken'))
    const after = (await call(deps, { op: 'health' })).result as Health
    expect(after.parts.find((p) => p.name === 'broken')).toMatchObject({ count: 1, penalty: 10 })
    expect(after.score).toBe(before.score - 10)
    const personal = (await call(deps, { op: 'health', store: 'user' })).result as Health & { stores: string[] }
    expect(personal.stores).toEqual(['user'])
    expect(personal.parts.find((p) => p.name === 'broken')).toMatchObject({ count: 0 })
  })
})
