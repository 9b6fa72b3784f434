/**
 * The index snapshot (.cache/index-snapshot.bin): a process starts from it and folds only the
 * lines of index.jsonl appended after the offset it covers; anything wrong with it (missing,
 * torn, another format or program version, a changed byte, index.jsonl compacted, rebuilt,
 * truncated or rewritten in place) and the process folds index.jsonl from the start, so the
 * answer is the same as without it. Hand edits to memory files are found as they are without one.
 *
 * To tell whether a snapshot was used, some tests save a "marked" one: the fold of index.jsonl
 * with one summary changed. A process that shows the mark started from the snapshot; one that
 * does not folded index.jsonl.
 */

import { cpSync, existsSync, renameSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync, fstatSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, rebuildIndex, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { ensureFresh, stopFreshness } from '../src/store/freshness.js'
import { readSnapshot, snapshotCover, SNAPSHOT_FILE, writeSnapshot } from '../src/store/index-snapshot.js'
import { IndexView } from '../src/store/index-view.js'
import { scanMemoryFiles } from '../src/store/rebuild.js'
import type { IndexEntry } from '../src/types.js'

const MARK = '快照里的标记 marked in the snapshot'
const roots: string[] = []
const backends: MemoryBackend[] = []

afterAll(async () => {
  for (const b of backends) await flushCaches(b)
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

type SnapshotOptions = { snapshotTailLines?: number; snapshotIdleMs?: number }

function open(root: string, options: SnapshotOptions = {}): MemoryBackend {
  const b = createFileBackend(root, options)
  backends.push(b)
  return b
}

const SUMMARIES = [
  '周五下午和张伟一起检查生产环境的慢查询',
  'The staging database moved to a new host on Monday',
  '妈妈对花生过敏，点菜时要提醒服务员',
  'Alice prefers the dark theme in every editor she uses',
  '下个月去杭州出差，酒店已经订好了',
  'Deploys are frozen during the last week of the quarter',
  '每天早上先跑步三十分钟再喝咖啡',
  'Bob keeps the release checklist in the team wiki',
]

/** A store of `n` keyless memories, Chinese and English in turn. */
async function storeOf(n: number, options: SnapshotOptions = {}): Promise<{ root: string; backend: MemoryBackend }> {
  const root = join(mkdtempSync(join(tmpdir(), 'snap-')), 'store')
  roots.push(root)
  const backend = open(root, options)
  for (let i = 0; i < n; i++) await writeHandler(backend, { summary: `${SUMMARIES[i % SUMMARIES.length]} (${i})` })
  return { root, backend }
}

const lineCount = (text: string) => text.split('\n').filter((l) => l !== '').length

/** Saves a snapshot of index.jsonl as it is, with the first entry's summary replaced by MARK. */
async function saveMarked(root: string): Promise<string> {
  const view = await open(root).indexView()
  const marked = new IndexView()
  const first = [...view.values()][0] as IndexEntry
  for (const e of view.values()) marked.set(e.id === first.id ? { ...e, summary: MARK } : e)
  const abs = join(root, 'index.jsonl')
  const st = statSync(abs)
  const lines = lineCount(readFileSync(abs, 'utf8'))
  expect(writeSnapshot(abs, join(root, SNAPSHOT_FILE), marked, { ino: st.ino, offset: st.size, lines, skipped: 0, mtimeMs: st.mtimeMs })).toBe(true)
  return first.id
}

/** The summary a fresh process sees for `id`. */
async function seen(root: string, id: string): Promise<string | undefined> {
  return (await open(root).indexView()).get(id)?.summary
}

const byId = (entries: Iterable<IndexEntry>) => [...entries].sort((a, b) => (a.id < b.id ? -1 : 1))

describe('index snapshot', () => {
  it('a good snapshot is used, and the lines appended after it are folded on top', async () => {
    const { root, backend } = await storeOf(4)
    const id = await saveMarked(root)
    expect(await seen(root, id)).toBe(MARK)
    const w = await writeHandler(backend, { summary: 'Written after the snapshot was saved' })
    const view = await open(root).indexView()
    expect(view.get(id)?.summary).toBe(MARK)
    expect(view.get(w.id)?.summary).toBe('Written after the snapshot was saved')
    expect(view.size).toBe(5)
  })

  it('missing, torn, another format or program version, a changed byte: index.jsonl is folded instead', async () => {
    const { root } = await storeOf(4)
    const snap = join(root, SNAPSHOT_FILE)
    const id = await saveMarked(root)
    const good = readFileSync(snap)
    const expected = byId((await scanMemoryFiles(open(root))).entries).find((e) => e.id === id)?.summary
    expect(expected).not.toBe(MARK)

    rmSync(snap)
    expect(await seen(root, id)).toBe(expected)

    const headerLength = good.readUInt32LE(12)
    for (const length of [0, 7, 15, 16 + headerLength - 1, 16 + headerLength, 16 + headerLength + 10, good.length - 1]) {
      writeFileSync(snap, good.subarray(0, length))
      expect(await seen(root, id), `torn at ${length} of ${good.length} bytes`).toBe(expected)
    }
    writeFileSync(snap, Buffer.concat([good, Buffer.from('[]\n')]))
    expect(await seen(root, id), 'bytes after the body').toBe(expected)

    const otherFormat = Buffer.from(good)
    otherFormat.writeUInt32LE(1, 8)
    writeFileSync(snap, otherFormat)
    expect(await seen(root, id), 'format 1 (the older one)').toBe(expected)

    const header = JSON.parse(good.subarray(16, 16 + headerLength).toString('utf8')) as Record<string, unknown>
    const head = Buffer.from(JSON.stringify({ ...header, program: '0.0.1-older' }))
    const sizes = Buffer.alloc(8)
    sizes.writeUInt32LE(good.readUInt32LE(8), 0)
    sizes.writeUInt32LE(head.length, 4)
    writeFileSync(snap, Buffer.concat([good.subarray(0, 8), sizes, head, good.subarray(16 + headerLength)]))
    expect(await seen(root, id), 'another program version').toBe(expected)

    const flipped = Buffer.from(good)
    const at = good.indexOf(Buffer.from(MARK)) + 2
    flipped[at] = flipped[at]! ^ 0x01
    writeFileSync(snap, flipped)
    expect(await seen(root, id), 'a changed byte in the body').toBe(expected)

    writeFileSync(snap, good)
    expect(await seen(root, id), 'the good one again').toBe(MARK)
  })

  it('index.jsonl rebuilt, compacted, truncated or rewritten in place: the snapshot is passed over', async () => {
    const { root } = await storeOf(5)
    const index = join(root, 'index.jsonl')
    const expectedOf = async (id: string) => (await scanMemoryFiles(open(root))).entries.find((e) => e.id === id)?.summary

    // Rebuilt (a new file under the same name).
    let id = await saveMarked(root)
    await rebuildIndex(root)
    expect(await seen(root, id)).toBe(await expectedOf(id))

    // Compacted by another process (the same lines written aside and renamed over: another inode).
    id = await saveMarked(root)
    writeFileSync(`${index}.tmp`, readFileSync(index))
    renameSync(`${index}.tmp`, index)
    expect(await seen(root, id)).toBe(await expectedOf(id))

    // Truncated to its first lines (same inode, shorter than the snapshot's offset).
    id = await saveMarked(root)
    const text = readFileSync(index, 'utf8')
    const lines = text.split('\n').filter((l) => l !== '')
    truncateSync(index, Buffer.byteLength(`${lines.slice(0, 2).join('\n')}\n`))
    const folded = await open(root).indexView()
    expect(folded.size).toBe(2)
    expect(folded.get(id)?.summary ?? null).not.toBe(MARK)

    // Rewritten in place, same inode and same length (an editor that writes over the file).
    writeFileSync(index, text)
    id = await saveMarked(root)
    const ino = statSync(index).ino
    await new Promise((r) => setTimeout(r, 20))
    writeFileSync(index, text)
    expect(statSync(index).ino).toBe(ino)
    expect(await seen(root, id)).toBe(await expectedOf(id))

    // Rewritten in place with other lines and grown past the offset (same inode): the sampled bytes differ.
    id = await saveMarked(root)
    const fd = openSync(index, 'r+')
    try {
      const reordered = `${[...lines].reverse().join('\n')}\n${lines[0]}\n`
      writeFileSync(fd, reordered)
      expect(fstatSync(fd).ino).toBe(ino)
    } finally {
      closeSync(fd)
    }
    expect(await seen(root, id)).toBe(await expectedOf(id))
  })

  it('a due snapshot is saved once the writes pause, not on the write path', async () => {
    const { root } = await storeOf(6, { snapshotTailLines: 4, snapshotIdleMs: 1000 })
    const lines = lineCount(readFileSync(join(root, 'index.jsonl'), 'utf8'))
    expect(lines).toBeGreaterThan(4)
    // Past the bound but not four times past it: the writes left it to the pause after them.
    expect(snapshotCover(join(root, SNAPSHOT_FILE))).toBeNull()
    const deadline = Date.now() + 10_000
    while (snapshotCover(join(root, SNAPSHOT_FILE)) === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(snapshotCover(join(root, SNAPSHOT_FILE))?.lines).toBe(lines)
  })

  it('writes that never pause save it themselves at four times the bound; flushCaches saves a due one', async () => {
    const { root, backend } = await storeOf(0, { snapshotTailLines: 4, snapshotIdleMs: 3_600_000 })
    const tails: number[] = []
    for (let i = 0; i < 30; i++) {
      await writeHandler(backend, { summary: `${SUMMARIES[i % SUMMARIES.length]} (${i})` })
      tails.push(lineCount(readFileSync(join(root, 'index.jsonl'), 'utf8')) - (snapshotCover(join(root, SNAPSHOT_FILE))?.lines ?? 0))
    }
    expect(Math.max(...tails)).toBeLessThanOrEqual(16)
    expect(Math.max(...tails)).toBeGreaterThan(4)
    await flushCaches(backend)
    const cover = snapshotCover(join(root, SNAPSHOT_FILE))
    expect(cover).not.toBeNull()
    const lines = lineCount(readFileSync(join(root, 'index.jsonl'), 'utf8'))
    expect(lines - cover!.lines).toBeLessThanOrEqual(4)
    expect(cover!.offset).toBeLessThanOrEqual(statSync(join(root, 'index.jsonl')).size)
    // The store as a fresh process sees it equals the files, snapshot or not.
    const fromSnapshot = byId((await open(root).indexView()).values())
    rmSync(join(root, SNAPSHOT_FILE))
    expect(fromSnapshot).toEqual(byId((await open(root).indexView()).values()))
    expect(fromSnapshot).toEqual(byId((await scanMemoryFiles(open(root))).entries))
  })

  it('hand edits while a snapshot exists are found exactly as without one', async () => {
    const { root } = await storeOf(12, { snapshotTailLines: 3 })
    await flushCaches(backends[backends.length - 1]!)
    const copy = `${root}-copy`
    roots.push(copy)
    cpSync(root, copy, { recursive: true })
    rmSync(join(copy, SNAPSHOT_FILE))
    // The original's snapshot is good for its index.jsonl (the copy's would not be: another inode).
    const index = join(root, 'index.jsonl')
    const fd = openSync(index, 'r')
    try {
      expect(readSnapshot(join(root, SNAPSHOT_FILE), fd, fstatSync(fd))).not.toBeNull()
    } finally {
      closeSync(fd)
    }
    const entries = byId((await open(root).indexView()).values())
    const edited = entries.find((e) => e.summary.startsWith('Alice'))!
    const removed = entries.find((e) => e.summary.startsWith('妈妈'))!
    for (const r of [root, copy]) {
      const file = join(r, edited.path)
      writeFileSync(file, readFileSync(file, 'utf8').replaceAll('dark theme', 'solarized theme'))
      rmSync(join(r, removed.path))
      writeFileSync(join(r, 'topics/手写的笔记.md'), '# 部署笔记\n\n我们用 kubectl apply 部署到生产环境。\n')
      // A file without front-matter takes its time from its mtime: the same in both stores.
      utimesSync(join(r, 'topics/手写的笔记.md'), new Date('2026-11-30T08:00:00Z'), new Date('2026-11-30T08:00:00Z'))
    }
    const results = []
    for (const r of [root, copy]) {
      const b = open(r)
      const changes = await ensureFresh(b)
      const view = byId((await b.indexView()).values())
      const hits = (await searchHandler(b, { query: 'solarized kubectl' })).hits.map((h) => h.summary).sort()
      stopFreshness(b)
      results.push({ changes: changes.map((c) => [c.change, c.path]), view, hits })
      expect(view).toEqual(byId((await scanMemoryFiles(b)).entries))
    }
    expect(new Set(results[0]!.changes.map((c) => c.join(' ')))).toEqual(new Set([`modified ${edited.path}`, `removed ${removed.path}`, 'added topics/手写的笔记.md']))
    expect(results[0]).toEqual(results[1])
    expect(results[0]!.hits).toHaveLength(2)
    expect(existsSync(join(root, SNAPSHOT_FILE))).toBe(true)
  })

  it('entries read on demand: a search from a snapshot parses its hits only, and every entry read is the folded one', async () => {
    const { root, backend } = await storeOf(40, { snapshotTailLines: 2 })
    await writeHandler(backend, { summary: '上线前先在预发环境跑一遍冒烟测试', guard_trigger: '上线 | deploy', guard_action: '先跑冒烟测试 run the smoke tests first', session_id: 'sess-guard' })
    await writeHandler(backend, { summary: 'The on-call rota changes every Monday morning', session_id: 'sess-guard' })
    for (let i = 0; i < 3; i++) await writeHandler(backend, { summary: `${SUMMARIES[i]}，又说了一次 (${i})` })
    await flushCaches(backend)
    // A snapshot of all of index.jsonl, so that no line is folded on top of it.
    const abs = join(root, 'index.jsonl')
    const st = statSync(abs)
    const cover = { ino: st.ino, offset: st.size, lines: lineCount(readFileSync(abs, 'utf8')), skipped: 0, mtimeMs: st.mtimeMs }
    expect(writeSnapshot(abs, join(root, SNAPSHOT_FILE), await open(root).indexView(), cover)).toBe(true)

    // A fresh process: a search and its guard line read a handful of entries, not the store.
    const parsed = { n: 0 }
    const parse = JSON.parse
    const b = open(root)
    let hits: string[]
    let guards: unknown
    JSON.parse = (text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (text.startsWith('{"schema_version":')) parsed.n++
      return parse(text, reviver)
    }
    try {
      const result = await searchHandler(b, { query: '上线 冒烟测试', top_k: 3 })
      hits = result.hits.map((h) => h.summary)
      guards = result.guards
    } finally {
      JSON.parse = parse
    }
    expect(hits[0]).toBe('上线前先在预发环境跑一遍冒烟测试')
    expect(JSON.stringify(guards)).toContain('run the smoke tests first')
    expect(parsed.n).toBeGreaterThan(0)
    // Its hits, what the draw reads to be sure no boosted memory (importance, recency: at most
    // x1.16) passes them, and the guard: a handful, never the store's 40.
    expect(parsed.n).toBeLessThan(16)

    // Whatever needs every entry gets every entry, the same values as a fold of index.jsonl.
    const view = await b.indexView()
    const guardEntry = (await scanMemoryFiles(open(root))).entries.find((e) => e.guard !== undefined)!
    expect(view.atPath(guardEntry.path)?.id).toBe(guardEntry.id)
    expect(view.atPath('topics/no-such-file.md')).toBeUndefined()
    const sessions = [...view.sessions()].sort()
    const paths = [...view.paths()].sort()
    const lazy = byId(view.values())
    // Read in full, the view holds every entry itself: the snapshot cut to nothing changes nothing.
    truncateSync(join(root, SNAPSHOT_FILE), 0)
    expect(byId(view.values())).toEqual(lazy)
    rmSync(join(root, SNAPSHOT_FILE))
    const folded = await open(root).indexView()
    expect(lazy).toEqual(byId(folded.values()))
    expect(lazy).toEqual(byId((await scanMemoryFiles(open(root))).entries))
    expect(sessions).toEqual([...folded.sessions()].sort())
    expect(sessions.filter(([, s]) => s === 'sess-guard')).toHaveLength(2)
    expect(paths).toEqual([...folded.paths()].sort())
    expect(view.withGuard().map((e) => e.id)).toEqual(folded.withGuard().map((e) => e.id))
  })

  it('an entry damaged, cut or replaced after the start is read from index.jsonl instead, never wrong', async () => {
    const { root } = await storeOf(6)
    const snap = join(root, SNAPSHOT_FILE)
    const id = await saveMarked(root)
    const good = readFileSync(snap)
    const at = good.indexOf(Buffer.from(MARK))
    const expected = (await scanMemoryFiles(open(root))).entries.find((e) => e.id === id)?.summary
    expect(expected).not.toBe(MARK)
    const others = async (view: Awaited<ReturnType<MemoryBackend['indexView']>>) => byId([...view.values()].filter((e) => e.id !== id))
    const folded = byId((await scanMemoryFiles(open(root))).entries.filter((e) => e.id !== id))

    // Started from the snapshot, then a byte of the marked entry flipped in place: read, it fails its checksum.
    let view = await open(root).indexView()
    const flipped = readFileSync(snap)
    flipped[at + 1] = good[at + 1]! ^ 0x01
    writeFileSync(snap, flipped, { flag: 'r+' }) // the same file: no truncation, no new inode
    expect(view.get(id)?.summary, 'a flipped byte').toBe(expected)
    expect(await others(view)).toEqual(folded)

    // Cut short in place after the start.
    writeFileSync(snap, good)
    view = await open(root).indexView()
    truncateSync(snap, at)
    expect(view.get(id)?.summary, 'cut short').toBe(expected)
    expect(await others(view)).toEqual(folded)

    // Replaced by another snapshot (renamed over) after the start: the one it started from is read.
    writeFileSync(snap, good)
    view = await open(root).indexView()
    writeFileSync(`${snap}.other`, Buffer.alloc(good.length, 0x20))
    renameSync(`${snap}.other`, snap)
    expect(view.get(id)?.summary, 'renamed over').toBe(MARK)
    expect(await others(view)).toEqual(folded)
  })

  it('a body whose checksum holds but whose parts do not fit together is passed over', async () => {
    const { root } = await storeOf(4)
    const snap = join(root, SNAPSHOT_FILE)
    const id = await saveMarked(root)
    const good = readFileSync(snap)
    const headerLength = good.readUInt32LE(12)
    const header = JSON.parse(good.subarray(16, 16 + headerLength).toString('utf8')) as { tableBytes: number; indexBytes: number; indexCrc: number; bodyBytes: number; entries: number }
    const body = good.subarray(16 + headerLength)
    const expected = (await scanMemoryFiles(open(root))).entries.find((e) => e.id === id)?.summary
    /** The snapshot with its body and header changed as given, and the checksum made to match. */
    const forged = (change: (body: Buffer, head: typeof header) => void): Buffer => {
      const b = Buffer.from(body)
      const h = { ...header }
      change(b, h)
      const head = Buffer.from(JSON.stringify({ ...JSON.parse(good.subarray(16, 16 + headerLength).toString('utf8')), ...h, indexCrc: crc32(b.subarray(0, h.indexBytes)) }))
      const sizes = Buffer.alloc(8)
      sizes.writeUInt32LE(good.readUInt32LE(8), 0)
      sizes.writeUInt32LE(head.length, 4)
      return Buffer.concat([good.subarray(0, 8), sizes, head, b])
    }
    const cases: Array<[string, (b: Buffer, h: typeof header) => void]> = [
      ['a table one row short', (_b, h) => void (h.entries = h.entries + 1)],
      ['the table longer than said', (_b, h) => void (h.tableBytes = h.tableBytes - 1)],
      ['offsets out of order', (b, h) => b.writeUInt32LE(b.readUInt32LE(h.tableBytes + 4) + 10_000, h.tableBytes + 4)],
      ['the last offset past the end', (b, h) => b.writeUInt32LE(b.readUInt32LE(h.tableBytes + 4 * h.entries) + 1, h.tableBytes + 4 * h.entries)],
      ['an empty id', (b) => b.fill(0, 0, b.indexOf(0))],
    ]
    for (const [what, change] of cases) {
      writeFileSync(snap, forged(change))
      expect(await seen(root, id), what).toBe(expected)
    }
    writeFileSync(snap, forged(() => undefined))
    expect(await seen(root, id), 'the good one, forged again').toBe(MARK)
  })

  it('a view whose table strings hold the separator is not saved, and the store folds index.jsonl instead', async () => {
    const { root } = await storeOf(2)
    const view = await open(root).indexView()
    const odd = new IndexView()
    for (const e of view.values()) odd.set({ ...e, session_id: 'a\0b' })
    const abs = join(root, 'index.jsonl')
    const st = statSync(abs)
    rmSync(join(root, SNAPSHOT_FILE), { force: true })
    expect(writeSnapshot(abs, join(root, SNAPSHOT_FILE), odd, { ino: st.ino, offset: st.size, lines: 2, skipped: 0, mtimeMs: st.mtimeMs })).toBe(false)
    expect(existsSync(join(root, SNAPSHOT_FILE))).toBe(false)
    expect((await open(root).indexView()).size).toBe(2)
  })

  /** Bytes this process read and wrote through system calls so far (Linux). */
  const ioBytes = () => {
    const io = Object.fromEntries(
      readFileSync('/proc/self/io', 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(': ') as [string, string]),
    )
    return { read: Number(io.rchar), written: Number(io.wchar) }
  }

  async function perWrite(size: number): Promise<{ read: number; written: number }> {
    const { backend } = await storeOf(size)
    const n = 20
    const before = ioBytes()
    for (let i = 0; i < n; i++) await writeHandler(backend, { summary: `${SUMMARIES[i % SUMMARIES.length]}，再记一次 ${size}-${i}` })
    const after = ioBytes()
    return { read: (after.read - before.read) / n, written: (after.written - before.written) / n }
  }

  it.runIf(existsSync('/proc/self/io'))('a write reads and writes as many bytes in a store of 300 memories as in one of 30', { timeout: 120_000 }, async () => {
    const small = await perWrite(30)
    const large = await perWrite(300)
    console.info(`[per-write] at 30: ${small.read} B read, ${small.written} B written; at 300: ${large.read} B read, ${large.written} B written`)
    expect(small.written).toBeGreaterThan(0)
    // A memory file, its index line, its ledger lines: the same size at both sizes, give or take a few digits.
    expect(large.written).toBeLessThan(small.written * 1.2)
    expect(large.read).toBeLessThan(small.read * 1.2 + 512)
  })
})
