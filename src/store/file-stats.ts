/**
 * The saved file stats of the freshness check (`.cache/file-stats.bin`): the size and mtime last
 * seen of every memory file, so the next process reads only files whose stat differs, and the
 * mtime of each memory folder when it was last listed, so the next process lists only a folder
 * that changed since (it still looks at each file: an in-place edit changes no folder).
 *
 * Binary, read with one file read and no parse of JSON: at 100,000 files the JSON it replaced
 * (13 MB) took longer to load than the stats took to take. Layout: the magic `DSHFSTAT`, the
 * format (uint32 LE), the count n of files, the byte length of the names, the count f of folders,
 * the fingerprint of the saved paths (path-set.ts: two uint32 LE), the CRC-32 of the header's
 * fields before it and of everything after the header (uint32 LE each: 36 bytes), f folder mtimes (float64
 * LE; -1: the next process lists that folder), n mtimes (float64 LE), n sizes (float64 LE), then
 * the f folder names and the n paths, in order, in UTF-8, each ended by a newline (a path with a
 * newline in it is not saved, so that file is read again by the next process, and its folder is
 * listed again). Paths are saved in sorted order, so the files of one folder are one run.
 *
 * The stats are looked up in arrays of the saved rows (a cursor, then a binary search), not in a
 * map of every path: a start that changes nothing builds none. Changes made in this process go
 * to a small map beside them.
 *
 * A file that is missing, torn, of another format or whose checksum fails decodes as null: the
 * caller then knows no file and no folder, lists every folder and reads each file once to compare
 * it with its index entry (slower, never wrong). Written aside and renamed by the backend's
 * writeBytesAtomic. Pure.
 */

import { crc32 } from 'node:zlib'
import { PathSetHash } from './path-set.js'

export const FILE_STATS_FILE = '.cache/file-stats.bin'
const MAGIC = Buffer.from('DSHFSTAT', 'latin1')
const FORMAT = 3
const HEADER_BYTES = 36
/** The rows are read as typed arrays, in the host's byte order: on a big-endian host the stats are not used (read again). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
/** A folder mtime that says: list it. */
export const UNLISTED = -1

export interface SeenStat {
  mtimeMs: number
  size: number
}

const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** The stats of memory files last seen: the saved rows, and this process's changes over them. */
export class SeenStats {
  /** This process's changes: a stat, or null for a path no longer seen. */
  private readonly changed = new Map<string, SeenStat | null>()
  /** Where the last lookup found its row: walks look paths up in the saved order. */
  private cursor = 0

  constructor(
    /** Saved paths, sorted (`byPath`). */
    private readonly paths: readonly string[] = [],
    private readonly mtimes: Float64Array = new Float64Array(0),
    private readonly sizes: Float64Array = new Float64Array(0),
    /** The fingerprint of the saved paths (path-set.ts). */
    readonly savedHash: PathSetHash = new PathSetHash(),
  ) {}

  /** How many rows were saved. */
  get savedCount(): number {
    return this.paths.length
  }
  savedPath(row: number): string {
    return this.paths[row] as string
  }
  savedMtime(row: number): number {
    return this.mtimes[row] as number
  }
  savedSize(row: number): number {
    return this.sizes[row] as number
  }
  /** Whether this process changed what was saved (set or deleted a path). */
  get changedAny(): boolean {
    return this.changed.size > 0
  }
  isChanged(path: string): boolean {
    return this.changed.has(path)
  }

  private rowOf(path: string): number {
    const n = this.paths.length
    if (this.cursor < n && this.paths[this.cursor] === path) return this.cursor
    let lo = 0
    let hi = n - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const c = byPath(this.paths[mid] as string, path)
      if (c === 0) return mid
      if (c < 0) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  /** The saved row of a path (-1: none), changes of this process left aside. */
  savedRowOf(path: string): number {
    const row = this.rowOf(path)
    if (row >= 0) this.cursor = row + 1
    return row
  }

  get(path: string): SeenStat | undefined {
    const change = this.changed.get(path)
    if (change !== undefined) return change ?? undefined
    const row = this.rowOf(path)
    if (row < 0) return undefined
    this.cursor = row + 1
    return { mtimeMs: this.mtimes[row] as number, size: this.sizes[row] as number }
  }
  set(path: string, stat: SeenStat): void {
    this.changed.set(path, stat)
  }
  delete(path: string): void {
    this.changed.set(path, null)
  }

  /** Every path seen, saved ones first. */
  *keys(): IterableIterator<string> {
    for (const p of this.paths) if (!this.changed.has(p)) yield p
    for (const [p, st] of this.changed) if (st !== null) yield p
  }

  /** The saved paths under this folder (`folder/...`), as saved: changes of this process left out. */
  savedUnder(folder: string): readonly string[] {
    const [from, to] = this.savedRows(folder)
    return this.paths.slice(from, to)
  }

  /** The saved rows under this folder (`folder/...`): rows from, up to to. */
  savedRows(folder: string): [number, number] {
    const prefix = `${folder}/`
    let lo = 0
    let hi = this.paths.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.paths[mid] as string) < prefix) lo = mid + 1
      else hi = mid
    }
    let end = lo
    while (end < this.paths.length && (this.paths[end] as string).startsWith(prefix)) end++
    return [lo, end]
  }

  /** Every path with its stat, sorted by path: the saved rows merged with this process's changes, sorted alone. */
  entries(): Array<[string, SeenStat]> {
    const added = [...this.changed].filter((c): c is [string, SeenStat] => c[1] !== null).sort((a, b) => byPath(a[0], b[0]))
    const out: Array<[string, SeenStat]> = []
    let next = 0
    for (let row = 0; row < this.paths.length; row++) {
      const path = this.paths[row] as string
      while (next < added.length && byPath((added[next] as [string, SeenStat])[0], path) < 0) out.push(added[next++] as [string, SeenStat])
      if (!this.changed.has(path)) out.push([path, { mtimeMs: this.mtimes[row] as number, size: this.sizes[row] as number }])
    }
    while (next < added.length) out.push(added[next++] as [string, SeenStat])
    return out
  }
}

/** What a stats file holds: the files' stats and each folder's mtime when it was listed. */
export interface SavedStats {
  seen: SeenStats
  folders: Map<string, number>
}

/**
 * The bytes of the stats file. A folder holding a path with a newline in it (not saved) is saved
 * as UNLISTED, so the next process lists it and finds that file.
 */
export function encodeFileStats(seen: SeenStats, folders: ReadonlyMap<string, number>): Uint8Array {
  const all = seen.entries()
  const kept = all.filter(([p]) => !p.includes('\n'))
  const foldersOut = new Map(folders)
  for (const [p] of all) if (p.includes('\n')) foldersOut.set(p.slice(0, p.indexOf('/')), UNLISTED)
  const folderNames = [...foldersOut.keys()].filter((f) => !f.includes('\n'))
  const n = kept.length
  const f = folderNames.length
  const names = Buffer.from([...folderNames, ...kept.map(([p]) => p)].map((p) => `${p}\n`).join(''), 'utf8')
  const out = Buffer.alloc(HEADER_BYTES + 8 * f + 16 * n + names.length)
  MAGIC.copy(out, 0)
  out.writeUInt32LE(FORMAT, 8)
  out.writeUInt32LE(n, 12)
  out.writeUInt32LE(names.length, 16)
  out.writeUInt32LE(f, 20)
  const hash = PathSetHash.of(kept.map(([p]) => p))
  out.writeUInt32LE(hash.a, 24)
  out.writeUInt32LE(hash.b, 28)
  folderNames.forEach((name, i) => out.writeDoubleLE(foldersOut.get(name) as number, HEADER_BYTES + 8 * i))
  const rows = HEADER_BYTES + 8 * f
  kept.forEach(([, { mtimeMs, size }], i) => {
    out.writeDoubleLE(mtimeMs, rows + 8 * i)
    out.writeDoubleLE(size, rows + 8 * (n + i))
  })
  names.copy(out, rows + 16 * n)
  out.writeUInt32LE(checksumOf(out), CRC_AT)
  return out
}

/** Where the header keeps the checksum: of the header's fields before it and of everything after the header. */
const CRC_AT = 32
const checksumOf = (buf: Buffer): number => crc32(buf.subarray(HEADER_BYTES), crc32(buf.subarray(8, CRC_AT)))

/** The stats saved in `bytes`, or null when they cannot be trusted. */
export function decodeFileStats(bytes: Uint8Array): SavedStats | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (!LITTLE_ENDIAN || buf.length < HEADER_BYTES || !buf.subarray(0, 8).equals(MAGIC) || buf.readUInt32LE(8) !== FORMAT) return null
  const n = buf.readUInt32LE(12)
  const nameBytes = buf.readUInt32LE(16)
  const f = buf.readUInt32LE(20)
  if (buf.length !== HEADER_BYTES + 8 * f + 16 * n + nameBytes || checksumOf(buf) !== buf.readUInt32LE(CRC_AT)) return null
  const rows = HEADER_BYTES + 8 * f
  // One decode and one split: the pieces keep the names' one string alive, a fraction of the
  // file, and cost a tenth of decoding each name on its own.
  const names = nameBytes === 0 ? [] : buf.toString('utf8', rows + 16 * n, buf.length - 1).split('\n')
  if ((nameBytes > 0 && buf[buf.length - 1] !== 0x0a) || names.length !== f + n) return null
  const folders = new Map<string, number>()
  for (let i = 0; i < f; i++) folders.set(names[i] as string, buf.readDoubleLE(HEADER_BYTES + 8 * i))
  const paths = names.slice(f)
  for (let i = 1; i < n; i++) if (byPath(paths[i - 1] as string, paths[i] as string) >= 0) return null
  const start = buf.byteOffset + rows
  const mtimes = new Float64Array(buf.buffer.slice(start, start + 8 * n))
  const sizes = new Float64Array(buf.buffer.slice(start + 8 * n, start + 16 * n))
  const hash = new PathSetHash(buf.readUInt32LE(24), buf.readUInt32LE(28), n)
  return folders.size === f ? { seen: new SeenStats(paths, mtimes, sizes, hash), folders } : null
}
