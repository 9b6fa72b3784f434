/**
 * One immutable segment of the search index, in a compact binary layout made for opening, not
 * parsing: a 64-byte versioned header with checksums, then typed arrays read in place (field
 * lengths per document, the id and stamp of each document, a sorted term dictionary, and per
 * term and field a run of postings: document numbers and term frequencies). Opening is one
 * buffer and a dozen views over it; a header, size or checksum that does not match means null
 * ("build again"), never a partial read.
 *
 * Layout (little-endian; every section starts on an 8-byte boundary):
 *   header   magic "MASEG001", layout, index format, tokenizer version, documents, terms,
 *            postings, bytes per term frequency (1, 2, 4), id bytes, stamp bytes, term bytes,
 *            blocks, body length, CRC-32 of the body, CRC-32 of the header before it
 *   lengths       u32[documents * FIELD_COUNT]  unique terms of each field of each document
 *   idOffsets     u32[documents + 1]            into the id bytes (UTF-8)
 *   stampOffsets  u32[documents + 1]            into the stamp bytes (UTF-8)
 *   termOffsets   u32[terms + 1]                into the term bytes (UTF-8, sorted by code point)
 *   starts        u32[terms * FIELD_COUNT + 1]  postings of term t, field f: starts[t*F+f] .. starts[t*F+f+1]
 *   bounds        u16[terms * FIELD_COUNT * 2]  per term and field: the largest term frequency and the
 *                                               smallest field length among its postings (both capped at
 *                                               65,535; a capped frequency means "unbounded"), from which
 *                                               a query bounds the term's score (early termination)
 *   blockStarts   u32[terms * FIELD_COUNT + 1]  blocks of term t, field f: blockStarts[t*F+f] .. blockStarts[t*F+f+1]
 *   blockBounds   u16[blocks * 2]               a run longer than BLOCK postings is cut into blocks of BLOCK (the
 *                                               last one shorter), each with the bounds above of its own
 *                                               postings: a query skips the blocks whose bound cannot reach
 *                                               its floor (block-max); a shorter run has no blocks
 *   docs          u16[postings]                 ascending within each run (a segment holds <= 65,536 documents)
 *   tfs           u8|u16|u32[postings]
 *   id bytes, stamp bytes, term bytes
 *
 * Pure: it builds and reads bytes; where they are kept is segment-files.ts's business.
 */

import { crc32 } from 'node:zlib'

/** content, keywords, context (ranked) and identifiers (looked up only). */
export const FIELD_COUNT = 4
/** Document numbers are 16-bit. */
export const MAX_SEGMENT_DOCS = 65_536
/** Bump when the byte layout changes (2: per-term score bounds; 3: per-block score bounds). */
export const SEGMENT_LAYOUT = 3
/** Postings per block of a long run (the last block of a run may be shorter). */
export const BLOCK = 64
/** The cap of a stored bound: a frequency at the cap bounds nothing, a length at the cap is at most the real one. */
export const BOUND_CAP = 0xffff

const MAGIC = Buffer.from('MASEG001', 'latin1')
const HEADER_BYTES = 64
/** Where the header keeps the body's checksum, and its own (of the bytes before it). */
const BODY_CRC = 56
const HEADER_CRC = 60

/** What a segment records so that a mismatch with this build means "build again". */
export interface SegmentVersion {
  format: number
  tokenizer: number
}

/** One document as the builder takes it: per field, term -> frequency, and the field's length. */
export interface SegmentDoc {
  id: string
  stamp: string
  lengths: ArrayLike<number>
  terms: ReadonlyArray<ReadonlyMap<string, number>>
}

const align8 = (n: number): number => (n + 7) & ~7

interface Counts {
  docs: number
  terms: number
  postings: number
  tfWidth: number
  idBytes: number
  stampBytes: number
  termBytes: number
  blocks: number
}

/** Byte offsets of each section, from the counts alone: the header holds no offsets to trust. */
function layoutOf(c: Counts) {
  let at = HEADER_BYTES
  const take = (bytes: number): number => {
    const start = at
    at = align8(at + bytes)
    return start
  }
  const lengths = take(c.docs * FIELD_COUNT * 4)
  const idOffsets = take((c.docs + 1) * 4)
  const stampOffsets = take((c.docs + 1) * 4)
  const termOffsets = take((c.terms + 1) * 4)
  const starts = take((c.terms * FIELD_COUNT + 1) * 4)
  const bounds = take(c.terms * FIELD_COUNT * 2 * 2)
  const blockStarts = take((c.terms * FIELD_COUNT + 1) * 4)
  const blockBounds = take(c.blocks * 2 * 2)
  const docs = take(c.postings * 2)
  const tfs = take(c.postings * c.tfWidth)
  const ids = take(c.idBytes)
  const stamps = take(c.stampBytes)
  const terms = take(c.termBytes)
  return { lengths, idOffsets, stampOffsets, termOffsets, starts, bounds, blockStarts, blockBounds, docs, tfs, ids, stamps, terms, end: at }
}

/** The blocks of a run of this many postings. */
const blocksOf = (postings: number): number => (postings > BLOCK ? Math.ceil(postings / BLOCK) : 0)

/** Code point order (the order of UTF-8 bytes), which JavaScript's `<` on UTF-16 units is not. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    // Surrogates (a code point above U+FFFF) sort after U+E000..U+FFFF.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000
    return x - y
  }
  return a.length - b.length
}

/**
 * Collects postings document by document (document numbers ascending) and encodes a segment.
 * Used to seal the in-memory segment and to merge segments.
 */
export class SegmentBuilder {
  private readonly ids: string[] = []
  private readonly stamps: string[] = []
  private readonly lengths: number[] = []
  /** term -> per field, document and frequency interleaved. */
  private readonly postings = new Map<string, number[][]>()
  private maxTf = 0
  private postingCount = 0

  get size(): number {
    return this.ids.length
  }

  /** Starts a document; its postings follow through `posting`. Returns its number. */
  startDoc(id: string, stamp: string, lengths: ArrayLike<number>): number {
    if (this.ids.length >= MAX_SEGMENT_DOCS) throw new Error(`a segment holds at most ${MAX_SEGMENT_DOCS} documents`)
    this.ids.push(id)
    this.stamps.push(stamp)
    for (let f = 0; f < FIELD_COUNT; f++) this.lengths.push(lengths[f] ?? 0)
    return this.ids.length - 1
  }

  /** Postings of one term in one field must come in ascending document order. */
  posting(term: string, field: number, doc: number, tf: number): void {
    let perField = this.postings.get(term)
    if (perField === undefined) {
      perField = Array.from({ length: FIELD_COUNT }, () => [])
      this.postings.set(term, perField)
    }
    ;(perField[field] as number[]).push(doc, tf)
    if (tf > this.maxTf) this.maxTf = tf
    this.postingCount++
  }

  addDoc(doc: SegmentDoc): void {
    const n = this.startDoc(doc.id, doc.stamp, doc.lengths)
    doc.terms.forEach((terms, field) => {
      for (const [term, tf] of terms) this.posting(term, field, n, tf)
    })
  }

  encode(version: SegmentVersion): Buffer {
    const terms = [...this.postings.keys()].sort(compareCodePoints)
    const idBlob = Buffer.from(this.ids.join(''), 'utf8')
    const stampBlob = Buffer.from(this.stamps.join(''), 'utf8')
    const termBlob = Buffer.from(terms.join(''), 'utf8')
    let blocks = 0
    for (const perField of this.postings.values()) for (const list of perField) blocks += blocksOf(list.length / 2)
    const counts: Counts = {
      docs: this.ids.length,
      terms: terms.length,
      postings: this.postingCount,
      tfWidth: this.maxTf <= 0xff ? 1 : this.maxTf <= 0xffff ? 2 : 4,
      idBytes: idBlob.length,
      stampBytes: stampBlob.length,
      termBytes: termBlob.length,
      blocks,
    }
    const at = layoutOf(counts)
    const buf = Buffer.alloc(at.end)
    const u32 = (offset: number, length: number) => new Uint32Array(buf.buffer, buf.byteOffset + offset, length)
    u32(at.lengths, this.lengths.length).set(this.lengths)
    const offsetsOf = (strings: readonly string[], target: Uint32Array) => {
      let o = 0
      strings.forEach((s, i) => {
        target[i] = o
        o += Buffer.byteLength(s, 'utf8')
      })
      target[strings.length] = o
    }
    offsetsOf(this.ids, u32(at.idOffsets, counts.docs + 1))
    offsetsOf(this.stamps, u32(at.stampOffsets, counts.docs + 1))
    offsetsOf(terms, u32(at.termOffsets, counts.terms + 1))
    const starts = u32(at.starts, counts.terms * FIELD_COUNT + 1)
    const bounds = new Uint16Array(buf.buffer, buf.byteOffset + at.bounds, counts.terms * FIELD_COUNT * 2)
    const blockStarts = u32(at.blockStarts, counts.terms * FIELD_COUNT + 1)
    const blockBounds = new Uint16Array(buf.buffer, buf.byteOffset + at.blockBounds, counts.blocks * 2)
    const docs = new Uint16Array(buf.buffer, buf.byteOffset + at.docs, counts.postings)
    const tfs = tfView(buf, at.tfs, counts.postings, counts.tfWidth)
    let p = 0
    let block = 0
    terms.forEach((term, t) => {
      const perField = this.postings.get(term) as number[][]
      for (let f = 0; f < FIELD_COUNT; f++) {
        const run = t * FIELD_COUNT + f
        starts[run] = p
        blockStarts[run] = block
        const list = perField[f] as number[]
        const cut = blocksOf(list.length / 2) > 0
        let maxTf = 0
        let minLength = BOUND_CAP
        let blockTf = 0
        let blockLength = BOUND_CAP
        for (let i = 0; i < list.length; i += 2) {
          const doc = list[i] as number
          const tf = list[i + 1] as number
          const length = this.lengths[doc * FIELD_COUNT + f] as number
          docs[p] = doc
          tfs[p] = tf
          maxTf = Math.max(maxTf, tf)
          minLength = Math.min(minLength, length)
          blockTf = Math.max(blockTf, tf)
          blockLength = Math.min(blockLength, length)
          p++
          if (cut && ((i / 2 + 1) % BLOCK === 0 || i + 2 === list.length)) {
            blockBounds[block * 2] = Math.min(blockTf, BOUND_CAP)
            blockBounds[block * 2 + 1] = blockLength
            block++
            blockTf = 0
            blockLength = BOUND_CAP
          }
        }
        bounds[run * 2] = Math.min(maxTf, BOUND_CAP)
        bounds[run * 2 + 1] = minLength
      }
    })
    starts[counts.terms * FIELD_COUNT] = p
    blockStarts[counts.terms * FIELD_COUNT] = block
    idBlob.copy(buf, at.ids)
    stampBlob.copy(buf, at.stamps)
    termBlob.copy(buf, at.terms)
    MAGIC.copy(buf, 0)
    const fields = [SEGMENT_LAYOUT, version.format, version.tokenizer, counts.docs, counts.terms, counts.postings, counts.tfWidth, counts.idBytes, counts.stampBytes, counts.termBytes, counts.blocks, at.end - HEADER_BYTES]
    fields.forEach((v, i) => buf.writeUInt32LE(v, 8 + i * 4))
    buf.writeUInt32LE(crc32(buf.subarray(HEADER_BYTES)), BODY_CRC)
    buf.writeUInt32LE(crc32(buf.subarray(0, HEADER_CRC)), HEADER_CRC)
    return buf
  }
}

type TfArray = Uint8Array | Uint16Array | Uint32Array

function tfView(buf: Buffer, offset: number, length: number, width: number): TfArray {
  if (width === 1) return new Uint8Array(buf.buffer, buf.byteOffset + offset, length)
  if (width === 2) return new Uint16Array(buf.buffer, buf.byteOffset + offset, length)
  return new Uint32Array(buf.buffer, buf.byteOffset + offset, length)
}

/** A segment opened over its bytes: views, no copies (ids and stamps are decoded when asked). */
export class Segment {
  readonly docCount: number
  readonly termCount: number
  /** Unique terms of field f of document d at d * FIELD_COUNT + f. */
  readonly lengths: Uint32Array
  /** Postings of term t, field f: starts[t * FIELD_COUNT + f] .. starts[t * FIELD_COUNT + f + 1]. */
  readonly starts: Uint32Array
  /** Term t, field f: the largest frequency at (t * FIELD_COUNT + f) * 2, the smallest field length after it. */
  readonly bounds: Uint16Array
  /** Blocks of term t, field f: blockStarts[t * FIELD_COUNT + f] .. blockStarts[t * FIELD_COUNT + f + 1] (none for a short run). */
  readonly blockStarts: Uint32Array
  /** Block b: the largest frequency at b * 2, the smallest field length after it (capped as `bounds`). */
  readonly blockBounds: Uint16Array
  readonly docs: Uint16Array
  readonly tfs: TfArray
  private readonly idOffsets: Uint32Array
  private readonly stampOffsets: Uint32Array
  private readonly termOffsets: Uint32Array
  private readonly idStart: number
  private readonly stampStart: number
  private readonly termStart: number
  private readonly idCache: Array<string | undefined>

  private constructor(
    readonly bytes: Buffer,
    c: Counts,
  ) {
    const at = layoutOf(c)
    const u32 = (offset: number, length: number) => new Uint32Array(bytes.buffer, bytes.byteOffset + offset, length)
    this.docCount = c.docs
    this.termCount = c.terms
    this.lengths = u32(at.lengths, c.docs * FIELD_COUNT)
    this.idOffsets = u32(at.idOffsets, c.docs + 1)
    this.stampOffsets = u32(at.stampOffsets, c.docs + 1)
    this.termOffsets = u32(at.termOffsets, c.terms + 1)
    this.starts = u32(at.starts, c.terms * FIELD_COUNT + 1)
    this.bounds = new Uint16Array(bytes.buffer, bytes.byteOffset + at.bounds, c.terms * FIELD_COUNT * 2)
    this.blockStarts = u32(at.blockStarts, c.terms * FIELD_COUNT + 1)
    this.blockBounds = new Uint16Array(bytes.buffer, bytes.byteOffset + at.blockBounds, c.blocks * 2)
    this.docs = new Uint16Array(bytes.buffer, bytes.byteOffset + at.docs, c.postings)
    this.tfs = tfView(bytes, at.tfs, c.postings, c.tfWidth)
    this.idStart = at.ids
    this.stampStart = at.stamps
    this.termStart = at.terms
    this.idCache = new Array<string | undefined>(c.docs)
  }

  /** Opens encoded bytes; null when they are not an intact segment of this layout and version. */
  static open(input: Buffer, version: SegmentVersion): Segment | null {
    if (input.length < HEADER_BYTES || !input.subarray(0, 8).equals(MAGIC)) return null
    if (input.readUInt32LE(HEADER_CRC) !== crc32(input.subarray(0, HEADER_CRC))) return null
    const word = (i: number): number => input.readUInt32LE(8 + i * 4)
    if (word(0) !== SEGMENT_LAYOUT || word(1) !== version.format || word(2) !== version.tokenizer) return null
    const c: Counts = { docs: word(3), terms: word(4), postings: word(5), tfWidth: word(6), idBytes: word(7), stampBytes: word(8), termBytes: word(9), blocks: word(10) }
    if (c.docs > MAX_SEGMENT_DOCS || ![1, 2, 4].includes(c.tfWidth)) return null
    if (layoutOf(c).end !== input.length || word(11) !== input.length - HEADER_BYTES) return null
    if (input.readUInt32LE(BODY_CRC) !== crc32(input.subarray(HEADER_BYTES))) return null
    // Typed-array views need aligned offsets: a buffer from a shared pool may start anywhere.
    const bytes = input.byteOffset % 8 === 0 ? input : Buffer.from(input)
    const s = new Segment(bytes, c)
    const ends = [s.idOffsets[c.docs], s.stampOffsets[c.docs], s.termOffsets[c.terms], s.starts[c.terms * FIELD_COUNT], s.blockStarts[c.terms * FIELD_COUNT]]
    return ends[0] === c.idBytes && ends[1] === c.stampBytes && ends[2] === c.termBytes && ends[3] === c.postings && ends[4] === c.blocks ? s : null
  }

  id(doc: number): string {
    let id = this.idCache[doc]
    if (id === undefined) {
      id = this.bytes.toString('utf8', this.idStart + (this.idOffsets[doc] as number), this.idStart + (this.idOffsets[doc + 1] as number))
      this.idCache[doc] = id
    }
    return id
  }

  stamp(doc: number): string {
    return this.bytes.toString('utf8', this.stampStart + (this.stampOffsets[doc] as number), this.stampStart + (this.stampOffsets[doc + 1] as number))
  }

  term(t: number): string {
    return this.bytes.toString('utf8', this.termStart + (this.termOffsets[t] as number), this.termStart + (this.termOffsets[t + 1] as number))
  }

  /** The number of a term (its UTF-8 bytes) in the dictionary, or -1: a binary search, no decoding. */
  findTerm(term: Buffer): number {
    let lo = 0
    let hi = this.termCount - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const c = this.bytes.compare(term, 0, term.length, this.termStart + (this.termOffsets[mid] as number), this.termStart + (this.termOffsets[mid + 1] as number))
      if (c === 0) return mid
      if (c < 0) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  /** Where document doc is in the postings run [start, end) (document numbers ascending), or -1. */
  findDoc(start: number, end: number, doc: number): number {
    const at = this.seek(start, end, doc)
    return at < end && this.docs[at] === doc ? at : -1
  }

  /**
   * The first position in [from, end) whose document is doc or later (end if none): galloping
   * from `from`, so a cursor moving forward pays for the distance it moves, not for the run.
   */
  seek(from: number, end: number, doc: number): number {
    const docs = this.docs
    if (from >= end || (docs[from] as number) >= doc) return from
    let lo = from
    let step = 1
    let hi = from + 1
    while (hi < end && (docs[hi] as number) < doc) {
      lo = hi
      step *= 2
      hi = from + step
    }
    if (hi > end) hi = end
    // docs[lo] < doc; the answer is in (lo, hi].
    while (lo + 1 < hi) {
      const mid = (lo + hi) >>> 1
      if ((docs[mid] as number) < doc) lo = mid
      else hi = mid
    }
    return hi
  }
}
