/**
 * Vectors in typed arrays, for nearest-neighbour search by cosine similarity. Each vector is
 * normalised and quantised to int8 with a scale of its own (`dim + 4` bytes, a quarter of
 * float32), plus a sign code of `dim` bits. A query is scored exactly against the int8 rows
 * (the query itself stays float); above EXACT_SCAN_ROWS rows the sign codes pick candidates by
 * Hamming distance first and only those are scored exactly, so a query costs a popcount per row
 * and a few hundred dot products (`bench/scale.ts` measures both and the recall).
 *
 * Pure and in memory: no files (vector-file.ts encodes it), no embedder.
 */

/** Up to this many rows a query scores every row exactly. */
export const EXACT_SCAN_ROWS = 16_384
/** Above it, this many rows nearest by sign code are scored exactly (or 32 per hit asked for, when more). */
export const RERANK_ROWS = 512

export interface VectorHit {
  key: string
  /** Cosine similarity, -1..1 (from the int8 rows: within about 1% of the float value). */
  similarity: number
}

/** A vector scaled to length 1, as float32; null for a zero or non-finite vector. */
export function normalised(vector: ArrayLike<number>): Float32Array | null {
  let sum = 0
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number
    sum += x * x
  }
  if (!(sum > 0) || !Number.isFinite(sum)) return null
  const inv = 1 / Math.sqrt(sum)
  const out = new Float32Array(vector.length)
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) * inv
  return out
}

/**
 * Set bits of every 16-bit number: a popcount is two lookups. Made by the first vector search,
 * not on import (a few milliseconds of every process's start, with or without vectors).
 */
let bits16: Uint8Array | null = null
function bitCounts(): Uint8Array {
  if (bits16 === null) {
    bits16 = new Uint8Array(65536)
    for (let i = 1; i < 65536; i++) bits16[i] = (bits16[i >>> 1] as number) + (i & 1)
  }
  return bits16
}

function countBelow(histogram: Uint32Array, limit: number): number {
  let n = 0
  for (let d = 0; d < limit; d++) n += histogram[d] as number
  return n
}

/** The k best of a stream of (row, score), best first. */
class TopK {
  readonly rows: number[] = []
  readonly scores: number[] = []
  constructor(private readonly k: number) {}
  get floor(): number {
    return this.rows.length < this.k ? -Infinity : (this.scores[this.k - 1] as number)
  }
  offer(row: number, score: number): void {
    if (score <= this.floor) return
    let i = Math.min(this.rows.length, this.k - 1)
    while (i > 0 && (this.scores[i - 1] as number) < score) i--
    this.rows.splice(i, 0, row)
    this.scores.splice(i, 0, score)
    if (this.rows.length > this.k) {
      this.rows.pop()
      this.scores.pop()
    }
  }
}

export class VectorIndex {
  readonly words: number
  private codes: Int8Array
  private scales: Float32Array
  private signs: Uint32Array
  private readonly keyOfRow: string[] = []
  private readonly rows = new Map<string, number>()
  /** Scratch for the sign-code distances of a query. */
  private distances = new Uint16Array(0)

  /**
   * `exactScanRows`: up to this many rows every query scores every row (EXACT_SCAN_ROWS by
   * default; the scale bench raises it to time an exact scan at any size).
   */
  constructor(
    readonly dim: number,
    capacity = 256,
    private readonly exactScanRows = EXACT_SCAN_ROWS,
  ) {
    this.words = Math.ceil(dim / 32)
    this.codes = new Int8Array(capacity * dim)
    this.scales = new Float32Array(capacity)
    this.signs = new Uint32Array(capacity * this.words)
  }

  get size(): number {
    return this.keyOfRow.length
  }

  has(key: string): boolean {
    return this.rows.has(key)
  }

  /** The keys held, in the order they were added. */
  keys(): IterableIterator<string> {
    return this.keyOfRow.values()
  }

  /** Bytes held per vector: the int8 row, its scale and its sign code. */
  get bytesPerVector(): number {
    return this.dim + 4 + this.words * 4
  }

  private grow(): void {
    const capacity = Math.max(256, this.scales.length * 2)
    const codes = new Int8Array(capacity * this.dim)
    codes.set(this.codes)
    const scales = new Float32Array(capacity)
    scales.set(this.scales)
    const signs = new Uint32Array(capacity * this.words)
    signs.set(this.signs)
    this.codes = codes
    this.scales = scales
    this.signs = signs
  }

  /**
   * Adds a float vector of length dim; false when the key is already held. A zero vector (a text
   * the model finds nothing in) is kept as a zero row: embedded, and similar to nothing.
   */
  add(key: string, vector: ArrayLike<number>): boolean {
    if (vector.length !== this.dim) throw new RangeError(`vector of ${vector.length} dimensions in an index of ${this.dim}`)
    if (this.rows.has(key)) return false
    const unit = normalised(vector)
    if (unit === null) return this.addQuantised(key, new Int8Array(this.dim), 0)
    let max = 0
    for (const x of unit) max = Math.max(max, Math.abs(x))
    const scale = max / 127
    const codes = new Int8Array(this.dim)
    for (let i = 0; i < this.dim; i++) codes[i] = Math.round((unit[i] as number) / scale)
    return this.addQuantised(key, codes, scale)
  }

  /** Adds a row already quantised (read from a segment); false when the key is already held. */
  addQuantised(key: string, codes: Int8Array, scale: number): boolean {
    if (this.rows.has(key)) return false
    const row = this.keyOfRow.length
    if (row >= this.scales.length) this.grow()
    this.codes.set(codes.subarray(0, this.dim), row * this.dim)
    this.scales[row] = scale
    const base = row * this.words
    for (let i = 0; i < this.dim; i++) if ((codes[i] as number) > 0) this.signs[base + (i >>> 5)] = ((this.signs[base + (i >>> 5)] as number) | (1 << (i & 31))) >>> 0
    this.keyOfRow.push(key)
    this.rows.set(key, row)
    return true
  }

  /** The quantised row of a key (for writing segments), or null. */
  row(key: string): { codes: Int8Array; scale: number } | null {
    const row = this.rows.get(key)
    if (row === undefined) return null
    return { codes: this.codes.subarray(row * this.dim, (row + 1) * this.dim), scale: this.scales[row] as number }
  }

  private score(q: Float32Array, row: number): number {
    const codes = this.codes
    const dim = this.dim
    const base = row * dim
    // Four running sums: independent additions the CPU can overlap.
    let d0 = 0
    let d1 = 0
    let d2 = 0
    let d3 = 0
    let i = 0
    for (; i + 3 < dim; i += 4) {
      d0 += (q[i] as number) * (codes[base + i] as number)
      d1 += (q[i + 1] as number) * (codes[base + i + 1] as number)
      d2 += (q[i + 2] as number) * (codes[base + i + 2] as number)
      d3 += (q[i + 3] as number) * (codes[base + i + 3] as number)
    }
    for (; i < dim; i++) d0 += (q[i] as number) * (codes[base + i] as number)
    return (d0 + d1 + d2 + d3) * (this.scales[row] as number)
  }

  /** The `want` rows (or all, when fewer) nearest to the query by Hamming distance of their sign codes, in row order. */
  private nearestBySign(q: Float32Array, want: number): Int32Array {
    const qs = new Uint32Array(this.words)
    for (let i = 0; i < this.dim; i++) if ((q[i] as number) > 0) qs[i >>> 5] = ((qs[i >>> 5] as number) | (1 << (i & 31))) >>> 0
    const n = this.keyOfRow.length
    // Reused between queries: a fresh array per query is work for the collector at every search.
    if (this.distances.length < n) this.distances = new Uint16Array(this.scales.length)
    const dist = this.distances
    const histogram = new Uint32Array(this.dim + 1)
    const signs = this.signs
    const words = this.words
    const bits = bitCounts()
    for (let r = 0; r < n; r++) {
      let d = 0
      const base = r * words
      for (let w = 0; w < words; w++) {
        const x = (qs[w] as number) ^ (signs[base + w] as number)
        d += (bits[x & 0xffff] as number) + (bits[x >>> 16] as number)
      }
      dist[r] = d
      histogram[d] = (histogram[d] as number) + 1
    }
    let limit = 0
    for (let seen = 0; limit <= this.dim; limit++) {
      seen += histogram[limit] as number
      if (seen >= want) break
    }
    // Every row nearer than the limit, and rows at the limit only until `want` are taken: on
    // clustered vectors one distance can hold thousands of rows.
    let atLimit = want - (limit > 0 ? countBelow(histogram, limit) : 0)
    const out: number[] = []
    for (let r = 0; r < n; r++) {
      const d = dist[r] as number
      if (d < limit) out.push(r)
      else if (d === limit && atLimit > 0) {
        out.push(r)
        atLimit--
      }
    }
    return Int32Array.from(out)
  }

  /**
   * The k rows most similar to the query, best first, among those `accept` takes (all without
   * it). With a filter that leaves few rows among the sign-code candidates, every row is scored.
   */
  search(query: ArrayLike<number>, k: number, accept: ((key: string) => boolean) | null = null): VectorHit[] {
    if (query.length !== this.dim) throw new RangeError(`query of ${query.length} dimensions for an index of ${this.dim}`)
    const q = normalised(query)
    if (q === null || k <= 0 || this.keyOfRow.length === 0) return []
    const top = new TopK(k)
    const consider = (row: number) => {
      if (accept !== null && !accept(this.keyOfRow[row] as string)) return false
      top.offer(row, this.score(q, row))
      return true
    }
    let exact = this.keyOfRow.length <= this.exactScanRows
    if (!exact) {
      let accepted = 0
      for (const row of this.nearestBySign(q, Math.max(RERANK_ROWS, k * 32))) if (consider(row)) accepted++
      // A narrow filter: too few of its rows were among the candidates to trust the prefilter.
      if (accepted < k) {
        top.rows.length = 0
        top.scores.length = 0
        exact = true
      }
    }
    if (exact) for (let row = 0; row < this.keyOfRow.length; row++) consider(row)
    return top.rows.map((row, i) => ({ key: this.keyOfRow[row] as string, similarity: top.scores[i] as number }))
  }
}
