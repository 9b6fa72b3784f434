/**
 * How the search index scores (search-index.ts): BM25+ per field as minisearch computed it
 * (FieldScore), the per-slot accumulators of a term-at-a-time pass (Scratch, scoreRun), and the
 * max-score early termination of RankOptions.top: the depth-th best so far (Floor) and the
 * cursors over one segment's postings runs that read only what can reach it (Cursors), with
 * in-memory documents scored whole (memScore), and the count of matches over the segments
 * (countSegmentMatches). Pure over the segments it is handed.
 */

import { BLOCK, BOUND_CAP, FIELD_COUNT, MAX_SEGMENT_DOCS, type Segment, type SegmentDoc } from './segment.js'

/** BM25 parameters and field weights, documented once. */
export const RANKING = Object.freeze({
  k1: 1.2,
  b: 0.75,
  /** BM25+ lower bound on a matching term's contribution (minisearch's `d`). */
  d: 0.5,
  fieldWeights: { content: 1, keywords: 2, context: 0.3 },
  /** An episode's context field holds the summaries of this many episodes before and after it in its session. */
  contextWindow: 2,
  /**
   * A memory made of n others (a folded exchange, a promoted topic, a session summary) scores its
   * match times n to the power of minus this: it is read, and answers, through its n sources, so
   * its match is spread over them; a memory made of many statements would otherwise outrank the
   * single ones on the breadth of its words alone (issue 17, docs/decisions.md: 0.35 beside 0,
   * 0.25, 0.5 and 1 on LoCoMo after consolidation, with exchanges sized by content).
   */
  sourcePower: 0.35,
  /** A query that names a tag or entity of a memory multiplies its score by this. */
  keywordMatchBoost: 1.5,
  /** Weight of a term brought in by an alias group. */
  aliasWeight: 0.5,
  /** Weight of a single CJK character of the query (2-grams and words weigh 1). */
  cjkUnigramWeight: 0.25,
  /** Single characters join a query only when it has this many distinct strong terms (or none). */
  cjkUnigramMinStrongTerms: 8,
})

/** Ranked fields: content, keywords, context; the fourth (identifiers) is only looked up. */
export const RANKED_FIELD_COUNT = 3

/** A segment as the index holds it: its tombstones, its first slot, its file (written or not yet). */
export interface Part {
  segment: Segment
  deleted: Uint8Array | null
  deletedCount: number
  file: string
  saved: boolean
  base: number
}

/** A document of the in-memory segment; `live` false once deleted or replaced. */
export interface MemDoc extends SegmentDoc {
  live: boolean
}

/** Per-slot accumulators of a query, kept between queries (reset over the slots a query touched). */
export class Scratch {
  acc: Float64Array
  termScore: Float64Array
  termMark: Int32Array
  matchCount: Uint16Array
  strong: Uint8Array
  touched: Int32Array
  termTouched: Int32Array

  constructor(readonly capacity: number) {
    this.acc = new Float64Array(capacity)
    this.termScore = new Float64Array(capacity)
    this.termMark = new Int32Array(capacity).fill(-1)
    this.matchCount = new Uint16Array(capacity)
    this.strong = new Uint8Array(capacity)
    this.touched = new Int32Array(capacity)
    this.termTouched = new Int32Array(capacity)
  }
}

/** Field lengths up to this get their one-occurrence contribution from a table. */
export const LENGTH_TABLE = 128

/**
 * One term's BM25+ contribution in one field, as minisearch computed it (the same operations in
 * the same order, so the same bits): weight * idf * (d + tf (k1 + 1) / (tf + k1 (1 - b + b len / avg))).
 * A term occurs once in most fields: those contributions are computed once per length.
 */
export class FieldScore {
  private readonly once = new Float64Array(LENGTH_TABLE)

  constructor(
    private readonly weight: number,
    private readonly idf: number,
    private readonly avg: number,
  ) {
    for (let len = 0; len < LENGTH_TABLE; len++) this.once[len] = this.compute(1, len)
  }

  private compute(tf: number, len: number): number {
    const { k1: k, b, d } = RANKING
    return this.weight * (this.idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * len) / this.avg))))
  }

  of(tf: number, len: number): number {
    return tf === 1 && len < LENGTH_TABLE ? (this.once[len] as number) : this.compute(tf, len)
  }

  /** More than any frequency and length can give: tf (k1 + 1) / (tf + ...) stays under k1 + 1. */
  ceiling(): number {
    return this.weight * (this.idf * (RANKING.d + RANKING.k1 + 1))
  }

  /** The most a posting can give under stored bounds (segment.ts): the largest frequency at i * 2, the smallest length after it. */
  bound(bounds: Uint16Array, i: number): number {
    const maxTf = bounds[i * 2] as number
    return maxTf >= BOUND_CAP ? this.ceiling() : this.of(maxTf, bounds[i * 2 + 1] as number)
  }
}

/** Adds one field's contribution to a document's score for term ti; returns the count of documents the term touched. */
export function addScore(s: Scratch, ti: number, count: number, slot: number, w: number): number {
  if (s.termMark[slot] !== ti) {
    s.termMark[slot] = ti
    s.termScore[slot] = w
    s.termTouched[count] = slot
    return count + 1
  }
  s.termScore[slot]! += w
  return count
}

/** Scores the postings [from, to) of one term in one field of a segment (tombstones skipped). */
export function scoreRun(s: Scratch, ti: number, count: number, bm25: FieldScore, part: Part, field: number, from: number, to: number): number {
  const { docs, tfs, lengths } = part.segment
  const { deleted, base } = part
  let c = count
  for (let i = from; i < to; i++) {
    const doc = docs[i] as number
    if (deleted !== null && deleted[doc] === 1) continue
    c = addScore(s, ti, c, base + doc, bm25.of(tfs[i] as number, lengths[doc * FIELD_COUNT + field] as number))
  }
  return c
}

/** A query made ready for scoring. */
export interface QueryPlan {
  terms: readonly string[]
  /** Term ti's number in part pi at pi * terms.length + ti (< 0: absent). */
  found: Int32Array
  /** Term ti's BM25 in ranked field f at ti * RANKED_FIELD_COUNT + f (null: no live document holds it there). */
  fieldScores: ReadonlyArray<FieldScore | null>
  /** 1 for a term that makes a document count under strongOnly. */
  qualifying: Uint8Array
}

/** How many terms, held by some live document in a ranked field, can make a document count. */
export function drivingTerms(plan: QueryPlan, strongOnly: boolean): number {
  let n = 0
  for (let ti = 0; ti < plan.terms.length; ti++) {
    if (strongOnly && plan.qualifying[ti] === 0) continue
    for (let f = 0; f < RANKED_FIELD_COUNT; f++)
      if (plan.fieldScores[ti * RANKED_FIELD_COUNT + f] !== null) {
        n++
        break
      }
  }
  return n
}

/** How many live documents of these segments, accepted, matched a term in a ranked field (with strongOnly: a qualifying term); `seen` is all 0 on entry and on return. */
export function countSegmentMatches(plan: QueryPlan, parts: readonly Part[], accept: ((id: string) => boolean) | null, strongOnly: boolean, seen: Uint8Array): number {
  const { terms, found, fieldScores, qualifying } = plan
  const T = terms.length
  let count = 0
  parts.forEach(({ segment, deleted }, pi) => {
    for (let ti = 0; ti < T; ti++) {
      const t = found[pi * T + ti] as number
      if (t < 0 || (strongOnly && qualifying[ti] === 0)) continue
      for (let f = 0; f < RANKED_FIELD_COUNT; f++) {
        if (fieldScores[ti * RANKED_FIELD_COUNT + f] === null) continue
        const end = segment.starts[t * FIELD_COUNT + f + 1] as number
        for (let i = segment.starts[t * FIELD_COUNT + f] as number; i < end; i++) {
          const d = segment.docs[i] as number
          if (seen[d] === 1 || (deleted !== null && deleted[d] === 1)) continue
          seen[d] = 1
          if (accept === null || accept(segment.id(d))) count++
        }
      }
    }
    seen.fill(0, 0, segment.docCount)
  })
  return count
}

/** A bound is raised, and a floor lowered, by this much: float rounding never prunes a document that reaches it. */
export const BOUND_SLACK = 1e-9

/** The best `depth` scores kept so far (a min-heap) and the floor they set: the depth-th best over `reach`. */
export class Floor {
  value = -Infinity
  private readonly heap: Float64Array
  private size = 0

  constructor(
    private readonly depth: number,
    private readonly reach: number,
  ) {
    this.heap = new Float64Array(Math.max(1, depth))
  }

  offer(score: number): void {
    const h = this.heap
    if (this.size < this.depth) {
      let i = this.size++
      h[i] = score
      while (i > 0) {
        const up = (i - 1) >> 1
        if ((h[up] as number) <= score) break
        h[i] = h[up] as number
        h[up] = score
        i = up
      }
      if (this.size < this.depth) return
    } else {
      if (score <= (h[0] as number)) return
      h[0] = score
      for (let i = 0; ; ) {
        const l = 2 * i + 1
        if (l >= this.size) break
        const c = l + 1 < this.size && (h[l + 1] as number) < (h[l] as number) ? l + 1 : l
        if ((h[c] as number) >= (h[i] as number)) break
        const t = h[i] as number
        h[i] = h[c] as number
        h[c] = t
        i = c
      }
    }
    this.value = ((h[0] as number) / this.reach) * (1 - BOUND_SLACK)
  }
}

/** One in-memory document's score (summed in rankAll's order), whether it matched a qualifying term, and how many terms it matched. */
export function memScore(plan: QueryPlan, m: MemDoc): { score: number; strong: boolean; matches: number } {
  let acc = 0
  let matches = 0
  let strong = false
  plan.terms.forEach((term, ti) => {
    let termScore = 0
    let hit = false
    for (let f = 0; f < RANKED_FIELD_COUNT; f++) {
      const bm25 = plan.fieldScores[ti * RANKED_FIELD_COUNT + f] as FieldScore | null
      const tf = bm25 === null ? undefined : (m.terms[f] as Map<string, number>).get(term)
      if (tf === undefined) continue
      termScore += (bm25 as FieldScore).of(tf, m.lengths[f] as number)
      hit = true
    }
    if (!hit) return
    acc += termScore
    matches++
    if (plan.qualifying[ti] === 1) strong = true
  })
  return { score: acc * matches, strong, matches }
}

/** Per-document sums of one segment for rankTop, kept between queries (each query leaves them at 0). */
export class TopScratch {
  readonly partial = new Float64Array(MAX_SEGMENT_DOCS)
  /** Essential terms each document matched. */
  readonly terms = new Uint16Array(MAX_SEGMENT_DOCS)
  /** The mark of the last term that counted the document (marks only grow, so none is reset). */
  readonly stamp = new Int32Array(MAX_SEGMENT_DOCS)
  readonly touched = new Int32Array(MAX_SEGMENT_DOCS)
  private mark = 0

  nextMark(): number {
    if (this.mark === 0x7fffffff) {
      this.stamp.fill(0)
      this.mark = 0
    }
    return ++this.mark
  }
}

/**
 * The postings runs of a query's terms in one segment, each with a cursor, and each term's bound
 * here. Runs are in term order, then field order, so a document's score is summed in the order
 * rankAll sums it (the same bits). The essential runs are read block by block (a block that
 * cannot reach the floor skipped); every run is sought (galloping) only for the documents whose
 * bound reaches the floor.
 */
export class Cursors {
  private readonly termOf: number[] = []
  private readonly fieldOf: number[] = []
  private readonly pos: number[] = []
  private readonly end: number[] = []
  /** Each run's bound (its field's part of its term's bound) and its blocks in the segment's blockBounds. */
  private readonly runBound: number[] = []
  private readonly blockFrom: number[] = []
  private readonly blockTo: number[] = []
  /** Runs of term ti: firstRun[ti] .. firstRun[ti + 1]. */
  private readonly firstRun: number[] = []
  /** Each term's bound in this segment (0: absent here). */
  private readonly bound: Float64Array
  /** The runs read whole (block by block), in term then field order; the others are only sought. */
  private essentialRuns: number[] = []
  private rest = 0
  private restTerms = 0

  constructor(
    private readonly plan: QueryPlan,
    private readonly pi: number,
    private readonly segment: Segment,
    private readonly deleted: Uint8Array | null,
    private readonly base: number,
    private readonly strongOnly: boolean,
  ) {
    const T = plan.terms.length
    this.bound = new Float64Array(T)
    for (let ti = 0; ti < T; ti++) {
      this.firstRun.push(this.pos.length)
      const t = plan.found[pi * T + ti] as number
      if (t < 0) continue
      let bound = 0
      for (let f = 0; f < RANKED_FIELD_COUNT; f++) {
        const bm25 = plan.fieldScores[ti * RANKED_FIELD_COUNT + f] as FieldScore | null
        const from = segment.starts[t * FIELD_COUNT + f] as number
        const to = segment.starts[t * FIELD_COUNT + f + 1] as number
        if (bm25 === null || from === to) continue
        this.termOf.push(ti)
        this.fieldOf.push(f)
        this.pos.push(from)
        this.end.push(to)
        const runBound = bm25.bound(segment.bounds, t * FIELD_COUNT + f)
        this.runBound.push(runBound)
        this.blockFrom.push(segment.blockStarts[t * FIELD_COUNT + f] as number)
        this.blockTo.push(segment.blockStarts[t * FIELD_COUNT + f + 1] as number)
        bound += runBound
      }
      this.bound[ti] = bound * (1 + BOUND_SLACK)
    }
    this.firstRun.push(this.pos.length)
  }

  /**
   * Splits the runs here by the floor, a run (a term in one field) at a time: with strongOnly a
   * document must match a qualifying term, so only its runs can drive; of them, the lowest-bound
   * ones whose bounds, with every other run's, times the number of terms they belong to, still
   * leave a document under the floor drive nothing. A common term's long run in one field is
   * so left to be sought, when its other field (the keywords, weighed double) is what reaches the
   * floor. Sets `rest` and `restTerms`: the bounds of the runs that drive nothing, and how many
   * terms they belong to.
   */
  private split(floor: number): void {
    const { plan } = this
    const counted = new Uint8Array(plan.terms.length)
    let terms = 0
    const count = (ti: number): void => {
      if (counted[ti] === 0) (counted[ti] = 1), terms++
    }
    const drivers: number[] = []
    let sum = 0
    for (let r = 0; r < this.pos.length; r++) {
      const ti = this.termOf[r] as number
      if (this.strongOnly && plan.qualifying[ti] === 0) {
        sum += this.runBoundOf(r)
        count(ti)
      } else drivers.push(r)
    }
    drivers.sort((a, b) => (this.runBound[a] as number) - (this.runBound[b] as number))
    let j = 0
    for (; j < drivers.length; j++) {
      const r = drivers[j] as number
      const n = terms + (counted[this.termOf[r] as number] === 0 ? 1 : 0)
      if ((sum + this.runBoundOf(r)) * n >= floor) break
      sum += this.runBoundOf(r)
      count(this.termOf[r] as number)
    }
    this.rest = sum
    this.restTerms = terms
    this.essentialRuns = drivers.slice(j).sort((a, b) => a - b)
  }

  /** Run r's bound, raised so that float rounding never prunes a document that reaches it. */
  private runBoundOf(r: number): number {
    return (this.runBound[r] as number) * (1 + BOUND_SLACK)
  }

  /**
   * Hands `keep` every document that may reach the floor. The essential runs' postings are
   * summed run at a time (any order: only a bound), each document then bounded by that sum plus
   * the bounds of the runs it may also match; those that reach the floor are scored exactly, in
   * document order, and the floor rises as they are kept. `seen` (all 0 on entry, one per
   * document of the segment) marks those already handed.
   */
  run(floor: Floor, keep: (slot: number, score: number) => void, seen: Uint8Array, scratch: TopScratch): void {
    this.warm(keep, seen)
    this.split(floor.value)
    const { plan, segment, deleted } = this
    const { docs, tfs, lengths, blockBounds } = segment
    const { partial, terms, stamp, touched } = scratch
    // Every term present here, at its bound, times how many there are: what a document can score
    // at most; a block of a run bounds it tighter for the documents in that block.
    let all = 0
    let present = 0
    for (let ti = 0; ti < plan.terms.length; ti++)
      if (this.bound[ti] !== 0) {
        all += this.bound[ti] as number
        present++
      }
    let count = 0
    let lastTerm = -1
    let mark = 0
    for (const r of this.essentialRuns) {
      const ti = this.termOf[r] as number
      if (ti !== lastTerm) {
        lastTerm = ti
        mark = scratch.nextMark()
      }
      const f = this.fieldOf[r] as number
      const bm25 = plan.fieldScores[ti * RANKED_FIELD_COUNT + f] as FieldScore
      const start = this.pos[r] as number
      const to = this.end[r] as number
      const others = all - (this.runBound[r] as number)
      const firstBlock = this.blockFrom[r] as number
      const blocks = (this.blockTo[r] as number) - firstBlock
      for (let b = 0; b < Math.max(1, blocks); b++) {
        // A block whose every document scores under the floor, whatever else it matches, is
        // skipped: a document of it reached through another run scores under the floor too, so
        // its partial sum, short of this block, never keeps it (keep holds every score to the floor).
        if (blocks > 0 && (others + bm25.bound(blockBounds, firstBlock + b)) * present * (1 + BOUND_SLACK) < floor.value) continue
        const blockEnd = blocks > 0 ? Math.min(to, start + (b + 1) * BLOCK) : to
        for (let i = blocks > 0 ? start + b * BLOCK : start; i < blockEnd; i++) {
          const d = docs[i] as number
          if (terms[d] === 0) touched[count++] = d
          if (stamp[d] !== mark) {
            stamp[d] = mark
            terms[d]!++
          }
          partial[d]! += bm25.of(tfs[i] as number, lengths[d * FIELD_COUNT + f] as number)
        }
      }
    }
    // What a document may add beyond its essential runs: every other run present here.
    const { rest, restTerms: restCount } = this
    // In document order: a few documents sorted, many read off a scan of the segment.
    if (count * 16 < segment.docCount) touched.subarray(0, count).sort()
    else for (let d = 0, j = 0; d < segment.docCount; d++) if (terms[d] !== 0) touched[j++] = d
    for (let k = 0; k < count; k++) {
      const d = touched[k] as number
      const sum = partial[d] as number
      const matched = terms[d] as number
      partial[d] = 0
      terms[d] = 0
      if (seen[d] === 1 || (deleted !== null && deleted[d] === 1)) continue
      // It matches at most every term present here (a term with runs on both sides is counted
      // in matched and in restCount).
      if ((sum * (1 + BOUND_SLACK) + rest) * Math.min(matched + restCount, present) < floor.value) continue
      // One term, summed field by field from 0 as scoreDoc sums it: the sum is the score, to the
      // bit (and under strongOnly an essential term qualifies).
      if (matched === 1 && restCount === 0) keep(this.base + d, sum)
      else {
        const score = this.scoreDoc(d)
        if (!this.strongOnly || this.strong) keep(this.base + d, score)
      }
    }
  }

  /**
   * Raises the floor before the walk: documents of the term with the highest bound (the rarest,
   * most often) are scored first, from each of its runs the block with the highest bound (a
   * short run whole), so the walk starts with a floor near its final one instead of climbing to
   * it from the first documents it meets.
   */
  private warm(keep: (slot: number, score: number) => void, seen: Uint8Array): void {
    const { plan, bound } = this
    let best = -1
    for (let ti = 0; ti < plan.terms.length; ti++) {
      if (bound[ti] === 0 || (this.strongOnly && plan.qualifying[ti] === 0)) continue
      if (best < 0 || (bound[ti] as number) > (bound[best] as number)) best = ti
    }
    if (best < 0) return
    const picked: number[] = []
    for (let r = this.firstRun[best] as number; r < (this.firstRun[best + 1] as number); r++) {
      const from = (this.pos[r] as number) + this.bestBlock(r) * BLOCK
      const to = Math.min(this.end[r] as number, from + BLOCK)
      for (let i = from; i < to; i++) {
        const d = this.segment.docs[i] as number
        if (seen[d] === 1 || (this.deleted !== null && this.deleted[d] === 1)) continue
        seen[d] = 1
        picked.push(d)
      }
    }
    // Scored by cursors of their own, in document order, leaving the walk's where they are.
    const probe = new Cursors(plan, this.pi, this.segment, this.deleted, this.base, this.strongOnly)
    for (const d of picked.sort((x, y) => x - y)) {
      const score = probe.scoreDoc(d)
      if (!this.strongOnly || probe.strong) keep(this.base + d, score)
    }
  }

  /** The block of run r with the highest bound (0 for a run without blocks). */
  private bestBlock(r: number): number {
    const bm25 = this.plan.fieldScores[(this.termOf[r] as number) * RANKED_FIELD_COUNT + (this.fieldOf[r] as number)] as FieldScore
    const first = this.blockFrom[r] as number
    let best = 0
    let top = -Infinity
    for (let b = first; b < (this.blockTo[r] as number); b++) {
      const bound = bm25.bound(this.segment.blockBounds, b)
      if (bound > top) {
        top = bound
        best = b - first
      }
    }
    return best
  }

  /** Of the document scored last: whether it matched a qualifying term, and how many terms it matched. */
  strong = false
  matches = 0

  /** Document d's score, summed as rankAll sums it (strong and matches set); each cursor moves up to d (documents in ascending order). */
  scoreDoc(d: number): number {
    const { plan, pos, end, segment } = this
    const { docs, tfs, lengths } = segment
    let acc = 0
    let matches = 0
    let strong = false
    for (let ti = 0; ti < plan.terms.length; ti++) {
      let termScore = 0
      let hit = false
      for (let r = this.firstRun[ti] as number; r < (this.firstRun[ti + 1] as number); r++) {
        const p = segment.seek(pos[r] as number, end[r] as number, d)
        pos[r] = p
        if (p >= (end[r] as number) || docs[p] !== d) continue
        const f = this.fieldOf[r] as number
        termScore += (plan.fieldScores[ti * RANKED_FIELD_COUNT + f] as FieldScore).of(tfs[p] as number, lengths[d * FIELD_COUNT + f] as number)
        hit = true
      }
      if (!hit) continue
      acc += termScore
      matches++
      if (plan.qualifying[ti] === 1) strong = true
    }
    this.strong = strong
    this.matches = matches
    return acc * matches
  }
}
