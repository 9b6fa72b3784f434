/**
 * index.jsonl for the file backend: the live view folded from it (store/index-view.ts), brought
 * up to date by reading only what other writers appended since the last look, appends of changed
 * entries in O(changes), compaction now and then, and the snapshot (store/index-snapshot.ts) a
 * start loads instead of folding every line, saved once the writes pause. Writes happen under
 * the store lock the backend holds.
 */

import * as fsSync from 'node:fs'
import path from 'node:path'
import { ioError } from '../errors.js'
import type { IndexEntry } from '../types.js'
import { io, makeDirs } from './fs-io.js'
import { parseIndexRecord, removalLine, serializeIndex, type IndexRecord } from './index-store.js'
import { IndexView } from './index-view.js'
import { readSnapshot, snapshotCover, SNAPSHOT_FILE, writeSnapshot, type SnapshotCover } from './index-snapshot.js'
import { errno } from './root-paths.js'

const INDEX_FILE = 'index.jsonl'
/** Lines index.jsonl may carry beyond twice its live entries before it is compacted. */
const COMPACT_SLACK = 1000
/**
 * A due snapshot waits for a pause in the writes; writes that never pause save it themselves
 * once the tail is this many times the bound, so a start after a crash folds a bounded tail.
 */
const SNAPSHOT_BURST = 4

interface IndexFileState {
  ino: number
  /** Bytes folded into the view so far: always the end of a complete line. */
  offset: number
  mtimeMs: number
  /** Lines folded so far (entries, removals and unusable lines). */
  lines: number
}

/**
 * Calls `fn` with each complete line of index.jsonl bytes read as a record (null: unusable);
 * returns where the complete lines end (a line still being appended by another writer has no
 * newline yet: it is left for next time).
 */
function forEachIndexRecord(buffer: Buffer, fn: (record: IndexRecord) => void): number {
  const end = buffer.lastIndexOf(0x0a) + 1
  for (const line of buffer.subarray(0, end).toString('utf8').split('\n')) if (line.trim() !== '') fn(parseIndexRecord(line))
  return end
}

/**
 * index.jsonl as it is now folded from its first line, for a snapshot entry that turned out
 * damaged. A row still in the view is one no line after the snapshot's offset changed, so this
 * is the entry the snapshot stood for, or a newer one appended since (as the next look shows).
 */
function foldedIndex(absIndex: string): Map<string, IndexEntry> {
  const bytes = io('read', absIndex, () => fsSync.readFileSync(absIndex))
  const out = new Map<string, IndexEntry>()
  forEachIndexRecord(bytes, (record) => {
    if (record === null) return
    if ('entry' in record) out.set(record.entry.id, record.entry)
    else out.delete(record.removed)
  })
  return out
}

/** What the index needs of its backend: paths checked under the root, writes, the lock. */
export interface IndexFileHost {
  readonly root: string
  resolveSync(relPath: string): string
  init(): Promise<void>
  writeFileAtomic(relPath: string, text: string): Promise<void>
  appendText(relPath: string, text: string): Promise<void>
  withLock<T>(fn: () => Promise<T>): Promise<T>
}

export class IndexFile {
  lastIndexSkipped = 0
  private readonly view = new IndexView()
  private indexFile: IndexFileState | null = null
  /** The view holds entries folded in memory only (foldIndexInMemory): kept until index.jsonl changes. */
  private foldedInMemory = false
  /** Lines of index.jsonl the newest snapshot this process knows of covers (0: none). */
  private snapshotLines = 0
  /** Saving a snapshot failed once (a read-only or full store): no more tries in this process. */
  private snapshotFailed = false
  /** The background save of a due snapshot, waiting for a pause in the writes. */
  private snapshotTimer: ReturnType<typeof setTimeout> | null = null

  constructor(
    private readonly host: IndexFileHost,
    private readonly snapshotTailLines: number,
    private readonly snapshotIdleMs: number,
  ) {}

  async readIndex(): Promise<IndexEntry[]> {
    return [...(await this.indexView()).values()]
  }

  async writeIndex(entries: IndexEntry[]): Promise<void> {
    await this.host.init()
    await this.host.writeFileAtomic(INDEX_FILE, serializeIndex(entries))
    const view = this.view
    view.clear()
    for (const e of entries) view.set(e)
    const abs = this.host.resolveSync(INDEX_FILE)
    const st = io('look up', abs, () => fsSync.statSync(abs))
    this.indexFile = { ino: st.ino, offset: st.size, mtimeMs: st.mtimeMs, lines: entries.length }
    this.lastIndexSkipped = 0
    this.snapshotLines = 0
    // The old snapshot covers a file that is gone: save one of the new file when it is long enough.
    this.saveSnapshot()
  }

  async indexView(): Promise<IndexView> {
    return this.viewSync()
  }

  viewSync(): IndexView {
    const abs = this.host.resolveSync(INDEX_FILE)
    let st: fsSync.Stats | null = null
    try {
      st = fsSync.statSync(abs)
    } catch (err) {
      if (errno(err) !== 'ENOENT') throw ioError('look up', abs, err)
    }
    const known = this.indexFile
    if (st === null) {
      if (known !== null || (this.view.size > 0 && !this.foldedInMemory)) this.resetIndexState()
      return this.view
    }
    const rewritten = known === null || st.ino !== known.ino || st.size < known.offset || (st.size === known.offset && st.mtimeMs !== known.mtimeMs)
    if (rewritten) {
      this.resetIndexState()
      this.loadSnapshot(abs)
    }
    const from = this.indexFile?.offset ?? 0
    if (st.size > from) this.applyIndexBytes(abs, from, st.size, st.ino, st.mtimeMs)
    // (A snapshot may cover lines appended after that stat: the next look reads the file again.)
    else if (this.indexFile !== null && st.size === from) this.indexFile.mtimeMs = st.mtimeMs
    return this.view
  }

  /**
   * Starts the view from the snapshot when there is a good one for index.jsonl as it is now
   * (index-snapshot.ts); otherwise leaves it empty, to be folded from the first line.
   */
  private loadSnapshot(absIndex: string): void {
    const absSnapshot = this.host.resolveSync(SNAPSHOT_FILE)
    let fd: number
    try {
      fd = fsSync.openSync(absIndex, 'r')
    } catch {
      return // gone meanwhile: the caller finds out
    }
    try {
      const st = fsSync.fstatSync(fd)
      const loaded = readSnapshot(absSnapshot, fd, st, () => foldedIndex(absIndex))
      if (loaded === null) return
      this.view.loadRows(loaded.rows)
      const { ino, offset, lines, skipped, mtimeMs } = loaded.cover
      this.indexFile = { ino, offset, mtimeMs, lines }
      this.lastIndexSkipped = skipped
      this.snapshotLines = lines
    } finally {
      fsSync.closeSync(fd)
    }
  }

  /** Lines index.jsonl carries beyond the newest snapshot this process knows of, and the bound past which a new one is due; null when none can be saved. */
  private snapshotTail(): { lines: number; bound: number } | null {
    const at = this.indexFile
    if (at === null || this.foldedInMemory || this.snapshotFailed) return null
    return { lines: at.lines - this.snapshotLines, bound: Math.max(this.snapshotTailLines, Math.floor(this.view.size / 16)) }
  }

  /**
   * After an append: a due snapshot is saved once the writes pause (in the background, under the
   * lock), or now when they have not paused for SNAPSHOT_BURST times the bound. Its cost, linear
   * in the store, then stays off the write path; a crash before it costs start-up time only.
   */
  private snapshotAfterAppend(): void {
    const tail = this.snapshotTail()
    if (tail === null || tail.lines <= tail.bound) return
    if (tail.lines > SNAPSHOT_BURST * tail.bound) {
      this.saveSnapshot()
      return
    }
    if (this.snapshotTimer !== null) {
      this.snapshotTimer.refresh()
      return
    }
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = null
      this.flushIndex().catch(() => undefined)
    }, this.snapshotIdleMs)
    // A process that is done may exit: the next start folds the tail instead.
    this.snapshotTimer.unref()
  }

  async flushIndex(): Promise<void> {
    if (this.snapshotTimer !== null) clearTimeout(this.snapshotTimer)
    this.snapshotTimer = null
    const tail = this.snapshotTail()
    if (tail === null || tail.lines <= tail.bound) return
    await this.host.withLock(async () => {
      this.viewSync()
      this.saveSnapshot()
    })
  }

  /**
   * Saves the view as the index snapshot when index.jsonl has grown past the last one (none
   * after a rewrite) by more than the bound: its cost, linear in the store, comes once per
   * that many lines, so constant per write on average. Never for a view with entries folded in
   * memory only. A failure is said once and costs only start-up time. Under the store lock.
   */
  private saveSnapshot(): void {
    const at = this.indexFile
    const tail = this.snapshotTail()
    if (at === null || tail === null || tail.lines <= tail.bound) return
    const bound = tail.bound
    const absSnapshot = this.host.resolveSync(SNAPSHOT_FILE)
    // Another process may have saved one since this one looked.
    const saved = snapshotCover(absSnapshot)
    if (saved !== null && saved.ino === at.ino && saved.lines <= at.lines && saved.lines > this.snapshotLines) {
      this.snapshotLines = saved.lines
      if (at.lines - saved.lines <= bound) return
    }
    const cover: SnapshotCover = { ino: at.ino, offset: at.offset, lines: at.lines, skipped: this.lastIndexSkipped, mtimeMs: at.mtimeMs }
    try {
      makeDirs(path.dirname(absSnapshot))
      if (writeSnapshot(this.host.resolveSync(INDEX_FILE), absSnapshot, this.view, cover)) this.snapshotLines = at.lines
    } catch (err) {
      this.snapshotFailed = true
      console.warn(`dsh-memory-agent: the index snapshot was not saved (${String(err)}); each process folds index.jsonl from the start. Said once for ${this.host.root}.`)
    }
  }

  private resetIndexState(): void {
    this.view.clear()
    this.indexFile = null
    this.lastIndexSkipped = 0
    this.foldedInMemory = false
    this.snapshotLines = 0
  }

  foldIndexInMemory(upserts: readonly IndexEntry[], removed: readonly string[]): void {
    const view = this.viewSync()
    for (const id of removed) view.delete(id)
    for (const e of upserts) view.set(e)
    this.foldedInMemory = true
  }

  /** Folds the complete lines in bytes [from, to) of index.jsonl into the view. */
  private applyIndexBytes(abs: string, from: number, to: number, ino: number, mtimeMs: number): void {
    const buffer = io('read', abs, () => {
      const fd = fsSync.openSync(abs, 'r')
      try {
        const bytes = Buffer.alloc(to - from)
        return bytes.subarray(0, fsSync.readSync(fd, bytes, 0, bytes.length, from))
      } finally {
        fsSync.closeSync(fd)
      }
    })
    let lines = this.indexFile?.lines ?? 0
    const end = forEachIndexRecord(buffer, (record) => {
      lines++
      if (record === null) this.lastIndexSkipped++
      else if ('entry' in record) this.view.set(record.entry)
      else this.view.delete(record.removed)
    })
    this.indexFile = { ino, offset: from + end, mtimeMs, lines }
  }

  async appendIndex(upserts: readonly IndexEntry[], removed: readonly string[]): Promise<void> {
    if (upserts.length === 0 && removed.length === 0) return
    await this.host.init()
    const view = await this.indexView()
    const lines = (this.indexFile?.lines ?? 0) + upserts.length + removed.length
    const live = view.size + upserts.length
    if (lines > 2 * live + COMPACT_SLACK || this.lastIndexSkipped > 0) {
      // Compaction: the log has grown to twice what it describes, or holds lines nobody can
      // read; write what it folds to.
      const next = new Map<string, IndexEntry>()
      for (const e of view.values()) next.set(e.id, e)
      for (const id of removed) next.delete(id)
      for (const e of upserts) next.set(e.id, e)
      await this.writeIndex([...next.values()])
      return
    }
    const text = [...upserts.map((e) => JSON.stringify(e)), ...removed.map(removalLine)].join('\n') + '\n'
    // No fsync: the index is derived, and a line lost to a power cut is restored from its file.
    await this.host.appendText(INDEX_FILE, text)
    await this.indexView()
    this.snapshotAfterAppend()
  }

}
