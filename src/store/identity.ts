/**
 * Which file a memory id belongs to. A file states its id in its front-matter, or else its name
 * carries it (`<slug>-mem_x.md`, `<date>-mem_x.md`, `raw/mem_x.md` for `mem_x-raw`, the whole
 * name of a hand-written note). When several files state one id (a person copied a memory file
 * to edit the copy), one rule decides which keeps it, and every other is indexed under an id of
 * its own derived from its path, so rebuild and the freshness check reach the same ids whatever
 * order they meet the files in. Pure: reads and writes nothing, and never rewrites a file's id.
 */

import { groupBy, pushAll } from '../arrays.js'
import { sha1 } from '../text.js'
import type { IndexEntry } from '../types.js'
import { typeOfFolder } from './layout.js'

/** A memory id at the end of a file name, after a dash or alone: what the write path names files by. */
const MEMORY_ID_AT_END = /(?:^|-)(mem_[0-9a-z]+)$/

export function baseName(relPath: string): string {
  const name = relPath.split('/').pop() ?? relPath
  return name.replace(/\.md$/i, '')
}

/**
 * The id a file's name carries: the memory id it ends with (with `-raw` in raw/, where the write
 * path names raw text after its episode), else the whole name. A file without readable
 * front-matter is known by it.
 */
export function nameId(relPath: string): string {
  const name = baseName(relPath)
  const id = MEMORY_ID_AT_END.exec(name)?.[1]
  if (id === undefined) return name
  return typeOfFolder(relPath) === 'raw' ? `${id}-raw` : id
}

/** True when the file's name carries this id (see nameId), or is this id. */
export function nameCarries(relPath: string, id: string): boolean {
  return nameId(relPath) === id || baseName(relPath) === id
}

/** The id a file is indexed under when another file keeps the id it states: fixed by its path. */
export function copyId(claimed: string, relPath: string): string {
  return `${claimed}-copy-${sha1(relPath).slice(0, 8)}`
}

/** The id the entry's file states: the one it is indexed under, or the one another file keeps. */
export function claimOf(e: Pick<IndexEntry, 'id' | 'claimed_id'>): string {
  return e.claimed_id ?? e.id
}

/** An index entry as its file states it: a copy's own id undone. */
export function asStated(e: IndexEntry): IndexEntry {
  if (e.claimed_id === undefined) return e
  const { claimed_id: claimed, ...rest } = e
  return { ...rest, id: claimed }
}

/** The identity fields of an index line, when they are there and well formed. */
export function identityFieldsFromIndexLine(r: Record<string, unknown>): Pick<IndexEntry, 'claimed_id' | 'front_matter_error'> {
  const out: Pick<IndexEntry, 'claimed_id' | 'front_matter_error'> = {}
  if (typeof r.claimed_id === 'string') out.claimed_id = r.claimed_id
  const error = r.front_matter_error as { line?: unknown; reason?: unknown } | null | undefined
  if (typeof error?.line === 'number' && typeof error.reason === 'string') out.front_matter_error = { line: error.line, reason: error.reason }
  return out
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const readable = (e: IndexEntry) => Number(e.front_matter_error === undefined)

/**
 * Orders the files that state `id`: a held one, else the one whose name carries it, else one
 * whose front-matter parses (a broken file's `time` is only what could be read of it), else the
 * earlier `time`, else the first path.
 */
function keeperFirst(id: string, held: ReadonlySet<string>): (a: IndexEntry, b: IndexEntry) => number {
  return (a, b) =>
    Number(held.has(b.path)) - Number(held.has(a.path)) ||
    Number(nameCarries(b.path, id)) - Number(nameCarries(a.path, id)) ||
    readable(b) - readable(a) ||
    byCodeUnits(a.time, b.time) ||
    byCodeUnits(a.path, b.path)
}

function whyKept(keeper: IndexEntry, other: IndexEntry, held: ReadonlySet<string>): string {
  if (held.has(keeper.path)) return 'it held the id here before a pull brought the other file'
  if (nameCarries(keeper.path, keeper.id) && !nameCarries(other.path, keeper.id)) return 'its file name carries the id'
  if (readable(keeper) > readable(other)) return 'its front-matter parses'
  return keeper.time !== other.time ? `its time ${keeper.time} is earlier` : 'its path sorts first'
}

export interface Settled {
  entries: IndexEntry[]
  /** One per file given an id of its own, naming it, the file that keeps the id, and the new id. */
  warnings: string[]
}

/**
 * The one rule for files that state the same id (entries as their files state them): the file
 * whose name carries the id keeps it, else one whose front-matter parses, else the one with the
 * earlier `time`, else the first path;
 * each other is indexed under `copyId`, with `claimed_id` saying which id it states. The result
 * does not depend on the order of `claimants`. A file in `held` (one that held the id before a
 * pull brought the others: sync/id-guard.ts) keeps it whatever the rule says.
 */
export function settleClaims(claimants: readonly IndexEntry[], held: ReadonlySet<string> = new Set()): Settled {
  const [keeper, ...others] = [...claimants].sort(keeperFirst(claimants[0]?.id ?? '', held))
  if (keeper === undefined) return { entries: [], warnings: [] }
  const entries = [keeper]
  const warnings: string[] = []
  for (const other of others) {
    const id = copyId(keeper.id, other.path)
    entries.push({ ...other, id, claimed_id: keeper.id })
    warnings.push(
      `${other.path}: states id ${keeper.id}, which ${keeper.path} keeps (${whyKept(keeper, other, held)}); indexed as ${id}. ` +
        'If it is a copy, give it an id of its own: delete its id line (its file name gives one) or write a new one',
    )
  }
  return { entries, warnings }
}

export interface SettledStore extends Settled {
  /** Files indexed under an id of their own (copies). */
  reidentified: number
  /** Files left out: an id of their own that another file states (only when someone writes a copy id by hand). */
  skipped: number
}

/** Settles every id of a whole store (rebuild): entries in, at most one per id out, plus what was said. */
export function settleAll(stated: readonly IndexEntry[]): SettledStore {
  const kept: IndexEntry[] = []
  const copies: IndexEntry[] = []
  const warnings: string[] = []
  for (const group of groupBy(stated, (e) => e.id).values()) {
    const settled = group.length === 1 ? { entries: group, warnings: [] } : settleClaims(group)
    for (const e of settled.entries) (e.claimed_id === undefined ? kept : copies).push(e)
    pushAll(warnings, settled.warnings)
  }
  // An id a file states beats the same id given to a copy.
  const taken = new Set(kept.map((e) => e.id))
  const entries = kept
  let skipped = 0
  for (const e of copies) {
    if (taken.has(e.id)) {
      skipped++
      warnings.push(`${e.path}: its copy id ${e.id} is stated by another file; file left out of the index`)
      continue
    }
    taken.add(e.id)
    entries.push(e)
  }
  return { entries, warnings, reidentified: copies.length - skipped, skipped }
}
