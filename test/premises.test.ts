/**
 * Premises (`scope`): parsing and the compatibility rule (src/store/premises.ts), and what
 * they do to writes (no repeat, no supersede across conflicting premises: `different-scope`),
 * to search (`scope` filters, `scopeExcluded` counts) and to verify (OUT_OF_SCOPE, CONDITIONAL
 * SCOPE).
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MemoryError, confirmHandler, createFileBackend, digestHandler, flushCaches, rebuildIndex, searchHandler, verifyHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { comparePremises, formatPremises, parsePremises, valuesAgree } from '../src/store/premises.js'

const roots: string[] = []
const backends: MemoryBackend[] = []
async function store(): Promise<MemoryBackend> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-premises-'))
  roots.push(root)
  const b = createFileBackend(root)
  backends.push(b)
  return b
}
afterAll(async () => {
  for (const b of backends) await flushCaches(b)
  for (const r of roots) await fs.rm(r, { recursive: true, force: true })
})

describe('parsing premises', () => {
  it('reads key=value and key: value segments separated by ; , or a line break, keys in lower case', () => {
    expect(parsePremises('Env = prod; region: eu-west\npopulation=all records,')).toEqual([
      { key: 'env', value: 'prod' },
      { key: 'region', value: 'eu-west' },
      { key: 'population', value: 'all records' },
    ])
    expect(formatPremises(parsePremises(' env=prod ;; region = eu '))).toBe('env=prod; region=eu')
    expect(formatPremises([])).toBeNull()
  })

  it('refuses a segment without a key, a key named twice, and more than 20 conditions', () => {
    const code = (f: () => unknown) => {
      try {
        f()
      } catch (err) {
        return err instanceof MemoryError ? `${err.code}:${err.field}` : String(err)
      }
      return 'ok'
    }
    expect(code(() => parsePremises('production'))).toBe('INVALID_INPUT:scope')
    expect(code(() => parsePremises('=prod'))).toBe('INVALID_INPUT:scope')
    expect(code(() => parsePremises('env=prod; ENV=staging'))).toBe('INVALID_INPUT:scope')
    expect(code(() => parsePremises(Array.from({ length: 21 }, (_, i) => `k${i}=v`).join(';')))).toBe('INVALID_INPUT:scope')
    expect(code(() => parsePremises('env=prod', 'query.scope'))).toBe('ok')
  })
})

describe('the compatibility rule', () => {
  it('values agree on containment or word overlap of at least half, and disagree otherwise', () => {
    expect(valuesAgree('all records', 'all the records')).toBe(true)
    expect(valuesAgree('instruction start', 'instruction start of lea-rsp site')).toBe(true) // containment
    expect(valuesAgree('first 4096 rows', 'first 4096 rows sorted by id')).toBe(true)
    expect(valuesAgree('prod', 'staging')).toBe(false)
    expect(valuesAgree('all records', 'first 4096 rows')).toBe(false)
    expect(valuesAgree('a b c d', 'a b x y')).toBe(false) // overlap 2 of 6 < 0.5
    expect(valuesAgree('a b c', 'a b c x')).toBe(true)
    // CJK counts per character: 生产环境 and 生产 overlap by containment; 测试 shares nothing.
    expect(valuesAgree('生产环境', '生产')).toBe(true)
    expect(valuesAgree('生产', '测试')).toBe(false)
  })

  it('compares only keys both sides name; a side without premises is unchecked, never a conflict', () => {
    expect(comparePremises('env=prod; region=eu', 'env=staging')).toEqual({ relation: 'conflict', keys: ['env'] })
    expect(comparePremises('env=prod', 'region=eu')).toEqual({ relation: 'compatible', keys: [] })
    expect(comparePremises('env=prod', 'env=prod; region=eu')).toEqual({ relation: 'compatible', keys: [] })
    expect(comparePremises('env=prod', null)).toEqual({ relation: 'unchecked', keys: [] })
    expect(comparePremises(undefined, 'env=prod')).toEqual({ relation: 'unchecked', keys: [] })
    // A hand-written scope that does not parse counts as none.
    expect(comparePremises('garbage', 'env=prod').relation).toBe('unchecked')
  })
})

describe('writes under premises', () => {
  it('the same words under conflicting premises are not a repeat: a second memory, with a different-scope warning', async () => {
    const b = await store()
    const a = await writeHandler(b, { summary: 'P(X==disp) is at the independence baseline.', scope: 'population=all records; comparator=instruction start' })
    expect(a.scope).toBe('population=all records; comparator=instruction start')
    const c = await writeHandler(b, { summary: 'P(X==disp) is at the independence baseline.', scope: 'population=first 4096 rows' })
    expect(c.dedupe).toBeUndefined()
    expect(c.id).not.toBe(a.id)
    expect(c.warnings?.[0]).toMatch(new RegExp(`^different-scope: ${a.id} .*population \\(all records vs first 4096 rows\\)`))
    // Compatible premises (a rewording that contains the other) are a repeat as before.
    const d = await writeHandler(b, { summary: 'P(X==disp) is at the independence baseline.', scope: 'population=all the records' })
    expect(d.dedupe).toBe('exact')
    expect(d.id).toBe(a.id)
  })

  it('a new version under conflicting premises does not supersede; under compatible or unstated premises it does', async () => {
    const b = await store()
    const prod = await writeHandler(b, { summary: 'Cache size is 512 MB.', key: 'cache size', scope: 'env=prod' })
    const staging = await writeHandler(b, { summary: 'Cache size is 64 MB.', key: 'cache size', scope: 'env=staging' })
    expect(staging.superseded).toEqual([])
    expect(staging.warnings).toEqual([expect.stringMatching(new RegExp(`^different-scope: ${prod.id} is in the same slot .*env \\(prod vs staging\\)`))])
    const prod2 = await writeHandler(b, { summary: 'Cache size is 1 GB.', key: 'cache size', scope: 'env=prod; region=eu' })
    expect(prod2.superseded).toEqual([prod.id])
    expect(prod2.warnings).toEqual([expect.stringContaining(staging.id)])
    // No premises on the new write: unchecked, so it is a version of both.
    const plain = await writeHandler(b, { summary: 'Cache size is 2 GB everywhere.', key: 'cache size' })
    expect(plain.superseded.sort()).toEqual([prod2.id, staging.id].sort())
    expect(plain.warnings).toBeUndefined()
  })

  it("the slot's digest states the latest memory with its premises and lists what holds under other premises", async () => {
    const b = await store()
    await writeHandler(b, { summary: 'Cache size is 512 MB.', key: 'cache size', scope: 'env=prod' })
    await writeHandler(b, { summary: 'Cache size is 64 MB.', key: 'cache size', scope: 'env=staging' })
    const digest = await digestHandler(b, { key: 'cache size' })
    expect(digest.text).toContain('Cache size is 64 MB. [scope: env=staging]')
    expect(digest.text).toMatch(/其他前提下的当前说法：\n- \[scope: env=prod\] \d{4}-\d\d-\d\d：Cache size is 512 MB\./)
  })

  it('confirming a suggested memory supersedes only slot mates whose premises agree', async () => {
    const b = await store()
    const prod = await writeHandler(b, { summary: 'Deploys go out on Tuesdays.', key: 'deploy day', scope: 'env=prod' })
    const staging = await writeHandler(b, { summary: 'Deploys go out daily.', key: 'deploy day', scope: 'env=staging', requireConfirmation: true })
    const confirmed = await confirmHandler(b, { id: staging.id })
    expect(confirmed.superseded).toEqual([])
    const nav = await searchHandler(b, { query: 'deploys go out' })
    expect(nav.hits.map((h) => h.id).sort()).toEqual([prod.id, staging.id].sort())
  })

  it('a repeat without premises of a memory that has none gives it the premises; the file keeps them through a rebuild', async () => {
    const b = await store()
    const a = await writeHandler(b, { summary: 'The build cache lives in /var/cache/build.' })
    const again = await writeHandler(b, { summary: 'The build cache lives in /var/cache/build.', scope: 'host=ci' })
    expect(again.dedupe).toBe('exact')
    expect(again.id).toBe(a.id)
    const text = await b.readFile(a.path)
    expect(text).toContain('scope: host=ci')
    const before = (await b.readIndex()).find((e) => e.id === a.id)
    expect(before?.scope).toBe('host=ci')
    await rebuildIndex(b)
    expect((await b.readIndex()).find((e) => e.id === a.id)?.scope).toBe('host=ci')
  })

  it('malformed premises are INVALID_INPUT naming scope', async () => {
    const b = await store()
    await expect(writeHandler(b, { summary: 'x marks the spot', scope: 'production' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'scope' })
    await expect(searchHandler(b, { query: 'x', scope: 'production' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'scope' })
    await expect(verifyHandler(b, { claim: 'x', scope: 'a=1; a=2' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'scope' })
  })
})

describe('search and verify under premises', () => {
  it('search with scope leaves out conflicting premises and counts them; without scope nothing changes', async () => {
    const b = await store()
    const prod = await writeHandler(b, { summary: 'Cache size is 512 MB.', key: 'cache size', scope: 'env=prod' })
    const staging = await writeHandler(b, { summary: 'Cache size is 64 MB.', key: 'cache size', scope: 'env=staging' })
    const plain = await writeHandler(b, { summary: 'Cache eviction is LRU.' })
    const all = await searchHandler(b, { query: 'cache size' })
    expect(all.hits.map((h) => h.id)).toEqual(expect.arrayContaining([prod.id, staging.id]))
    expect(all.scopeExcluded).toBeUndefined()
    expect(all.hits.find((h) => h.id === prod.id)?.scope).toBe('env=prod')
    const scoped = await searchHandler(b, { query: 'cache size', scope: 'env=staging' })
    expect(scoped.hits.map((h) => h.id)).toContain(staging.id)
    expect(scoped.hits.map((h) => h.id)).not.toContain(prod.id)
    expect(scoped.scopeExcluded).toBe(1)
    // A memory without premises is never excluded.
    const lru = await searchHandler(b, { query: 'cache eviction', scope: 'env=staging' })
    expect(lru.hits[0]?.id).toBe(plain.id)
    expect(lru.hits.map((h) => h.id)).toContain(staging.id)
    expect(lru.scopeExcluded).toBe(1)
  })

  it('verify prefers support under agreeing premises, answers OUT_OF_SCOPE when only conflicting ones speak, and says CONDITIONAL SCOPE when none were given', async () => {
    const b = await store()
    const prod = await writeHandler(b, { summary: 'Cache size is 512 MB.', key: 'cache size', scope: 'env=prod' })
    await writeHandler(b, { summary: 'Cache size is 64 MB.', key: 'cache size', scope: 'env=staging' })

    const inProd = await verifyHandler(b, { claim: 'cache size is 512 MB', scope: 'env=prod' })
    expect(inProd.verdict).toBe('supported')
    expect(inProd.support?.id).toBe(prod.id)
    expect(inProd.scopeExcluded).toBe(1)

    const inStaging = await verifyHandler(b, { claim: 'cache size is 512 MB', scope: 'env=staging' })
    // The staging memory names the same slot with another number: a contradiction under these premises.
    expect(inStaging.verdict).toBe('contradicted')

    const inDev = await writeHandler(b, { summary: 'Build runners have 8 cores.', scope: 'env=ci' })
    const other = await verifyHandler(b, { claim: 'Build runners have 8 cores', scope: 'env=prod' })
    expect(other.verdict).toBe('out_of_scope')
    expect(other.support).toBeNull()
    expect(other.contradicting).toEqual([])
    expect(other.note).toMatch(new RegExp(`^OUT_OF_SCOPE: ${inDev.id}.*env \\(ci vs prod\\)`))

    const unscoped = await verifyHandler(b, { claim: 'Build runners have 8 cores' })
    expect(unscoped.verdict).toBe('supported')
    expect(unscoped.note).toContain(`CONDITIONAL SCOPE: ${inDev.id} holds under "env=ci"`)

    const plain = await writeHandler(b, { summary: 'Logs are kept for 14 days.' })
    const unchecked = await verifyHandler(b, { claim: 'Logs are kept for 14 days', scope: 'env=prod' })
    expect(unchecked.verdict).toBe('supported')
    expect(unchecked.note).toContain(`Premises unchecked: ${plain.id} records none`)
  })
})
