/**
 * The freshness check's saved stats (`.cache/file-stats.bin`, store/file-stats.ts) and the scan
 * that feeds it (the backend's forEachFileStat): a damaged or foreign stats file is never trusted,
 * and a change made while no process ran is seen at the next start whatever the stats file holds.
 */

import { appendFileSync, existsSync, mkdirSync, rmSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, searchHandler, writeHandler, type FileStat, type MemoryBackend } from '../src/api.js'
import { decodeFileStats, encodeFileStats, FILE_STATS_FILE, SeenStats, UNLISTED, type SeenStat } from '../src/store/file-stats.js'
import { PathSetHash } from '../src/store/path-set.js'

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))
const hits = async (b: MemoryBackend, query: string) => (await searchHandler(b, { query })).hits.map((h) => h.summary)
const externalChanges = (root: string) =>
  readFileSync(join(root, 'ledger.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"external-change"'))
    .map((l) => (JSON.parse(l) as { change: string; path: string }).path)

describe('the file stats encoding', () => {
  const seen = new Map<string, SeenStat>([
    ['topics/部署笔记-mem_abc.md', { mtimeMs: 1764640000123.4567, size: 812 }],
    ['episodes/2026-12-01-mem_def.md', { mtimeMs: 1, size: 0 }],
    ['raw/mem_def.md', { mtimeMs: 1764640000999.001, size: 2 ** 40 }],
  ])

  const folders = new Map([
    ['episodes', 1764640000001.25],
    ['raw', UNLISTED],
    ['topics', 1764640000002.5],
  ])
  const statsOf = (m: ReadonlyMap<string, SeenStat>): SeenStats => {
    const out = new SeenStats()
    for (const [p, st] of m) out.set(p, st)
    return out
  }
  const decoded = (bytes: Uint8Array) => {
    const d = decodeFileStats(bytes)
    return d === null ? null : { seen: new Map(d.seen.entries()), folders: d.folders }
  }

  it('round-trips paths (Chinese too), mtimes to the fraction of a millisecond, sizes and folder mtimes', () => {
    expect(decoded(encodeFileStats(statsOf(seen), folders))).toEqual({ seen, folders })
    expect(decoded(encodeFileStats(new SeenStats(), new Map()))).toEqual({ seen: new Map(), folders: new Map() })
  })

  it('looks saved paths up without a map: each path, a path not saved, the files of a folder', () => {
    const d = decodeFileStats(encodeFileStats(statsOf(seen), folders))!
    for (const [p, st] of seen) expect(d.seen.get(p), p).toEqual(st)
    for (const [p, st] of [...seen].reverse()) expect(d.seen.get(p), p).toEqual(st)
    expect(d.seen.get('topics/nope.md')).toBeUndefined()
    expect(d.seen.get('')).toBeUndefined()
    expect(d.seen.savedUnder('topics')).toEqual(['topics/部署笔记-mem_abc.md'])
    expect(d.seen.savedUnder('raw')).toEqual(['raw/mem_def.md'])
    expect(d.seen.savedUnder('digests')).toEqual([])
    d.seen.delete('raw/mem_def.md')
    d.seen.set('raw/new.md', { mtimeMs: 3, size: 3 })
    expect(d.seen.get('raw/mem_def.md')).toBeUndefined()
    expect([...d.seen.keys()].sort()).toEqual(['episodes/2026-12-01-mem_def.md', 'raw/new.md', 'topics/部署笔记-mem_abc.md'])
    // Saved again: the changes merged into the saved rows, in order.
    d.seen.set('episodes/2026-12-01-mem_def.md', { mtimeMs: 7, size: 7 })
    d.seen.set('a-first.md', { mtimeMs: 8, size: 8 })
    d.seen.set('zz-last.md', { mtimeMs: 9, size: 9 })
    const again = decoded(encodeFileStats(d.seen, folders))
    expect([...again!.seen]).toEqual([
      ['a-first.md', { mtimeMs: 8, size: 8 }],
      ['episodes/2026-12-01-mem_def.md', { mtimeMs: 7, size: 7 }],
      ['raw/new.md', { mtimeMs: 3, size: 3 }],
      ['topics/部署笔记-mem_abc.md', seen.get('topics/部署笔记-mem_abc.md')],
      ['zz-last.md', { mtimeMs: 9, size: 9 }],
    ])
  })

  it('leaves out a path with a newline in it, so that file is read again, and has its folder listed', () => {
    const odd = new Map(seen).set('topics/two\nlines.md', { mtimeMs: 5, size: 5 })
    expect(decoded(encodeFileStats(statsOf(odd), folders))).toEqual({ seen, folders: new Map(folders).set('topics', UNLISTED) })
  })

  it('decodes every damaged copy (each byte changed, each length cut) as null, never as other stats', () => {
    const bytes = Buffer.from(encodeFileStats(statsOf(seen), folders))
    for (let i = 0; i < bytes.length; i++) {
      const bad = Buffer.from(bytes)
      bad[i] = (bad[i] as number) ^ 0x5a
      expect(decodeFileStats(bad), `byte ${i}`).toBeNull()
    }
    for (let n = 0; n < bytes.length; n++) expect(decodeFileStats(bytes.subarray(0, n)), `cut at ${n}`).toBeNull()
    expect(decodeFileStats(Buffer.concat([bytes, Buffer.from([0])]))).toBeNull()
  })
})

describe('the path fingerprint', () => {
  it('is the same for the same paths in any order, and tells one path more, less or other', () => {
    const paths = ['topics/a.md', 'topics/部署-mem_1.md', 'raw/x.md']
    const one = PathSetHash.of(paths)
    expect(PathSetHash.of([...paths].reverse()).equals(one)).toBe(true)
    const grown = one.copy()
    grown.add('topics/b.md')
    expect(grown.equals(one)).toBe(false)
    grown.remove('topics/b.md')
    expect(grown.equals(one)).toBe(true)
    expect(PathSetHash.of(['topics/a.md', 'topics/部署-mem_1.md', 'raw/y.md']).equals(one)).toBe(false)
    expect(PathSetHash.of(paths.slice(1)).equals(one)).toBe(false)
  })
})

describe('forEachFileStat', () => {
  it('lists what listFiles lists, each with the stat that stat gives, links followed only inside the root', async () => {
    const root = tmp('fstats-')
    const outside = tmp('fstats-out-')
    const backend = createFileBackend(root)
    await backend.init()
    writeFileSync(join(root, 'topics/a.md'), 'a')
    writeFileSync(join(root, 'topics/.hidden.md'), 'h')
    mkdirSync(join(root, 'topics/sub'))
    writeFileSync(join(root, 'topics/sub/b.md'), 'bb')
    writeFileSync(join(root, 'raw/target.md'), 'ccc')
    symlinkSync(join(root, 'raw/target.md'), join(root, 'topics/link-in.md'))
    writeFileSync(join(outside, 'secret.md'), 'dddd')
    symlinkSync(join(outside, 'secret.md'), join(root, 'topics/link-out.md'))
    symlinkSync(outside, join(root, 'topics/dir-out'))
    const statsOf = async (dir: string) => {
      const out: Array<{ path: string; stat: FileStat }> = []
      await backend.forEachFileStat?.(dir, (p, mtimeMs, size) => out.push({ path: p, stat: { mtimeMs, size } }))
      return out
    }
    const listed = await backend.listFiles('topics')
    const withStats = await statsOf('topics')
    expect(withStats.map((f) => f.path)).toEqual(listed)
    expect(listed).toEqual(['topics/_index.md', 'topics/a.md', 'topics/link-in.md', 'topics/sub/b.md'])
    for (const f of withStats) expect(f.stat, f.path).toEqual(await backend.stat(f.path))
    expect(await statsOf('no-such-folder')).toEqual([])
  })
})

describe('the saved stats at the next start', () => {
  async function savedStore() {
    const root = tmp('fstats-store-')
    const backend = createFileBackend(root)
    const kept = await writeHandler(backend, { summary: 'The staging database runs on port 5433' })
    const edited = await writeHandler(backend, { summary: '周报每周五下午三点发给老板' })
    expect(await hits(backend, 'staging')).toHaveLength(1)
    await flushCaches(backend)
    expect(existsSync(join(root, FILE_STATS_FILE))).toBe(true)
    return { root, kept, edited }
  }
  /** An in-place edit of the same size, as an editor saves it, while no process runs. */
  function editInPlace(root: string, path: string): void {
    const file = join(root, path)
    const text = readFileSync(file, 'utf8')
    expect(text).toContain('周五')
    writeFileSync(file, text.replaceAll('周五', '周四'))
    utimesSync(file, new Date(), new Date(Date.now() + 5_000))
  }

  it('an in-place edit of the same size is seen, and only that file is read as changed', async () => {
    const { root, edited } = await savedStore()
    editInPlace(root, edited.path)
    const next = createFileBackend(root)
    expect(await hits(next, '周四')).toEqual(['周报每周四下午三点发给老板'])
    expect(externalChanges(root)).toEqual([edited.path])
    await flushCaches(next)
  })

  for (const [name, damage] of [
    ['torn', (b: Buffer) => b.subarray(0, b.length - 3)],
    ['of another format', (b: Buffer) => Buffer.concat([b.subarray(0, 8), Buffer.from([9, 0, 0, 0]), b.subarray(12)])],
    ['one byte flipped', (b: Buffer) => Buffer.concat([b.subarray(0, 40), Buffer.from([(b[40] as number) ^ 1]), b.subarray(41)])],
    ['empty', null],
  ] as const) {
    it(`a stats file that is ${name} is not trusted: the edit is still seen, nothing else reported`, async () => {
      const { root, edited } = await savedStore()
      const file = join(root, FILE_STATS_FILE)
      if (damage === null) writeFileSync(file, '')
      else writeFileSync(file, damage(readFileSync(file)))
      editInPlace(root, edited.path)
      const next = createFileBackend(root)
      expect(await hits(next, '周四')).toEqual(['周报每周四下午三点发给老板'])
      expect(await hits(next, 'staging')).toEqual(['The staging database runs on port 5433'])
      expect(externalChanges(root)).toEqual([edited.path])
      // The next save is whole again.
      await flushCaches(next)
      expect([...decodeFileStats(readFileSync(file))!.seen.keys()]).toHaveLength(2)
    })
  }

  it('a file deleted while no process runs is seen from the saved rows alone', async () => {
    const { root, kept } = await savedStore()
    rmSync(join(root, kept.path))
    const next = createFileBackend(root)
    expect(await hits(next, 'staging')).toEqual([])
    expect(externalChanges(root)).toEqual([kept.path])
    await flushCaches(next)
  })

  it('an indexed path the saved stats never held (a line another program appended) is looked at: gone, it is removed', async () => {
    const { root, kept } = await savedStore()
    const line = readFileSync(join(root, 'index.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes(kept.id))
      .pop() as string
    const ghost = line.replaceAll(kept.id, 'mem_ghost0000000001').replace(/"path":"[^"]+"/, '"path":"topics/ghost-mem_ghost0000000001.md"')
    appendFileSync(join(root, 'index.jsonl'), `${ghost}\n`)
    const next = createFileBackend(root)
    expect(await hits(next, 'staging')).toEqual(['The staging database runs on port 5433'])
    expect(externalChanges(root)).toEqual(['topics/ghost-mem_ghost0000000001.md'])
    await flushCaches(next)
  })

  it('the JSON stats of earlier versions are removed at the first save', async () => {
    const { root } = await savedStore()
    writeFileSync(join(root, '.cache/file-stats.json'), JSON.stringify({ format: 1, files: {} }))
    const next = createFileBackend(root)
    await writeHandler(next, { summary: 'One more memory about kites' })
    await flushCaches(next)
    expect(existsSync(join(root, '.cache/file-stats.json'))).toBe(false)
  })
})
