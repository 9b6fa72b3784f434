/**
 * The first freshness check of a process lists only the memory folders whose mtime changed since
 * the last process listed them (store/freshness.ts, file-stats.ts); it still looks at every file.
 * These tests try to break that: files added, removed, renamed or edited in place while no process
 * runs, a change within the same tick of the folder's mtime as the listing, a folder inside a
 * memory folder, a file turned into a folder, a damaged or older stats file. Each must be seen by
 * the next process's first search, as without the shortcut.
 *
 * A folder is listed again when it changed less than a few seconds before its listing, so most
 * tests set the memory folders' mtimes back (as time passing would) before the process that
 * saves the stats runs.
 */

import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { decodeFileStats, FILE_STATS_FILE, UNLISTED } from '../src/store/file-stats.js'
import { MEMORY_FOLDERS } from '../src/store/layout.js'

const roots: string[] = []
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

const SUMMARIES = ['妈妈对花生过敏，点菜时要提醒服务员', 'The staging database moved to a new host on Monday', '周报每周五下午三点发给老板', 'Alice keeps the release checklist in the team wiki']

const hits = async (b: MemoryBackend, query: string) => (await searchHandler(b, { query })).hits.map((h) => h.summary)

/** Sets every memory folder's mtime (and atime) to `at` seconds since the epoch. */
function ageFolders(root: string, at: number): void {
  for (const { folder } of MEMORY_FOLDERS) utimesSync(join(root, folder), at, at)
}
/** An hour or more ago, a minute earlier at each call: set back twice, a folder never gets the same mtime. */
let setBack = 3600
const AN_HOUR_AGO = () => Math.floor(Date.now() / 1000) - (setBack += 60)

/** The folder mtimes a stats file saved. */
const savedFolders = (root: string) => decodeFileStats(readFileSync(join(root, FILE_STATS_FILE)))?.folders

/** A store of keyless memories whose stats file trusts the listing of every memory folder. */
async function settledStore(): Promise<{ root: string; ids: Array<{ id: string; path: string }> }> {
  const root = join(mkdtempSync(join(tmpdir(), 'fresh-list-')), 'store')
  roots.push(root)
  const b = createFileBackend(root)
  const ids = []
  for (const summary of SUMMARIES) ids.push(await writeHandler(b, { summary }))
  await flushCaches(b)
  ageFolders(root, AN_HOUR_AGO())
  // A process that lists the (now settled) folders and saves that.
  const lister = createFileBackend(root)
  expect(await hits(lister, '花生')).toEqual([SUMMARIES[0]])
  await flushCaches(lister)
  const folders = savedFolders(root)
  for (const { folder } of MEMORY_FOLDERS) expect(folders?.get(folder), folder).toBe(statSync(join(root, folder)).mtimeMs)
  return { root, ids: ids.map((w) => ({ id: w.id, path: w.path })) }
}

/** Searches in a new process's backend and flushes it as an adapter does. */
async function nextProcess(root: string, query: string): Promise<string[]> {
  const b = createFileBackend(root)
  const out = await hits(b, query)
  await flushCaches(b)
  return out
}

describe('the first check lists only folders that changed', () => {
  it('a folder whose mtime is unchanged is not listed: its files are the saved ones', async () => {
    const { root } = await settledStore()
    // Proof that the listing is skipped: a file slipped in with the folder's mtime set back as it
    // was is not seen (what a file system never does by itself; a copy with preserved times may).
    const before = statSync(join(root, 'topics'))
    writeFileSync(join(root, 'topics/slipped-in.md'), '# 偷偷放进来的笔记\n\n这是一条 sneaky 笔记。\n')
    utimesSync(join(root, 'topics'), before.atime, before.mtime)
    expect(await nextProcess(root, 'sneaky')).toEqual([])
    // Any change to the folder and it is listed again.
    writeFileSync(join(root, 'topics/another.md'), '# 另一条\n\n又一条 visible 笔记。\n')
    expect(await nextProcess(root, 'sneaky')).toEqual(['这是一条 sneaky 笔记。'])
  })

  it('added, removed and renamed files and in-place edits of the same size are seen by the next process', async () => {
    const { root, ids } = await settledStore()
    writeFileSync(join(root, 'topics/手写的笔记.md'), '# 部署笔记\n\n我们用 kubectl apply 部署到生产环境。\n')
    expect(await nextProcess(root, 'kubectl')).toEqual(['我们用 kubectl apply 部署到生产环境。'])
    ageFolders(root, AN_HOUR_AGO())
    expect(await nextProcess(root, 'kubectl')).toHaveLength(1)

    unlinkSync(join(root, ids[1]!.path))
    expect(await nextProcess(root, 'staging')).toEqual([])
    ageFolders(root, AN_HOUR_AGO())
    expect(await nextProcess(root, 'staging')).toEqual([])

    const renamed = ids[3]!.path.replace(/\.md$/, '-renamed.md')
    renameSync(join(root, ids[3]!.path), join(root, renamed))
    expect(await nextProcess(root, 'checklist')).toEqual([SUMMARIES[3]])
    const view = await createFileBackend(root).indexView()
    expect(view.atPath(renamed)?.summary).toBe(SUMMARIES[3])
    expect(view.atPath(ids[3]!.path)).toBeUndefined()
    ageFolders(root, AN_HOUR_AGO())
    expect(await nextProcess(root, 'checklist')).toEqual([SUMMARIES[3]])

    // In place, same size, folder untouched.
    const file = join(root, ids[2]!.path)
    const folderBefore = statSync(join(root, 'topics')).mtimeMs
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('周五', '周四'))
    utimesSync(file, new Date(), new Date(Date.now() + 5_000))
    expect(statSync(join(root, 'topics')).mtimeMs).toBe(folderBefore)
    expect(await nextProcess(root, '周四')).toEqual(['周报每周四下午三点发给老板'])
  })

  it('a change within the same tick as the listing is seen: a folder changed just before its listing is listed again', async () => {
    const { root } = await settledStore()
    // A process lists topics right after a file was added (the folder changed a moment ago)...
    writeFileSync(join(root, 'topics/first.md'), '# 第一条\n\n第一条 alpha 笔记。\n')
    expect(await nextProcess(root, 'alpha')).toEqual(['第一条 alpha 笔记。'])
    const listedAt = statSync(join(root, 'topics'))
    expect(savedFolders(root)?.get('topics')).toBe(UNLISTED)
    // ... and another file lands within the same tick of the folder's clock: its mtime stays.
    writeFileSync(join(root, 'topics/second.md'), '# 第二条\n\n第二条 beta 笔记。\n')
    utimesSync(join(root, 'topics'), listedAt.atime, listedAt.mtime)
    expect(await nextProcess(root, 'beta')).toEqual(['第二条 beta 笔记。'])
  })

  it('a memory folder holding a folder is always listed: a file added inside it is seen', async () => {
    const { root } = await settledStore()
    mkdirSync(join(root, 'topics/sub'))
    ageFolders(root, AN_HOUR_AGO())
    utimesSync(join(root, 'topics/sub'), AN_HOUR_AGO(), AN_HOUR_AGO())
    expect(await nextProcess(root, '花生')).toHaveLength(1)
    expect(savedFolders(root)?.get('topics')).toBe(UNLISTED)
    writeFileSync(join(root, 'topics/sub/nested.md'), '# 子目录\n\n子目录里的 gamma 笔记。\n')
    expect(await nextProcess(root, 'gamma')).toEqual(['子目录里的 gamma 笔记。'])
  })

  it('a saved file now a folder, with the folder mtime set back: the folder is listed, nothing is lost', async () => {
    const { root, ids } = await settledStore()
    const before = statSync(join(root, 'topics'))
    const target = join(root, ids[0]!.path)
    unlinkSync(target)
    mkdirSync(target)
    writeFileSync(join(target, 'inside.md'), '# 里面\n\n文件夹里的 delta 笔记。\n')
    utimesSync(join(root, 'topics'), before.atime, before.mtime)
    expect(await nextProcess(root, 'delta')).toEqual(['文件夹里的 delta 笔记。'])
    expect(await nextProcess(root, '花生')).toEqual([])
  })

  it('a damaged, older or missing stats file: every folder is listed, a slipped-in file is seen', async () => {
    for (const damage of ['flip', 'older', 'missing'] as const) {
      const { root } = await settledStore()
      const statsFile = join(root, FILE_STATS_FILE)
      const bytes = readFileSync(statsFile)
      if (damage === 'flip') bytes[bytes.length - 2] = (bytes[bytes.length - 2] as number) ^ 1
      if (damage === 'older') bytes.writeUInt32LE(1, 8)
      if (damage === 'missing') rmSync(statsFile)
      else writeFileSync(statsFile, bytes)
      const before = statSync(join(root, 'topics'))
      writeFileSync(join(root, 'topics/slipped-in.md'), '# 偷偷放进来的笔记\n\n这是一条 sneaky 笔记。\n')
      utimesSync(join(root, 'topics'), before.atime, before.mtime)
      expect(await nextProcess(root, 'sneaky'), damage).toEqual(['这是一条 sneaky 笔记。'])
    }
  })

  it('a write by a process lists its folder again in the next, so a file another process added meanwhile is seen', async () => {
    const { root } = await settledStore()
    const writer = createFileBackend(root)
    await hits(writer, '花生')
    await writeHandler(writer, { summary: 'The backup job runs at two in the morning' })
    // Another hand adds a file in the same folder after the write; the writer's stats do not know it.
    writeFileSync(join(root, 'topics/other-hand.md'), '# 别人加的\n\n别人加的 epsilon 笔记。\n')
    const after = statSync(join(root, 'topics'))
    await flushCaches(writer)
    expect(savedFolders(root)?.get('topics')).not.toBe(after.mtimeMs)
    expect(await nextProcess(root, 'epsilon')).toEqual(['别人加的 epsilon 笔记。'])
    expect(await nextProcess(root, 'backup')).toEqual(['The backup job runs at two in the morning'])
  })
})
