/**
 * A plain BM25 baseline for the retrieval bench: Okapi BM25 with k1 1.2, b 0.75 and the Robertson
 * idf log(1 + (N - df + 0.5) / (df + 0.5)). No aliases, no boosts, no stemming, no stop words.
 * Query tokens count with their multiplicity (the query is a bag of tokens). Only documents that
 * share at least one token with the query are ranked; ties keep document (insertion) order.
 */

export type Tokenizer = (text: string) => string[]

/** Lower-cased word tokens: `/[a-z0-9]+/g` over the lower-cased text (LoCoMo). */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? []
}

/**
 * Character bigrams (MADial zh): bigrams inside each run of letters, digits or CJK characters
 * (`\p{L}` covers Han), never across punctuation or spaces, and no unigrams. Lower-cased.
 */
export function charBigrams(text: string): string[] {
  const out: string[] = []
  for (const run of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const chars = Array.from(run)
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!)
  }
  return out
}

export interface Bm25Options {
  k1?: number
  b?: number
}

export class PlainBM25<K> {
  private readonly keys: K[] = []
  private readonly lengths: number[] = []
  private readonly tfs: Map<string, number>[] = []
  private readonly df = new Map<string, number>()
  private totalLength = 0
  private readonly k1: number
  private readonly b: number

  constructor(
    private readonly tokenize: Tokenizer,
    options: Bm25Options = {},
  ) {
    this.k1 = options.k1 ?? 1.2
    this.b = options.b ?? 0.75
  }

  get size(): number {
    return this.keys.length
  }

  add(key: K, text: string): void {
    const tokens = this.tokenize(text)
    const tf = new Map<string, number>()
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1)
    for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1)
    this.keys.push(key)
    this.lengths.push(tokens.length)
    this.tfs.push(tf)
    this.totalLength += tokens.length
  }

  idf(term: string): number {
    const n = this.keys.length
    const df = this.df.get(term) ?? 0
    return Math.log(1 + (n - df + 0.5) / (df + 0.5))
  }

  /** Keys of matching documents, best first (ties by insertion order), at most topK of them. */
  search(query: string, topK = Infinity): { key: K; score: number }[] {
    const n = this.keys.length
    if (n === 0) return []
    const avgdl = this.totalLength / n || 1
    const scores = new Float64Array(n)
    const matched = new Uint8Array(n)
    for (const term of this.tokenize(query)) {
      if (!this.df.has(term)) continue
      const idf = this.idf(term)
      for (let d = 0; d < n; d++) {
        const f = this.tfs[d]!.get(term)
        if (f === undefined) continue
        const norm = this.k1 * (1 - this.b + (this.b * this.lengths[d]!) / avgdl)
        scores[d]! += (idf * (f * (this.k1 + 1))) / (f + norm)
        matched[d] = 1
      }
    }
    const order: number[] = []
    for (let d = 0; d < n; d++) if (matched[d] === 1) order.push(d)
    order.sort((a, b) => scores[b]! - scores[a]! || a - b)
    return order.slice(0, topK).map((d) => ({ key: this.keys[d]!, score: scores[d]! }))
  }
}
