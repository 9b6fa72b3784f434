/**
 * The index snapshot (`.cache/index-snapshot.bin`): the fold of index.jsonl up to a byte offset,
 * saved so that a process starts from it and reads only the lines appended after that offset,
 * instead of parsing and checking every line again.
 *
 * Layout: the magic `DSHIXSNP`, the format version (uint32 LE), the header's length (uint32 LE),
 * the header (JSON: what it covers, below), then the body: the row table (per entry its id, path,
 * session, stated id and whether it is a guard, UTF-8, separated by NUL), n + 1 offsets and n
 * CRC-32s (uint32 LE) of the entries, then each entry as JSON, one after another, then the keys
 * part: per entry what the view files it under by content (hash, slot, placard, room, subject
 * words, sessions: index-view.ts EntryKeys), read only when the lookups by content are first
 * built, so that a writer's first write does not tokenise every summary again. A start reads
 * and checks the table, offsets and checksums (a tenth of the file) and files every entry by id
 * (index-view.ts); an entry is read from the file, checked and parsed only when something asks
 * for it: a search reads its hits, not the store (format 1 parsed every entry at each start:
 * 1.2-2 s at 100,000, and held them all). No check of every field (index-store.ts did that when
 * the line was folded). Entries only: a view files them by content when first asked
 * (index-view.ts), which a process that only searches never does.
 *
 * A snapshot is used only when everything about it checks out: magic, format, the program's
 * version (another version may read index lines differently), the file's length, the CRC-32 of
 * the table, offsets and checksums, and the index.jsonl it covers: same inode, at least as long,
 * not modified when no longer, and the same bytes at the places sampled (the first and last 4 KiB
 * before the offset and 16 windows between: `prefixIdentity`). Anything else (no snapshot, a torn
 * or older one, index.jsonl compacted, rebuilt, truncated or edited) and the caller folds
 * index.jsonl from the start, as it did before snapshots. An entry whose CRC-32 fails when it is
 * read (the file damaged after the start) is taken from a fold of index.jsonl, as is every entry
 * after it: a snapshot can make a start or a read slower, never an answer wrong. The file stays
 * open while a view holds its rows, so a newer snapshot renamed over it changes nothing for them.
 *
 * Written aside (`<name>.tmp`, under the store lock, so one writer at a time), flushed, renamed.
 */

import * as fsSync from 'node:fs'
import { crc32 } from 'node:zlib'
import { pushAll } from '../arrays.js'
import type { IndexEntry } from '../types.js'
import { packageVersion } from '../version.js'
import type { EntryKeys, IndexView, SavedRows } from './index-view.js'
import { PathSetHash } from './path-set.js'

export const SNAPSHOT_FILE = '.cache/index-snapshot.bin'
export const SNAPSHOT_TEMP = `${SNAPSHOT_FILE}.tmp`
const MAGIC = Buffer.from('DSHIXSNP', 'latin1')
const SNAPSHOT_FORMAT = 4
const EDGE_BYTES = 4096
const WINDOWS = 16
const WINDOW_BYTES = 256

/** What part of index.jsonl a snapshot covers, and how the file looked then. */
export interface SnapshotCover {
  ino: number
  /** Bytes covered: always the end of a complete line. */
  offset: number
  /** Lines in those bytes (entries, removals, unusable lines). */
  lines: number
  /** Unusable lines among them. */
  skipped: number
  /** index.jsonl's modification time when it was `offset` bytes long. */
  mtimeMs: number
}

interface Header extends SnapshotCover {
  /** The version of the program that wrote it: another may read index lines otherwise (index-store.ts). */
  program: string
  prefix: number
  entries: number
  /** Bytes of the row table at the start of the body; the row offsets and checksums follow. */
  tableBytes: number
  /** Bytes of the table, the offsets and the checksums, and their CRC-32; the entries follow. */
  indexBytes: number
  indexCrc: number
  /** Bytes of the keys part at the end of the body, and their CRC-32. */
  keysBytes: number
  keysCrc: number
  /** Bytes of the whole body (the file is exactly the header and this). */
  bodyBytes: number
  /** The fingerprint of the rows' paths (path-set.ts): what the freshness check compares with the saved file stats. */
  pathsA: number
  pathsB: number
}

/** A fingerprint of index.jsonl's first `offset` bytes, from 18 small reads: its ends and 16 windows spread between. */
function prefixIdentity(fd: number, offset: number): number {
  const spans: Array<[number, number]> = [
    [0, Math.min(EDGE_BYTES, offset)],
    [Math.max(0, offset - EDGE_BYTES), offset],
  ]
  for (let k = 1; k <= WINDOWS; k++) {
    const at = Math.floor((offset * k) / (WINDOWS + 1))
    spans.push([at, Math.min(offset, at + WINDOW_BYTES)])
  }
  let crc = crc32(Buffer.from(String(offset)))
  const buffer = Buffer.alloc(EDGE_BYTES)
  for (const [from, to] of spans) {
    const read = fsSync.readSync(fd, buffer, 0, to - from, from)
    crc = crc32(buffer.subarray(0, read), crc)
  }
  return crc
}

/** Strings of the row table are separated by this; a snapshot with it inside one is not written. */
const SEP = '\0'
/** The table's fields per row: id, path, session ('' for none, else '=' and the id), stated id (the same), guard ('g' or ''). */
const FIELDS = 5

const optional = (value: string | null | undefined): string => (value == null ? '' : `=${value}`)

/** Strings of a list in the keys part are separated by this. */
const LIST = '\u0001'
/**
 * The keys part's fields per row (what the view files the entry under by content, index-view.ts
 * EntryKeys): saved ('s', or '' when a string holds a separator: the view works them out), content
 * hash, slot, placard, room (as `optional`), keyed ('k' or ''), subject words, sessions (lists).
 */
const KEY_FIELDS = 8

function keyFields(k: EntryKeys): string[] {
  const fields = ['s', k.hash, k.slot, k.placard, optional(k.room), k.keyed ? 'k' : '', k.subject.join(LIST), k.sessions.join(LIST)]
  const lists = [...k.subject, ...k.sessions]
  return fields.some((f) => f.includes(SEP)) || lists.some((f) => f.includes(LIST) || f === '') ? new Array<string>(KEY_FIELDS).fill('') : fields
}

const listOf = (field: string): string[] => (field === '' ? [] : field.split(LIST))

/**
 * The snapshot's bytes for the view, covering `cover` of index.jsonl (whose prefix identity is
 * `prefix`); null when a string of the row table holds the separator (never in ids and paths
 * this program makes: such a store folds index.jsonl at each start instead).
 */
function encodeSnapshot(view: IndexView, cover: SnapshotCover, prefix: number): Buffer | null {
  const table: string[] = []
  const texts: Buffer[] = []
  const offsets = Buffer.alloc(4 * (view.size + 1))
  const crcs = Buffer.alloc(4 * view.size)
  const keys: string[] = []
  let at = 0
  let row = 0
  const paths = new PathSetHash()
  for (const { entry, keys: filed } of view.filed()) {
    paths.add(entry.path)
    const fields = [entry.id, entry.path, optional(entry.session_id), optional(entry.claimed_id), entry.guard === undefined ? '' : 'g']
    if (fields.some((f) => f.includes(SEP))) return null
    pushAll(table, fields)
    pushAll(keys, keyFields(filed))
    const text = Buffer.from(JSON.stringify(entry), 'utf8')
    texts.push(text)
    offsets.writeUInt32LE(at, 4 * row)
    crcs.writeUInt32LE(crc32(text), 4 * row)
    at += text.length
    row++
  }
  offsets.writeUInt32LE(at, 4 * row)
  const tableBytes = Buffer.from(table.join(SEP), 'utf8')
  const index = Buffer.concat([tableBytes, offsets, crcs])
  const keysBytes = Buffer.from(keys.join(SEP), 'utf8')
  const header: Header = {
    ...cover,
    program: packageVersion(),
    prefix,
    entries: view.size,
    tableBytes: tableBytes.length,
    indexBytes: index.length,
    indexCrc: crc32(index),
    keysBytes: keysBytes.length,
    keysCrc: crc32(keysBytes),
    bodyBytes: index.length + at + keysBytes.length,
    pathsA: paths.a,
    pathsB: paths.b,
  }
  const head = Buffer.from(JSON.stringify(header), 'utf8')
  const sizes = Buffer.alloc(8)
  sizes.writeUInt32LE(SNAPSHOT_FORMAT, 0)
  sizes.writeUInt32LE(head.length, 4)
  return Buffer.concat([MAGIC, sizes, head, index, ...texts, keysBytes])
}

/**
 * Saves the view as the snapshot of index.jsonl's first `cover.offset` bytes: written to the
 * temp file, flushed, renamed over the old one. False (nothing written) when index.jsonl is no
 * longer the file the view was folded from. Call under the store lock.
 */
export function writeSnapshot(absIndex: string, absSnapshot: string, view: IndexView, cover: SnapshotCover): boolean {
  const fd = fsSync.openSync(absIndex, 'r')
  let prefix: number
  try {
    const st = fsSync.fstatSync(fd)
    if (st.ino !== cover.ino || st.size < cover.offset) return false
    prefix = prefixIdentity(fd, cover.offset)
  } finally {
    fsSync.closeSync(fd)
  }
  const bytes = encodeSnapshot(view, cover, prefix)
  if (bytes === null) return false
  const temp = `${absSnapshot}.tmp`
  const out = fsSync.openSync(temp, 'w')
  try {
    let done = 0
    while (done < bytes.length) done += fsSync.writeSync(out, bytes, done)
    fsSync.fsyncSync(out)
  } finally {
    fsSync.closeSync(out)
  }
  fsSync.renameSync(temp, absSnapshot)
  return true
}

function readHeader(bytes: Buffer): { header: Header; bodyStart: number } | null {
  if (bytes.length < 16 || !bytes.subarray(0, 8).equals(MAGIC) || bytes.readUInt32LE(8) !== SNAPSHOT_FORMAT) return null
  const headLength = bytes.readUInt32LE(12)
  if (16 + headLength > bytes.length) return null
  try {
    const header = JSON.parse(bytes.subarray(16, 16 + headLength).toString('utf8')) as Header
    const numbers = [header.ino, header.offset, header.lines, header.skipped, header.mtimeMs, header.prefix, header.entries, header.tableBytes, header.indexBytes, header.indexCrc, header.keysBytes, header.keysCrc, header.bodyBytes, header.pathsA, header.pathsB]
    return numbers.every((n) => typeof n === 'number') && typeof header.program === 'string' ? { header, bodyStart: 16 + headLength } : null
  } catch {
    return null
  }
}

/** The header of a saved snapshot and where its body starts; null when there is none usable. */
function headerOf(fd: number): { header: Header; bodyStart: number } | null {
  let head = Buffer.alloc(1024)
  head = head.subarray(0, fsSync.readSync(fd, head, 0, head.length, 0))
  return readHeader(head)
}

function openOrNull(abs: string): number | null {
  try {
    return fsSync.openSync(abs, 'r')
  } catch {
    return null
  }
}

/** What a saved snapshot covers, from its header alone; null when there is none usable. */
export function snapshotCover(absSnapshot: string): SnapshotCover | null {
  const fd = openOrNull(absSnapshot)
  if (fd === null) return null
  try {
    return headerOf(fd)?.header ?? null
  } finally {
    fsSync.closeSync(fd)
  }
}

export interface LoadedSnapshot {
  cover: SnapshotCover
  rows: SavedRows
}

/** Closes the snapshot a view no longer holds when nobody released it (a backend dropped). */
const unreleased = new FinalizationRegistry<number>((fd) => fsSync.closeSync(fd))

/** Reads exactly `length` bytes at `position`; null when the file ends first. */
function readExactly(fd: number, length: number, position: number): Buffer | null {
  const out = Buffer.alloc(length)
  let done = 0
  while (done < length) {
    const n = fsSync.readSync(fd, out, done, length - done, position + done)
    if (n === 0) return null
    done += n
  }
  return out
}

/**
 * The rows of a checked snapshot: the table split once, each entry read from the file (kept
 * open: a newer snapshot renamed over it leaves this one readable) and checked against its
 * CRC-32 when first asked for. An entry that fails (damage since the start, a torn file) is
 * taken instead from a fold of index.jsonl (`fold`), and so is every entry after it: slower,
 * never wrong.
 */
class SnapshotRows implements SavedRows {
  /** The entries part, when all of it was read at once (`prefetch`). */
  private whole: Buffer | null = null
  private folded: Map<string, IndexEntry> | null = null
  private fd: number | null

  constructor(
    readonly size: number,
    private readonly table: readonly string[],
    private readonly offsets: Uint32Array,
    private readonly crcs: Uint32Array,
    fd: number,
    /** Where the entries start in the file. */
    private readonly entriesAt: number,
    private readonly fold: () => Map<string, IndexEntry>,
    readonly pathHash: PathSetHash,
    /** The keys part, after the entries: its length and CRC-32. */
    private readonly keysPart: { bytes: number; crc: number },
  ) {
    this.fd = fd
    unreleased.register(this, fd, this)
  }
  id(row: number): string {
    return this.table[FIELDS * row] as string
  }
  path(row: number): string {
    return this.table[FIELDS * row + 1] as string
  }
  private optional(row: number, field: number): string | undefined {
    const value = this.table[FIELDS * row + field] as string
    return value === '' ? undefined : value.slice(1)
  }
  sessionId(row: number): string | null {
    return this.optional(row, 2) ?? null
  }
  claimedId(row: number): string | undefined {
    return this.optional(row, 3)
  }
  hasGuard(row: number): boolean {
    return this.table[FIELDS * row + 4] === 'g'
  }
  private textOf(row: number): Buffer | null {
    const from = this.offsets[row] as number
    const to = this.offsets[row + 1] as number
    if (this.whole !== null) return this.whole.subarray(from, to)
    return this.fd === null ? null : readExactly(this.fd, to - from, this.entriesAt + from)
  }
  entry(row: number): IndexEntry {
    const text = this.folded === null ? this.textOf(row) : null
    if (text !== null && crc32(text) === this.crcs[row]) {
      const entry = JSON.parse(text.toString('utf8')) as IndexEntry
      // Its checksum held: an entry that disagrees with its table row is a fault of the writer.
      if (entry.id !== this.id(row) || entry.path !== this.path(row)) throw new Error(`index snapshot: row ${row} is not the entry its table names`)
      return entry
    }
    this.release()
    this.folded ??= this.fold()
    const entry = this.folded.get(this.id(row))
    if (entry === undefined) throw new Error(`index snapshot: ${this.id(row)} is in neither the snapshot nor index.jsonl; search again`)
    return entry
  }
  /** The keys part split into fields, read and checked when first asked for; null when it cannot be used (the view then works the keys out). */
  private keyTable: string[] | null | undefined = undefined
  keys(row: number): EntryKeys | null {
    if (this.keyTable === undefined) this.keyTable = this.readKeys()
    const k = this.keyTable
    if (k === null || this.folded !== null || k[KEY_FIELDS * row] !== 's') return null
    const at = KEY_FIELDS * row
    return {
      hash: k[at + 1] as string,
      slot: k[at + 2] as string,
      placard: k[at + 3] as string,
      room: k[at + 4] === '' ? null : (k[at + 4] as string).slice(1),
      keyed: k[at + 5] === 'k',
      subject: listOf(k[at + 6] as string),
      sessions: listOf(k[at + 7] as string),
    }
  }
  private readKeys(): string[] | null {
    if (this.fd === null || this.size === 0) return null
    const bytes = readExactly(this.fd, this.keysPart.bytes, this.entriesAt + (this.offsets[this.size] as number))
    if (bytes === null || crc32(bytes) !== this.keysPart.crc) return null
    const fields = bytes.toString('utf8').split(SEP)
    return fields.length === KEY_FIELDS * this.size ? fields : null
  }
  prefetch(): void {
    if (this.whole !== null || this.fd === null) return
    this.whole = readExactly(this.fd, this.offsets[this.size] as number, this.entriesAt)
  }
  release(): void {
    this.whole = null
    if (this.fd === null) return
    unreleased.unregister(this)
    fsSync.closeSync(this.fd)
    this.fd = null
  }
}

/** The rows of a snapshot whose index part (`index`) passed its checksum, or null when its parts do not fit together. */
function rowsOf(index: Buffer, header: Header, fd: number, entriesAt: number, fold: () => Map<string, IndexEntry>): SavedRows | null {
  const n = header.entries
  const offsetsAt = header.tableBytes
  const crcsAt = offsetsAt + 4 * (n + 1)
  if (!Number.isSafeInteger(n) || n < 0 || header.tableBytes < 0 || crcsAt + 4 * n !== index.length) return null
  const table = n === 0 ? [] : index.toString('utf8', 0, header.tableBytes).split(SEP)
  if (table.length !== FIELDS * n) return null
  const offsets = new Uint32Array(n + 1)
  const crcs = new Uint32Array(n)
  for (let i = 0; i <= n; i++) offsets[i] = index.readUInt32LE(offsetsAt + 4 * i)
  for (let i = 0; i < n; i++) crcs[i] = index.readUInt32LE(crcsAt + 4 * i)
  for (let i = 0; i < n; i++) if ((offsets[i] as number) > (offsets[i + 1] as number)) return null
  if (offsets[0] !== 0 || index.length + (offsets[n] as number) + header.keysBytes !== header.bodyBytes) return null
  for (let row = 0; row < n; row++) if (table[FIELDS * row] === '' || table[FIELDS * row + 1] === '') return null
  return new SnapshotRows(n, table, offsets, crcs, fd, entriesAt, fold, new PathSetHash(header.pathsA, header.pathsB, n), { bytes: header.keysBytes, crc: header.keysCrc })
}

/**
 * The snapshot's rows and what they cover, or null when it is missing, torn, of another format,
 * or not a fold of the index.jsonl open as `indexFd` (`indexStat` its fstat) as it is now. The
 * header is checked before anything else is read (a snapshot of a compacted index.jsonl costs a
 * few small reads), then the row table, offsets and checksums; each entry is checked when read.
 * `fold` gives index.jsonl's entries, for an entry that turns out damaged.
 */
export function readSnapshot(absSnapshot: string, indexFd: number, indexStat: { ino: number; size: number; mtimeMs: number }, fold: () => Map<string, IndexEntry>): LoadedSnapshot | null {
  const fd = openOrNull(absSnapshot)
  if (fd === null) return null
  let rows: SavedRows | null = null
  let header: Header
  try {
    const parsed = headerOf(fd)
    if (parsed === null) return null
    header = parsed.header
    if (header.program !== packageVersion() || header.ino !== indexStat.ino || header.offset > indexStat.size) return null
    if (header.offset === indexStat.size && header.mtimeMs !== indexStat.mtimeMs) return null
    if (prefixIdentity(indexFd, header.offset) !== header.prefix) return null
    if (fsSync.fstatSync(fd).size !== parsed.bodyStart + header.bodyBytes || header.indexBytes > header.bodyBytes) return null
    const index = readExactly(fd, header.indexBytes, parsed.bodyStart)
    if (index === null || crc32(index) !== header.indexCrc) return null
    rows = rowsOf(index, header, fd, parsed.bodyStart + header.indexBytes, fold)
  } finally {
    if (rows === null) fsSync.closeSync(fd)
  }
  if (rows === null) return null
  const { ino, offset, lines, skipped, mtimeMs } = header
  return { cover: { ino, offset, lines, skipped, mtimeMs }, rows }
}
