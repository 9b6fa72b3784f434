/**
 * The search index's merge policy (search-index.ts): which segments a save merges (size tiers of
 * MERGE_FACTOR, a segment heavy with tombstones alone, a bounded rewrite of what is already on
 * disk) and the merged segment's documents and postings, deleted documents left behind. Pure
 * over the parts it is handed.
 */

import { FIELD_COUNT, MAX_SEGMENT_DOCS, SegmentBuilder } from './segment.js'
import type { Part } from './search-scoring.js'

/** Segments of one size tier (powers of this) are merged this many at a time. */
const MERGE_FACTOR = 4
/** A segment with more of its documents deleted than this is rewritten without them. */
const MAX_DELETED_SHARE = 0.3
/** One save rewrites at most this many documents of segments already on disk: a merge is bounded. */
export const MAX_SAVED_DOCS_MERGED_PER_SAVE = 4 * MAX_SEGMENT_DOCS

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

const liveDocs = (p: Part): number => p.segment.docCount - p.deletedCount
const tierOf = (live: number): number => (live <= 1 ? 0 : Math.floor(Math.log(live) / Math.log(MERGE_FACTOR)))

/** The segment merging these parts makes, leaving their deleted documents behind, and its documents' ids in order. */
export function mergeParts(group: readonly Part[]): { builder: SegmentBuilder; ids: string[] } {
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
  return { builder, ids }
}

/**
 * The next merge, or null: a segment with too many tombstones alone, or MERGE_FACTOR segments
 * of the lowest size tier that has that many (as many as fit in one segment). Segments already
 * on disk count against the budget; those not yet written are merged freely (written once).
 */
export function nextMerge(parts: readonly Part[], budget: number): Part[] | null {
  const cost = (ps: readonly Part[]): number => ps.reduce((sum, p) => sum + (p.saved ? p.segment.docCount : 0), 0)
  const heavy = parts.find((p) => p.deletedCount > p.segment.docCount * MAX_DELETED_SHARE && cost([p]) <= budget)
  if (heavy !== undefined) return [heavy]
  const tiers = new Map<number, Part[]>()
  for (const p of parts) {
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

/** What a save of these parts writes: those not on disk yet, the list with each one's tombstones, the files merged away. */
export function savePlanOf(parts: readonly Part[], obsolete: readonly string[]): SavePlan {
  const deletedOf = (p: Part): number[] => {
    const out: number[] = []
    if (p.deleted !== null) p.deleted.forEach((x, doc) => x === 1 && out.push(doc))
    return out
  }
  return {
    write: parts.filter((p) => !p.saved).map((p) => ({ file: p.file, bytes: p.segment.bytes })),
    segments: parts.map((p) => ({ file: p.file, deleted: deletedOf(p) })),
    drop: [...obsolete],
  }
}
