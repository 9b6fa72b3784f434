/**
 * Restatements: active memories whose summaries say the same thing (character 2-gram Jaccard at
 * least NEAR_DUPLICATE_THRESHOLD, the write path's own rule, but across slots and types, where
 * hand edits, imports and git merges leave them). Owns the grouping, the survivor preference
 * shared with the merge, and the read-only duplicates report; it never writes.
 *
 * Groups are the connected parts of the "restates" relation. Pairs are found with a prefix
 * filter (rarest 2-grams first, so two sets that reach the threshold must share a prefix 2-gram)
 * and then checked exactly, so the report is complete without comparing every pair.
 * A group is `mixedPremises` when two of its members state premises that conflict
 * (src/store/premises.ts): they are not duplicates but one claim under two conditions.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { detailsOf, parseFile } from '../../store/frontmatter.js'
import type { IndexLookup } from '../../store/index-view.js'
import { comparePremises } from '../../store/premises.js'
import { isSearchable } from '../../retrieve/search-index.js'
import { bigramJaccard, bigramSet } from '../../text.js'
import type { IndexEntry } from '../../types.js'
import { readUsage } from './signals.js'
import { NEAR_DUPLICATE_THRESHOLD } from '../writing/write.js'

/** Only active, searchable memories can be folded: the rest are gated, replaced, forgotten, in a declared conflict, or unreadable. */
export function mergeable(e: IndexEntry): boolean {
  return isSearchable(e) && e.status === 'active'
}

/**
 * The groups of entries that restate one another (each group at least two, members in input
 * order). Pure.
 */
export function restatementGroups(entries: readonly IndexEntry[], threshold = NEAR_DUPLICATE_THRESHOLD): IndexEntry[][] {
  const sets = entries.map((e) => [...bigramSet(e.summary)])
  const df = new Map<string, number>()
  for (const set of sets) for (const g of set) df.set(g, (df.get(g) ?? 0) + 1)
  const rarestFirst = (a: string, b: string) => (df.get(a) ?? 0) - (df.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0)
  for (const set of sets) set.sort(rarestFirst)

  const parent = entries.map((_, i) => i)
  const find = (i: number): number => {
    let root = i
    while (parent[root] !== root) root = parent[root] as number
    for (let at = i; parent[at] !== root; ) {
      const next = parent[at] as number
      parent[at] = root
      at = next
    }
    return root
  }
  // Smaller sets first: every indexed set is at most as large as the one probing.
  const order = entries.map((_, i) => i).filter((i) => (sets[i] as string[]).length > 0)
  order.sort((a, b) => (sets[a] as string[]).length - (sets[b] as string[]).length || a - b)
  const prefixIndex = new Map<string, number[]>()
  for (const i of order) {
    const set = sets[i] as string[]
    // Jaccard >= t needs a shared 2-gram among the first n - ceil(t n) + 1 (a little epsilon keeps it safe).
    const prefix = set.length - Math.ceil(threshold * set.length - 1e-9) + 1
    const seen = new Set<number>()
    for (const g of set.slice(0, prefix)) {
      for (const j of prefixIndex.get(g) ?? []) {
        if (seen.has(j)) continue
        seen.add(j)
        if ((sets[j] as string[]).length < threshold * set.length) continue
        if (find(i) !== find(j) && bigramJaccard((entries[i] as IndexEntry).summary, (entries[j] as IndexEntry).summary) >= threshold) parent[find(i)] = find(j)
      }
    }
    for (const g of set.slice(0, prefix)) {
      const list = prefixIndex.get(g)
      if (list === undefined) prefixIndex.set(g, [i])
      else list.push(i)
    }
  }
  const groups = new Map<number, IndexEntry[]>()
  entries.forEach((e, i) => {
    const root = find(i)
    const group = groups.get(root)
    if (group === undefined) groups.set(root, [e])
    else group.push(e)
  })
  return [...groups.values()].filter((g) => g.length > 1)
}

/** What a member's file says beyond its index entry: premises and details. */
export interface MemberFile {
  scope: string | null
  details: string
  body: string
}

export async function readMember(backend: MemoryBackend, e: IndexEntry): Promise<MemberFile> {
  const text = await backend.readFile(e.path)
  if (text === null) return { scope: null, details: '', body: '' }
  const { data, body } = parseFile(text)
  const scope = typeof data.scope === 'string' && data.scope.trim() !== '' ? data.scope : null
  return { scope, details: detailsOf(body), body }
}

/** Passing evidence, when the store records it (a verify result of "pass"). */
function hasPassingEvidence(e: IndexEntry): boolean {
  const evidence = (e as { evidence?: { result?: unknown } }).evidence
  return evidence?.result === 'pass'
}

/**
 * The order a survivor is chosen in, best first: passing evidence, confidence, search hits,
 * number of sources, then the earliest written, then id.
 */
export function survivorOrder(usageHits: (id: string) => number): (a: IndexEntry, b: IndexEntry) => number {
  return (a, b) =>
    Number(hasPassingEvidence(b)) - Number(hasPassingEvidence(a)) ||
    b.confidence - a.confidence ||
    usageHits(b.id) - usageHits(a.id) ||
    b.sources.length - a.sources.length ||
    a.time.localeCompare(b.time) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

export async function usageHitsOf(backend: MemoryBackend): Promise<(id: string) => number> {
  const usage = await readUsage(backend).catch(() => new Map<string, { hits: number }>())
  return (id) => usage.get(id)?.hits ?? 0
}

export interface DuplicateMember {
  id: string
  path: string
  type: IndexEntry['type']
  title: string
  summary: string
  time: string
  /** The premises it states, or null. */
  scope: string | null
  /** 2-gram Jaccard with the suggested survivor (1 for the survivor itself). */
  similarity: number
}

export interface DuplicateGroup {
  /** The member a merge would keep by default (survivorOrder). */
  suggested_into: string
  /** True when two members state conflicting premises: a merge folds neither into the other. */
  mixedPremises: boolean
  members: DuplicateMember[]
}

export interface DuplicatesReport {
  /** Active memories compared. */
  scanned: number
  total_groups: number
  offset: number
  has_more: boolean
  groups: DuplicateGroup[]
  guidance: string
}

/** True when some pair of the given scopes conflicts. */
export function anyConflict(scopes: readonly (string | null)[]): boolean {
  for (let i = 0; i < scopes.length; i++)
    for (let j = i + 1; j < scopes.length; j++) if (comparePremises(scopes[i], scopes[j]).relation === 'conflict') return true
  return false
}

export async function duplicatesReport(backend: MemoryBackend, options: { limit: number; offset: number }): Promise<DuplicatesReport> {
  await ensureFresh(backend)
  const view: IndexLookup = await backend.indexView()
  const candidates = [...view.values()].filter(mergeable).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const hits = await usageHitsOf(backend)
  const order = survivorOrder(hits)
  const groups = restatementGroups(candidates).map((g) => [...g].sort(order))
  const newest = (g: IndexEntry[]) => g.reduce((t, e) => (e.time > t ? e.time : t), '')
  groups.sort((a, b) => b.length - a.length || newest(b).localeCompare(newest(a)) || ((a[0] as IndexEntry).id < (b[0] as IndexEntry).id ? -1 : 1))
  const page = groups.slice(options.offset, options.offset + options.limit)
  const out: DuplicateGroup[] = []
  for (const group of page) {
    const survivor = group[0] as IndexEntry
    const files = await Promise.all(group.map((e) => readMember(backend, e)))
    out.push({
      suggested_into: survivor.id,
      mixedPremises: anyConflict(files.map((f) => f.scope)),
      members: group.map((e, i) => ({
        id: e.id,
        path: e.path,
        type: e.type,
        title: e.title,
        summary: e.summary,
        time: e.time,
        scope: (files[i] as MemberFile).scope,
        similarity: Math.round(bigramJaccard(e.summary, survivor.summary) * 1000) / 1000,
      })),
    })
  }
  const hasMore = options.offset + page.length < groups.length
  const guidance =
    groups.length === 0
      ? `No restatements among ${candidates.length} active memories.`
      : `${groups.length} group(s) of restatements. Preview a fold with memory_merge({ ids, dryRun: true }); groups with mixedPremises hold one claim under conflicting conditions, and a merge never folds those members together.` +
        (hasMore ? ` More: offset ${options.offset + page.length}.` : '')
  return { scanned: candidates.length, total_groups: groups.length, offset: options.offset, has_more: hasMore, groups: out, guidance }
}
