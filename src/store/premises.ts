/**
 * Premises ("scope"): the conditions under which a memory holds, written `key=value; key=value`.
 * Owns their parsing, their one canonical form, and the compatibility rule every reader shares
 * (the write path, search, verify). Pure; it never reads the store and adds no similarity
 * threshold of its own beyond the value-overlap rule below.
 *
 * The rule: only keys both sides name are compared (a key on one side only is an extra
 * condition, not a disagreement). Two values agree when one's words contain the other's, or
 * their word sets overlap by at least half (Jaccard); words are the tokenizer's terms, CJK
 * counted per character, stop words dropped. A side without premises never conflicts: its
 * premises are unchecked, which readers say rather than hide.
 */

import { MemoryError } from '../errors.js'
import { collapseWhitespace } from '../text.js'
import { tokenize } from '../language/tokenizer.js'

/** At most this many conditions; longer keys and values are refused, not cut (a cut value would compare wrongly). */
export const MAX_PREMISES = 20
const MAX_KEY_CHARS = 64
const MAX_VALUE_CHARS = 200
/** Two values whose word sets overlap at least this much (Jaccard) state the same condition. */
export const VALUE_OVERLAP = 0.5

export interface Premise {
  key: string
  value: string
}

/** How two sets of premises relate: unchecked when either side has none. */
export interface PremiseComparison {
  relation: 'compatible' | 'conflict' | 'unchecked'
  /** The keys whose values disagree (conflict only). */
  keys: string[]
}

const SEGMENT_SEPARATORS = /[;,\n；，]/
const KEY_VALUE = /^([^=:：]+)[=:：](.*)$/s

function bad(field: string, expected: string): MemoryError {
  return new MemoryError('INVALID_INPUT', `${field}: expected ${expected}`, field)
}

/**
 * Parses premises; `field` names the input in errors. Segments are separated by `;`, `,` or a
 * line break, each `key=value` (or `key: value`); empty segments are skipped. Keys are compared
 * in lower case. Throws INVALID_INPUT for a segment without a key, a key named twice, or too many.
 */
export function parsePremises(text: string, field = 'scope'): Premise[] {
  const out: Premise[] = []
  for (const raw of text.split(SEGMENT_SEPARATORS)) {
    const segment = collapseWhitespace(raw)
    if (segment === '') continue
    const m = KEY_VALUE.exec(segment)
    const key = m ? collapseWhitespace(m[1] ?? '').normalize('NFKC').toLowerCase() : ''
    if (m === null || key === '') throw bad(field, `key=value conditions separated by ";" (such as "env=prod; region=eu"), got ${JSON.stringify(segment).slice(0, 60)}`)
    const value = collapseWhitespace(m[2] ?? '')
    if (key.length > MAX_KEY_CHARS || value.length > MAX_VALUE_CHARS) throw bad(field, `keys of at most ${MAX_KEY_CHARS} and values of at most ${MAX_VALUE_CHARS} characters`)
    if (out.some((p) => p.key === key)) throw bad(field, `each key once, but "${key}" is named twice`)
    out.push({ key, value })
  }
  if (out.length > MAX_PREMISES) throw bad(field, `at most ${MAX_PREMISES} conditions, got ${out.length}`)
  return out
}

/** The stored form: `key=value; key=value`, or null when there is no condition. */
export function formatPremises(premises: readonly Premise[]): string | null {
  return premises.length === 0 ? null : premises.map((p) => `${p.key}=${p.value}`).join('; ')
}

/** Premises as stored in a file; a hand-written value that does not parse counts as none. */
export function storedPremises(scope: string | null | undefined): Premise[] {
  if (scope === null || scope === undefined) return []
  try {
    return parsePremises(scope)
  } catch {
    return []
  }
}

const CJK_PAIR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{2}$/u

/** The words of a value: tokenizer terms with CJK 2-grams left out (CJK counts per character). */
function valueWords(value: string): Set<string> {
  return new Set(tokenize(value).filter((t) => !CJK_PAIR.test(t)))
}

/** True when two values state the same condition (containment, or word overlap at least VALUE_OVERLAP). */
export function valuesAgree(a: string, b: string): boolean {
  const x = valueWords(a)
  const y = valueWords(b)
  if (x.size === 0 || y.size === 0) return collapseWhitespace(a.normalize('NFKC').toLowerCase()) === collapseWhitespace(b.normalize('NFKC').toLowerCase())
  let shared = 0
  for (const w of x) if (y.has(w)) shared++
  if (shared === x.size || shared === y.size) return true
  return shared / (x.size + y.size - shared) >= VALUE_OVERLAP
}

/** How two stored scopes relate (either may be null). */
export function comparePremises(a: string | null | undefined, b: string | null | undefined): PremiseComparison {
  const x = storedPremises(a)
  const y = storedPremises(b)
  if (x.length === 0 || y.length === 0) return { relation: 'unchecked', keys: [] }
  const keys: string[] = []
  for (const p of x) {
    const q = y.find((other) => other.key === p.key)
    if (q !== undefined && !valuesAgree(p.value, q.value)) keys.push(p.key)
  }
  return keys.length > 0 ? { relation: 'conflict', keys } : { relation: 'compatible', keys: [] }
}

/** True when two scopes name a shared key with disagreeing values. */
export function premisesConflict(a: string | null | undefined, b: string | null | undefined): boolean {
  return comparePremises(a, b).relation === 'conflict'
}

/** `key (a vs b)` for each conflicting key: what a warning or a note quotes. */
export function describeConflict(a: string | null | undefined, b: string | null | undefined): string {
  const x = storedPremises(a)
  const y = storedPremises(b)
  return comparePremises(a, b)
    .keys.map((k) => `${k} (${x.find((p) => p.key === k)?.value ?? ''} vs ${y.find((p) => p.key === k)?.value ?? ''})`)
    .join(', ')
}
