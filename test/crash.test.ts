/**
 * Crash safety: a writer process killed with SIGKILL in the middle of a stream of writes. The
 * store must still open and read, `rebuildIndex` must recover (after waiting out the dead
 * writer's lock, which goes stale after the default 10 s), every write the child saw succeed
 * must be in the rebuilt index, no temp file may be indexed, and the store must take new writes.
 *
 * The child runs the BUILT library (lib/api.js): `npm test` builds first; when running this file
 * alone, run `npm run build` before.
 */

import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, rebuildIndex, writeHandler } from '../src/api.js'
import { runUntilKilled } from './process-kit.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const WORKER = path.join(here, 'workers', 'crash-writer.mjs')
const BUILT_API = path.join(here, '..', 'lib', 'api.js')

const tmpDirs: string[] = []
async function tempRoot(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix))
  tmpDirs.push(dir)
  return path.join(dir, 'store')
}

/**
 * Runs the crash writer until it has reported `killAfter` ids, kills it with SIGKILL and resolves
 * with every id it reported before it died (possibly a few more than killAfter).
 */
async function writeThenKill(root: string, tag: string, killAfter: number, jitterMs: number): Promise<{ ids: string[]; signal: NodeJS.Signals | null }> {
  const ids: string[] = []
  const signal = await runUntilKilled(WORKER, [root, tag], (line) => {
    ids.push(line)
    // A little jitter, so the kill lands in different phases of the next write (before the
    // lock, while files are written, between the index and the ledger...).
    return ids.length >= killAfter ? jitterMs : null
  })
  return { ids, signal }
}

/** Every file below dir (absolute walk, dot-files included), relative to dir. */
async function walk(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = []
  for (const d of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel === '' ? d.name : `${rel}/${d.name}`
    if (d.isDirectory()) out.push(...(await walk(dir, child)))
    else out.push(child)
  }
  return out
}

beforeAll(() => {
  if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run \`npm run build\` first (npm test does it)`)
})

afterAll(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true })
})

describe('SIGKILL in the middle of a write stream', () => {
  for (const killAfter of [20, 80, 150]) {
    it(`recovers after a kill at ~${killAfter} writes`, { timeout: 60_000 }, async () => {
      const root = await tempRoot(`mem-crash-${killAfter}-`)
      const t0 = Date.now()
      const jitter = Math.floor(Math.random() * 15)
      const { ids, signal } = await writeThenKill(root, `k${killAfter}`, killAfter, jitter)
      const killedAt = Date.now()
      expect(signal).toBe('SIGKILL')
      expect(ids.length).toBeGreaterThanOrEqual(killAfter)
      expect(new Set(ids).size).toBe(ids.length)

      // The store opens and its index reads (a torn line would be skipped and counted, not fatal).
      const backend = createFileBackend(root)
      const index = await backend.readIndex()
      expect(backend.lastIndexSkipped).toBeGreaterThanOrEqual(0)
      // index.jsonl is replaced atomically and written before the call returns: every id the
      // child saw succeed is in it already.
      const indexed = new Set(index.map((e) => e.id))
      expect(ids.filter((id) => !indexed.has(id)), 'reported ids missing from the index before rebuild').toEqual([])
      const lockHeld = existsSync(path.join(root, '.lock'))

      // Rebuild: may wait for the dead writer's lock to go stale (default 10 s).
      const r0 = Date.now()
      const result = await rebuildIndex(root)
      const rebuildMs = Date.now() - r0
      console.info(
        `[crash] kill after ${ids.length} ids (+${jitter} ms): stream ${killedAt - t0} ms, lock left behind: ${lockHeld}, rebuild ${rebuildMs} ms, ` +
          `${result.entries} entries, ${result.scanned} scanned, ${backend.lastIndexSkipped} bad index lines`,
      )
      expect(result.skipped).toBe(0)
      expect(result.warnings).toEqual([])

      const rebuilt = await createFileBackend(root).readIndex()
      expect(rebuilt).toHaveLength(result.entries)
      const rebuiltIds = new Set(rebuilt.map((e) => e.id))
      expect(ids.filter((id) => !rebuiltIds.has(id)), 'reported ids missing from the rebuilt index').toEqual([])
      // At most the one write in flight when the child died is on disk without having been reported.
      const reportedOrTheirRaw = new Set([...ids, ...ids.map((id) => `${id}-raw`)])
      const unreported = rebuilt.filter((e) => !reportedOrTheirRaw.has(e.id) && e.type !== 'raw')
      expect(unreported.length).toBeLessThanOrEqual(1)

      // No temp file (write-file-atomic's `<name>.<digits>`) is indexed; every path is a memory file.
      for (const e of rebuilt) {
        expect(e.path, e.id).toMatch(/^(episodes|raw|topics)\/[^/]+\.md$/)
        expect(e.path).not.toMatch(/\.md\.\d+$/)
      }
      const onDisk = await walk(root)
      const leftovers = onDisk.filter((p) => /\.(md|jsonl)\.\d+$/.test(p))
      if (leftovers.length > 0) console.info(`[crash] temp files left by the kill (not indexed): ${leftovers.join(', ')}`)
      const indexedPaths = new Set(rebuilt.map((e) => e.path))
      for (const p of leftovers) expect(indexedPaths.has(p)).toBe(false)

      // Every episode's raw_ref resolves after the rebuild.
      const store = createFileBackend(root)
      for (const e of rebuilt.filter((x) => x.type === 'episode')) {
        if (e.raw_ref !== null) expect(await store.readFile(e.raw_ref), `${e.id} raw_ref ${e.raw_ref}`).not.toBeNull()
      }

      // The store takes a new write (the stale lock was taken over and released).
      const out = await writeHandler(store, { summary: `崩溃之后的新记忆 after kill ${killAfter}: the store still works.` })
      expect(out.dedupe).toBeUndefined()
      const final = await store.readIndex()
      expect(store.lastIndexSkipped).toBe(0)
      expect(final.map((e) => e.id)).toContain(out.id)
      expect(final).toHaveLength(result.entries + 1)
      expect(existsSync(path.join(root, '.lock'))).toBe(false)
    })
  }
})
