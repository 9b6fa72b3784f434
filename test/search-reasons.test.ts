/**
 * Why a search found what it found (`reason`, `eligible`, `nearMisses`) and exact identifier
 * matching (`literalMatch`): shared identifiers rank first, match only as whole tokens, and leave
 * queries without identifiers exactly as they were.
 */

import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { TOOLS, createFileBackend, flushCaches, identifiersOf, outputViolation, searchHandler, signalsSettled, writeHandler, type MemoryBackend } from '../src/api.js'
import { renderValue } from '../src/tools/render/text.js'

const opened: MemoryBackend[] = []
afterEach(async () => {
  for (const b of opened.splice(0)) {
    await signalsSettled(b)
    await flushCaches(b)
  }
})

function store(): MemoryBackend {
  const backend = createFileBackend(mkdtempSync(path.join(tmpdir(), 'reasons-')))
  opened.push(backend)
  return backend
}

const searchTool = TOOLS.find((t) => t.name === 'memory_search_hybrid')!
async function search(backend: MemoryBackend, input: Record<string, unknown>) {
  const out = await searchHandler(backend, input as { query: string })
  expect(outputViolation(searchTool.output, out)).toBeNull()
  return out
}

describe('reason, eligible, nearMisses', () => {
  it('empty-cue: no search words (empty, or only stop words), newest memories instead', async () => {
    const b = store()
    await writeHandler(b, { summary: 'The API listens on port 8080.' })
    for (const query of ['', 'the of and', '的了吗']) {
      const r = await search(b, { query })
      expect(r.reason).toBe('empty-cue')
      expect(r.hits.length).toBe(1)
      expect(r.nearMisses).toEqual([])
    }
  })

  it('no-candidates: an empty store, filters that leave nothing, or no shared word', async () => {
    const b = store()
    const empty = await search(b, { query: 'kubernetes' })
    expect(empty).toMatchObject({ reason: 'no-candidates', eligible: 0, nearMisses: [], hits: [] })
    await writeHandler(b, { summary: 'The API listens on port 8080.', tags: ['api'] })
    const filtered = await search(b, { query: 'API port', tags: ['nothing-has-this'] })
    expect(filtered).toMatchObject({ reason: 'no-candidates', eligible: 0 })
    const unrelated = await search(b, { query: 'kubernetes helm chart' })
    expect(unrelated).toMatchObject({ reason: 'no-candidates', eligible: 1, nearMisses: [] })
    expect(unrelated.guidance).toMatch(/^None of the 1 eligible memories shares a word with the query/)
  })

  it('below-threshold: memories sharing only single characters are near misses, never hits', async () => {
    const b = store()
    const quantum = await writeHandler(b, { summary: '量子计算的基本原理是叠加和纠缠' })
    await writeHandler(b, { summary: 'The API listens on port 8080.' })
    const r = await search(b, { query: '算力' })
    expect(r.hits).toEqual([])
    expect(r.reason).toBe('below-threshold')
    expect(r.eligible).toBe(2)
    expect(r.nearMisses).toEqual([expect.objectContaining({ id: quantum.id, shared: ['算'] })])
    expect(r.guidance).toMatch(/share only single characters/)
    const text = renderValue('memory_search_hybrid', r)
    expect(text).toContain(`near miss, not a match: ${quantum.id}`)
    expect(text).toContain('(reason: below-threshold)')
  })

  it('ok: hits and no near misses', async () => {
    const b = store()
    await writeHandler(b, { summary: 'The API listens on port 8080.' })
    const r = await search(b, { query: 'API port' })
    expect(r).toMatchObject({ reason: 'ok', nearMisses: [] })
    expect(r.hits.length).toBe(1)
  })
})

describe('identifiers', () => {
  it('extracts hex, ticket ids, shas, versions, UUIDs whole and lower-cased', () => {
    expect(identifiersOf('Release v1.2.3 fixes D-387; see commit 3AE214CC7F8A045A and 0x6070.')).toEqual(['v1.2.3', 'd-387', '3ae214cc7f8a045a', '0x6070'])
    expect(identifiersOf('0.1.0-rc.8 and 123e4567-e89b-12d3-a456-426614174000')).toEqual(['0.1.0-rc.8', '123e4567-e89b-12d3-a456-426614174000'])
    // Not identifiers: plain numbers, decimals, dates, hex-letter words, digit-only runs.
    expect(identifiersOf('2.5 s on 2023-05-07, deadbeef, cafebabe, 1234567, port 8080')).toEqual([])
  })

  it('a shared identifier ranks first (literalMatch), ahead of stronger word matches', async () => {
    const b = store()
    const wordy = await writeHandler(b, { summary: 'What happened with the login bug: the login bug happened again after the login change.' })
    const ticket = await writeHandler(b, { summary: 'Fixed in D-387: session cookie path.' })
    const r = await search(b, { query: 'what happened with the login bug D-387' })
    expect(r.hits.map((h) => h.id)).toEqual([ticket.id, wordy.id])
    expect(r.hits[0]?.literalMatch).toBe(1)
    expect(r.hits[1]?.literalMatch).toBeUndefined()
    expect(r.guidance).toMatch(/1 share an identifier with the query/)
  })

  it('versions and shas match as whole tokens only, never as a prefix or part', async () => {
    const b = store()
    const exact = await writeHandler(b, { summary: 'Upgrade notes for release 1.4.2 of the gateway.' })
    const longer = await writeHandler(b, { summary: 'Upgrade notes for release 1.4.20 of the gateway.' })
    const sha = await writeHandler(b, { summary: 'The regression came in with commit 3ae214cc7f8a045a.' })
    const shaLonger = await writeHandler(b, { summary: 'Unrelated change in commit 3ae214cc7f8a045a00.' })
    const v = await search(b, { query: 'release 1.4.2' })
    expect(v.hits[0]?.id).toBe(exact.id)
    expect(v.hits[0]?.literalMatch).toBe(1)
    expect(v.hits.find((h) => h.id === longer.id)?.literalMatch).toBeUndefined()
    const s = await search(b, { query: '3ae214cc7f8a045a' })
    expect(s.hits.map((h) => h.id)).toEqual([sha.id])
    expect(s.hits.find((h) => h.id === shaLonger.id)).toBeUndefined()
  })

  it('a version the tokenizer cuts into single digits is still found, and filters still apply', async () => {
    const b = store()
    const pinned = await writeHandler(b, { summary: 'We pin the host to 0.1.0-rc.8 until the plugin API settles.', tags: ['host'] })
    await writeHandler(b, { summary: 'Counted 1 0 8 things.', tags: ['other'] })
    const r = await search(b, { query: '0.1.0-rc.8' })
    expect(r.hits[0]).toMatchObject({ id: pinned.id, literalMatch: 1, reason: 'match' })
    const filtered = await search(b, { query: '0.1.0-rc.8', tags: ['other'] })
    expect(filtered.hits.find((h) => h.id === pinned.id)).toBeUndefined()
  })

  it('queries without identifiers carry no literalMatch', async () => {
    const b = store()
    await writeHandler(b, { summary: 'Fixed in D-387: session cookie path.' })
    const r = await search(b, { query: 'session cookie' })
    expect(r.hits.length).toBe(1)
    expect(r.hits[0]?.literalMatch).toBeUndefined()
  })

  it('the keyword scorer does no substring matching (verify.sh forbids it in retrieve/search)', () => {
    const source = readFileSync(path.join(import.meta.dirname, '../src/retrieve/search.ts'), 'utf8')
    expect(source).not.toMatch(/\.includes\(|\.indexOf\(|\.startsWith\(/)
  })
})
