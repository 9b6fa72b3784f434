/**
 * The default MemoryBackend: plain files under one root folder.
 *
 * Small metadata and file operations run synchronously behind the async interface: on a local
 * disk each is a few microseconds, while an async call costs a thread-pool round trip of about
 * 100 µs, and one write is dozens of them. Directory walks stay asynchronous.
 *
 * Owns root confinement (every relative path is checked, `..`, absolute, encoded and NUL paths
 * and symlinks leading outside are refused with PATH_OUTSIDE_ROOT), atomic writes through
 * write-file-atomic, compare-and-swap rewrites (store/rewrite.ts), the append-only ledger (every
 * event redacted on its way in, whoever logs it) and the store lock (proper-lockfile between
 * processes, a promise queue within one). It must never read or write outside its root, and
 * never lets an operating-system error out as it is: each becomes an IO_ERROR naming the file.
 */

import * as fsSync from 'node:fs'
import { watch as watchFs } from 'node:fs'
import path from 'node:path'
import type properLockfile from 'proper-lockfile'
import type writeFileAtomicModule from 'write-file-atomic'
import { ioError, MemoryError } from '../errors.js'
import { jsonLine } from '../redact.js'
import { io, ioAsync, lazyRequire, makeDirs } from './fs-io.js'
import type { IndexEntry, LedgerEvent } from '../types.js'
import type { AnchorProbes, FileStat, MemoryBackend, Rewrite, SyncReads } from './backend.js'
import { parseIndexRecord, removalLine, serializeIndex, type IndexRecord } from './index-store.js'
import { IndexView } from './index-view.js'
import { readSnapshot, snapshotCover, SNAPSHOT_FILE, writeSnapshot, type SnapshotCover } from './index-snapshot.js'
import { parseLedgerLine } from './ledger.js'
import { dropSetAside, isSetAside, restoreSetAside, rewriteFileCas } from './rewrite.js'
import { appendShared, appendThrough, rewriteShared } from './shared-log.js'
import { inMemoryFolder, isReadableFile, STORE_LAYOUT } from './layout.js'
import { localProbes } from './local-probes.js'
import { readRegularFile } from './regular-file.js'
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

const INDEX_FILE = 'index.jsonl'
const LEDGER_FILE = 'ledger.jsonl'
const LOCK_DIR = '.lock'
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

const lockfile = lazyRequire<typeof properLockfile>('proper-lockfile')
const writeFileAtomicImpl = lazyRequire<typeof writeFileAtomicModule>('write-file-atomic')

/** Queues of lock holders within this process, by real root path. */
const localQueues = new Map<string, Promise<unknown>>()

const CACHE_DIR = '.cache'
/** The folders init() makes: one of them that links outside is passed over, not an error for every call. */
const LAYOUT_DIRS: ReadonlySet<string> = new Set(STORE_LAYOUT.filter((item) => item.kind === 'dir').map((item) => item.path))

/** True when something is at abs; false when nothing is, or its name cannot be (too long, a file as a folder). */
function existsQuietly(abs: string): boolean {
  try {
    return fsSync.lstatSync(abs, { throwIfNoEntry: false }) !== undefined
  } catch (err) {
    if (errno(err) === 'ENAMETOOLONG' || errno(err) === 'ENOTDIR') return false
    throw ioError('look up', abs, err)
  }
}

function notMemoryFile(relPath: string, why: string): MemoryError {
  return new MemoryError(
    'INVALID_INPUT',
    `path ${JSON.stringify(relPath.slice(0, 200))} is not a memory file (${why}): only markdown files in episodes/, raw/, topics/, digests/ and README.md are opened, never .git, .cache, config.json or the panel key`,
    'path',
  )
}

function outside(relPath: string, why: string): MemoryError {
  return new MemoryError('PATH_OUTSIDE_ROOT', `path ${JSON.stringify(relPath.slice(0, 200))} is not inside the memory root (${why})`, 'path')
}

/** Rejects traversal in a relative path and in its percent-decoded form. Pure. */
export function assertRelativeInside(relPath: string): string {
  if (typeof relPath !== 'string') throw outside(String(relPath), 'not a string')
  const forms = [relPath]
  if (/%[0-9a-fA-F]{2}/.test(relPath)) {
    try {
      forms.push(decodeURIComponent(relPath))
    } catch {
      throw outside(relPath, 'malformed percent-encoding')
    }
  }
  for (const form of forms) {
    if (form.includes('\0')) throw outside(relPath, 'contains a NUL byte')
    const slashed = form.replace(/\\/g, '/')
    if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) throw outside(relPath, 'absolute paths are not allowed')
    if (slashed.split('/').some((seg) => seg === '..')) throw outside(relPath, "'..' is not allowed")
  }
  return relPath.replace(/\\/g, '/')
}

function errno(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

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

class FileBackend implements MemoryBackend {
  readonly root: string
  readonly probes: AnchorProbes
  readonly missingStore: MissingStore
  lastIndexSkipped = 0
  private readonly view = new IndexView()
  private indexFile: IndexFileState | null = null
  /** The view holds entries folded in memory only (foldIndexInMemory): kept until index.jsonl changes. */
  private foldedInMemory = false
  private realRoot: string | null = null
  /** Folders (as spelled under the root) whose real location was checked to be inside it. */
  private readonly verifiedDirs = new Set<string>()
  /** Links and folders passed over because they lead out of the memory folders, said once each. */
  private readonly passedOver = new Set<string>()
  /**
   * Folders a removal listed and found free of files set aside by killed rewrites
   * (store/rewrite.ts), with their mtime after it: the next removal there lists again only when
   * the folder changed otherwise.
   */
  private readonly asideFree = new Map<string, number>()
  private initialized: Promise<void> | null = null
  private readonly clock: () => string
  private readonly lockTimeoutMs: number
  private readonly lockStaleMs: number
  private readonly snapshotTailLines: number
  /** Lines of index.jsonl the newest snapshot this process knows of covers (0: none). */
  private snapshotLines = 0
  /** Saving a snapshot failed once (a read-only or full store): no more tries in this process. */
  private snapshotFailed = false
  private readonly snapshotIdleMs: number
  /** The background save of a due snapshot, waiting for a pause in the writes. */
  private snapshotTimer: ReturnType<typeof setTimeout> | null = null

  constructor(root: string, options: FileBackendOptions) {
    this.root = path.resolve(root)
    this.probes = options.probes ?? localProbes()
    this.missingStore = options.missingStore ?? 'not-found'
    this.clock = options.now ?? (() => new Date().toISOString())
    this.lockTimeoutMs = options.lockTimeoutMs ?? 20_000
    this.lockStaleMs = Math.max(2_000, options.lockStaleMs ?? 10_000)
    this.snapshotTailLines = Math.max(1, options.snapshotTailLines ?? 1000)
    this.snapshotIdleMs = Math.max(0, options.snapshotIdleMs ?? 250)
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
        this.passOver(item.path, err.message)
        skipped.add(item.path)
      }
    }
    for (const item of STORE_LAYOUT) {
      // A person may have edited these: create, never overwrite.
      if (item.kind === 'file' && !skipped.has(item.path.split('/')[0] as string) && (await this.stat(item.path)) === null) await this.writeFileAtomic(item.path, item.text)
    }
  }

  private async getRealRoot(): Promise<string> {
    return this.realRootSync()
  }

  private realRootSync(): string {
    if (this.realRoot !== null) return this.realRoot
    try {
      this.realRoot = fsSync.realpathSync.native(this.root)
      return this.realRoot
    } catch (err) {
      if (errno(err) === 'ENOENT') return this.root
      throw ioError('look up', this.root, err)
    }
  }

  /**
   * The absolute path for relPath, after checking that neither the path nor any symlink on the
   * way leads outside the root. Missing parts are fine (writes create them).
   */
  private resolveSync(relPath: string): string {
    return this.resolveLooked(relPath).abs
  }

  /**
   * `resolveSync`, with what its fast path found there when it looked: the lstat of something
   * that is not a symlink (what a stat would say), undefined for nothing, null when it did not
   * look. Spares a stat its second system call (a freshness check stats every memory file).
   */
  private resolveLooked(relPath: string): { abs: string; looked: fsSync.Stats | undefined | null } {
    try {
      return this.resolveChecked(relPath)
    } catch (err) {
      if (!(err instanceof MemoryError && err.code === 'PATH_OUTSIDE_ROOT') || !this.replaceCacheLink(relPath)) throw err
      return this.resolveChecked(relPath)
    }
  }

  /**
   * `.cache/` as a link (a pushed commit, a hand-made link leading outside): the cache is derived,
   * so the link is removed (never what it points at) and a folder of the store's own takes its
   * place; true when it did. False for any other path, or a store that refuses the change.
   */
  private replaceCacheLink(relPath: string): boolean {
    const rel = relPath.replace(/\\/g, '/')
    if (rel !== CACHE_DIR && !rel.startsWith(`${CACHE_DIR}/`)) return false
    const abs = path.join(this.root, CACHE_DIR)
    try {
      if (fsSync.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return false
      fsSync.unlinkSync(abs)
      fsSync.mkdirSync(abs)
    } catch {
      return false
    }
    this.passOver(CACHE_DIR, 'a link leading outside the store: replaced by a folder of its own, the cache is derived and rebuilt')
    return true
  }

  private resolveChecked(relPath: string): { abs: string; looked: fsSync.Stats | undefined | null } {
    const rel = assertRelativeInside(relPath)
    const abs = path.resolve(this.root, rel)
    if (abs !== this.root && !abs.startsWith(this.root + path.sep)) throw outside(relPath, 'resolves outside')
    const realRoot = this.realRootSync()
    // Fast path: a plain file (or nothing yet) in a folder already found to be inside the root.
    const dir = path.dirname(abs)
    if (this.verifiedDirs.has(dir)) {
      let st: fsSync.Stats | undefined | null = null
      try {
        st = fsSync.lstatSync(abs, { throwIfNoEntry: false })
      } catch {
        // an odd name (too long, a file on the way): the full check below decides
      }
      if (st !== null && (st === undefined || !st.isSymbolicLink())) return { abs, looked: st }
    }
    // Find the deepest part of the path that exists and check where it really leads.
    let probe = abs
    for (;;) {
      let real: string
      try {
        real = fsSync.realpathSync.native(probe)
      } catch (err) {
        const code = errno(err)
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ENAMETOOLONG') throw ioError('look up', probe, err)
        // A symlink whose target does not exist (yet) could be created through, wherever it
        // points, possibly by way of further links: refused rather than followed.
        let link = false
        try {
          link = fsSync.lstatSync(probe).isSymbolicLink()
        } catch {
          // nothing there
        }
        if (link) throw outside(relPath, 'a symlink on the way has no target')
        const parent = path.dirname(probe)
        if (parent === probe || probe === this.root) break
        probe = parent
        continue
      }
      if (real !== realRoot && !real.startsWith(realRoot + path.sep)) throw outside(relPath, 'a symlink leads outside')
      // Every existing folder on the way is now known to be inside: remember the file's folder.
      if (probe === abs || probe === dir) this.verifiedDirs.add(dir)
      break
    }
    return { abs, looked: null }
  }

  async readFile(relPath: string): Promise<string | null> {
    return this.readFileSync(relPath)
  }

  private readFileSync(relPath: string): string | null {
    const found = this.lookOrPassOver(relPath)
    return found === null ? null : (readRegularFile(found.abs)?.toString('utf8') ?? null)
  }

  /**
   * `resolveLooked` for a read: null for a path in a memory folder that links outside the store
   * (a symlinked topics/), which is not part of the store, so a read finds nothing there instead
   * of failing; every other refusal stands.
   */
  private lookOrPassOver(relPath: string): ReturnType<FileBackend['resolveLooked']> | null {
    try {
      return this.resolveLooked(relPath)
    } catch (err) {
      if (!(err instanceof MemoryError && err.code === 'PATH_OUTSIDE_ROOT')) throw err
      const top = relPath.replace(/\\/g, '/').split('/')[0] as string
      if (!LAYOUT_DIRS.has(top) || fsSync.lstatSync(path.join(this.root, top), { throwIfNoEntry: false })?.isSymbolicLink() !== true) throw err
      this.passOver(top, err.message)
      return null
    }
  }

  async readMemoryFile(relPath: string): Promise<string | null> {
    // Outside the root first (PATH_OUTSIDE_ROOT), then outside the memory files (INVALID_INPUT).
    const abs = this.resolveSync(relPath)
    const rel = assertRelativeInside(relPath)
    // Nothing there (an unknown id, a missing file, a name too long): not found, whatever its name.
    if (!isReadableFile(rel)) {
      if (!existsQuietly(abs)) return null
      throw notMemoryFile(relPath, 'not a markdown file in a memory folder')
    }
    let real: string
    try {
      real = fsSync.realpathSync.native(abs)
    } catch (err) {
      if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR' || errno(err) === 'ENAMETOOLONG') return null
      throw ioError('look up', abs, err)
    }
    const realRel = path.relative(this.realRootSync(), real).split(path.sep).join('/')
    if (!isReadableFile(realRel)) throw notMemoryFile(relPath, `it links to ${JSON.stringify(realRel)}`)
    return readRegularFile(real)?.toString('utf8') ?? null
  }

  /** Says once, for this backend, that a link or folder is passed over and why. */
  private passOver(relPath: string, why: string): void {
    if (this.passedOver.has(relPath)) return
    this.passedOver.add(relPath)
    console.warn(`dsh-memory-agent: ${relPath} is passed over (${why}): it is not indexed, searched or read as a memory. Said once for ${this.root}.`)
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
    const found = this.lookOrPassOver(relPath)
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

  async listFiles(relDir: string): Promise<string[]> {
    const out: string[] = []
    this.walkFiles(relDir, (rel) => out.push(rel))
    return out
  }

  async forEachFileStat(relDir: string, found: (path: string, mtimeMs: number, size: number) => void): Promise<boolean> {
    return this.walkFiles(relDir, (rel, abs, linked) => this.lookAt(rel, abs, linked, found) !== 'other')
  }

  async forEachKnownFileStat(relDir: string, paths: readonly string[], found: (i: number, mtimeMs: number, size: number) => void): Promise<boolean> {
    const absDir = this.resolveSync(relDir)
    const prefix = `${relDir}/`
    const nameAt = prefix.length
    let mtime = 0
    let bytes = 0
    const take = (_path: string, mtimeMs: number, size: number): void => {
      mtime = mtimeMs
      bytes = size
    }
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i] as string
      // Only plain names of files directly in the folder: anything else is the listing's to find.
      if (path.length <= nameAt || !path.startsWith(prefix) || path.charCodeAt(nameAt) === 0x2e || path.indexOf('/', nameAt) >= 0) return false
      const looked = this.lookAt(path, absDir + path.slice(relDir.length), null, take)
      if (looked === 'other') return false
      if (looked === 'found') found(i, mtime, bytes)
    }
    return true
  }

  /**
   * Hands `found` the stat of a file in a folder found inside the root: its lstat is what stat
   * would say, in one system call and no path check (a freshness check takes one per memory
   * file). Anything else (a link, an odd error, a file turned into a link meanwhile) goes the
   * checked way. 'gone' when there is nothing there (or a link that leads nowhere allowed),
   * 'other' when it is there but neither a file nor a link (a folder, say).
   */
  private lookAt(rel: string, abs: string, linked: fsSync.Stats | null, found: (path: string, mtimeMs: number, size: number) => void): 'found' | 'gone' | 'other' {
    let st: fsSync.Stats | undefined | null = linked
    if (st === null) {
      try {
        st = fsSync.lstatSync(abs, { throwIfNoEntry: false })
      } catch {
        st = null
      }
    }
    if (st === undefined) return 'gone'
    if (st !== null && st.isFile()) {
      found(rel, st.mtimeMs, st.size)
      return 'found'
    }
    if (st !== null && !st.isSymbolicLink()) return 'other'
    const checked = this.statSync(rel)
    if (checked === null) return 'gone'
    found(rel, checked.mtimeMs, checked.size)
    return 'found'
  }

  /**
   * Calls `found` for each regular file below relDir, in name order, dot-files left out, with its
   * absolute path and, for a link (followed only when it leads inside the root), its target's stat.
   * True when it went into a folder below relDir.
   */
  private walkFiles(relDir: string, found: (rel: string, abs: string, linked: fsSync.Stats | null) => void): boolean {
    let nested = false
    const walk = (rel: string): void => {
      if (rel !== relDir) nested = true
      let abs: string
      try {
        abs = this.resolveSync(rel)
      } catch (err) {
        // A folder inside that links outside is passed over, not followed; so is a listed memory
        // folder itself (a symlinked topics/): it is not part of the store, the rest keeps working.
        if (!(err instanceof MemoryError && err.code === 'PATH_OUTSIDE_ROOT') || (rel === relDir && !LAYOUT_DIRS.has(rel))) throw err
        if (rel === relDir) this.passOver(rel, err.message)
        return
      }
      const read = (): fsSync.Dirent[] | null => {
        try {
          return fsSync.readdirSync(abs, { withFileTypes: true })
        } catch (err) {
          const code = errno(err)
          if (code === 'ENOENT' || code === 'ENOTDIR') return null
          throw ioError('list', abs, err)
        }
      }
      let entries = read()
      // A rewrite killed between moving a file aside and linking its new text in (rewrite.ts):
      // the file goes back to its place before anyone takes it for deleted.
      const asides = (entries ?? []).filter((e) => e.isFile() && isSetAside(e.name)).map((e) => e.name)
      if (asides.length > 0 && restoreSetAside(abs, asides).length > 0) entries = read()
      if (entries === null) return
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue
        const childRel = rel === '' ? entry.name : `${rel.replace(/\/+$/, '')}/${entry.name}`
        if (entry.isDirectory()) walk(childRel)
        else if (entry.isFile()) found(childRel, path.join(abs, entry.name), null)
        else if (entry.isSymbolicLink()) {
          // A link counts as what it leads to, and only when that is inside the root.
          let target: fsSync.Stats
          let targetAbs: string
          let realRel: string
          try {
            targetAbs = this.resolveSync(childRel)
            target = fsSync.statSync(targetAbs)
            realRel = path.relative(this.realRootSync(), fsSync.realpathSync.native(targetAbs)).split(path.sep).join('/')
          } catch (err) {
            if (err instanceof MemoryError || errno(err) === 'ENOENT') continue
            throw ioError('look up', path.join(this.root, childRel), err)
          }
          // Inside the root is not enough: a link in a memory folder to .git/config, config.json
          // or the panel key (a teammate can push one) must never become a memory.
          if (inMemoryFolder(childRel) && !inMemoryFolder(realRel)) {
            this.passOver(childRel, `a link to ${JSON.stringify(realRel)}, outside the memory folders`)
            continue
          }
          if (target.isDirectory()) walk(childRel)
          else if (target.isFile()) found(childRel, targetAbs, target)
        }
      }
    }
    relDir = relDir.replace(/\/+$/, '')
    walk(relDir)
    return nested
  }

  async readIndex(): Promise<IndexEntry[]> {
    return [...(await this.indexView()).values()]
  }

  async writeIndex(entries: IndexEntry[]): Promise<void> {
    await this.init()
    await this.writeFileAtomic(INDEX_FILE, serializeIndex(entries))
    const view = this.view
    view.clear()
    for (const e of entries) view.set(e)
    const abs = this.resolveSync(INDEX_FILE)
    const st = io('look up', abs, () => fsSync.statSync(abs))
    this.indexFile = { ino: st.ino, offset: st.size, mtimeMs: st.mtimeMs, lines: entries.length }
    this.lastIndexSkipped = 0
    this.snapshotLines = 0
    // The old snapshot covers a file that is gone: save one of the new file when it is long enough.
    this.saveSnapshot()
  }

  async indexView(): Promise<IndexView> {
    return this.indexViewSync()
  }

  readonly sync: SyncReads = {
    indexView: () => this.indexViewSync(),
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

  private indexViewSync(): IndexView {
    const abs = this.resolveSync(INDEX_FILE)
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
    const absSnapshot = this.resolveSync(SNAPSHOT_FILE)
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
    await this.withLock(async () => {
      this.indexViewSync()
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
    const absSnapshot = this.resolveSync(SNAPSHOT_FILE)
    // Another process may have saved one since this one looked.
    const saved = snapshotCover(absSnapshot)
    if (saved !== null && saved.ino === at.ino && saved.lines <= at.lines && saved.lines > this.snapshotLines) {
      this.snapshotLines = saved.lines
      if (at.lines - saved.lines <= bound) return
    }
    const cover: SnapshotCover = { ino: at.ino, offset: at.offset, lines: at.lines, skipped: this.lastIndexSkipped, mtimeMs: at.mtimeMs }
    try {
      makeDirs(path.dirname(absSnapshot))
      if (writeSnapshot(this.resolveSync(INDEX_FILE), absSnapshot, this.view, cover)) this.snapshotLines = at.lines
    } catch (err) {
      this.snapshotFailed = true
      console.warn(`dsh-memory-agent: the index snapshot was not saved (${String(err)}); each process folds index.jsonl from the start. Said once for ${this.root}.`)
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
    const view = this.indexViewSync()
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
    await this.init()
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
    await this.appendText(INDEX_FILE, text)
    await this.indexView()
    this.snapshotAfterAppend()
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
    const lockDir = path.join(this.root, LOCK_DIR)
    return io('look up', lockDir, () => lockfile().checkSync(this.root, { lockfilePath: lockDir, realpath: false, stale: this.lockStaleMs }))
  }

  async withLock<T>(fn: () => Promise<T>): Promise<T> {
    await this.init()
    const key = await this.getRealRoot()
    const previous = localQueues.get(key) ?? Promise.resolve()
    const run = previous.catch(() => undefined).then(() => this.holdFileLock(fn))
    const tail = run.catch(() => undefined)
    localQueues.set(key, tail)
    try {
      return await run
    } finally {
      if (localQueues.get(key) === tail) localQueues.delete(key)
    }
  }

  private async holdFileLock<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.lockTimeoutMs
    let compromised: Error | null = null
    let release: (() => void) | null = null
    let delay = 2
    while (release === null) {
      try {
        release = lockfile().lockSync(this.root, {
          lockfilePath: path.join(this.root, LOCK_DIR),
          realpath: false,
          stale: this.lockStaleMs,
          update: Math.floor(this.lockStaleMs / 4),
          onCompromised: (err: Error) => {
            compromised = err
          },
        })
      } catch (err) {
        if (errno(err) !== 'ELOCKED') throw ioError('create', path.join(this.root, LOCK_DIR), err)
        if (Date.now() >= deadline)
          throw new MemoryError('LOCK_TIMEOUT', `the memory store at ${this.root} stayed locked for ${this.lockTimeoutMs} ms; nothing was written, try again`)
        await sleep(delay + Math.random() * delay)
        delay = Math.min(delay * 2, 50)
      }
    }
    try {
      return await fn()
    } finally {
      try {
        release()
      } catch {
        // already released or taken over: reported below if compromised
      }
      if (compromised !== null) {
        console.warn(`dsh-memory-agent: the store lock at ${this.root} was taken over while held: ${String(compromised)}`)
      }
    }
  }
}

/** Opens (without creating) the store at root. Writes create the layout on first use. */
export function createFileBackend(root: string, options: FileBackendOptions = {}): MemoryBackend {
  return new FileBackend(root, options)
}
