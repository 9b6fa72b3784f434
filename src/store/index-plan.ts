/**
 * Bringing index entries in line with memory files that changed outside this program (an edit,
 * a copy, a rename, a `git pull`), for the freshness check and for sync: a pure planner that
 * says what to upsert, what to drop and what changed, given the index and the changed files as
 * they state themselves now (entryFromFile). Ids are settled by the same rule as rebuild (identity.ts), over every file that states an
 * id a changed file states or stated, so an index kept fresh equals a rebuilt one.
 */

import { groupBy, pushAll } from '../arrays.js'
import type { IndexEntry } from '../types.js'
import { describeUnreadable, isMemoryPath } from './frontmatter.js'
import { asStated, claimOf, settleClaims } from './identity.js'
import type { IndexView } from './index-view.js'

/** A changed path as read now: the entry its file states (entryFromFile), or null when it is gone. */
export interface ChangedFile {
  path: string
  stated: IndexEntry | null
}

export interface ExternalChange {
  /** `reidentified`: the file did not change, the id it is indexed under did (a file that kept it came or went). */
  change: 'added' | 'modified' | 'moved' | 'removed' | 'reidentified'
  id: string
  path: string
  /** The id the file states, when another file keeps it. */
  claimed_id?: string
  /** For `reidentified`: the id it had. */
  was?: string
}

export interface IndexPlan {
  upserts: IndexEntry[]
  /** Ids to drop. */
  removed: string[]
  changes: ExternalChange[]
  warnings: string[]
}

/** What the planner reads of the index. */
export type ClaimLookup = Pick<IndexView, 'get' | 'atPath' | 'claiming'>

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

/** Every indexed entry whose file states `id`: the one holding it, and the copies. */
function indexedClaimants(index: ClaimLookup, id: string): IndexEntry[] {
  const holder = index.get(id)
  const out = holder !== undefined && claimOf(holder) === id ? [holder] : []
  return pushAll(out, index.claiming(id))
}

const sameEntry = (a: IndexEntry, b: IndexEntry) => a.id === b.id && a.checksum === b.checksum && a.claimed_id === b.claimed_id

/**
 * What the index must do so that it describes `files` as they are now, with ids settled. Pure.
 * `held`: paths that keep the ids they state whatever the settling rule says (after a pull).
 */
export function planIndexChanges(index: ClaimLookup, files: readonly ChangedFile[], held: ReadonlySet<string> = new Set()): IndexPlan {
  const warnings: string[] = []
  /** Changed files as they state themselves, by path. */
  const stated = new Map<string, IndexEntry>()
  /** Paths whose indexed entry this plan replaces or drops. */
  const replaced = new Set<string>()
  /** Ids to settle again: stated, or held, by a changed file. */
  const affected = new Set<string>()
  for (const { path, stated: entry } of [...files].filter((f) => isMemoryPath(f.path)).sort(byPath)) {
    const indexed = index.atPath(path)
    if (entry !== null && indexed !== undefined && indexed.checksum === entry.checksum) continue
    if (indexed !== undefined) {
      replaced.add(path)
      affected.add(claimOf(indexed))
    }
    if (entry === null) continue
    stated.set(path, entry)
    affected.add(entry.id)
    if (entry.front_matter_error !== undefined) warnings.push(`${describeUnreadable(path, entry.front_matter_error)}; known as ${entry.id} from its file name with its slot and status as far as they parse, out of search and never rewritten until it is fixed`)
  }

  /** Every settled path's entry after the plan. */
  const after = new Map<string, IndexEntry>()
  const statedById = groupBy(stated.values(), (e) => e.id)
  for (const id of [...affected].sort()) {
    const claimants = [...(statedById.get(id) ?? [])]
    for (const e of indexedClaimants(index, id)) if (!replaced.has(e.path) && !stated.has(e.path)) claimants.push(asStated(e))
    const settled = settleClaims(claimants, held)
    for (const e of settled.entries) after.set(e.path, e)
    pushAll(warnings, settled.warnings)
  }

  const upserts: IndexEntry[] = []
  const changes: ExternalChange[] = []
  const dropped = new Map<string, string>()
  for (const entry of [...after.values()].sort(byPath)) {
    const before = index.atPath(entry.path)
    if (before !== undefined && sameEntry(before, entry)) continue
    // A copy id that some file outside this plan holds (written there by hand): that file keeps it.
    const holder = index.get(entry.id)
    if (holder !== undefined && holder.path !== entry.path && !after.has(holder.path) && !replaced.has(holder.path)) {
      warnings.push(`${entry.path}: id ${entry.id} is already used by ${holder.path}; file left out of the index`)
      if (before !== undefined) dropped.set(before.id, entry.path)
      continue
    }
    upserts.push(entry)
    const claimed = entry.claimed_id !== undefined ? { claimed_id: entry.claimed_id } : {}
    if (before === undefined) {
      const moved = holder !== undefined && replaced.has(holder.path) && !after.has(holder.path)
      changes.push({ change: moved ? 'moved' : 'added', id: entry.id, path: entry.path, ...claimed })
    } else {
      const change = before.checksum === entry.checksum ? { change: 'reidentified' as const, was: before.id } : { change: 'modified' as const }
      changes.push({ ...change, id: entry.id, path: entry.path, ...claimed })
      if (before.id !== entry.id) dropped.set(before.id, entry.path)
    }
  }
  for (const path of replaced) {
    const before = index.atPath(path)
    if (before !== undefined && !after.has(path)) dropped.set(before.id, path)
  }
  const kept = new Set(upserts.map((e) => e.id))
  const reidentified = new Set(changes.map((c) => c.was))
  const removed = [...dropped.keys()].filter((id) => !kept.has(id))
  for (const id of removed) if (!reidentified.has(id)) changes.push({ change: 'removed', id, path: dropped.get(id) as string })
  return { upserts, removed, changes, warnings }
}
