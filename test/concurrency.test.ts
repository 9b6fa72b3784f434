/**
 * Several processes writing to ONE store at the same time. The store lock (proper-lockfile between
 * processes) must serialise every read-modify-write of index.jsonl: no lost index line, no torn or
 * glued ledger line, and the index must equal what `rebuildIndex` derives from the files.
 *
 * The workers run the BUILT library (lib/api.js): `npm test` builds first; when running this file
 * alone, run `npm run build` before.
 */

import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, rebuildIndex, type IndexEntry } from '../src/api.js'
import { startTogether, startWorker } from './process-kit.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const WORKER = path.join(here, 'workers', 'write-stream.mjs')
const BUILT_API = path.join(here, '..', 'lib', 'api.js')

interface WorkerReport {
  worker: string
  ids: string[]
  rawRefs: string[]
}

const tmpDirs: string[] = []
async function tempRoot(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix))
  tmpDirs.push(dir)
  return path.join(dir, 'store')
}

/** One worker per tag, released together so the writes really overlap; resolves with each worker's report. */
async function runWorkers(root: string, tags: string[], count: number, mode: 'topic' | 'episode' | 'revise'): Promise<WorkerReport[]> {
  const workers = tags.map((tag) => startWorker<WorkerReport>(WORKER, [root, tag, String(count), mode], tag))
  await startTogether(workers)
  return Promise.all(workers.map((w) => w.done))
}

function byId(a: IndexEntry, b: IndexEntry): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** The non-empty lines of a file, each parsed as JSON; fails the test on a line that does not parse. */
async function jsonLines(file: string): Promise<{ lines: string[]; parsed: Record<string, unknown>[]; endsWithNewline: boolean }> {
  const text = await fs.readFile(file, 'utf8')
  const lines = text.split('\n').filter((l) => l.trim() !== '')
  const parsed: Record<string, unknown>[] = []
  const bad: string[] = []
  for (const line of lines) {
    try {
      parsed.push(JSON.parse(line) as Record<string, unknown>)
    } catch {
      bad.push(line.slice(0, 200))
    }
  }
  expect(bad, `${path.basename(file)} has lines that do not parse`).toEqual([])
  return { lines, parsed, endsWithNewline: text.endsWith('\n') }
}

/** The `id:` of a memory file's front-matter (plain or quoted scalar). */
function frontMatterId(text: string): string | null {
  const fm = /^---\n([\s\S]*?)\n---/.exec(text)
  if (!fm) return null
  const m = /^id:\s*['"]?([^'"\n]+?)['"]?\s*$/m.exec(fm[1] ?? '')
  return m ? (m[1] ?? null) : null
}

beforeAll(() => {
  if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run \`npm run build\` first (npm test does it)`)
})

afterAll(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true })
})

describe('concurrent writers on one store', () => {
  it('3 processes racing keyless revisions of four shared subjects: never two active values for one subject; index == rebuild', { timeout: 120_000 }, async () => {
    const root = await tempRoot('mem-conc-revise-')
    await runWorkers(root, ['A', 'B', 'C'], 40, 'revise')
    const api = (await import(BUILT_API)) as typeof import('../src/api.js')
    const backend = api.createFileBackend(root)
    const active = [...(await backend.indexView()).values()].filter((e) => e.status === 'active')
    // Grouped by what each text says (the stored slot is revision's own output).
    const bySubject = new Map<string, { value: string; atoms: ReturnType<typeof api.valueAtoms> }[]>()
    for (const e of active) {
      const said = api.deriveClaim(e.summary)
      expect(said, e.summary).not.toBeNull()
      if (said === null) continue
      const key = said.subject.toLowerCase().replace(/\s+/g, '')
      bySubject.set(key, [...(bySubject.get(key) ?? []), { value: said.value, atoms: api.valueAtoms(said.value) }])
    }
    expect(bySubject.size).toBeGreaterThan(0)
    for (const [subject, values] of bySubject) {
      for (const a of values) for (const b of values) expect(api.compareValues(a.atoms, b.atoms), `${subject}: ${a.value} | ${b.value}`).not.toBe('different')
    }
    const indexed = (await backend.readIndex()).map((e) => `${e.id}:${e.status}:${e.key ?? ''}`).sort()
    await api.flushCaches(backend)
    await api.rebuildIndex(root)
    const rebuilt = (await api.createFileBackend(root).readIndex()).map((e) => `${e.id}:${e.status}:${e.key ?? ''}`).sort()
    expect(rebuilt).toEqual(indexed)
  })

  it('4 processes x 200 topic writes: 800 index lines, 800 write events, index == rebuild', { timeout: 120_000 }, async () => {
    const root = await tempRoot('mem-conc-')
    const WORKERS = 4
    const PER_WORKER = 200
    const TOTAL = WORKERS * PER_WORKER
    const started = Date.now()
    const reports = await runWorkers(root, ['A', 'B', 'C', 'D'], PER_WORKER, 'topic')
    const elapsed = Date.now() - started
    console.info(`[concurrency] ${TOTAL} writes from ${WORKERS} processes took ${elapsed} ms`)

    const reportedIds = reports.flatMap((r) => r.ids)
    expect(reportedIds).toHaveLength(TOTAL)
    expect(new Set(reportedIds).size).toBe(TOTAL)

    // index.jsonl: exactly one line per write, all JSON, all ids distinct.
    const index = await jsonLines(path.join(root, 'index.jsonl'))
    expect(index.endsWithNewline).toBe(true)
    expect(index.lines).toHaveLength(TOTAL)
    const indexIds = index.parsed.map((e) => e.id as string)
    expect(new Set(indexIds).size).toBe(TOTAL)
    expect(new Set(indexIds)).toEqual(new Set(reportedIds))
    expect(index.parsed.every((e) => e.type === 'topic' && e.status === 'active')).toBe(true)

    // ledger.jsonl: exactly one 'write' event per write, nothing torn or glued together.
    const ledger = await jsonLines(path.join(root, 'ledger.jsonl'))
    expect(ledger.endsWithNewline).toBe(true)
    expect(ledger.lines).toHaveLength(TOTAL)
    expect(ledger.parsed.filter((e) => e.event === 'write')).toHaveLength(TOTAL)
    expect(new Set(ledger.parsed.map((e) => e.id))).toEqual(new Set(reportedIds))
    // The writers really overlapped: run one after the other they would switch exactly WORKERS-1
    // times. (The lock is not fair, a writer that just released often takes it again, so the
    // number of switches is modest; it is logged to see it.)
    const workerOf = new Map(reports.flatMap((r) => r.ids.map((id) => [id, r.worker] as const)))
    let switches = 0
    for (let i = 1; i < ledger.parsed.length; i++) {
      if (workerOf.get(ledger.parsed[i]?.id as string) !== workerOf.get(ledger.parsed[i - 1]?.id as string)) switches++
    }
    console.info(`[concurrency] ledger switches between workers: ${switches}`)
    expect(switches).toBeGreaterThan(WORKERS - 1)

    const backend = createFileBackend(root)
    const before = (await backend.readIndex()).sort(byId)
    expect(backend.lastIndexSkipped).toBe(0)
    expect(before).toHaveLength(TOTAL)

    // Every memory file on disk is in the index, and no file is missing.
    const files = (await backend.listFiles('topics')).filter((p) => p.endsWith('.md') && !p.endsWith('/_index.md'))
    expect(files).toHaveLength(TOTAL)
    const indexedIds = new Set(before.map((e) => e.id))
    const indexedPaths = new Set(before.map((e) => e.path))
    for (const file of files) {
      const text = await backend.readFile(file)
      expect(text, file).not.toBeNull()
      const id = frontMatterId(text as string)
      expect(id, `${file} has no id in its front-matter`).not.toBeNull()
      expect(indexedIds.has(id as string), `${file} (${id}) is not in the index`).toBe(true)
      expect(indexedPaths.has(file), `${file} is not an indexed path`).toBe(true)
    }

    // The index is exactly the projection of the files.
    const rebuilt = await rebuildIndex(root)
    expect(rebuilt.entries).toBe(TOTAL)
    expect(rebuilt.scanned).toBe(TOTAL)
    expect(rebuilt.skipped).toBe(0)
    expect(rebuilt.badIndexLines).toBe(0)
    const after = (await createFileBackend(root).readIndex()).sort(byId)
    expect(after).toEqual(before)
  })

  it('2 processes writing episodes with raw: 2x index entries, every raw_ref resolves', { timeout: 120_000 }, async () => {
    const root = await tempRoot('mem-conc-ep-')
    const PER_WORKER = 100
    const started = Date.now()
    const reports = await runWorkers(root, ['E1', 'E2'], PER_WORKER, 'episode')
    console.info(`[concurrency] ${2 * PER_WORKER} episode+raw writes from 2 processes took ${Date.now() - started} ms`)

    const episodeIds = reports.flatMap((r) => r.ids)
    expect(new Set(episodeIds).size).toBe(2 * PER_WORKER)
    expect(reports.flatMap((r) => r.rawRefs)).toHaveLength(2 * PER_WORKER)

    const index = await jsonLines(path.join(root, 'index.jsonl'))
    expect(index.lines).toHaveLength(4 * PER_WORKER)
    expect(new Set(index.parsed.map((e) => e.id)).size).toBe(4 * PER_WORKER)

    const backend = createFileBackend(root)
    const entries = await backend.readIndex()
    expect(backend.lastIndexSkipped).toBe(0)
    const episodes = entries.filter((e) => e.type === 'episode')
    const raws = entries.filter((e) => e.type === 'raw')
    expect(episodes).toHaveLength(2 * PER_WORKER)
    expect(raws).toHaveLength(2 * PER_WORKER)
    expect(new Set(episodes.map((e) => e.id))).toEqual(new Set(episodeIds))

    const rawByPath = new Map(raws.map((r) => [r.path, r]))
    for (const ep of episodes) {
      expect(ep.raw_ref, `${ep.id} has no raw_ref`).not.toBeNull()
      const ref = ep.raw_ref as string
      const raw = rawByPath.get(ref)
      expect(raw, `${ep.id}: raw_ref ${ref} is not an indexed raw entry`).toBeDefined()
      expect(raw?.episode).toBe(ep.id)
      expect(raw?.session_id).toBe(ep.session_id)
      const text = await backend.readFile(ref)
      expect(text, `${ep.id}: raw file ${ref} is missing`).not.toBeNull()
      expect(text).toContain('原始对话')
    }

    const ledger = await jsonLines(path.join(root, 'ledger.jsonl'))
    expect(ledger.lines).toHaveLength(2 * PER_WORKER)
    expect(ledger.parsed.every((e) => e.event === 'write' && typeof e.raw_id === 'string')).toBe(true)

    const rebuilt = await rebuildIndex(root)
    expect(rebuilt.entries).toBe(4 * PER_WORKER)
    const after = await createFileBackend(root).readIndex()
    expect(after.sort(byId)).toEqual(entries.sort(byId))
  })
})
