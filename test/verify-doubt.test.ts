/**
 * memory_verify on rules alone never answers a false `supported` (issue 27): a memory at least as
 * new that may be saying otherwise (another value of the kind under a subject worded otherwise, a
 * change yet to come) makes the answer `unknown`, naming it; a memory that negates the value or
 * announces a change yet to come never supports it.
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
  it('a newer memory under a subject worded otherwise, with another value, makes the old value unknown and is named', async () => {
    const b = await store()
    const old = await writeHandler(b, { summary: 'The queue worker listens on port 7000.' })
    const doubt = await writeHandler(b, { summary: 'Our job runner listens on port 7100.' })
    const v = await verifyHandler(b, { claim: 'The queue worker listens on port 7000' })
    expect(v.verdict).toBe('unknown')
    expect(v.support?.id).toBe(old.id)
    expect(v.note).toContain(doubt.id)
  })

  it('another value of a measured kind, said of a subject that shares no word, is doubt too', async () => {
    const b = await store()
    await writeHandler(b, { summary: 'The session token lifetime is 15 minutes.' })
    const doubt = await writeHandler(b, { summary: 'Login expiry is 45 minutes.' })
    const v = await verifyHandler(b, { claim: 'The session token lifetime is 15 minutes' })
    expect(v.verdict).toBe('unknown')
    expect(v.note).toContain(doubt.id)
  })

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
