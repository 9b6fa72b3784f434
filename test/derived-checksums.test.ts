/**
 * Derived files that check themselves: the search manifest and the vector segments carry a
 * checksum, so a changed digit or a flipped byte is counted in the diagnostics and rebuilt,
 * never trusted (issue 28, items 1 and 2). Real files, real embeddings server.
 */

import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, searchHandler, sweepHandler, writeHandler } from '../src/api.js'
import { SEARCH_MANIFEST } from '../src/retrieve/segment-files.js'

const roots: string[] = []
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

function tempStore(): string {
  const root = mkdtempSync(join(tmpdir(), 'derived-checksums-'))
  roots.push(root)
  return root
}

describe('the saved search manifest', () => {
  it('is rebuilt, never trusted, when one digit of its tombstones changes, and the damage is counted', async () => {
    const root = tempStore()
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
