/**
 * Three-way merges that git cannot do well, as pure functions of (base, ours, theirs) text:
 *
 * - the ledger: both sides only append, so the result is our lines followed by the lines only
 *   they added. A line both sides added (git's union driver would keep it twice) is kept once.
 * - a memory file both sides changed: front-matter field by field and the body as a whole. Lists
 *   (sources, tags, entities, variants, anchors, moved_from) merge as sets; a version pointer both
 *   sides set differently takes the later id; a status both sides changed takes the more final
 *   one; a room location both sides changed takes the smaller. Anything else that both sides
 *   changed differently (the body, the title, the key...) is a conflict of content, which the
 *   caller keeps as two memories.
 *
 * Never produces conflict markers: the answer is a merged text or "conflict".
 */

import { parseFile, renderFile } from '../store/frontmatter.js'

function ledgerLines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '')
}

function counts(lines: readonly string[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const l of lines) m.set(l, (m.get(l) ?? 0) + 1)
  return m
}

/** Lines of `lines` beyond those in `minus` (as multisets), in order. */
function beyond(lines: readonly string[], minus: Map<string, number>): string[] {
  const left = new Map(minus)
  const out: string[] = []
  for (const l of lines) {
    const n = left.get(l) ?? 0
    if (n > 0) left.set(l, n - 1)
    else out.push(l)
  }
  return out
}

/** Our ledger plus the lines only they appended, each line as many times as one side has it. */
export function mergeLedgerText(base: string, ours: string, theirs: string): string {
  const baseLines = counts(ledgerLines(base))
  const ourLines = ledgerLines(ours)
  const ourNew = counts(beyond(ourLines, baseLines))
  const theirNew = beyond(ledgerLines(theirs), baseLines)
  const merged = [...ourLines, ...beyond(theirNew, ourNew)]
  return merged.length === 0 ? '' : `${merged.join('\n')}\n`
}

export type MemoryMerge = { kind: 'merged'; text: string } | { kind: 'conflict'; reason: string }

/** Fields whose values are sets: both sides' additions are kept, either side's removals too. */
const SET_FIELDS: ReadonlySet<string> = new Set(['sources', 'tags', 'entities', 'variants', 'anchors', 'moved_from'])
/** Version pointers: when both sides point elsewhere, the later id (ids start with their time) wins. */
const POINTER_FIELDS: ReadonlySet<string> = new Set(['supersedes', 'superseded_by'])
/**
 * When both sides moved the same text to different statuses, the more final one wins: a forget
 * over everything, a newer version over a conflict, a conflict over a plain current version, a
 * current version over a pending one. The slot is put right after the merge (`conflicts.ts`).
 */
const STATUS_RANK: readonly string[] = ['suggested', 'active', 'conflict', 'archived', 'superseded', 'orphaned', 'deleted_pending']

/** JSON with sorted keys: equality of parsed YAML values. */
function canonical(value: unknown): string {
  if (value === undefined) return 'undefined'
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Date) return v
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  })
}

const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b)

function asList(value: unknown): unknown[] | null {
  if (value === undefined || value === null) return []
  return Array.isArray(value) ? value : null
}

/** Three-way set merge: (ours ∪ theirs) without what either side removed from base; ours' order first. */
function mergeSet(base: unknown, ours: unknown, theirs: unknown): unknown[] | null {
  const [b, o, t] = [asList(base), asList(ours), asList(theirs)]
  if (b === null || o === null || t === null) return null
  const keys = (list: unknown[]) => new Set(list.map(canonical))
  const [bk, ok, tk] = [keys(b), keys(o), keys(t)]
  const removed = new Set([...bk].filter((k) => !ok.has(k) || !tk.has(k)))
  const out: unknown[] = []
  const seen = new Set<string>()
  for (const v of [...o, ...t]) {
    const k = canonical(v)
    if (removed.has(k) || seen.has(k)) continue
    seen.add(k)
    out.push(v)
  }
  return out
}

/** The three-way choice for one value: undefined result means both sides changed it differently. */
function pick<T>(base: T | undefined, hasBase: boolean, ours: T, theirs: T): { value: T } | null {
  if (same(ours, theirs)) return { value: ours }
  if (hasBase && same(base, ours)) return { value: theirs }
  if (hasBase && same(base, theirs)) return { value: ours }
  return null
}

/**
 * Merges a memory file that both sides changed. `base` is null when both sides added the file
 * (no common version). A file without front-matter on either side merges only when one side
 * kept it as it was.
 */
export function mergeMemoryText(base: string | null, ours: string, theirs: string): MemoryMerge {
  if (ours === theirs) return { kind: 'merged', text: ours }
  if (base !== null && base === ours) return { kind: 'merged', text: theirs }
  if (base !== null && base === theirs) return { kind: 'merged', text: ours }
  const o = parseFile(ours)
  const t = parseFile(theirs)
  const b = base === null ? null : parseFile(base)
  if (!o.hasFrontMatter || !t.hasFrontMatter) return { kind: 'conflict', reason: 'both sides changed a file without front-matter' }
  const body = pick(b?.body, b !== null, o.body, t.body)
  if (body === null) return { kind: 'conflict', reason: 'both sides changed the text' }
  const data: Record<string, unknown> = {}
  const fields = [...new Set([...Object.keys(o.data), ...Object.keys(t.data)])]
  for (const field of fields) {
    const [bv, ov, tv] = [b?.data[field], o.data[field], t.data[field]]
    const chosen = pick(bv, b !== null, ov, tv)
    if (chosen !== null) {
      data[field] = chosen.value
      continue
    }
    if (SET_FIELDS.has(field)) {
      const merged = mergeSet(bv, ov, tv)
      if (merged !== null) {
        data[field] = merged
        continue
      }
    }
    if (POINTER_FIELDS.has(field) && (typeof ov === 'string' || ov == null) && (typeof tv === 'string' || tv == null)) {
      const ids = [ov, tv].filter((v): v is string => typeof v === 'string').sort()
      data[field] = ids[ids.length - 1] ?? null
      continue
    }
    // Two clones that both moved a memory off a shared slot (sync/room-repair.ts): the smaller
    // location stands, on every clone alike; the other slot stays given, empty.
    if (field === 'location' && typeof ov === 'string' && typeof tv === 'string') {
      data[field] = ov < tv ? ov : tv
      continue
    }
    if (field === 'status' && STATUS_RANK.includes(String(ov)) && STATUS_RANK.includes(String(tv))) {
      data[field] = STATUS_RANK.indexOf(String(ov)) > STATUS_RANK.indexOf(String(tv)) ? ov : tv
      continue
    }
    return { kind: 'conflict', reason: `both sides changed ${field}` }
  }
  // Variants belong to a conflict: a memory that is no longer in one keeps none.
  if (data.status !== 'conflict') delete data.variants
  return { kind: 'merged', text: renderFile(data, body.value) }
}
