/**
 * Shared logs (src/store/shared-log.ts): appended without the store lock by many processes while
 * another rewrites them under it, as searches log queries while a trim or a purge runs. Every line
 * appended ends up exactly once either in what one rewrite dropped or in the file at the end: none
 * lost, none doubled, none a rewrite dropped back again. A rewrite killed midway leaves what it
 * took set aside, and the next rewrite takes it in.
 *
 * The workers run the BUILT library (lib/api.js): run `npm run build` before this file alone.
 */

import { spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, searchHandler, signalsSettled, writeHandler, type MemoryBackend } from '../src/api.js'
import { startTogether, startWorker } from './process-kit.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const WORKER = path.join(here, 'workers', 'log-race.mjs')
const LOG = 'query-log.jsonl'

const tmpDirs: string[] = []
async function tempRoot(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'shared-log-'))
  tmpDirs.push(dir)
  return dir
}
afterAll(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true })
})

const linesOf = (text: string) => text.split('\n').filter((l) => l.trim() !== '')

/** The queries in the query log, oldest first. */
async function loggedQueries(backend: MemoryBackend): Promise<string[]> {
  return linesOf((await backend.readFile(LOG)) ?? '').map((l) => (JSON.parse(l) as { query: string }).query)
}

/** How often each string occurs. */
function counts(items: readonly string[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const item of items) out.set(item, (out.get(item) ?? 0) + 1)
  return out
}

describe('a shared log under concurrent appenders and a rewriter', () => {
  it('every line ends up once: dropped by one rewrite or in the file, never lost, doubled or back', async () => {
    const root = await tempRoot()
    await createFileBackend(root).appendLog(LOG, `${JSON.stringify({ tag: 'seed', n: 0, drop: false })}\n`)
    const appenders = ['a', 'b', 'c'].map((tag) => startWorker<{ appended: string[] }>(WORKER, [root, 'append', tag, '400'], tag))
    const rewriter = startWorker<{ dropped: string[]; rewrites: number }>(WORKER, [root, 'rewrite', 'r', '150'], 'rewriter')
    await startTogether([...appenders, rewriter])
    const appended = (await Promise.all(appenders.map((w) => w.done))).flatMap((r) => r.appended)
    const { dropped, rewrites } = await rewriter.done
    expect(rewrites).toBe(150)
    const text = await fs.readFile(path.join(root, LOG), 'utf8')
    const final = linesOf(text)
    expect(final.filter((l) => l.includes('sealed')), 'no seal line in the live log').toEqual([])
    const dropCount = counts(dropped)
    const finalCount = counts(final)
    const wrong: string[] = []
    for (const line of appended) {
      const d = dropCount.get(line) ?? 0
      const f = finalCount.get(line) ?? 0
      if (d + f !== 1) wrong.push(`${line}: dropped ${d}, in the file ${f}`)
      if (d > 0 && !line.includes('"drop":true')) wrong.push(`${line}: dropped but not marked`)
    }
    expect(wrong.slice(0, 10), `${wrong.length} line(s) not exactly once`).toEqual([])
    expect(final.length + dropped.length).toBe(appended.length + 1)
    expect(dropped.length).toBeGreaterThan(0)
  }, 120_000)

  it('a rewrite killed after setting the log aside: the next rewrite takes in what it had taken', async () => {
    const root = await tempRoot()
    const backend = createFileBackend(root)
    // The pid of a process that has ended: the set-aside file's rewriter is gone.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout
    const before = ['{"n":1}', '{"n":2}']
    // What it had taken, its seal, and a line appended after the seal (its writer appended it again).
    await fs.writeFile(path.join(root, `.${LOG}.${gone}.1.aside`), `${before.join('\n')}\n{"sealed":"0123456789abcdef"}\n{"n":3}\n`)
    await backend.appendLog(LOG, '{"n":3}\n{"n":4}\n')
    const done = await backend.withLock(() => backend.rewriteLog(LOG, (text) => text))
    expect(linesOf(done?.after ?? '')).toEqual(['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'])
    expect(linesOf(await fs.readFile(path.join(root, LOG), 'utf8'))).toEqual(['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'])
    expect((await fs.readdir(root)).filter((n) => n.endsWith('.aside'))).toEqual([])
  })

  it('searches log their queries (Chinese and English) without taking the lock, and the trim keeps the latest', async () => {
    const root = await tempRoot()
    const backend = createFileBackend(root)
    await writeHandler(backend, { summary: '周末我们去杭州西湖骑自行车' })
    await writeHandler(backend, { summary: 'The staging database moved to port 5433 last week' })
    // The first search makes the evidence file (under the lock); then the lock is held by another
    // holder all along, and searches and their logging must not wait for it.
    await searchHandler(backend, { query: '西湖', top_k: 1 })
    await signalsSettled(backend)
    const lockDir = path.join(root, '.lock')
    await fs.mkdir(lockDir)
    try {
      for (let n = 0; n < 30; n++) await searchHandler(backend, { query: n % 2 === 0 ? `西湖 自行车 ${n}` : `staging database ${n}`, top_k: 3 })
      await signalsSettled(backend)
    } finally {
      await fs.rmdir(lockDir)
    }
    const logged = await loggedQueries(backend)
    expect(logged).toHaveLength(31)
    expect(logged[1]).toBe('西湖 自行车 0')
    expect(logged[30]).toBe('staging database 29')
    for (let n = 30; n < 300; n++) await searchHandler(backend, { query: `staging ${n}`, top_k: 1 })
    await signalsSettled(backend)
    const kept = await loggedQueries(backend)
    expect(kept.length).toBeGreaterThanOrEqual(200)
    expect(kept.length).toBeLessThanOrEqual(250)
    expect(kept.at(-1)).toBe('staging 299')
  })
})
