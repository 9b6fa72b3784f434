/**
 * What a search index query hands out (search-index.ts): documents best first, drawn from a heap
 * one at a time (Ranking), or under RankOptions.top in stages of growing depth (TopRanking), each
 * document's matched terms looked up only when asked (Drawn). Ties by id.
 */

import { BOUND_SLACK } from './search-scoring.js'

export interface RankedDoc {
  readonly id: string
  readonly score: number
  /** Query terms (original or alias) this document matched, in query order. */
  readonly matched: string[]
}

/** How a ranking reaches back into its index: a slot's id and matched terms, an id's slot. */
export interface Look {
  idOf(slot: number): string
  matchedOf(slot: number): string[]
  slotOf(id: string): number
}

/** A drawn document; its matched terms are looked up only when asked (most draws never ask). */
export class Drawn implements RankedDoc {
  private terms: string[] | null = null

  constructor(
    readonly id: string,
    readonly score: number,
    private readonly slot: number,
    private readonly look: Look,
  ) {}

  get matched(): string[] {
    this.terms ??= this.look.matchedOf(this.slot)
    return this.terms
  }
}

/** What a ranking hands out: its documents best first, how many it holds, any matched one by id. */
export interface RankedDocs {
  /** How many documents it holds (with strongOnly: those that matched a strong term). */
  readonly count: number
  /**
   * The next best document, or undefined when none is left. With `bar`, for a caller that stops
   * at the first document scoring under it: also undefined once every document left does.
   */
  next(bar?: number): RankedDoc | undefined
  /** A matched document by id (whether or not strongOnly kept it), or undefined. */
  get(id: string): RankedDoc | undefined
}

/** A ranking heaps at first only its candidates scoring at or above its this-many-th best. */
export const FIRST_HEAP = 256

/** The k-th largest of values (1-based), by selection in place: O(n) on average. */
export function kthLargest(values: Float64Array, k: number): number {
  let lo = 0
  let hi = values.length - 1
  const target = k - 1
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1] as number
    let i = lo
    let j = hi
    while (i <= j) {
      while ((values[i] as number) > pivot) i++
      while ((values[j] as number) < pivot) j--
      if (i <= j) {
        const t = values[i] as number
        values[i] = values[j] as number
        values[j] = t
        i++
        j--
      }
    }
    if (target <= j) hi = j
    else if (target >= i) lo = i
    else return values[target] as number
  }
  return values[target] as number
}

/**
 * The documents a query matched, best first (score, then id), drawn from a heap one at a time:
 * a caller that stops after its top k never pays for ordering the rest.
 */
export class Ranking implements RankedDocs {
  /** How many documents the ranking holds (with strongOnly: those that matched a strong term). */
  readonly count: number
  /** The heap drawn from: first the candidates at or above a cut-off score, then the rest. */
  private heap: Int32Array
  private heapSize: number
  /** Candidates below the cut-off, heaped only if the first heap runs out. */
  private rest: Int32Array | null = null
  private bySlot: Map<number, number> | null = null

  constructor(
    private readonly slots: Int32Array,
    private readonly scores: Float64Array,
    strong: Uint8Array,
    private readonly size: number,
    strongOnly: boolean,
    private readonly look: Look,
  ) {
    const pool = new Int32Array(size)
    let n = 0
    for (let i = 0; i < size; i++) if (!strongOnly || strong[i] === 1) pool[n++] = i
    this.count = n
    this.heap = pool.subarray(0, n)
    this.heapSize = n
    if (n > FIRST_HEAP) {
      // Most callers draw a few dozen: heap only what scores at or above the FIRST_HEAP-th best,
      // so ties deep in a long list are never ordered (ordering them decodes ids).
      const values = new Float64Array(n)
      for (let j = 0; j < n; j++) values[j] = scores[pool[j] as number] as number
      const cut = kthLargest(values, FIRST_HEAP)
      const rest = new Int32Array(n)
      let high = 0
      let low = 0
      for (let j = 0; j < n; j++) {
        const i = pool[j] as number
        if ((scores[i] as number) >= cut) pool[high++] = i
        else rest[low++] = i
      }
      this.heap = pool.subarray(0, high)
      this.heapSize = high
      this.rest = rest.subarray(0, low)
    }
    this.heapify()
  }

  private heapify(): void {
    for (let i = (this.heapSize >> 1) - 1; i >= 0; i--) this.siftDown(i)
  }

  static empty(): Ranking {
    const none = { idOf: () => '', matchedOf: () => [], slotOf: () => -1 }
    return new Ranking(new Int32Array(0), new Float64Array(0), new Uint8Array(0), 0, false, none)
  }

  private better(a: number, b: number): boolean {
    const x = this.scores[a] as number
    const y = this.scores[b] as number
    if (x !== y) return x > y
    return this.look.idOf(this.slots[a] as number) < this.look.idOf(this.slots[b] as number)
  }

  private siftDown(i: number): void {
    const h = this.heap
    for (;;) {
      const l = 2 * i + 1
      if (l >= this.heapSize) return
      const r = l + 1
      const c = r < this.heapSize && this.better(h[r] as number, h[l] as number) ? r : l
      if (!this.better(h[c] as number, h[i] as number)) return
      const t = h[i] as number
      h[i] = h[c] as number
      h[c] = t
      i = c
    }
  }

  private docAt(i: number): RankedDoc {
    const slot = this.slots[i] as number
    return new Drawn(this.look.idOf(slot), this.scores[i] as number, slot, this.look)
  }

  /** The next best document, or undefined when none is left. */
  next(): RankedDoc | undefined {
    if (this.heapSize === 0 && this.rest !== null) {
      this.heap = this.rest
      this.heapSize = this.rest.length
      this.rest = null
      this.heapify()
    }
    if (this.heapSize === 0) return undefined
    const top = this.heap[0] as number
    this.heap[0] = this.heap[--this.heapSize] as number
    this.siftDown(0)
    return this.docAt(top)
  }

  /** A matched document by id (whether or not strongOnly kept it), or undefined. */
  get(id: string): RankedDoc | undefined {
    if (this.bySlot === null) {
      this.bySlot = new Map()
      for (let i = 0; i < this.size; i++) this.bySlot.set(this.slots[i] as number, i)
    }
    const i = this.bySlot.get(this.look.slotOf(id))
    return i === undefined ? undefined : this.docAt(i)
  }
}

/** A ranking's first documents, exactly, and the score every document it left out stays under. */
export interface Head {
  head: Ranking
  floor: number
}

/**
 * A ranking under RankOptions.top, in stages of growing depth, each computed only for a caller
 * drawing past the one before: first every document that can reach the depth-th best over
 * `reach` (search-index.ts), then the rest of a full ranking. Each stage's first documents are exactly the previous stage's (the same scores
 * in the same order), so a stage continues where the one before ran out.
 */
export class TopRanking implements RankedDocs {
  private drawn = 0

  constructor(
    private current: Head,
    /** The deeper stages, shallowest first; the last one leaves nothing out. */
    private readonly deeper: Array<() => Head>,
    readonly count: number,
    private readonly byId: (id: string) => RankedDoc | undefined,
  ) {}

  next(bar?: number): RankedDoc | undefined {
    for (;;) {
      const doc = this.current.head.next()
      if (doc !== undefined) {
        this.drawn++
        return doc
      }
      if (this.drawn === this.count || (bar !== undefined && this.current.floor <= bar * (1 - BOUND_SLACK))) return undefined
      const stage = this.deeper.shift()
      if (stage === undefined) return undefined
      this.current = stage()
      for (let i = 0; i < this.drawn; i++) this.current.head.next()
    }
  }

  get(id: string): RankedDoc | undefined {
    return this.byId(id)
  }
}
