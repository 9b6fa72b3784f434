/**
 * Episodes are indexed with their session neighbours' text. Kept incrementally, that context
 * must always equal what a full rebuild of the search index gives: after interleaved writes,
 * searches, superseding and forgetting, every document is indexed in the same version (its
 * checksum and its context) as a fresh process without caches indexes it. (Scores themselves may
 * differ slightly until minisearch vacuums discarded documents; the documents may not.)
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, forgetHandler, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { loadSearchIndex } from '../src/retrieve/segment-files.js'

const QUERIES = ['pottery class', 'camping trip', 'adoption agency', 'painting sunrise', '陶艺课', '露营', 'what did she paint']

async function rankings(backend: MemoryBackend): Promise<string[][]> {
  const out: string[][] = []
  for (const query of QUERIES) out.push((await searchHandler(backend, { query, top_k: 200 })).hits.map((h) => `${h.id}:${h.score}`))
  return out
}

describe('session context', () => {
  it('a turn is found through the question its neighbour asked', async () => {
    const backend = createFileBackend(mkdtempSync(join(tmpdir(), 'ctx-')))
    const t = (m: number) => `2026-03-01T10:${String(m).padStart(2, '0')}:00Z`
    await writeHandler(backend, { type: 'episode', session_id: 's1', time: t(0), summary: 'Mel: What did you paint last weekend?' })
    await writeHandler(backend, { type: 'episode', session_id: 's1', time: t(1), summary: 'Caroline: A sunrise over the lake, with my kids.' })
    await writeHandler(backend, { type: 'episode', session_id: 's2', time: t(2), summary: 'Caroline: The weather was nice for a walk.' })
    const hits = (await searchHandler(backend, { query: 'what did Caroline paint' })).hits.map((h) => h.summary)
    expect(hits).toContain('Caroline: A sunrise over the lake, with my kids.')
    await flushCaches(backend)
  })

  it('incremental upkeep equals a full rebuild after writes, searches, supersedes and forgets', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ctx-'))
    const backend = createFileBackend(root)
    const topics = ['pottery class', 'camping trip', 'adoption agency', 'painting a sunrise', '陶艺课', '露营', '画日出', 'charity race']
    for (let i = 0; i < 45; i++) {
      const session = `s${i % 3}`
      await writeHandler(backend, {
        type: 'episode',
        session_id: session,
        time: new Date(Date.UTC(2026, 2, 1, 10, i)).toISOString(),
        summary: `Turn ${i} in ${session}: we talked about the ${topics[i % topics.length]} and ${topics[(i * 5) % topics.length]}`,
        ...(i % 11 === 0 ? { key: `slot-${i % 2}` } : {}),
      })
      if (i % 7 === 0) await rankings(backend)
    }
    await forgetHandler(backend, { session_id: 's1' })
    await writeHandler(backend, { type: 'episode', session_id: 's2', time: '2026-03-01T10:20:30Z', summary: 'A late turn inserted between others about the camping trip' })
    const incremental = await rankings(backend)
    await flushCaches(backend)
    const docsOf = async () => (await loadSearchIndex(createFileBackend(root)))?.stamps()
    const incrementalDocs = await docsOf()

    rmSync(join(root, '.cache'), { recursive: true, force: true })
    const fresh = createFileBackend(root)
    const fromScratch = await rankings(fresh)
    await flushCaches(fresh)
    expect(await docsOf()).toEqual(incrementalDocs)
    expect(incrementalDocs?.size).toBeGreaterThan(20)
    // The same memories match every query (their order may differ until the old index vacuums).
    const idSets = (r: string[][]) => r.map((list) => list.map((h) => h.split(':')[0]).sort())
    expect(idSets(fromScratch)).toEqual(idSets(incremental))
  })
})
