/**
 * The full-text index over the summary layer (title, summary, tags, entities) of searchable
 * memories, BM25 with the project's tokenizer, built for start-up and scale: immutable segments in
 * a binary layout (segment.ts) opened with typed-array views, a small in-memory segment for
 * recent changes, deletions as tombstones, a bounded merge policy run when the index is saved,
 * BM25 statistics (documents, average field lengths, document frequencies) taken across every
 * segment, and top-k drawn lazily from a heap, with early termination when the caller says how
 * deep it will draw (RankOptions.top: max-score over the bounds the segments store per term,
 * field and block of postings, then the full scoring for a caller drawing past it; exact). It scores exactly as the
 * minisearch index it replaced (field weights, BM25+, the score times the number of query terms
 * matched), so rankings stay the same. Kept in step with the index entries incrementally (by checksum stamp).
 *
 * It ranks; it does not decide what is eligible (search.ts does) and it never touches files
 * (segment-files.ts saves and opens it). Scoring is search-scoring.ts's, what a query hands out
 * search-ranking.ts's, what it holds of an entry search-document.ts's, what a save merges search-merge.ts's.
 */

import { randomBytes } from 'node:crypto'
import { TOKENIZER_VERSION, isStrongTerm } from '../language/tokenizer.js'
import { FIELD_COUNT, MAX_SEGMENT_DOCS, Segment, SegmentBuilder, type SegmentDoc, type SegmentVersion } from './segment.js'
import { IDENTIFIERS, documentOf, isSearchable, segmentDocOf, stampOf, type ContextualEntry } from './search-document.js'
import { MAX_SAVED_DOCS_MERGED_PER_SAVE, mergeParts, nextMerge, savePlanOf, type SavePlan } from './search-merge.js'
import { Cursors, countSegmentMatches, drivingTerms, FieldScore, Floor, memScore, RANKED_FIELD_COUNT, RANKING, Scratch, addScore, scoreRun, TopScratch, type MemDoc, type Part, type QueryPlan } from './search-scoring.js'
import { Drawn, Ranking, TopRanking, type Head, type Look, type RankedDoc, type RankedDocs } from './search-ranking.js'

export { RANKING } from './search-scoring.js'
export { documentOf, isSearchable, slotKeywords, type ContextualEntry } from './search-document.js'
export type { SavedSegment, SavePlan } from './search-merge.js'
export type { RankedDoc, RankedDocs } from './search-ranking.js'

/** Bump when the document shape or field set changes (3: the identifiers field; 4: the slot key among the keywords). */
export const SEARCH_INDEX_FORMAT = 4

const FIELD_WEIGHTS = [RANKING.fieldWeights.content, RANKING.fieldWeights.keywords, RANKING.fieldWeights.context]

export interface RankOptions {
  /** Draw (and count) only documents that matched a strong term, or with `qualifies`, a term it accepts. */
  strongOnly?: boolean
  qualifies?: (term: string) => boolean
  /**
   * Early termination, for a caller that draws until a document scores below its `depth`-th
   * best divided by `reach` (search.ts: top_k hits, each raised by a boost of at most `reach`).
   * The documents down to the depth-th best over `reach` come first, from scoring only the
   * documents whose bound can reach that (max-score over the per-term bounds the segments
   * store); a caller drawing further gets the rest, in the same order, from scoring every
   * posting. `count` and `get` stay exact.
   */
  top?: { depth: number; reach: number }
}

export interface SyncStats {
  added: number
  updated: number
  removed: number
}

/** Where a live document is: a segment and its number there, or the in-memory segment (part null). */
interface Location {
  part: Part | null
  doc: number
}

/** The in-memory segment is sealed into an immutable one at this many documents. */
const MEMORY_SEGMENT_DOCS = 4096

export const SEGMENT_VERSION: SegmentVersion = { format: SEARCH_INDEX_FORMAT, tokenizer: TOKENIZER_VERSION }

function openOwn(builder: SegmentBuilder): Segment {
  const segment = Segment.open(builder.encode(SEGMENT_VERSION), SEGMENT_VERSION)
  if (segment === null) throw new Error('a segment just encoded did not open')
  return segment
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
    const version = stampOf(item)
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
    // One walk down to the depth-th best over reach: a caller that draws as search.ts does goes
    // past the depth best almost always (its bar is under their floor unless all are boosted to
    // the full reach), so a walk of their own first would only be done twice.
    const deeper = [() => ({ head: this.rankAll(plan, accept, strongOnly, look), floor: -Infinity })]
    const first = this.rankTop(plan, accept, strongOnly, top, look)
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
    const { terms, qualifying } = plan
    let count = countSegmentMatches(plan, this.parts, accept, strongOnly, this.markScratch())
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
    const { builder, ids } = mergeParts(group)
    this.adopt(openOwn(builder), ids, group)
  }

  /**
   * Seals the in-memory segment, runs the merge policy (bounded), and says what to write. The
   * index stays usable meanwhile; `saved` marks what the plan wrote once it is on disk.
   */
  prepareSave(): SavePlan {
    this.sealMemory()
    let budget = MAX_SAVED_DOCS_MERGED_PER_SAVE
    for (let group = nextMerge(this.parts, budget); group !== null; group = nextMerge(this.parts, budget)) {
      budget -= group.reduce((sum, p) => sum + (p.saved ? p.segment.docCount : 0), 0)
      this.merge(group)
    }
    return savePlanOf(this.parts, this.obsolete)
  }

  /** The plan is on disk: its segments are saved, the files it dropped are gone. */
  saved(plan: SavePlan): void {
    const written = new Set(plan.write.map((w) => w.file))
    for (const p of this.parts) if (written.has(p.file)) p.saved = true
    this.obsolete = this.obsolete.filter((f) => !plan.drop.includes(f))
  }
}
