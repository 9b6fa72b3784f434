/**
 * A writer killed in the middle of a compare-and-swap rewrite (src/store/rewrite.ts, step 3):
 * the memory file has been moved aside (`.<name>.<pid>.<n>.aside`) and the new text was never
 * linked into its place. A real child process (test/workers/rewrite-gap.mjs, the BUILT library)
 * forgets a memory and dies by SIGKILL exactly there. The memory was acknowledged long before, so
 * a fresh process must still find it: its file goes back to its place the first time a folder
 * listing or a rewrite meets the gap, instead of the freshness check taking the file for deleted
 * by hand and dropping it from the index (what the search-crash property met on CI). A rewrite
 * still under way whose file another process puts back starts its attempt again and succeeds.
 *
 * Run `npm run build` first (npm test does it).
 */

import { spawn, spawnSync } from 'node:child_process'
import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, forgetValueHandler, purgeHandler, rebuildIndex, searchHandler, signalsSettled, writeHandler, type MemoryBackend } from '../src/api.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const WORKER = path.join(here, 'workers', 'rewrite-gap.mjs')
const BUILT_API = path.join(here, '..', 'lib', 'api.js')

const dirs: string[] = []
const backends: MemoryBackend[] = []
beforeAll(() => {
  if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run \`npm run build\` first`)
})
afterAll(async () => {
  for (const b of backends) await flushCaches(b)
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true })
})

function open(root: string): MemoryBackend {
  // The dead writer's lock is taken over after 2 s instead of 10.
  const b = createFileBackend(root, { lockStaleMs: 2000 })
  backends.push(b)
  return b
}

interface Store {
  root: string
  /** The memory the child forgets, and the one beside it. */
  hit: { id: string; path: string; text: string }
  other: string
}

/** A store of two keyless memories, Chinese and English. */
async function twoMemories(): Promise<Store> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gap-kill-'))
  dirs.push(dir)
  const root = path.join(dir, 'store')
  const writer = createFileBackend(root)
  const hit = await writeHandler(writer, { summary: '周末去北京出差，住在国贸附近的酒店，记号 gapmark1。' })
  const other = await writeHandler(writer, { summary: 'The staging database moved to the new server, marker gapmark2.' })
  await flushCaches(writer)
  const text = await fs.readFile(path.join(root, hit.path), 'utf8')
  return { root, hit: { id: hit.id, path: hit.path, text }, other: other.id }
}

/** The names set aside beside the memory's place. */
async function asidesOf(root: string, relPath: string): Promise<string[]> {
  return (await fs.readdir(path.join(root, path.dirname(relPath)))).filter((n) => n.startsWith(`.${path.basename(relPath)}.`) && n.endsWith('.aside'))
}

interface Child {
  /** Resolves with the stdout line once it is printed. */
  printed(line: string): Promise<void>
  /** Resolves with the exit code or signal and every stdout line. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: string[] }>
}

function forgetInChild(root: string, id: string, mode: 'kill' | 'pause', gofile = ''): Child {
  const child = spawn(process.execPath, [WORKER, root, id, mode, ...(gofile === '' ? [] : [gofile])], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  const waiting: Array<() => void> = []
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stdout.on('data', (c: string) => {
    stdout += c
    for (const look of waiting) look()
  })
  child.stderr.on('data', (c: string) => (stderr += c))
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: string[] }>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => {
      if (code !== 0 && signal !== 'SIGKILL') reject(new Error(`rewrite-gap exited with ${code ?? signal}: ${stderr}`))
      else resolve({ code, signal, lines: stdout.split('\n').filter((l) => l !== '') })
    })
  })
  const printed = (line: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const look = (): void => {
        if (stdout.split('\n').includes(line)) resolve()
      }
      waiting.push(look)
      closed.then(() => reject(new Error(`rewrite-gap closed before printing ${line}: ${stderr}`)), reject)
      look()
    })
  return { printed, closed }
}

/** twoMemories, with a writer killed in the gap while it was forgetting the first. */
async function storeWithGap(): Promise<Store> {
  const store = await twoMemories()
  const { signal } = await forgetInChild(store.root, store.hit.id, 'kill').closed
  expect(signal).toBe('SIGKILL')
  // The state the kill left: no file at the memory's place, its text set aside beside it.
  expect(await asidesOf(store.root, store.hit.path)).toHaveLength(1)
  expect(existsSync(path.join(store.root, store.hit.path))).toBe(false)
  return store
}

describe('a writer killed between moving a memory file aside and linking its new text in', () => {
  it('a fresh process still finds the memory: its file is put back, nothing is taken for deleted', { timeout: 60_000 }, async () => {
    const { root, hit, other } = await storeWithGap()
    const b = open(root)
    // The search runs the freshness check, which lists every memory folder.
    expect((await searchHandler(b, { query: 'gapmark1', top_k: 5 })).hits.map((h) => h.id)).toContain(hit.id)
    expect((await searchHandler(b, { query: '北京 出差', top_k: 5 })).hits.map((h) => h.id)).toContain(hit.id)
    const view = await b.indexView()
    expect(view.get(hit.id)?.status).toBe('active')
    expect(view.get(other)?.status).toBe('active')
    expect(await fs.readFile(path.join(root, hit.path), 'utf8')).toBe(hit.text)
    expect(await asidesOf(root, hit.path)).toEqual([])
    const ledger = await fs.readFile(path.join(root, 'ledger.jsonl'), 'utf8')
    expect(ledger).not.toContain('external-change')

    // A process that reopens the store agrees, and the forget the killed writer began can be done now.
    const forgot = await forgetValueHandler(open(root), { id: hit.id })
    expect(forgot.forgotten.map((f) => f.id)).toEqual([hit.id])
    expect((await open(root).indexView()).get(hit.id)?.status).toBe('deleted_pending')
  })

  it('a process that watches the folder and writes beside the gap still finds the memory', { timeout: 60_000 }, async () => {
    const { root, hit, other } = await twoMemories()
    const b = open(root)
    // Fresh and watching before the writer is killed.
    expect((await searchHandler(b, { query: 'gapmark2', top_k: 5 })).hits.map((h) => h.id)).toContain(other)
    const { signal } = await forgetInChild(root, hit.id, 'kill').closed
    expect(signal).toBe('SIGKILL')
    // Its own write records the folder as it is now, gap included; the watcher reported the file.
    const added = await writeHandler(b, { summary: '发票每个月五号寄到财务部，记号 gapmark4。' })
    expect(path.dirname(added.path)).toBe(path.dirname(hit.path))
    expect((await searchHandler(b, { query: 'gapmark1', top_k: 5 })).hits.map((h) => h.id)).toContain(hit.id)
    expect((await b.indexView()).get(hit.id)?.status).toBe('active')
    expect(await fs.readFile(path.join(root, hit.path), 'utf8')).toBe(hit.text)
    expect(await fs.readFile(path.join(root, 'ledger.jsonl'), 'utf8')).not.toContain('external-change')
  })

  it('a rewrite that finds the file missing puts it back first, in a process that never listed the folder', { timeout: 60_000 }, async () => {
    const { root, hit } = await storeWithGap()
    const b = open(root)
    const done = await b.rewriteFile(hit.path, (text) => `${text}\nrewritten after the kill\n`)
    expect(done?.before).toBe(hit.text)
    expect(await fs.readFile(path.join(root, hit.path), 'utf8')).toBe(`${hit.text}\nrewritten after the kill\n`)
    expect(await asidesOf(root, hit.path)).toEqual([])
  })

  it('rebuilding the index finds the memory too', { timeout: 60_000 }, async () => {
    const { root, hit, other } = await storeWithGap()
    const result = await rebuildIndex(open(root))
    expect(result.entries).toBe(2)
    const view = await open(root).indexView()
    expect([view.get(hit.id)?.path, view.get(other)?.path]).toEqual([hit.path, expect.any(String)])
  })

  it('a rewrite under way whose file another process puts back starts again and finishes', { timeout: 60_000 }, async () => {
    const { root, hit } = await twoMemories()
    const gofile = path.join(path.dirname(root), 'go')
    const child = forgetInChild(root, hit.id, 'pause', gofile)
    await child.printed('paused')
    expect(existsSync(path.join(root, hit.path))).toBe(false)
    // A reader in this process lists the folder while the child is inside the gap: the file is put back.
    expect(await open(root).listFiles('topics')).toContain(hit.path)
    expect(await fs.readFile(path.join(root, hit.path), 'utf8')).toBe(hit.text)
    await fs.writeFile(gofile, '')
    const { code, lines } = await child.closed
    expect(code).toBe(0)
    expect((JSON.parse(lines[lines.length - 1] as string) as { forgotten: Array<{ id: string }> }).forgotten.map((f) => f.id)).toEqual([hit.id])
    expect((await open(root).indexView()).get(hit.id)?.status).toBe('deleted_pending')
    expect(await fs.readFile(path.join(root, hit.path), 'utf8')).toContain('status: deleted_pending')
    expect(await asidesOf(root, hit.path)).toEqual([])
  })

  it('a file set aside beside a place that holds one is left alone: the file at the place stays', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gap-kept-'))
    dirs.push(dir)
    const root = path.join(dir, 'store')
    const b = open(root)
    const w = await writeHandler(b, { summary: 'Invoices are paid on the fifth of each month, marker gapmark3.' })
    const abs = path.join(root, w.path)
    const current = await fs.readFile(abs, 'utf8')
    // What a writer killed after its link (before it removed the old text) leaves.
    const aside = path.join(path.dirname(abs), `.${path.basename(abs)}.999999.1.aside`)
    await fs.writeFile(aside, 'an older text\n')
    expect((await b.listFiles('topics')).filter((p) => !p.endsWith('/_index.md'))).toEqual([w.path])
    expect(await fs.readFile(abs, 'utf8')).toBe(current)
    expect(existsSync(aside)).toBe(true)
    expect((await b.rewriteFile(w.path, () => null))?.before).toBe(current)
  })

  it('a removal lists a folder again once something else changed it, and drops an aside left since', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gap-remove-'))
    dirs.push(dir)
    const b = open(path.join(dir, 'store'))
    const dead = spawnSync(process.execPath, ['-e', '']).pid
    await fs.mkdir(path.join(dir, 'store'))
    for (const name of ['a.md', 'b.md', 'c.md']) await fs.writeFile(path.join(dir, 'store', name), `${name}\n`)
    // The first removal lists the folder and finds it free of set-aside files.
    expect(await b.removeFile('a.md')).toBe(true)
    // A writer killed since left the older text of b.md set aside; removing c.md must notice.
    const aside = path.join(dir, 'store', `.b.md.${dead}.1.aside`)
    await fs.writeFile(aside, 'an older text of b\n')
    expect(await b.removeFile('c.md')).toBe(true)
    expect(existsSync(aside)).toBe(true)
    expect(await b.removeFile('b.md')).toBe(true)
    expect(existsSync(aside)).toBe(false)
    expect(await b.listFiles('')).toEqual([])
  })

  it('a purge leaves no older text set aside: nothing is put back, no copy holds the purged words', { timeout: 60_000 }, async () => {
    const { root, hit, other } = await twoMemories()
    const b = open(root)
    await forgetValueHandler(b, { id: hit.id })
    // What writers killed after their link (before they removed the old text) leave: the memory's
    // earlier text, and a ledger from before the forget, set aside by a process no longer running.
    const dead = spawnSync(process.execPath, ['-e', '']).pid
    const abs = path.join(root, hit.path)
    await fs.writeFile(path.join(path.dirname(abs), `.${path.basename(abs)}.${dead}.1.aside`), hit.text)
    const ledger = path.join(root, 'ledger.jsonl')
    await fs.writeFile(path.join(root, `.ledger.jsonl.${dead}.2.aside`), await fs.readFile(ledger, 'utf8'))
    const out = await purgeHandler(b, { id: hit.id })
    expect(out.purged).toContain(hit.id)
    expect(await asidesOf(root, hit.path)).toEqual([])
    expect((await fs.readdir(root)).filter((n) => n.endsWith('.aside'))).toEqual([])
    // A listing and a fresh process find no trace of it; the other memory stays.
    expect(await open(root).listFiles(path.dirname(hit.path))).not.toContain(hit.path)
    const fresh = open(root)
    // This search is asked after the purge: its own query-log line (written once it has answered)
    // is the only text left that may name the purged words.
    const searchedAt = new Date().toISOString()
    expect((await searchHandler(fresh, { query: 'gapmark1', top_k: 5 })).hits.map((h) => h.id)).not.toContain(hit.id)
    await signalsSettled(fresh)
    expect((await fresh.indexView()).get(other)?.status).toBe('active')
    const holding: string[] = []
    const look = async (dir: string): Promise<void> => {
      for (const e of await fs.readdir(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name)
        if (e.isDirectory()) await look(p)
        else {
          const rel = path.relative(root, p)
          const text = await fs.readFile(p, 'utf8').catch(() => '')
          const kept = rel === 'query-log.jsonl' ? text.split('\n').filter((l) => l !== '' && (JSON.parse(l) as { at: string }).at < searchedAt).join('\n') : text
          if (kept.includes('gapmark1')) holding.push(rel)
        }
      }
    }
    await look(root)
    expect(holding).toEqual([])
  })
})
