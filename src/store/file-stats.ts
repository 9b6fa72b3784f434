/**
 * The saved file stats of the freshness check (`.cache/file-stats.bin`): the size and mtime last
 * seen of every memory file, so the next process reads only files whose stat differs.
 *
 * Binary, read with one file read and no parse of JSON: at 100,000 files the JSON it replaces
 * (13 MB) took longer to load than the stats took to take. Layout: the magic `DSHFSTAT`, the
 * format (uint32 LE), the count n, the byte length of the names, the CRC-32 of everything after
 * the header (uint32 LE each: 24 bytes), n mtimes (float64 LE), n sizes (float64 LE), then the
 * n paths in UTF-8, each ended by a newline (a path with a newline in it is not saved, so that
 * file is read again by the next process).
 *
 * A file that is missing, torn, of another format or whose checksum fails decodes as null: the
 * caller then knows no file, and reads each once to compare it with its index entry (slower,
 * never wrong). Written aside and renamed by the backend's writeBytesAtomic. Pure.
 */

import { crc32 } from 'node:zlib'

export const FILE_STATS_FILE = '.cache/file-stats.bin'
const MAGIC = Buffer.from('DSHFSTAT', 'latin1')
const FORMAT = 1
const HEADER_BYTES = 24

export interface SeenStat {
  mtimeMs: number
  size: number
}

export function encodeFileStats(seen: ReadonlyMap<string, SeenStat>): Uint8Array {
  // A path with a newline in it (a person's odd file name) is left out: read again next time.
  const kept = [...seen].filter(([p]) => !p.includes('\n'))
  const n = kept.length
  const names = Buffer.from(kept.map(([p]) => `${p}\n`).join(''), 'utf8')
  const out = Buffer.alloc(HEADER_BYTES + 16 * n + names.length)
  MAGIC.copy(out, 0)
  out.writeUInt32LE(FORMAT, 8)
  out.writeUInt32LE(n, 12)
  out.writeUInt32LE(names.length, 16)
  let i = 0
  for (const [, { mtimeMs, size }] of kept) {
    out.writeDoubleLE(mtimeMs, HEADER_BYTES + 8 * i)
    out.writeDoubleLE(size, HEADER_BYTES + 8 * (n + i))
    i++
  }
  names.copy(out, HEADER_BYTES + 16 * n)
  out.writeUInt32LE(crc32(out.subarray(HEADER_BYTES)), 20)
  return out
}

/** The stats saved in `bytes`, or null when they cannot be trusted. */
export function decodeFileStats(bytes: Uint8Array): Map<string, SeenStat> | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (buf.length < HEADER_BYTES || !buf.subarray(0, 8).equals(MAGIC) || buf.readUInt32LE(8) !== FORMAT) return null
  const n = buf.readUInt32LE(12)
  const nameBytes = buf.readUInt32LE(16)
  if (buf.length !== HEADER_BYTES + 16 * n + nameBytes || crc32(buf.subarray(HEADER_BYTES)) !== buf.readUInt32LE(20)) return null
  // Each path decoded on its own: pieces split from one long string would keep all of it alive.
  const out = new Map<string, SeenStat>()
  let at = HEADER_BYTES + 16 * n
  for (let i = 0; i < n; i++) {
    const end = buf.indexOf(0x0a, at)
    if (end < 0) return null
    out.set(buf.toString('utf8', at, end), { mtimeMs: buf.readDoubleLE(HEADER_BYTES + 8 * i), size: buf.readDoubleLE(HEADER_BYTES + 8 * (n + i)) })
    at = end + 1
  }
  return out.size === n && at === buf.length ? out : null
}
