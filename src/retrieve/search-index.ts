/**
 * The full-text index over the summary layer (title, summary, tags, entities) of searchable
 * memories, BM25 with the project's tokenizer, built for start-up and scale: immutable segments in
 * a binary layout (segment.ts) opened with typed-array views, a small in-memory segment for
 * recent changes, deletions as tombstones, a bounded merge policy run when the index is saved,
 * BM25 statistics (documents, average field lengths, document frequencies) taken across every
 * segment, and top-k drawn lazily from a heap, with early termination when the caller says how
 * deep it will draw (RankOptions.top: max-score over the bounds the segments store per term,
 * field and block of postings, in stages of growing depth; exact). It scores exactly as the
 * minisearch index it replaced (field weights, BM25+, the score times the number of query terms
 * matched), so rankings stay the same. Kept in step with the index entries incrementally (by checksum stamp).
 *
 * It ranks; it does not decide what is eligible (search.ts does) and it never touches files
 * (segment-files.ts saves and opens it).
 */

import { createHash, randomBytes } from 'node:crypto'
import type { IndexEntry } from '../types.js'
import { SEARCHABLE_STATUSES } from '../types.js'
import { identifiersOf } from './identifiers.js'
import { TOKENIZER_VERSION, isStrongTerm, tokenize } from '../language/tokenizer.js'
import { BLOCK, BOUND_CAP, FIELD_COUNT, MAX_SEGMENT_DOCS, Segment, SegmentBuilder, type SegmentDoc, type SegmentVersion } from './segment.js'

/** Bump when the document shape or field set changes (3: the identifiers field; 4: the slot key among the keywords). */
export const SEARCH_INDEX_FORMAT = 4

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

interface IndexedDoc {
  id: string
  content: string
  keywords: string
  context: string
  /** The identifiers of the summary layer (identifiers.ts), space-separated: matched exactly, never ranked by BM25. */
  identifiers: string
}

/** Field numbers in a segment; BM25 ranks the first three, `identifiers` is only looked up (`literal`). */
const FIELDS = ['content', 'keywords', 'context', 'identifiers'] as const
const RANKED_FIELD_COUNT = 3
const IDENTIFIERS = 3
const FIELD_WEIGHTS = [RANKING.fieldWeights.content, RANKING.fieldWeights.keywords, RANKING.fieldWeights.context]

/**
 * Searchable: active or conflict, not raw text (raw is reached through its episode), and with
 * front-matter that parses (a broken block may say forgotten or unconfirmed: not until it is fixed).
 */
export function isSearchable(entry: IndexEntry): boolean {
  return entry.type !== 'raw' && SEARCHABLE_STATUSES.has(entry.status) && entry.front_matter_error === undefined
}

/**
 * The words of an entry's slot key that its text does not already hold ("饮食" of a memory
 * "用户是素食者" filed under "用户 饮食"): a search by subject finds the memory that states it,
 * and words the text has already are not counted twice.
 */
export function slotKeywords(entry: Pick<IndexEntry, 'key' | 'title' | 'summary'>): string[] {
  if (entry.key === null) return []
  const text = new Set(tokenize(`${entry.title}\n${entry.summary}`))
  return entry.key.split(/\s+/u).filter((w) => {
    const t = tokenize(w)
    return t.length > 0 && t.some((x) => !text.has(x))
  })
}

/**
 * The indexed text of an entry. The title is left out when the summary already contains it.
 * The slot key's own words (slotKeywords) are keywords like tags.
 */
export function documentOf(entry: IndexEntry, context: string): IndexedDoc {
  const title = entry.title.replace(/…$/, '')
  const content = entry.summary.includes(title) ? entry.summary : `${entry.title}\n${entry.summary}`
  const keywords = [...entry.tags, ...entry.entities, ...slotKeywords(entry)].join('\n')
  return { id: entry.id, content, keywords, context, identifiers: identifiersOf(`${entry.title}\n${entry.summary}\n${keywords}`).join(' ') }
}

/** An entry with the text of its neighbours, as the index holds it. */
export interface ContextualEntry {
  entry: IndexEntry
  context: string
}

/** What the index knows of an indexed document: the file version and the context it was given. */
function stamp(item: ContextualEntry): string {
  return item.context === '' ? item.entry.checksum : `${item.entry.checksum}:${createHash('sha1').update(item.context).digest('hex').slice(0, 16)}`
}


/** Per field, each term with its frequency, and each field's length: its unique terms (BM25's document length). */
function segmentDocOf(id: string, version: string, doc: IndexedDoc): SegmentDoc {
  const terms = FIELDS.map((field) => {
    const tokens = field === 'identifiers' ? doc.identifiers.split(' ').filter((t) => t !== '') : tokenize(doc[field])
    const tf = new Map<string, number>()
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1)
    return tf
  })
  return { id, stamp: version, lengths: terms.map((t) => t.size), terms }
}

export interface RankedDoc {
  readonly id: string
  readonly score: number
  /** Query terms (original or alias) this document matched, in query order. */
  readonly matched: string[]
}

/** How a ranking reaches back into its index: a slot's id and matched terms, an id's slot. */
interface Look {
  idOf(slot: number): string
  matchedOf(slot: number): string[]
  slotOf(id: string): number
}

/** A drawn document; its matched terms are looked up only when asked (most draws never ask). */
class Drawn implements RankedDoc {
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

export interface RankOptions {
  /** Draw (and count) only documents that matched a strong term, or with `qualifies`, a term it accepts. */
  strongOnly?: boolean
  qualifies?: (term: string) => boolean
  /**
   * Early termination, for a caller that draws until a document scores below its `depth`-th
   * best divided by `reach` (search.ts: top_k hits, each raised by a boost of at most `reach`).
   * The `depth` best come first from scoring only the documents whose bound can reach the
   * depth-th best (max-score over the per-term bounds the segments store); a caller drawing past
   * them gets those down to the depth-th best over `reach` the same way, and one drawing further
   * still the rest, in the same order, from scoring every posting. `count` and `get` stay exact.
   */
  top?: { depth: number; reach: number }
}

export interface SyncStats {
  added: number
  updated: number
  removed: number
}

/** A segment as the index holds it: its tombstones, its first slot, its file (written or not yet). */
interface Part {
  segment: Segment
  deleted: Uint8Array | null
  deletedCount: number
  file: string
  saved: boolean
  base: number
}

/** A document of the in-memory segment; `live` false once deleted or replaced. */
interface MemDoc extends SegmentDoc {
  live: boolean
}

/** Where a live document is: a segment and its number there, or the in-memory segment (part null). */
interface Location {
  part: Part | null
  doc: number
}

/** A segment as a save lists it: its file, and the documents deleted from it since it was written. */
export interface SavedSegment {
  file: string
  deleted: number[]
}

/** What a save writes: the new segments (bytes to put aside and rename), the list, the files no longer used. */
export interface SavePlan {
  write: Array<{ file: string; bytes: Buffer }>
  segments: SavedSegment[]
  drop: string[]
}

/** The in-memory segment is sealed into an immutable one at this many documents. */
const MEMORY_SEGMENT_DOCS = 4096
/** Segments of one size tier (powers of this) are merged this many at a time. */
const MERGE_FACTOR = 4
/** A segment with more of its documents deleted than this is rewritten without them. */
const MAX_DELETED_SHARE = 0.3
/** One save rewrites at most this many documents of segments already on disk: a merge is bounded. */
const MAX_SAVED_DOCS_MERGED_PER_SAVE = 4 * MAX_SEGMENT_DOCS

export const SEGMENT_VERSION: SegmentVersion = { format: SEARCH_INDEX_FORMAT, tokenizer: TOKENIZER_VERSION }

const liveDocs = (p: Part): number => p.segment.docCount - p.deletedCount
const tierOf = (live: number): number => (live <= 1 ? 0 : Math.floor(Math.log(live) / Math.log(MERGE_FACTOR)))

function openOwn(builder: SegmentBuilder): Segment {
  const segment = Segment.open(builder.encode(SEGMENT_VERSION), SEGMENT_VERSION)
  if (segment === null) throw new Error('a segment just encoded did not open')
  return segment
}

/** Per-slot accumulators of a query, kept between queries (reset over the slots a query touched). */
class Scratch {
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
const LENGTH_TABLE = 128

/**
 * One term's BM25+ contribution in one field, as minisearch computed it (the same operations in
 * the same order, so the same bits): weight * idf * (d + tf (k1 + 1) / (tf + k1 (1 - b + b len / avg))).
 * A term occurs once in most fields: those contributions are computed once per length.
 */
class FieldScore {
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
function addScore(s: Scratch, ti: number, count: number, slot: number, w: number): number {
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
function scoreRun(s: Scratch, ti: number, count: number, bm25: FieldScore, part: Part, field: number, from: number, to: number): number {
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

/** A ranking heaps at first only its candidates scoring at or above its this-many-th best. */
const FIRST_HEAP = 256

/** The k-th largest of values (1-based), by selection in place: O(n) on average. */
function kthLargest(values: Float64Array, k: number): number {
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

/** A query made ready for scoring. */
interface QueryPlan {
  terms: readonly string[]
  /** Term ti's number in part pi at pi * terms.length + ti (< 0: absent). */
  found: Int32Array
  /** Term ti's BM25 in ranked field f at ti * RANKED_FIELD_COUNT + f (null: no live document holds it there). */
  fieldScores: ReadonlyArray<FieldScore | null>
  /** 1 for a term that makes a document count under strongOnly. */
  qualifying: Uint8Array
}

/** How many terms, held by some live document in a ranked field, can make a document count. */
function drivingTerms(plan: QueryPlan, strongOnly: boolean): number {
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

/** A bound is raised, and a floor lowered, by this much: float rounding never prunes a document that reaches it. */
const BOUND_SLACK = 1e-9

/** The best `depth` scores kept so far (a min-heap) and the floor they set: the depth-th best over `reach`. */
class Floor {
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
function memScore(plan: QueryPlan, m: MemDoc): { score: number; strong: boolean; matches: number } {
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
class TopScratch {
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
class Cursors {
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

/** A ranking's first documents, exactly, and the score every document it left out stays under. */
interface Head {
  head: Ranking
  floor: number
}

/**
 * A ranking under RankOptions.top, in stages of growing depth, each computed only for a caller
 * drawing past the one before: first exactly the `depth` best documents (the floor their own
 * score), then every document that can reach the depth-th best over `reach`, then the rest of a
 * full ranking. Each stage's first documents are exactly the previous stage's (the same scores
 * in the same order), so a stage continues where the one before ran out.
 */
class TopRanking implements RankedDocs {
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

export class SearchIndex {
  private parts: Part[]
  private mem: MemDoc[] = []
  /** term -> the in-memory documents holding it in some field. */
  private memTerms = new Map<string, number[]>()
  private memBase = 0
  /** id -> where it is, built on first need (opening does not decode every id). */
  private locations: Map<string, Location> | null = null
  private live = 0
  private readonly totals = new Float64Array(FIELD_COUNT)
  /** Files of saved segments merged away since the last save. */
  private obsolete: string[] = []
  private scratch: Scratch | null = null

  private constructor(parts: Part[]) {
    this.parts = parts
    for (const p of parts) {
      const { lengths, docCount } = p.segment
      for (let d = 0; d < docCount; d++) {
        if (p.deleted !== null && p.deleted[d] === 1) continue
        this.live++
        for (let f = 0; f < FIELD_COUNT; f++) this.totals[f]! += lengths[d * FIELD_COUNT + f] as number
      }
    }
    this.renumber()
  }

  static empty(): SearchIndex {
    const index = new SearchIndex([])
    index.locations = new Map()
    return index
  }

  /** Opens saved segments with their tombstones; null when one is not intact or not of this version. */
  static open(saved: ReadonlyArray<{ file: string; bytes: Buffer; deleted: readonly number[] }>): SearchIndex | null {
    const parts: Part[] = []
    for (const s of saved) {
      const segment = Segment.open(s.bytes, SEGMENT_VERSION)
      if (segment === null) return null
      const part: Part = { segment, deleted: null, deletedCount: 0, file: s.file, saved: true, base: 0 }
      for (const d of s.deleted) {
        if (!Number.isInteger(d) || d < 0 || d >= segment.docCount) return null
        part.deleted ??= new Uint8Array(segment.docCount)
        if (part.deleted[d] === 0) (part.deleted[d] = 1), part.deletedCount++
      }
      parts.push(part)
    }
    return new SearchIndex(parts)
  }

  get size(): number {
    return this.live
  }

  /** What it holds: id -> the stamp (checksum, and context hash) of the entry as indexed. */
  stamps(): Map<string, string> {
    return new Map([...this.locs()].map(([id, loc]) => [id, this.stampAt(loc)]))
  }

  /** How many segments it has (the in-memory one not counted). */
  get segmentCount(): number {
    return this.parts.length
  }

  private renumber(): void {
    let base = 0
    for (const p of this.parts) {
      p.base = base
      base += p.segment.docCount
    }
    this.memBase = base
  }

  private locs(): Map<string, Location> {
    if (this.locations !== null) return this.locations
    const map = new Map<string, Location>()
    const put = (id: string, loc: Location): void => {
      // Two live copies of one id cannot come from this code; from a damaged list, the later one
      // stays and the sync by stamp that follows every load puts the right text back.
      const before = map.get(id)
      if (before !== undefined) this.kill(before)
      map.set(id, loc)
    }
    for (const part of this.parts) for (let d = 0; d < part.segment.docCount; d++) if (part.deleted === null || part.deleted[d] === 0) put(part.segment.id(d), { part, doc: d })
    this.mem.forEach((m, d) => m.live && put(m.id, { part: null, doc: d }))
    this.locations = map
    return map
  }

  private lengthsAt(loc: Location): ArrayLike<number> {
    if (loc.part === null) return (this.mem[loc.doc] as MemDoc).lengths
    return loc.part.segment.lengths.subarray(loc.doc * FIELD_COUNT, (loc.doc + 1) * FIELD_COUNT)
  }

  /** Tombstones a live document and takes it out of the statistics (not out of `locations`). */
  private kill(loc: Location): void {
    const lengths = this.lengthsAt(loc)
    if (loc.part === null) {
      const m = this.mem[loc.doc] as MemDoc
      if (!m.live) return
      m.live = false
    } else {
      const p = loc.part
      p.deleted ??= new Uint8Array(p.segment.docCount)
      if (p.deleted[loc.doc] === 1) return
      p.deleted[loc.doc] = 1
      p.deletedCount++
    }
    this.live--
    for (let f = 0; f < FIELD_COUNT; f++) this.totals[f]! -= lengths[f] as number
  }

  private addToMemory(doc: SegmentDoc): void {
    const n = this.mem.length
    this.mem.push({ ...doc, live: true })
    const seen = new Set<string>()
    for (const terms of doc.terms) for (const t of terms.keys()) seen.add(t)
    for (const t of seen) {
      const list = this.memTerms.get(t)
      if (list === undefined) this.memTerms.set(t, [n])
      else list.push(n)
    }
    this.live++
    for (let f = 0; f < FIELD_COUNT; f++) this.totals[f]! += doc.lengths[f] as number
    this.locs().set(doc.id, { part: null, doc: n })
    if (this.mem.length >= MEMORY_SEGMENT_DOCS) this.sealMemory()
  }

  /** Turns the in-memory segment into an immutable one (not yet written). */
  private sealMemory(): void {
    const builder = new SegmentBuilder()
    const moved: string[] = []
    for (const m of this.mem) {
      if (!m.live) continue
      builder.addDoc(m)
      moved.push(m.id)
    }
    this.mem = []
    this.memTerms = new Map()
    if (builder.size > 0) this.adopt(openOwn(builder), moved, [])
    else this.renumber()
  }

  /** Appends a segment built here, replacing the given parts; its documents, in order, have these ids. */
  private adopt(segment: Segment, ids: readonly string[], replaced: readonly Part[]): void {
    const part: Part = { segment, deleted: null, deletedCount: 0, file: `seg-${Date.now().toString(36)}-${randomBytes(6).toString('hex')}.bin`, saved: false, base: 0 }
    for (const r of replaced) if (r.saved) this.obsolete.push(r.file)
    this.parts = [...this.parts.filter((p) => !replaced.includes(p)), part]
    this.renumber()
    if (this.locations !== null) ids.forEach((id, doc) => this.locations?.set(id, { part, doc }))
  }

  private stampAt(loc: Location): string {
    return loc.part === null ? (this.mem[loc.doc] as MemDoc).stamp : loc.part.segment.stamp(loc.doc)
  }

  /** Brings one entry in step: indexed if searchable and changed, dropped if no longer searchable. */
  apply(item: ContextualEntry): 'added' | 'updated' | 'removed' | 'unchanged' {
    const { entry } = item
    const known = this.locs().get(entry.id)
    if (!isSearchable(entry)) return known === undefined ? 'unchanged' : (this.remove(entry.id), 'removed')
    const version = stamp(item)
    if (known !== undefined && this.stampAt(known) === version) return 'unchanged'
    if (known !== undefined) this.kill(known)
    this.addToMemory(segmentDocOf(entry.id, version, documentOf(entry, item.context)))
    return known === undefined ? 'added' : 'updated'
  }

  remove(id: string): boolean {
    const locs = this.locs()
    const loc = locs.get(id)
    if (loc === undefined) return false
    this.kill(loc)
    locs.delete(id)
    return true
  }

  /** Makes the index match a full set of entries (after a load or an outside change). */
  sync(items: Iterable<ContextualEntry>): SyncStats {
    const stats: SyncStats = { added: 0, updated: 0, removed: 0 }
    const seen = new Set<string>()
    for (const item of items) {
      seen.add(item.entry.id)
      const r = this.apply(item)
      if (r !== 'unchanged') stats[r]++
    }
    for (const id of [...this.locs().keys()]) if (!seen.has(id) && this.remove(id)) stats.removed++
    return stats
  }

  private partOfSlot(slot: number): Part {
    let lo = 0
    let hi = this.parts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if ((this.parts[mid] as Part).base <= slot) lo = mid
      else hi = mid - 1
    }
    return this.parts[lo] as Part
  }

  private idOf(slot: number): string {
    if (slot >= this.memBase) return (this.mem[slot - this.memBase] as MemDoc).id
    const p = this.partOfSlot(slot)
    return p.segment.id(slot - p.base)
  }

  private slotOf(id: string): number {
    const loc = this.locs().get(id)
    if (loc === undefined) return -1
    return loc.part === null ? this.memBase + loc.doc : loc.part.base + loc.doc
  }

  private scratchFor(slots: number): Scratch {
    if (this.scratch === null || this.scratch.capacity < slots) this.scratch = new Scratch(Math.max(slots, Math.ceil((this.scratch?.capacity ?? 0) * 1.5), 1024))
    return this.scratch
  }

  /** Live documents holding the term, per ranked field, into `df`; `found(pi)` is its number in part pi (< 0: absent). */
  private fieldDocCounts(term: string, found: (pi: number) => number, df: Float64Array): void {
    const parts = this.parts
    df.fill(0)
    for (let pi = 0; pi < parts.length; pi++) {
      const t = found(pi)
      if (t < 0) continue
      const { segment, deleted } = parts[pi] as Part
      for (let f = 0; f < RANKED_FIELD_COUNT; f++) {
        const from = segment.starts[t * FIELD_COUNT + f] as number
        const to = segment.starts[t * FIELD_COUNT + f + 1] as number
        if (deleted === null) df[f]! += to - from
        else for (let i = from; i < to; i++) if (deleted[segment.docs[i] as number] === 0) df[f]!++
      }
    }
    const memList = this.memTerms.get(term)
    if (memList !== undefined)
      for (const doc of memList) {
        const m = this.mem[doc] as MemDoc
        if (m.live) for (let f = 0; f < RANKED_FIELD_COUNT; f++) if ((m.terms[f] as Map<string, number>).has(term)) df[f]!++
      }
  }

  /** How many live documents hold the term, in the ranked field where most do (a measure of its rarity). */
  documentFrequency(term: string): number {
    const key = Buffer.from(term, 'utf8')
    const df = new Float64Array(RANKED_FIELD_COUNT)
    this.fieldDocCounts(term, (pi) => (this.parts[pi] as Part).segment.findTerm(key), df)
    let most = 0
    for (const n of df) most = Math.max(most, n)
    return most
  }

  /** Each term's number in each segment, and its BM25 per ranked field (null: no live document holds it there). */
  private planOf(terms: readonly string[], weights: ReadonlyMap<string, number>, qualifies: (term: string) => boolean): QueryPlan {
    const n = this.live
    const parts = this.parts
    const T = terms.length
    const found = new Int32Array(parts.length * T)
    const fieldScores: Array<FieldScore | null> = []
    const qualifying = new Uint8Array(T)
    const df = new Float64Array(RANKED_FIELD_COUNT)
    for (let ti = 0; ti < T; ti++) {
      const term = terms[ti] as string
      const key = Buffer.from(term, 'utf8')
      for (let pi = 0; pi < parts.length; pi++) found[pi * T + ti] = (parts[pi] as Part).segment.findTerm(key)
      this.fieldDocCounts(term, (pi) => found[pi * T + ti] as number, df)
      const boost = weights.get(term) ?? 1
      for (let f = 0; f < RANKED_FIELD_COUNT; f++) {
        const dff = df[f] as number
        fieldScores.push(dff === 0 ? null : new FieldScore(boost * (FIELD_WEIGHTS[f] as number), Math.log(1 + (n - dff + 0.5) / (dff + 0.5)), (this.totals[f] as number) / n))
      }
      if (qualifies(term)) qualifying[ti] = 1
    }
    return { terms, found, fieldScores, qualifying }
  }

  /**
   * BM25 over the given distinct terms, each multiplied by its weight (1 unless given), across
   * every segment, restricted to ids the filter accepts (all, without one): a ranking to draw
   * best first (RankOptions: strongOnly, early termination).
   */
  rank(terms: readonly string[], weights: ReadonlyMap<string, number>, accept: ((id: string) => boolean) | null, options: RankOptions = {}): RankedDocs {
    if (terms.length === 0 || this.live === 0) return Ranking.empty()
    const plan = this.planOf(terms, weights, options.qualifies ?? isStrongTerm)
    const strongOnly = options.strongOnly === true
    const look: Look = { idOf: (x) => this.idOf(x), matchedOf: (slot) => this.matchedAt(slot, terms, plan.found), slotOf: (id) => this.slotOf(id) }
    const top = options.top
    if (top === undefined || drivingTerms(plan, strongOnly) === 0) return this.rankAll(plan, accept, strongOnly, look)
    const deeper = [() => this.rankTop(plan, accept, strongOnly, top, look), () => ({ head: this.rankAll(plan, accept, strongOnly, look), floor: -Infinity })]
    const first = this.rankTop(plan, accept, strongOnly, { depth: top.depth, reach: 1 }, look)
    return new TopRanking(first, deeper, this.countMatched(plan, accept, strongOnly), (id) => this.scoredById(plan, accept, id, look))
  }

  /** Every posting of every term scored, term at a time. */
  private rankAll(plan: QueryPlan, accept: ((id: string) => boolean) | null, strongOnly: boolean, look: Look): Ranking {
    const parts = this.parts
    const { terms, found, fieldScores, qualifying } = plan
    const T = terms.length
    const s = this.scratchFor(this.memBase + this.mem.length)
    const { acc, termScore, matchCount, strong, touched, termTouched, termMark } = s
    let touchedCount = 0
    for (let ti = 0; ti < T; ti++) {
      const term = terms[ti] as string
      const memList = this.memTerms.get(term)
      let termTouchedCount = 0
      // Field by field, each term's part summed apart and then added to the document's score, in
      // the order minisearch added them, so scores are the same to the last bit.
      for (let f = 0; f < RANKED_FIELD_COUNT; f++) {
        const bm25 = fieldScores[ti * RANKED_FIELD_COUNT + f] as FieldScore | null
        if (bm25 === null) continue
        for (let pi = 0; pi < parts.length; pi++) {
          const t = found[pi * T + ti] as number
          if (t < 0) continue
          const part = parts[pi] as Part
          const at = t * FIELD_COUNT + f
          termTouchedCount = scoreRun(s, ti, termTouchedCount, bm25, part, f, part.segment.starts[at] as number, part.segment.starts[at + 1] as number)
        }
        if (memList !== undefined)
          for (const doc of memList) {
            const m = this.mem[doc] as MemDoc
            const tf = m.live ? (m.terms[f] as Map<string, number>).get(term) : undefined
            if (tf !== undefined) termTouchedCount = addScore(s, ti, termTouchedCount, this.memBase + doc, bm25.of(tf, m.lengths[f] as number))
          }
      }
      const isStrong = qualifying[ti] === 1
      for (let j = 0; j < termTouchedCount; j++) {
        const slot = termTouched[j] as number
        if (matchCount[slot] === 0) {
          acc[slot] = termScore[slot] as number
          touched[touchedCount++] = slot
        } else acc[slot]! += termScore[slot] as number
        matchCount[slot]!++
        if (isStrong) strong[slot] = 1
      }
    }
    const slots = new Int32Array(touchedCount)
    const scores = new Float64Array(touchedCount)
    const strongOf = new Uint8Array(touchedCount)
    let size = 0
    for (let j = 0; j < touchedCount; j++) {
      const slot = touched[j] as number
      // minisearch's final score: the sum times the number of query terms matched.
      const score = (acc[slot] as number) * (matchCount[slot] as number)
      const isStrong = strong[slot] as number
      acc[slot] = 0
      matchCount[slot] = 0
      strong[slot] = 0
      termMark[slot] = -1
      if (accept !== null && !accept(this.idOf(slot))) continue
      slots[size] = slot
      scores[size] = score
      strongOf[size] = isStrong
      size++
    }
    return new Ranking(slots, scores, strongOf, size, strongOnly, look)
  }

  /**
   * The documents that can still be drawn under RankOptions.top, best first, max-score style,
   * segment by segment: the terms whose bounds together cannot lift a document to the floor
   * (the depth-th best so far over reach) drive nothing, only documents on the other terms'
   * postings are bounded and scored, and the floor rises as documents are kept. Every document
   * not returned scores under the floor returned.
   */
  private rankTop(plan: QueryPlan, accept: ((id: string) => boolean) | null, strongOnly: boolean, top: { depth: number; reach: number }, look: Look): Head {
    const floor = new Floor(top.depth, top.reach)
    const slots: number[] = []
    const scores: number[] = []
    const keep = (slot: number, score: number): void => {
      if (score < floor.value || (accept !== null && !accept(this.idOf(slot)))) return
      slots.push(slot)
      scores.push(score)
      floor.offer(score)
    }
    const seen = this.markScratch()
    this.topScratch ??= new TopScratch()
    const scratch = this.topScratch
    this.parts.forEach((part, pi) => {
      new Cursors(plan, pi, part.segment, part.deleted, part.base, strongOnly).run(floor, keep, seen, scratch)
      seen.fill(0, 0, part.segment.docCount)
    })
    for (const doc of this.memCandidates(plan, strongOnly)) {
      const { score, strong } = memScore(plan, this.mem[doc] as MemDoc)
      if (!strongOnly || strong) keep(this.memBase + doc, score)
    }
    // Those kept before the floor last rose may be under it now.
    const out = new Int32Array(slots.length)
    const outScores = new Float64Array(slots.length)
    let size = 0
    for (let i = 0; i < slots.length; i++) {
      if ((scores[i] as number) < floor.value) continue
      out[size] = slots[i] as number
      outScores[size] = scores[i] as number
      size++
    }
    return { head: new Ranking(out, outScores, new Uint8Array(size).fill(1), size, false, look), floor: floor.value }
  }

  /** The live in-memory documents holding a term that can make a document count (all terms without strongOnly). */
  private memCandidates(plan: QueryPlan, strongOnly: boolean): Set<number> {
    const docs = new Set<number>()
    plan.terms.forEach((term, ti) => {
      if (strongOnly && plan.qualifying[ti] === 0) return
      for (const doc of this.memTerms.get(term) ?? []) if ((this.mem[doc] as MemDoc).live) docs.add(doc)
    })
    return docs
  }

  /** How many live documents, accepted, matched a term in a ranked field (with strongOnly: a qualifying term). */
  private countMatched(plan: QueryPlan, accept: ((id: string) => boolean) | null, strongOnly: boolean): number {
    const { terms, found, fieldScores, qualifying } = plan
    const T = terms.length
    let count = 0
    const seen = this.markScratch()
    this.parts.forEach(({ segment, deleted }, pi) => {
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
    for (const doc of this.memCandidates(plan, strongOnly)) {
      const m = this.mem[doc] as MemDoc
      const inRanked = terms.some((term, ti) => (!strongOnly || qualifying[ti] === 1) && m.terms.slice(0, RANKED_FIELD_COUNT).some((f) => f.has(term)))
      if (inRanked && (accept === null || accept(m.id))) count++
    }
    return count
  }

  private marks: Uint8Array | null = null
  private topScratch: TopScratch | null = null

  private markScratch(): Uint8Array {
    this.marks ??= new Uint8Array(MAX_SEGMENT_DOCS)
    return this.marks
  }

  /** One document's score and matched terms, when it is live, accepted and matched a term. */
  private scoredById(plan: QueryPlan, accept: ((id: string) => boolean) | null, id: string, look: Look): RankedDoc | undefined {
    const slot = this.slotOf(id)
    if (slot < 0 || (accept !== null && !accept(id))) return undefined
    if (slot >= this.memBase) {
      const { score, matches } = memScore(plan, this.mem[slot - this.memBase] as MemDoc)
      return matches === 0 ? undefined : new Drawn(id, score, slot, look)
    }
    const pi = this.parts.indexOf(this.partOfSlot(slot))
    const part = this.parts[pi] as Part
    const cursors = new Cursors(plan, pi, part.segment, part.deleted, part.base, false)
    const score = cursors.scoreDoc(slot - part.base)
    return cursors.matches === 0 ? undefined : new Drawn(id, score, slot, look)
  }

  /** The query terms a document matched in a ranked field, in query order. */
  private matchedAt(slot: number, terms: readonly string[], found: Int32Array): string[] {
    const out: string[] = []
    if (slot >= this.memBase) {
      const m = this.mem[slot - this.memBase] as MemDoc
      for (const term of terms) if (m.terms.slice(0, RANKED_FIELD_COUNT).some((t) => t.has(term))) out.push(term)
      return out
    }
    const pi = this.parts.indexOf(this.partOfSlot(slot))
    const { segment, base } = this.parts[pi] as Part
    terms.forEach((term, ti) => {
      const t = found[pi * terms.length + ti] as number
      if (t < 0) return
      for (let f = 0; f < RANKED_FIELD_COUNT; f++) {
        if (segment.findDoc(segment.starts[t * FIELD_COUNT + f] as number, segment.starts[t * FIELD_COUNT + f + 1] as number, slot - base) >= 0) {
          out.push(term)
          return
        }
      }
    })
    return out
  }

  /**
   * Documents holding any of these identifiers (identifiers.ts output), exactly, as whole
   * tokens: id -> the identifiers it shares. Restricted to ids the filter accepts, as `rank`.
   */
  literal(identifiers: readonly string[], accept: ((id: string) => boolean) | null): Map<string, string[]> {
    const out = new Map<string, string[]>()
    const note = (id: string, ident: string): void => {
      const have = out.get(id)
      if (have !== undefined) have.push(ident)
      else if (accept === null || accept(id)) out.set(id, [ident])
    }
    for (const ident of new Set(identifiers)) {
      const key = Buffer.from(ident, 'utf8')
      for (const { segment, deleted } of this.parts) {
        const t = segment.findTerm(key)
        if (t < 0) continue
        const to = segment.starts[t * FIELD_COUNT + IDENTIFIERS + 1] as number
        for (let i = segment.starts[t * FIELD_COUNT + IDENTIFIERS] as number; i < to; i++) {
          const doc = segment.docs[i] as number
          if (deleted === null || deleted[doc] === 0) note(segment.id(doc), ident)
        }
      }
      for (const doc of this.memTerms.get(ident) ?? []) {
        const m = this.mem[doc] as MemDoc
        if (m.live && (m.terms[IDENTIFIERS] as Map<string, number>).has(ident)) note(m.id, ident)
      }
    }
    return out
  }

  /** Merges parts into one new segment, leaving their deleted documents behind. */
  private merge(group: readonly Part[]): void {
    const builder = new SegmentBuilder()
    const ids: string[] = []
    const renumbered = group.map(({ segment, deleted }) => {
      const to = new Int32Array(segment.docCount).fill(-1)
      for (let d = 0; d < segment.docCount; d++) {
        if (deleted !== null && deleted[d] === 1) continue
        const id = segment.id(d)
        to[d] = builder.startDoc(id, segment.stamp(d), segment.lengths.subarray(d * FIELD_COUNT, (d + 1) * FIELD_COUNT))
        ids.push(id)
      }
      return to
    })
    group.forEach(({ segment }, gi) => {
      const to = renumbered[gi] as Int32Array
      for (let t = 0; t < segment.termCount; t++) {
        const term = segment.term(t)
        for (let f = 0; f < FIELD_COUNT; f++) {
          const end = segment.starts[t * FIELD_COUNT + f + 1] as number
          for (let i = segment.starts[t * FIELD_COUNT + f] as number; i < end; i++) {
            const doc = to[segment.docs[i] as number] as number
            if (doc >= 0) builder.posting(term, f, doc, segment.tfs[i] as number)
          }
        }
      }
    })
    this.adopt(openOwn(builder), ids, group)
  }

  /**
   * The next merge, or null: a segment with too many tombstones alone, or MERGE_FACTOR segments
   * of the lowest size tier that has that many (as many as fit in one segment). Segments already
   * on disk count against the budget; those not yet written are merged freely (written once).
   */
  private nextMerge(budget: number): Part[] | null {
    const cost = (ps: readonly Part[]): number => ps.reduce((sum, p) => sum + (p.saved ? p.segment.docCount : 0), 0)
    const heavy = this.parts.find((p) => p.deletedCount > p.segment.docCount * MAX_DELETED_SHARE && cost([p]) <= budget)
    if (heavy !== undefined) return [heavy]
    const tiers = new Map<number, Part[]>()
    for (const p of this.parts) {
      const live = liveDocs(p)
      if (live * 2 > MAX_SEGMENT_DOCS) continue
      const tier = tierOf(live)
      tiers.set(tier, [...(tiers.get(tier) ?? []), p])
    }
    for (const tier of [...tiers.keys()].sort((x, y) => x - y)) {
      const members = (tiers.get(tier) as Part[]).sort((x, y) => liveDocs(x) - liveDocs(y))
      if (members.length < MERGE_FACTOR) continue
      const group: Part[] = []
      let docs = 0
      for (const p of members) {
        if (group.length === MERGE_FACTOR || docs + liveDocs(p) > MAX_SEGMENT_DOCS || cost([...group, p]) > budget) break
        group.push(p)
        docs += liveDocs(p)
      }
      if (group.length >= 2) return group
    }
    return null
  }

  /**
   * Seals the in-memory segment, runs the merge policy (bounded), and says what to write. The
   * index stays usable meanwhile; `saved` marks what the plan wrote once it is on disk.
   */
  prepareSave(): SavePlan {
    this.sealMemory()
    let budget = MAX_SAVED_DOCS_MERGED_PER_SAVE
    for (let group = this.nextMerge(budget); group !== null; group = this.nextMerge(budget)) {
      budget -= group.reduce((sum, p) => sum + (p.saved ? p.segment.docCount : 0), 0)
      this.merge(group)
    }
    const deletedOf = (p: Part): number[] => {
      const out: number[] = []
      if (p.deleted !== null) p.deleted.forEach((x, doc) => x === 1 && out.push(doc))
      return out
    }
    return {
      write: this.parts.filter((p) => !p.saved).map((p) => ({ file: p.file, bytes: p.segment.bytes })),
      segments: this.parts.map((p) => ({ file: p.file, deleted: deletedOf(p) })),
      drop: [...this.obsolete],
    }
  }

  /** The plan is on disk: its segments are saved, the files it dropped are gone. */
  saved(plan: SavePlan): void {
    const written = new Set(plan.write.map((w) => w.file))
    for (const p of this.parts) if (written.has(p.file)) p.saved = true
    this.obsolete = this.obsolete.filter((f) => !plan.drop.includes(f))
  }
}
