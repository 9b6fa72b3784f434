/**
 * The default MemoryBackend: plain files under one root folder.
 *
 * Small metadata and file operations run synchronously behind the async interface: on a local
 * disk each is a few microseconds, while an async call costs a thread-pool round trip of about
 * 100 µs, and one write is dozens of them. Directory walks stay asynchronous.
 *
 * Owns root confinement (root-paths.ts: every relative path is checked, `..`, absolute, encoded
 * and NUL paths and symlinks leading outside are refused with PATH_OUTSIDE_ROOT), atomic writes
 * through write-file-atomic, compare-and-swap rewrites (store/rewrite.ts), listing (file-walk.ts),
 * index.jsonl and its snapshot (index-file.ts), the append-only ledger (every event redacted on
 * its way in, whoever logs it) and the store lock (store-lock.ts: proper-lockfile between
 * processes, a promise queue within one). It must never read or write outside its root, and
 * never lets an operating-system error out as it is: each becomes an IO_ERROR naming the file.
 */

import * as fsSync from 'node:fs'
import { watch as watchFs } from 'node:fs'
import path from 'node:path'
import type writeFileAtomicModule from 'write-file-atomic'
import { ioError, MemoryError } from '../errors.js'
import { jsonLine } from '../redact.js'
import { io, ioAsync, lazyRequire, makeDirs } from './fs-io.js'
import type { IndexEntry, LedgerEvent } from '../types.js'
import type { AnchorProbes, FileStat, MemoryBackend, Rewrite, SyncReads } from './backend.js'
import { FileWalker } from './file-walk.js'
import { IndexFile } from './index-file.js'
import type { IndexView } from './index-view.js'
import { parseLedgerLine } from './ledger.js'
import { dropSetAside, rewriteFileCas } from './rewrite.js'
import { appendShared, appendThrough, rewriteShared } from './shared-log.js'
import { STORE_LAYOUT } from './layout.js'
import { localProbes } from './local-probes.js'
import { readRegularFile } from './regular-file.js'
import { assertRelativeInside, errno, RootPaths } from './root-paths.js'
import { StoreLock } from './store-lock.js'
import type { MissingStore } from './existing.js'

export interface FileBackendOptions {
  /** Clock override (tests); returns an ISO-8601 string. */
  now?: () => string
  /** How long to wait for the store lock before LOCK_TIMEOUT. Default 20 s. */
  lockTimeoutMs?: number
  /** A lock whose holder stopped refreshing it for this long is taken over. Default 10 s (min 2 s). */
  lockStaleMs?: number
  /**
   * How anchors are checked (environment, tools, version, paths). Default: this process's own
   * answers (local-probes.ts: env, path-exists from the working directory, self-version); tool-list
   * unchecked. `{}`: every anchor unchecked.
   */
  probes?: AnchorProbes
  /**
   * Lines index.jsonl may carry beyond its snapshot before a new one is due: the larger of this
   * and a sixteenth of the live entries. Default 1000.
   */
  snapshotTailLines?: number
  /**
   * How long the store must go without an index append before a due snapshot is saved in the
   * background. Default 250 ms.
   */
  snapshotIdleMs?: number
  /**
   * What a read meets where no store exists yet (store/existing.ts): `not-found` (default; a named
   * root) or `empty` (the default root: search, verify and nav answer "nothing stored yet").
   */
  missingStore?: MissingStore
}

const LEDGER_FILE = 'ledger.jsonl'

const writeFileAtomicImpl = lazyRequire<typeof writeFileAtomicModule>('write-file-atomic')

/**
 * Appends text to a file, on a new line if a crash left the last one torn. All of it or none: a
 * write cut short (a full disk) is taken back, and a file it made is removed, unless someone
 * else has appended since.
 */
function appendBytes(abs: string, text: string, flush: boolean): void {
  const existed = fsSync.existsSync(abs)
  const fd = fsSync.openSync(abs, 'a+')
  try {
    appendThrough(fd, abs, !existed, text, flush)
  } finally {
    fsSync.closeSync(fd)
  }
}

class FileBackend implements MemoryBackend {
  readonly root: string
  readonly probes: AnchorProbes
  readonly missingStore: MissingStore
  private readonly paths: RootPaths
  private readonly walker: FileWalker
  private readonly index: IndexFile
  private readonly lock: StoreLock
  /**
   * Folders a removal listed and found free of files set aside by killed rewrites
   * (store/rewrite.ts), with their mtime after it: the next removal there lists again only when
   * the folder changed otherwise.
   */
  private readonly asideFree = new Map<string, number>()
  private initialized: Promise<void> | null = null
  private readonly clock: () => string

  constructor(root: string, options: FileBackendOptions) {
    this.root = path.resolve(root)
    this.probes = options.probes ?? localProbes()
    this.missingStore = options.missingStore ?? 'not-found'
    this.clock = options.now ?? (() => new Date().toISOString())
    this.paths = new RootPaths(this.root)
    this.walker = new FileWalker(this.paths, (relPath: string) => this.statSync(relPath))
    this.lock = new StoreLock(this.root, options.lockTimeoutMs ?? 20_000, Math.max(2_000, options.lockStaleMs ?? 10_000))
    const host = {
      root: this.root,
      resolveSync: (relPath: string) => this.resolveSync(relPath),
      init: () => this.init(),
      writeFileAtomic: (relPath: string, text: string) => this.writeFileAtomic(relPath, text),
      appendText: (relPath: string, text: string) => this.appendText(relPath, text),
      withLock: <T>(fn: () => Promise<T>) => this.withLock(fn),
    }
    this.index = new IndexFile(host, Math.max(1, options.snapshotTailLines ?? 1000), Math.max(0, options.snapshotIdleMs ?? 250))
  }

  now(): string {
    return this.clock()
  }

  init(): Promise<void> {
    this.initialized ??= this.createLayout().catch((err: unknown) => {
      this.initialized = null
      throw err
    })
    return this.initialized
  }

  async exists(): Promise<boolean> {
    try {
      return fsSync.statSync(this.root).isDirectory()
    } catch (err) {
      if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return false
      throw ioError('look up', this.root, err)
    }
  }

  private async createLayout(): Promise<void> {
    makeDirs(this.root)
    const skipped = new Set<string>()
    for (const item of STORE_LAYOUT) {
      if (item.kind !== 'dir') continue
      try {
        makeDirs(this.resolveSync(item.path))
      } catch (err) {
        // A memory folder that is a link leading outside (a pushed commit can make one) is not
        // part of the store: the rest keeps working, and writes into it are refused.
        if (!(err instanceof MemoryError && err.code === 'PATH_OUTSIDE_ROOT')) throw err
        this.paths.passOver(item.path, err.message)
        skipped.add(item.path)
      }
    }
    for (const item of STORE_LAYOUT) {
      // A person may have edited these: create, never overwrite.
      if (item.kind === 'file' && !skipped.has(item.path.split('/')[0] as string) && (await this.stat(item.path)) === null) await this.writeFileAtomic(item.path, item.text)
    }
  }


  private resolveSync(relPath: string): string {
    return this.paths.resolveSync(relPath)
  }

  async readFile(relPath: string): Promise<string | null> {
    return this.readFileSync(relPath)
  }

  private readFileSync(relPath: string): string | null {
    const found = this.paths.lookOrPassOver(relPath)
    return found === null ? null : (readRegularFile(found.abs)?.toString('utf8') ?? null)
  }

  async writeFileAtomic(relPath: string, text: string, options: { fsync?: boolean } = {}): Promise<void> {
    this.writeAtomicSync(relPath, text, options.fsync ?? true)
  }

  async readBytes(relPath: string): Promise<Uint8Array | null> {
    return readRegularFile(this.resolveSync(relPath))
  }

  async writeBytesAtomic(relPath: string, bytes: Uint8Array, options: { fsync?: boolean } = {}): Promise<void> {
    // Asynchronous: binary caches (search segments, vectors) run to megabytes, and a host's event
    // loop should not wait on them.
    const abs = this.resolveSync(relPath)
    makeDirs(path.dirname(abs))
    this.resolveSync(relPath)
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    await ioAsync('write', abs, () => writeFileAtomicImpl()(abs, data, { fsync: options.fsync ?? true }))
  }

  private writeAtomicSync(relPath: string, data: string | Buffer, fsync: boolean): void {
    const abs = this.resolveSync(relPath)
    makeDirs(path.dirname(abs))
    // The folders just created may not be symlinks, but an existing one on the way could be.
    this.resolveSync(relPath)
    io('write', abs, () => writeFileAtomicImpl().sync(abs, data, typeof data === 'string' ? { encoding: 'utf8', fsync } : { fsync }))
  }

  async rewriteFile(relPath: string, change: (current: string) => string | null): Promise<Rewrite | null> {
    const abs = this.resolveSync(relPath)
    return ioAsync('rewrite', abs, () => rewriteFileCas(abs, relPath, change))
  }

  async removeFile(relPath: string): Promise<boolean> {
    const abs = this.resolveSync(relPath)
    const dir = path.dirname(abs)
    const folderMtime = () => fsSync.statSync(dir, { throwIfNoEntry: false })?.mtimeMs
    // Found free of set-aside files and changed since only by this process's removals.
    const clean = this.asideFree.has(dir) && this.asideFree.get(dir) === folderMtime()
    let removed = true
    try {
      fsSync.unlinkSync(abs)
    } catch (err) {
      if (errno(err) !== 'ENOENT') throw ioError('remove', abs, err)
      removed = false
    }
    // An older text a killed rewrite set aside would otherwise be put back in the empty place.
    // Listing the folder for one once, not per removal, keeps a purge of many files linear.
    const left = clean ? 0 : io('remove', abs, () => dropSetAside(abs)).left
    const after = left === 0 ? folderMtime() : undefined
    if (after === undefined) this.asideFree.delete(dir)
    else this.asideFree.set(dir, after)
    return removed
  }

  async dropSetAside(relPaths: readonly string[]): Promise<number> {
    let dropped = 0
    for (const relPath of relPaths) {
      const abs = this.resolveSync(relPath)
      dropped += io('remove', abs, () => dropSetAside(abs)).dropped
    }
    return dropped
  }

  watch(relDir: string, onChange: (relPath: string | null) => void): (() => void) | null {
    const rel = assertRelativeInside(relDir).replace(/\/+$/, '')
    try {
      const watcher = watchFs(path.join(this.root, rel), { persistent: false }, (_event, name) => {
        onChange(name === null ? null : `${rel}/${name.split(path.sep).join('/')}`)
      })
      watcher.on('error', () => {
        onChange(null)
        watcher.close()
      })
      return () => watcher.close()
    } catch {
      return null
    }
  }

  async stat(relPath: string): Promise<FileStat | null> {
    return this.statSync(relPath)
  }

  private statSync(relPath: string): FileStat | null {
    const found = this.paths.lookOrPassOver(relPath)
    if (found === null) return null
    const { abs, looked } = found
    if (looked === undefined) return null
    if (looked !== null) return { mtimeMs: looked.mtimeMs, size: looked.size }
    try {
      const st = fsSync.statSync(abs, { throwIfNoEntry: false })
      return st === undefined ? null : { mtimeMs: st.mtimeMs, size: st.size }
    } catch (err) {
      const code = errno(err)
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return null
      throw ioError('look up', abs, err)
    }
  }


  async readMemoryFile(relPath: string): Promise<string | null> {
    return this.paths.readMemoryFile(relPath)
  }

  async listFiles(relDir: string): Promise<string[]> {
    return this.walker.listFiles(relDir)
  }

  async forEachFileStat(relDir: string, found: (path: string, mtimeMs: number, size: number) => void): Promise<boolean> {
    return this.walker.forEachFileStat(relDir, found)
  }

  async forEachKnownFileStat(relDir: string, paths: readonly string[], found: (i: number, mtimeMs: number, size: number) => void): Promise<boolean> {
    return this.walker.forEachKnownFileStat(relDir, paths, found)
  }

  get lastIndexSkipped(): number {
    return this.index.lastIndexSkipped
  }

  async readIndex(): Promise<IndexEntry[]> {
    return this.index.readIndex()
  }

  async writeIndex(entries: IndexEntry[]): Promise<void> {
    return this.index.writeIndex(entries)
  }

  async indexView(): Promise<IndexView> {
    return this.index.viewSync()
  }

  readonly sync: SyncReads = {
    indexView: () => this.index.viewSync(),
    readFile: (relPath) => this.readFileSync(relPath),
    stat: (relPath) => this.statSync(relPath),
    list: (relDir) => {
      const abs = this.resolveSync(relDir)
      try {
        return fsSync.readdirSync(abs).filter((n) => !n.startsWith('.')).sort()
      } catch (err) {
        const code = errno(err)
        if (code === 'ENOENT' || code === 'ENOTDIR') return []
        throw ioError('list', abs, err)
      }
    },
  }

  async flushIndex(): Promise<void> {
    return this.index.flushIndex()
  }

  foldIndexInMemory(upserts: readonly IndexEntry[], removed: readonly string[]): void {
    this.index.foldIndexInMemory(upserts, removed)
  }

  async appendIndex(upserts: readonly IndexEntry[], removed: readonly string[]): Promise<void> {
    return this.index.appendIndex(upserts, removed)
  }

  async appendLedger(...events: LedgerEvent[]): Promise<void> {
    if (events.length === 0) return
    await this.appendText(LEDGER_FILE, events.map((e) => `${jsonLine(e)}\n`).join(''), { fsync: true })
  }

  async appendText(relPath: string, text: string, options: { fsync?: boolean } = {}): Promise<void> {
    await this.init()
    const abs = this.resolveSync(relPath)
    io('write', abs, () => appendBytes(abs, text, options.fsync === true))
  }

  async appendLog(relPath: string, text: string): Promise<void> {
    await this.init()
    const abs = this.resolveSync(relPath)
    await ioAsync('write', abs, () => appendShared(abs, text, (work) => this.withLock(work)))
  }

  async rewriteLog(relPath: string, change: (current: string) => string | null): Promise<Rewrite | null> {
    const abs = this.resolveSync(relPath)
    return io('rewrite', abs, () => rewriteShared(abs, change))
  }

  async readLedger(): Promise<LedgerEvent[]> {
    const text = await this.readFile(LEDGER_FILE)
    if (text === null) return []
    const events: LedgerEvent[] = []
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      const event = parseLedgerLine(line)
      if (event !== null) events.push(event)
    }
    return events
  }


  async writeInProgress(): Promise<boolean> {
    return this.lock.writeInProgress()
  }

  async withLock<T>(fn: () => Promise<T>): Promise<T> {
    await this.init()
    return this.lock.withLock(this.paths.realRootSync(), fn)
  }
}

export { assertRelativeInside }

/** Opens (without creating) the store at root. Writes create the layout on first use. */
export function createFileBackend(root: string, options: FileBackendOptions = {}): MemoryBackend {
  return new FileBackend(root, options)
}
