/**
 * What a memory says, as something to find again: its statement (the normalised summary) and,
 * when it is about a named thing (a key, a title used as key, or the words a forget was asked
 * with), the value it gives that thing: the words of the summary that are not the name. Forget
 * uses it to find memories, digests and raw text that repeat a forgotten value; purge uses it to
 * scrub derived files and to check that nothing on disk still holds the value. Pure.
 */

import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import { normalizeForHash } from '../../text.js'
import type { IndexEntry } from '../../types.js'

/** A statement shorter than this (after normalising) is too common to look for as a whole. */
const MIN_STATEMENT = 4

export interface ValueAnchor {
  id: string
  /** The summary, normalised (case, width, spacing). */
  statement: string
  /** Strong terms of the name (key, title used as key, forget query). */
  nameTerms: string[]
  /** Strong terms of the summary that are not part of the name: the value itself. */
  valueTerms: string[]
}

const strongTerms = (text: string): string[] => [...new Set(tokenize(text).filter(isStrongTerm))]

/**
 * The anchor of a memory; `extraName` (a forget query) counts as part of what it is about. When
 * the rest of the summary holds terms with digits (a number, a code, a version), those are the
 * value; otherwise every term that is not the name is ("素食" of "饮食：素食").
 */
export function anchorOf(entry: Pick<IndexEntry, 'id' | 'summary' | 'key'>, extraName = ''): ValueAnchor {
  const name = new Set(strongTerms(`${entry.key ?? ''} ${extraName}`))
  const rest = name.size === 0 ? [] : strongTerms(entry.summary).filter((t) => !name.has(t))
  const coded = rest.filter((t) => /\p{N}/u.test(t))
  return { id: entry.id, statement: normalizeForHash(entry.summary), nameTerms: [...name], valueTerms: coded.length > 0 ? coded : rest }
}

/**
 * True when the text repeats the anchored value: it contains the whole statement, or it names
 * the same thing (one of its name terms) and gives every term of its value.
 */
export function repeatsValue(anchor: ValueAnchor, text: string): boolean {
  if (anchor.statement.length >= MIN_STATEMENT && normalizeForHash(text).includes(anchor.statement)) return true
  if (anchor.valueTerms.length === 0) return false
  const terms = new Set(tokenize(text))
  return anchor.valueTerms.every((t) => terms.has(t)) && anchor.nameTerms.some((t) => terms.has(t))
}

/**
 * True when the text still holds the value at all, named or not: the statement, or every value
 * term (as a whole term: "9047" is not in "1732899047"). What purge checks every file for.
 */
export function holdsValue(anchor: ValueAnchor, text: string): boolean {
  if (anchor.statement.length >= MIN_STATEMENT && normalizeForHash(text).includes(anchor.statement)) return true
  if (anchor.valueTerms.length === 0) return false
  const terms = new Set(tokenize(text))
  return anchor.valueTerms.every((t) => terms.has(t))
}

/**
 * Ledger event fields that say what happened to which memory, never what a memory said: what a
 * forgotten memory's events may still show, and what a purge keeps of an event it redacts.
 */
export const SKELETON_FIELDS: ReadonlySet<string> = new Set([
  'at', 'event', 'id', 'ids', 'raw_id', 'session_id', 'source', 'status', 'from', 'to', 'action', 'mode', 'scope',
  'type', 'change', 'dedupe', 'similarity', 'by', 'superseded', 'activated', 'matched', 'propagated', 'redacted',
  // a palace location (room#slot) holds no memory text, and keeps a purged slot from being given again
  'location',
])

/** An event with every field outside the skeleton replaced by `marker` (numbers and booleans kept). */
export function skeletonOf(event: Record<string, unknown>, marker: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(event)) {
    out[k] = SKELETON_FIELDS.has(k) || typeof v === 'number' || typeof v === 'boolean' || v === null ? v : marker
  }
  return out
}
