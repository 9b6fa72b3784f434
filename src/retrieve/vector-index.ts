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
/** Above it, at least this many rows nearest by sign code are scored exactly (or 32 per hit asked for). */
export const RERANK_ROWS = 1024

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

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
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
  private readonly keys: string[] = []
  private readonly rows = new Map<string, number>()

  constructor(
    readonly dim: number,
    capacity = 256,
  ) {
    this.words = Math.ceil(dim / 32)
    this.codes = new Int8Array(capacity * dim)
    this.scales = new Float32Array(capacity)
    this.signs = new Uint32Array(capacity * this.words)
  }

  get size(): number {
    return this.keys.length
  }

  has(key: string): boolean {
    return this.rows.has(key)
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
    const row = this.keys.length
    if (row >= this.scales.length) this.grow()
    this.codes.set(codes.subarray(0, this.dim), row * this.dim)
    this.scales[row] = scale
    const base = row * this.words
    for (let i = 0; i < this.dim; i++) if ((codes[i] as number) > 0) this.signs[base + (i >>> 5)] = ((this.signs[base + (i >>> 5)] as number) | (1 << (i & 31))) >>> 0
    this.keys.push(key)
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
    const base = row * this.dim
    let dot = 0
    for (let i = 0; i < this.dim; i++) dot += (q[i] as number) * (codes[base + i] as number)
    return dot * (this.scales[row] as number)
  }

  /** Rows ordered by Hamming distance of their sign code to the query's, nearest first, at least `want` of them (ties kept). */
  private nearestBySign(q: Float32Array, want: number): Int32Array {
    const qs = new Uint32Array(this.words)
    for (let i = 0; i < this.dim; i++) if ((q[i] as number) > 0) qs[i >>> 5] = ((qs[i >>> 5] as number) | (1 << (i & 31))) >>> 0
    const n = this.keys.length
    const dist = new Uint16Array(n)
    const histogram = new Uint32Array(this.dim + 1)
    const signs = this.signs
    const words = this.words
    for (let r = 0; r < n; r++) {
      let d = 0
      const base = r * words
      for (let w = 0; w < words; w++) d += popcount(((qs[w] as number) ^ (signs[base + w] as number)) >>> 0)
      dist[r] = d
      histogram[d] = (histogram[d] as number) + 1
    }
    let limit = 0
    for (let seen = 0; limit <= this.dim; limit++) {
      seen += histogram[limit] as number
      if (seen >= want) break
    }
    const out: number[] = []
    for (let r = 0; r < n; r++) if ((dist[r] as number) <= limit) out.push(r)
    return Int32Array.from(out)
  }

  /**
   * The k rows most similar to the query, best first, among those `accept` takes (all without
   * it). With a filter that leaves few rows among the sign-code candidates, every row is scored.
   */
  search(query: ArrayLike<number>, k: number, accept: ((key: string) => boolean) | null = null): VectorHit[] {
    if (query.length !== this.dim) throw new RangeError(`query of ${query.length} dimensions for an index of ${this.dim}`)
    const q = normalised(query)
    if (q === null || k <= 0 || this.keys.length === 0) return []
    const top = new TopK(k)
    const consider = (row: number) => {
      if (accept !== null && !accept(this.keys[row] as string)) return false
      top.offer(row, this.score(q, row))
      return true
    }
    let exact = this.keys.length <= EXACT_SCAN_ROWS
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
    if (exact) for (let row = 0; row < this.keys.length; row++) consider(row)
    return top.rows.map((row, i) => ({ key: this.keys[row] as string, similarity: top.scores[i] as number }))
  }
}
