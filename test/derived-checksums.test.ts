/**
 * Derived files that check themselves: the search manifest and the vector segments carry a
 * checksum, so a changed digit or a flipped byte is counted in the diagnostics and rebuilt,
 * never trusted (issue 28, items 1 and 2). Real files, real embeddings server.
 */

import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createFileBackend, embedHandler, flushCaches, searchHandler, sweepHandler, vectorDiagnostics, writeHandler } from '../src/api.js'
import { SEARCH_MANIFEST } from '../src/retrieve/segment-files.js'
import { VECTORS_DIR } from '../src/retrieve/vectors.js'
import { startEmbeddingsServer } from './embeddings-server.js'
import { tempStores } from './store-kit.js'

const newStore = tempStores('derived-checksums-')
const tempStore = async (): Promise<string> => (await newStore()).root

describe('the saved search manifest', () => {
  it('is rebuilt, never trusted, when one digit of its tombstones changes, and the damage is counted', async () => {
    const root = await tempStore()
    const first = createFileBackend(root)
    const old = await writeHandler(first, { summary: 'The staging database is postgres 14 on db-old.', key: 'staging database' })
    for (let i = 0; i < 8; i++) await writeHandler(first, { summary: `Unrelated fact ${i} about the kettle.` })
    await searchHandler(first, { query: 'staging database' })
    await flushCaches(first)
    const live = await writeHandler(first, { summary: 'The staging database is postgres 16 on db-new.', key: 'staging database' })
    expect(live.superseded).toContain(old.id)
    await searchHandler(first, { query: 'staging database' })
    await flushCaches(first)
    const manifest = readFileSync(join(root, SEARCH_MANIFEST), 'utf8')
    const tombstones = /"deleted":\[(\d+)\]/.exec(manifest)
    expect(tombstones, 'a tombstone for the superseded version').not.toBeNull()
    const n = Number(tombstones![1])
    // Points the tombstone at another document of the same segment: the live one, or a neighbour.
    writeFileSync(join(root, SEARCH_MANIFEST), manifest.replace(`"deleted":[${n}]`, `"deleted":[${n === 0 ? 1 : n - 1}]`))

    const second = createFileBackend(root)
    const hits = (await searchHandler(second, { query: 'staging database postgres' })).hits.map((r) => r.id)
    expect(hits).toContain(live.id)
    expect(hits).not.toContain(old.id)
    expect((await sweepHandler(createFileBackend(root), {})).damagedSearchIndexFiles).toBe(1)
    await flushCaches(second)
    // The rebuilt index was saved over it: a later process finds nothing damaged.
    expect((await sweepHandler(createFileBackend(root), {})).damagedSearchIndexFiles).toBe(0)
  })
})

describe('vector segments', () => {
  it('a flipped byte anywhere makes the segment unreadable, counted, never a phantom similarity; embed rebuilds it', async () => {
    const server = await startEmbeddingsServer()
    try {
      const root = await tempStore()
      writeFileSync(join(root, 'config.json'), JSON.stringify({ embedder: { baseUrl: server.url, model: 'concepts', dimensions: 12 } }))
      const first = createFileBackend(root)
      const cat = await writeHandler(first, { summary: 'Mimi the cat sleeps on the sofa all day' })
      await writeHandler(first, { summary: 'The billing service stores invoices in Postgres' })
      await writeHandler(first, { summary: 'Release 2.4 goes out on Friday after the review' })
      expect(await embedHandler(first, {})).toMatchObject({ embedded: 3, pending: 0 })
      const [folder] = readdirSync(join(root, VECTORS_DIR)).filter((f) => f !== 'embedder.json')
      const [file] = readdirSync(join(root, VECTORS_DIR, folder!))
      const segment = join(root, VECTORS_DIR, folder!, file!)
      const good = readFileSync(segment)
      // Header, embedder id, keys, scales (the last 3 * 12 + 4 * 3 + 4 bytes are codes, scales, crc), codes, checksum.
      const end = good.length
      for (const at of [9, 22, 40, end - 4 - 36 - 12 + 3, end - 4 - 36 - 12 + 1, end - 4 - 5, end - 1]) {
        const bad = Buffer.from(good)
        bad[at] = (bad[at] as number) ^ 0x40
        writeFileSync(segment, bad)
        const fresh = createFileBackend(root)
        const d = await vectorDiagnostics(fresh)
        expect(d?.unreadableSegments, `byte ${at}`).toBe(1)
        expect(d?.embedded, `byte ${at}`).toBe(0)
        for (const hit of (await searchHandler(fresh, { query: 'kitten' })).hits) expect(hit.similarity ?? 0, `byte ${at}`).toBeLessThanOrEqual(1)
      }
      const repaired = createFileBackend(root)
      expect(await embedHandler(repaired, {})).toMatchObject({ embedded: 3, pending: 0 })
      const after = createFileBackend(root)
      expect(await vectorDiagnostics(after)).toMatchObject({ unreadableSegments: 0, embedded: 3, segments: 1 })
      const kitten = (await searchHandler(after, { query: 'kitten' })).hits
      expect(kitten.map((h) => h.id)).toEqual([cat.id])
      expect(kitten[0]?.similarity).toBeGreaterThan(0.9)
      expect(kitten[0]?.similarity).toBeLessThanOrEqual(1)
    } finally {
      await server.close()
    }
  })
})
