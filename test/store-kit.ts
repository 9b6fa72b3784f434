/**
 * Small helpers the history, forget/purge, secrets and scenario tests share: temporary stores
 * (with a clock the test moves, when asked) that are flushed and removed after the file's tests,
 * the assertion that a call fails with a MemoryError of one code, and a search of every file
 * under a store's root for a value.
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

/** Every file under the root, dot folders (.cache) included, with its text. */
export async function everyFile(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name)
      if (entry.isDirectory()) await walk(abs)
      else if (entry.isFile()) out.set(path.relative(root, abs), await fs.readFile(abs, 'utf8'))
    }
  }
  await walk(root)
  return out
}

/** The files under the root whose text holds needle (case aside), sorted. */
export async function grep(root: string, needle: string): Promise<string[]> {
  const hits: string[] = []
  for (const [file, text] of await everyFile(root)) if (text.toLowerCase().includes(needle.toLowerCase())) hits.push(file)
  return hits.sort()
}
