/**
 * Export takes no write lock (a read-only store must export), yet a bundle still belongs to one
 * moment: its index, its memory files and its ledger agree. Checked against a transaction held
 * open half-way in this process, and against two other processes writing while this one exports
 * over and over.
 *
 * The writer processes run the BUILT library (lib/api.js): `npm test` builds first; when running
 * this file alone, run `npm run build` before.
 */

import { spawn } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, exportBundle, flushCaches, writeHandler, type Bundle, type MemoryBackend } from '../src/api.js'
import { isMemoryPath } from '../src/store/frontmatter.js'
import { transact } from '../src/memory/writing/txn.js'
import { sha1 } from '../src/text.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const WORKER = path.join(here, 'workers', 'write-stream.mjs')

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})
async function tempRoot(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'export-snapshot-'))
  dirs.push(dir)
  return path.join(dir, 'store')
}

/** What does not hold in a bundle: files without index entries and the other way round, stale checksums, unlogged ids. */
function disagreements(bundle: Bundle): string[] {
  const out: string[] = []
  const files = new Map(bundle.files.filter((f) => isMemoryPath(f.path)).map((f) => [f.path, f.text]))
  const logged = new Set(bundle.ledger.map((e) => e['id']).filter((id): id is string => typeof id === 'string'))
  for (const e of bundle.index) {
    const text = files.get(e.path)
    if (text === undefined) out.push(`${e.path} is indexed, its file is missing`)
    else if (sha1(text) !== e.checksum) out.push(`${e.path} differs from its index entry`)
    if (e.type !== 'raw' && !logged.has(e.id)) out.push(`${e.id} has no ledger event`)
    files.delete(e.path)
  }
  for (const p of files.keys()) out.push(`${p} is not indexed`)
  return out
}

describe('export without the write lock', () => {
  it('a transaction that starts while the bundle is read makes it wait, then read again', async () => {
    const root = await tempRoot()
    const writer = createFileBackend(root)
    await writeHandler(writer, { summary: 'The API server listens on port 8080.' })
    let fileWritten = (): void => undefined
    const written = new Promise<void>((resolve) => (fileWritten = resolve))
    let txn: Promise<void> | null = null
    const startWrite = (): void => {
      txn = transact(writer, async (t) => {
        await t.create('topics/half-way-mem_halfway0000000001.md', { id: 'mem_halfway0000000001', type: 'topic', title: 'Half way', time: t.now, status: 'active' }, '# Half way\n\nWritten before the index.\n')
        t.log({ event: 'write', id: 'mem_halfway0000000001' })
        fileWritten()
        // Held half-way (file written, index not yet) while the export goes on.
        await new Promise((resolve) => setTimeout(resolve, 300))
      })
    }
    // Another backend, as another process opens the store; once it has read the index, the
    // transaction starts and writes its file before the export lists the files.
    const real = createFileBackend(root)
    const reader = Object.assign(Object.create(real) as MemoryBackend, {
      readIndex: async () => {
        const index = await real.readIndex()
        if (txn === null) {
          startWrite()
          // A store lock held by the export would keep the transaction out: then wait no longer.
          await Promise.race([written, new Promise((resolve) => setTimeout(resolve, 1000))])
        }
        return index
      },
    })
    const bundle = await exportBundle(reader)
    await txn
    expect(disagreements(bundle)).toEqual([])
    await flushCaches(writer)
    await flushCaches(real)
  })

  it('every bundle taken while two other processes write is whole', async () => {
    const root = await tempRoot()
    const backend = createFileBackend(root)
    await writeHandler(backend, { summary: 'Seed memory so the store exists.' })
    const workers = ['a', 'b'].map((tag) => {
      const child = spawn(process.execPath, [WORKER, root, tag, '60', 'episode'], { stdio: ['pipe', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c))
      const ready = new Promise<void>((resolve) => child.stdout.on('data', () => out.startsWith('ready\n') && resolve()))
      const done = new Promise<void>((resolve, reject) => child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${tag}: ${err}`)))))
      return { child, ready, done }
    })
    await Promise.all(workers.map((w) => w.ready))
    for (const w of workers) w.child.stdin.end('go\n')
    let running = true
    const finished = Promise.all(workers.map((w) => w.done)).finally(() => (running = false))
    const bad: string[][] = []
    let exports = 0
    const sizes = new Set<number>()
    // Each export opens the store afresh, as another process would; tries that found a writer
    // holding the lock (and were read again) are counted.
    let busy = 0
    const opened = (): MemoryBackend => {
      const real = createFileBackend(root)
      return Object.assign(Object.create(real) as MemoryBackend, {
        writeInProgress: async () => {
          const held = await real.writeInProgress()
          if (held) busy++
          return held
        },
      })
    }
    while (running) {
      // An export that meets no write never waits on a timer: give the workers' exit events a turn.
      await new Promise((resolve) => setImmediate(resolve))
      const bundle = await exportBundle(opened())
      exports++
      sizes.add(bundle.index.length)
      const wrong = disagreements(bundle)
      if (wrong.length > 0) bad.push(wrong)
    }
    await finished
    const last = await exportBundle(createFileBackend(root))
    const midway = [...sizes].filter((n) => n > 1 && n < last.index.length).length
    console.log(`${exports - bad.length} of ${exports} exports taken during 120 concurrent writes agree with themselves (${midway} store sizes seen half-way, ${busy} tries met a writer and were read again)`)
    expect(bad).toEqual([])
    // The exports did meet the writers: some were taken half-way, or had to read again.
    expect(midway + busy).toBeGreaterThan(0)
    expect(disagreements(last)).toEqual([])
    expect(last.index.filter((e) => e.type !== 'raw')).toHaveLength(121)
    await flushCaches(backend)
  })
})
