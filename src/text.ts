/**
 * Small pure text helpers shared by the write path and the file parser: normalisation for
 * duplicate detection, character 2-gram Jaccard, slugs for file names, hashes, excerpts.
 */

import { createHash } from 'node:crypto'
import { simplifyHan } from './language/han-variants.js'

export function sha1(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex')
}

/**
 * Whitespace runs become one space; ends trimmed. U+FEFF, which JavaScript counts as whitespace, is
 * a zero-width character: made a space, it would split a word in two for every later reader.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/[^\S\uFEFF]+/g, ' ').trim()
}

/** NFKC, lower case, whitespace collapsed: two summaries equal under this are the same memory. */
export function normalizeForHash(text: string): string {
  return collapseWhitespace(text.normalize('NFKC').toLowerCase())
}

/**
 * The slot of a title when no key is given: NFKC, lower case, Traditional Chinese as Simplified,
 * punctuation and spaces removed. Slots are computed on load, never stored, so this may change.
 */
export function normalizeSlot(text: string): string {
  return simplifyHan(text.normalize('NFKC').toLowerCase()).replace(/[\s\p{P}\p{S}]+/gu, '')
}

/** The character 2-grams of a text, punctuation and spacing ignored: what bigramJaccard compares. */
export function bigramSet(text: string): Set<string> {
  const chars = Array.from(normalizeSlot(text))
  const grams = new Set<string>()
  if (chars.length === 1) grams.add(chars[0] as string)
  for (let i = 0; i + 1 < chars.length; i++) grams.add(`${chars[i]}${chars[i + 1]}`)
  return grams
}

/** Jaccard similarity of the character 2-gram sets, punctuation and spacing ignored. In [0, 1]. */
export function bigramJaccard(a: string, b: string): number {
  const x = bigramSet(a)
  const y = bigramSet(b)
  if (x.size === 0 && y.size === 0) return 1
  let shared = 0
  for (const g of x) if (y.has(g)) shared++
  return shared / (x.size + y.size - shared)
}

/** A file-name fragment: letters (any script) and digits joined by '-', at most 40 characters. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
  return Array.from(slug).slice(0, 40).join('').replace(/-+$/, '') || 'memory'
}

/** At most max characters (code points), with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text)
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`
}

/**
 * At most max UTF-16 code units (what String#length and the token estimate count), with an
 * ellipsis when cut, never splitting a surrogate pair.
 */
export function truncateUnits(text: string, max: number): string {
  if (text.length <= max) return text
  let cut = Math.max(0, max - 1)
  const last = text.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut--
  return `${text.slice(0, cut)}…`
}

/**
 * A title derived from its summary (a memory written without one: the summary, or its start cut
 * with …). Whoever shows both would say the same thing twice.
 */
export function isDerivedTitle(title: string, summary: string): boolean {
  return title === summary || (title.endsWith('…') && summary.startsWith(title.slice(0, -1)))
}

/** "1 memory", "3 memories". */
export function memories(n: number): string {
  return `${n} ${n === 1 ? 'memory' : 'memories'}`
}
