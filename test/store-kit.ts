/**
 * Small helpers the history, forget/purge and scenario tests share: temporary stores (with a clock
 * the test moves, when asked) that are flushed and removed after the file's tests, and the
 * assertion that a call fails with a MemoryError of one code.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, expect } from 'vitest'
import { MemoryError, createFileBackend, flushCaches, type MemoryBackend } from '../src/api.js'

export interface TempStore {
  backend: MemoryBackend
  root: string
  /** Moves the store's clock (ledger times and default memory times follow it). */
  at: (iso: string) => void
}

/** A factory of temporary stores for one test file; everything it made goes after the file's tests. */
export function tempStores(prefix: string): (clock?: string) => Promise<TempStore> {
  const made: Array<{ backend: MemoryBackend; root: string }> = []
  afterAll(async () => {
    for (const s of made) await flushCaches(s.backend)
    for (const s of made) await fs.rm(s.root, { recursive: true, force: true })
  })
  return async (clock) => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), prefix))
    let now = clock
    const backend = createFileBackend(root, now === undefined ? {} : { now: () => now as string })
    made.push({ backend, root })
    return { backend, root, at: (iso) => (now = iso) }
  }
}

export async function expectCode(p: Promise<unknown>, code: string): Promise<MemoryError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(MemoryError)
  expect((err as MemoryError).code).toBe(code)
  return err as MemoryError
}
