/**
 * Evidence, retraction and guards: `verify_*` fields with their freshness window ([VERIFIED]
 * while a pass is fresh, [ASSERTED] otherwise), a retraction that marks its target, and guard
 * memories whose [GUARD] line reaches a task (assemble), a query (search) and a turn (resident
 * injection with a cue). Each rendering goes through the shared render path.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  assembleHandler,
  createFileBackend,
  flushCaches,
  forgetHandler,
  injectionText,
  rebuildIndex,
  searchHandler,
  verifyHandler,
  writeHandler,
  type IndexEntry,
  type MemoryBackend,
} from '../src/api.js'
import { EVIDENCE_TTL_DAYS, evidenceState, markers } from '../src/memory/truth/evidence.js'
import { triggerMatches } from '../src/memory/truth/guards.js'
import { renderValue } from '../src/tools/render/text.js'

const roots: string[] = []
const backends: MemoryBackend[] = []
/** A store whose clock reads `clock.now` (ISO), so freshness can be tested without waiting. */
async function store(clock = { now: '2026-06-01T00:00:00.000Z' }): Promise<{ b: MemoryBackend; clock: { now: string } }> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-evidence-'))
  roots.push(root)
  const b = createFileBackend(root, { now: () => clock.now })
  backends.push(b)
  return { b, clock }
}
afterAll(async () => {
  for (const b of backends) await flushCaches(b)
  for (const r of roots) await fs.rm(r, { recursive: true, force: true })
})

const DAY = 86_400_000
const at = (iso: string) => Date.parse(iso)

describe('evidence freshness', () => {
  it('a pass is verified for the window after verified_at, asserted after it; fail, not run and none are asserted', () => {
    const pass = { evidence: { cmd: 'npm test', expect: 'ok', result: 'pass' as const, verified_at: '2026-01-01T00:00:00.000Z' } }
    expect(evidenceState(pass, at('2026-01-01T00:00:00Z') + EVIDENCE_TTL_DAYS * DAY)).toEqual({ label: 'verified', reason: 'fresh' })
    expect(evidenceState(pass, at('2026-01-01T00:00:00Z') + EVIDENCE_TTL_DAYS * DAY + 1)).toEqual({ label: 'asserted', reason: 'expired' })
    expect(evidenceState({ evidence: { ...pass.evidence, result: 'fail' } }, at('2026-01-02T00:00:00Z')).reason).toBe('failed')
    expect(evidenceState({ evidence: { ...pass.evidence, result: null, verified_at: null } }, 0).reason).toBe('not-run')
    expect(evidenceState({}, 0)).toEqual({ label: 'asserted', reason: 'none' })
    // Markers: evidence only where there is some; premises always; a retraction while it is current.
    const live = { get: (id: string) => (id === 'mem_r' ? ({ id, type: 'topic', status: 'active' } as IndexEntry) : undefined) }
    expect(markers({}, 0, live)).toEqual([])
    expect(markers({ ...pass, scope: 'env=prod', retracted_by: 'mem_r' }, at('2026-01-02T00:00:00Z'), live)).toEqual(['[retracted by mem_r]', '[VERIFIED]', '[scope: env=prod]'])
    expect(markers({ retracted_by: 'mem_gone' }, 0, live)).toEqual([])
  })

  it('a write with a passing result and no time is stamped now; the file, the index and the result agree', async () => {
    const { b } = await store()
    const w = await writeHandler(b, { summary: 'The build cache is 512 MB.', key: 'build cache', verify_cmd: 'du -sh .cache', verify_expect: '512M', verify_result: 'pass' })
    expect(w.verified_at).toBe('2026-06-01T00:00:00.000Z')
    const text = (await b.readFile(w.path)) ?? ''
    expect(text).toContain('verify_cmd: du -sh .cache')
    expect(text).toContain('verify_result: pass')
    expect(text).toContain("verified_at: '2026-06-01T00:00:00.000Z'")
    const entry = (await b.readIndex()).find((e) => e.id === w.id)
    expect(entry?.evidence).toEqual({ cmd: 'du -sh .cache', expect: '512M', result: 'pass', verified_at: '2026-06-01T00:00:00.000Z' })
    // An ordinary memory's entry carries none of the claim fields.
    const plain = await writeHandler(b, { summary: 'Nothing special here.' })
    const plainEntry = (await b.readIndex()).find((e) => e.id === plain.id) as unknown as Record<string, unknown>
    for (const field of ['scope', 'evidence', 'retracts', 'retracted_by', 'guard']) expect(plainEntry).not.toHaveProperty(field)
    const byId = (list: { id: string }[]) => [...list].sort((x, y) => x.id.localeCompare(y.id))
    const before = byId(await b.readIndex())
    await rebuildIndex(b)
    expect(byId(await b.readIndex())).toEqual(before)
  })

  it('search and verify say [VERIFIED] while fresh and [ASSERTED] once the window passed; a re-run renews it', async () => {
    const { b, clock } = await store()
    const w = await writeHandler(b, { summary: 'The build cache is 512 MB.', key: 'build cache', verify_cmd: 'du -sh .cache', verify_result: 'pass' })
    let hits = await searchHandler(b, { query: 'build cache' })
    expect(hits.hits[0]?.evidence).toBe('verified')
    expect(renderValue('memory_search_hybrid', hits)).toContain(`${w.id} [topic, active] [VERIFIED]`)
    let v = await verifyHandler(b, { claim: 'The build cache is 512 MB' })
    expect(v.support?.evidence).toBe('verified')
    expect(v.note).toContain('[VERIFIED]: its check passed on 2026-06-01.')

    clock.now = new Date(at('2026-06-01T00:00:00Z') + (EVIDENCE_TTL_DAYS + 1) * DAY).toISOString()
    hits = await searchHandler(b, { query: 'build cache' })
    expect(hits.hits[0]?.evidence).toBe('asserted')
    expect(renderValue('memory_search_hybrid', hits)).toContain('[ASSERTED]')
    v = await verifyHandler(b, { claim: 'The build cache is 512 MB' })
    expect(v.verdict).toBe('supported')
    expect(v.support?.evidence).toBe('asserted')
    expect(v.note).toContain(`more than ${EVIDENCE_TTL_DAYS} days ago; re-run du -sh .cache`)

    // Re-running: the same statement with a new passing result refreshes verified_at.
    const again = await writeHandler(b, { summary: 'The build cache is 512 MB.', key: 'build cache', verify_result: 'pass' })
    expect(again.dedupe).toBe('exact')
    expect(again.id).toBe(w.id)
    v = await verifyHandler(b, { claim: 'The build cache is 512 MB' })
    expect(v.support?.evidence).toBe('verified')
    expect(v.support?.verified_at).toBe(clock.now)
  })

  it('verified_at must be a date and needs a result; a failing check stays asserted', async () => {
    const { b } = await store()
    await expect(writeHandler(b, { summary: 'x', verified_at: 'yesterday', verify_result: 'pass' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'verified_at' })
    await expect(writeHandler(b, { summary: 'x', verified_at: '2026-01-01T00:00:00Z' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'verify_result' })
    const w = await writeHandler(b, { summary: 'Migrations run cleanly on the copy.', verify_cmd: 'make migrate-copy', verify_result: 'fail', verified_at: '2026-05-31T00:00:00Z' })
    const v = await verifyHandler(b, { claim: 'Migrations run cleanly on the copy' })
    expect(v.support?.id).toBe(w.id)
    expect(v.support?.evidence).toBe('asserted')
    expect(v.note).toContain('[ASSERTED]: its last check failed.')
  })
})

describe('retraction', () => {
  it('a retraction marks its target in the file; verify no longer takes the target as support and names the retraction', async () => {
    const { b } = await store()
    const wrong = await writeHandler(b, { summary: 'The payments API rate limit is 100 requests per second.', key: 'payments rate limit' })
    const retraction = await writeHandler(b, { summary: 'Retracted: the 100 rps figure came from a misread dashboard.', retracts: wrong.id })
    expect(retraction.superseded).toEqual([])
    const entries = await b.readIndex()
    expect(entries.find((e) => e.id === wrong.id)?.retracted_by).toBe(retraction.id)
    expect(entries.find((e) => e.id === retraction.id)?.retracts).toBe(wrong.id)
    expect(entries.find((e) => e.id === retraction.id)?.tags).toContain('retraction')
    expect(await b.readFile(wrong.path)).toContain(`retracted_by: ${retraction.id}`)

    const v = await verifyHandler(b, { claim: 'The payments API rate limit is 100 requests per second' })
    expect(v.verdict).toBe('contradicted')
    expect(v.support).toBeNull()
    expect(v.contradicting.map((r) => r.id)).toEqual([retraction.id])
    expect(v.note).toContain(`${wrong.id} said this but was retracted by ${retraction.id}`)

    const hits = await searchHandler(b, { query: 'payments rate limit' })
    const hit = hits.hits.find((h) => h.id === wrong.id)
    expect(hit?.retracted_by).toBe(retraction.id)
    expect(renderValue('memory_search_hybrid', hits)).toContain(`${wrong.id} [topic, active] [retracted by ${retraction.id}]`)
    const assembled = await assembleHandler(b, { task: 'payments rate limit' })
    expect(assembled.context).toContain(`[retracted by ${retraction.id}]`)
  })

  it('a retraction is never a version: it supersedes nothing and a later version of the slot leaves it alone', async () => {
    const { b } = await store()
    const wrong = await writeHandler(b, { summary: 'Deploy freeze starts on the 20th.', key: 'deploy freeze' })
    const r = await writeHandler(b, { summary: 'That freeze date was a draft, not decided.', key: 'deploy freeze', retracts: wrong.id })
    expect(r.superseded).toEqual([])
    const next = await writeHandler(b, { summary: 'Deploy freeze starts on the 22nd.', key: 'deploy freeze' })
    expect(next.superseded).toEqual([wrong.id])
    expect((await b.readIndex()).find((e) => e.id === r.id)?.status).toBe('active')
  })

  it('a forgotten retraction withdraws nothing: the target supports claims again and loses its mark', async () => {
    const { b } = await store()
    const fact = await writeHandler(b, { summary: 'The staging VPN uses WireGuard on port 51820.' })
    await writeHandler(b, { summary: 'Retracted the VPN note: it was the old OpenVPN setup.', raw: 'user: scratch that', session_id: 'retract-1', retracts: fact.id })
    expect((await verifyHandler(b, { claim: 'The staging VPN uses WireGuard on port 51820' })).verdict).toBe('contradicted')
    await forgetHandler(b, { session_id: 'retract-1' })
    const v = await verifyHandler(b, { claim: 'The staging VPN uses WireGuard on port 51820' })
    expect(v.verdict).toBe('supported')
    expect(v.support?.retracted_by).toBeUndefined()
    const hit = (await searchHandler(b, { query: 'staging VPN WireGuard' })).hits.find((h) => h.id === fact.id)
    expect(hit?.retracted_by).toBeUndefined()
    expect((await assembleHandler(b, { task: 'staging VPN' })).context).not.toContain('[retracted')
  })

  it('retracting an unknown id is NOT_FOUND and writes nothing', async () => {
    const { b } = await store()
    await expect(writeHandler(b, { summary: 'Retract the thing.', retracts: 'mem_nope' })).rejects.toMatchObject({ code: 'NOT_FOUND', field: 'retracts' })
    expect(await b.readIndex()).toEqual([])
  })
})

describe('guards', () => {
  it('the trigger matches when every strong term of one alternative is in the text', () => {
    expect(triggerMatches('deploy to production | 上线', 'Please deploy the API to production now')).toBe(true)
    expect(triggerMatches('deploy to production | 上线', '明天上线新版本')).toBe(true)
    expect(triggerMatches('deploy to production', 'deploy to staging')).toBe(false)
    expect(triggerMatches('数据库迁移', '先做数据库的迁移')).toBe(false) // 数据库迁移 needs the 2-gram 库迁
    expect(triggerMatches('数据库迁移', '准备数据库迁移脚本')).toBe(true)
  })

  it('a guard needs both fields; its [GUARD] line reaches assemble, search and a cued injection when the text matches, and only then', async () => {
    const { b } = await store()
    await expect(writeHandler(b, { summary: 'Guard without an action.', guard_trigger: 'deploy' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'guard_action' })
    const g = await writeHandler(b, {
      summary: 'Before deploying to production, run the smoke suite.',
      guard_trigger: 'deploy to production',
      guard_action: 'run scripts/smoke.sh and wait for green before the deploy',
    })
    await writeHandler(b, { summary: 'The production database is PostgreSQL 16.' })
    const line = `[GUARD] when deploy to production: run scripts/smoke.sh and wait for green before the deploy (${g.id})`

    const assembled = await assembleHandler(b, { task: 'deploy the billing service to production', budget: 400 })
    expect(assembled.context.startsWith(line)).toBe(true)
    expect(assembled.used_tokens).toBeLessThanOrEqual(400)
    const unrelated = await assembleHandler(b, { task: 'what database does production use' })
    expect(unrelated.context).not.toContain('[GUARD]')

    const found = await searchHandler(b, { query: 'how do I deploy to production' })
    expect(found.guards).toEqual([{ id: g.id, trigger: 'deploy to production', action: 'run scripts/smoke.sh and wait for green before the deploy' }])
    expect(renderValue('memory_search_hybrid', found).split('\n')[0]).toBe(line)
    expect((await searchHandler(b, { query: 'production database' })).guards).toBeUndefined()

    const cued = injectionText(b, { cue: 'ok, deploy to production please' })
    expect(cued.text.split('\n')[2]).toBe(line)
    expect(injectionText(b, { cue: 'hello' }).text).not.toContain('[GUARD]')
    expect(injectionText(b, {}).text).not.toContain('[GUARD]')
  })
})
