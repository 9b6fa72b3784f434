/**
 * The shapes every importer shares: the formats, what one input item became, the result of an
 * import, and a draft (a write request waiting for the write path). Types and one constructor
 * only; no I/O.
 */

import type { WriteOptions, WriteRequest } from '../../writing/write.js'

export const IMPORT_FORMATS = ['bundle', 'markdown', 'mcp-jsonl', 'claude-memories'] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]

/** What became of one item of the input (a bundle file, a note, an entity). */
export interface ImportItem {
  /** Where it came from: a path inside the input, or the input's name for a JSONL file. */
  source: string
  /** 1-based line of a JSONL input. */
  line?: number
  /** `added`: stored (or, in a dry run, would be); `duplicate`: already there; `skipped`: not usable. */
  outcome: 'added' | 'duplicate' | 'skipped'
  /** The new memory, or the one already there that it repeats. */
  id?: string
  /** Why it is a duplicate or was skipped. */
  reason?: string
}

export interface ImportResult {
  format: ImportFormat
  /** The input's file or folder name (never an absolute path: ledgers travel). */
  source: string
  /** Bundles: `restore` into an empty store (verbatim, ledger kept) or `merge`; other formats `write`. */
  mode: 'restore' | 'merge' | 'write'
  dry_run: boolean
  /** Items the input holds: memory files of a bundle, notes, entities. */
  found: number
  added: number
  duplicates: number
  skipped: number
  /** Memories already there that an imported newer version replaced. */
  superseded: number
  /** Ledger events a restored bundle brought with it. */
  ledger_events: number
  /** Kinds of secrets replaced before writing. */
  redactions: string[]
  /** Every item of the input with what became of it. */
  items: ImportItem[]
  /** What the caller should know that is not about one item (a truncated bundle, merged entities). */
  warnings: string[]
}

/** One memory to write through the normal write path, and the item it reports on. */
export interface Draft {
  request: WriteRequest
  options: WriteOptions
  item: ImportItem
}

/** A draft or a reason to skip, from one input item. */
export type Parsed = { draft: Draft } | { skipped: ImportItem }

export function emptyResult(format: ImportFormat, source: string, mode: ImportResult['mode'], dryRun: boolean): ImportResult {
  return { format, source, mode, dry_run: dryRun, found: 0, added: 0, duplicates: 0, skipped: 0, superseded: 0, ledger_events: 0, redactions: [], items: [], warnings: [] }
}

/** Counts the items' outcomes into the result. */
export function tally(result: ImportResult): ImportResult {
  result.found = result.items.length
  result.added = result.items.filter((i) => i.outcome === 'added').length
  result.duplicates = result.items.filter((i) => i.outcome === 'duplicate').length
  result.skipped = result.items.filter((i) => i.outcome === 'skipped').length
  return result
}
