/**
 * memory_verify on rules alone (issue 27): a memory that negates the value or announces a change
 * yet to come never supports it, and a change yet to come casts doubt on the value it replaces,
 * naming it; a note on another attribute of the subject leaves a support alone.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, verifyHandler, writeHandler, type MemoryBackend } from '../src/api.js'

const roots: string[] = []
const backends: MemoryBackend[] = []
async function store(): Promise<MemoryBackend> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-doubt-'))
  roots.push(root)
  const b = createFileBackend(root)
  backends.push(b)
  return b
}
afterAll(async () => {
  for (const b of backends) await flushCaches(b)
  for (const r of roots) await fs.rm(r, { recursive: true, force: true })
})

describe('memory_verify doubt', () => {
  it('a memory that negates the value never supports it', async () => {
    const b = await store()
    await writeHandler(b, { summary: 'Nadia no longer plays the cello.' })
    const v = await verifyHandler(b, { claim: 'Nadia plays the cello' })
    expect(v.verdict).not.toBe('supported')
  })

  it('a change yet to come supports nothing now, and casts doubt on the value it replaces', async () => {
    const b = await store()
    await writeHandler(b, { summary: 'The design review is on Thursdays.' })
    const later = await writeHandler(b, { summary: 'Starting next month, the design review is on Mondays.' })
    expect((await verifyHandler(b, { claim: 'The design review is on Mondays' })).verdict).not.toBe('supported')
    const old = await verifyHandler(b, { claim: 'The design review is on Thursdays' })
    expect(old.verdict).not.toBe('supported')
    expect(old.note).toContain(later.id)
  })

  it('a sibling subject that shares none of the claim beyond the subject word leaves the support alone', async () => {
    const b = await store()
    const m = await writeHandler(b, { summary: 'Lucia prefers green tea.' })
    await writeHandler(b, { summary: 'Lucia moved her desk to floor 4.' })
    const v = await verifyHandler(b, { claim: 'Lucia prefers green tea' })
    expect(v.verdict).toBe('supported')
    expect(v.support?.id).toBe(m.id)
  })
})
