/**
 * The segment file of vectors: one immutable binary file per batch embedded, built for opening,
 * not parsing. Little-endian: `DSHV`, format version (u32), dim (u32), count (u32), the byte
 * length of the embedder id (u32) and the id in UTF-8, padded to 4 bytes; then the keys (20
 * bytes each, the sha1 of the text embedded), the scales (float32 each) and the int8 rows
 * (dim bytes each); last the crc32 of every byte before it (u32, since format 2). A file that
 * does not decode or whose checksum does not hold (a flipped byte would give a scale of 1e30 and
 * phantom similarities) is null, never a wrong vector: its vectors are embedded again. Pure.
 */

import { crc32 } from 'node:zlib'

const MAGIC = 0x56485344 // "DSHV" read as a little-endian u32
export const VECTOR_FILE_FORMAT = 2
const KEY_BYTES = 20
const CRC_BYTES = 4

export interface VectorSegment {
  embedderId: string
  dim: number
  keys: string[]
  scales: Float32Array
  codes: Int8Array
}

const pad4 = (n: number) => (n + 3) & ~3

export function encodeSegment(segment: VectorSegment): Uint8Array {
  const id = new TextEncoder().encode(segment.embedderId)
  const count = segment.keys.length
  const head = pad4(20 + id.length)
  const bytes = new Uint8Array(head + count * KEY_BYTES + count * 4 + count * segment.dim + CRC_BYTES)
  const view = new DataView(bytes.buffer)
  view.setUint32(0, MAGIC, true)
  view.setUint32(4, VECTOR_FILE_FORMAT, true)
  view.setUint32(8, segment.dim, true)
  view.setUint32(12, count, true)
  view.setUint32(16, id.length, true)
  bytes.set(id, 20)
  segment.keys.forEach((key, i) => bytes.set(Buffer.from(key, 'hex'), head + i * KEY_BYTES))
  const scalesAt = head + count * KEY_BYTES
  for (let i = 0; i < count; i++) view.setFloat32(scalesAt + i * 4, segment.scales[i] as number, true)
  bytes.set(new Uint8Array(segment.codes.buffer, segment.codes.byteOffset, count * segment.dim), scalesAt + count * 4)
  view.setUint32(bytes.length - CRC_BYTES, crc32(bytes.subarray(0, bytes.length - CRC_BYTES)), true)
  return bytes
}

/** The segment in bytes, or null when they are not a whole segment of this format. */
export function decodeSegment(bytes: Uint8Array): VectorSegment | null {
  if (bytes.length < 20) return null
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VECTOR_FILE_FORMAT) return null
  const dim = view.getUint32(8, true)
  const count = view.getUint32(12, true)
  const idLength = view.getUint32(16, true)
  const head = pad4(20 + idLength)
  if (dim === 0 || bytes.length !== head + count * (KEY_BYTES + 4 + dim) + CRC_BYTES) return null
  const end = bytes.length - CRC_BYTES
  if (view.getUint32(end, true) !== crc32(bytes.subarray(0, end))) return null
  const embedderId = new TextDecoder().decode(bytes.subarray(20, 20 + idLength))
  const keys: string[] = new Array<string>(count)
  for (let i = 0; i < count; i++) keys[i] = Buffer.from(bytes.buffer, bytes.byteOffset + head + i * KEY_BYTES, KEY_BYTES).toString('hex')
  const scalesAt = head + count * KEY_BYTES
  const scales = new Float32Array(count)
  for (let i = 0; i < count; i++) scales[i] = view.getFloat32(scalesAt + i * 4, true)
  const codes = new Int8Array(bytes.buffer.slice(bytes.byteOffset + scalesAt + count * 4, bytes.byteOffset + end))
  return { embedderId, dim, keys, scales, codes }
}
