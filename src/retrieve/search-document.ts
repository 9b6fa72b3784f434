/**
 * What the search index (search-index.ts) holds of an entry: whether it is searchable at all,
 * the text of each field (content, keywords with the slot key's own words, the neighbours'
 * context, the identifiers), the stamp it is known by, and the terms with their frequencies a
 * segment takes. Pure.
 */

import { createHash } from 'node:crypto'
import type { IndexEntry } from '../types.js'
import { SEARCHABLE_STATUSES } from '../types.js'
import { identifiersOf } from './identifiers.js'
import { tokenize } from '../language/tokenizer.js'
import type { SegmentDoc } from './segment.js'

interface IndexedDoc {
  id: string
  content: string
  keywords: string
  context: string
  /** The identifiers of the summary layer (identifiers.ts), space-separated: matched exactly, never ranked by BM25. */
  identifiers: string
}

/** Field numbers in a segment; BM25 ranks the first three, `identifiers` is only looked up (`literal`). */
const FIELDS = ['content', 'keywords', 'context', 'identifiers'] as const
export const IDENTIFIERS = 3

/**
 * Searchable: active or conflict, not raw text (raw is reached through its episode), and with
 * front-matter that parses (a broken block may say forgotten or unconfirmed: not until it is fixed).
 */
export function isSearchable(entry: IndexEntry): boolean {
  return entry.type !== 'raw' && SEARCHABLE_STATUSES.has(entry.status) && entry.front_matter_error === undefined
}

/**
 * The words of an entry's slot key that its text does not already hold ("饮食" of a memory
 * "用户是素食者" filed under "用户 饮食"): a search by subject finds the memory that states it,
 * and words the text has already are not counted twice.
 */
export function slotKeywords(entry: Pick<IndexEntry, 'key' | 'title' | 'summary'>): string[] {
  if (entry.key === null) return []
  const text = new Set(tokenize(`${entry.title}\n${entry.summary}`))
  return entry.key.split(/\s+/u).filter((w) => {
    const t = tokenize(w)
    return t.length > 0 && t.some((x) => !text.has(x))
  })
}

/**
 * The indexed text of an entry. The title is left out when the summary already contains it.
 * The slot key's own words (slotKeywords) are keywords like tags.
 */
export function documentOf(entry: IndexEntry, context: string): IndexedDoc {
  const title = entry.title.replace(/…$/, '')
  const content = entry.summary.includes(title) ? entry.summary : `${entry.title}\n${entry.summary}`
  const keywords = [...entry.tags, ...entry.entities, ...slotKeywords(entry)].join('\n')
  return { id: entry.id, content, keywords, context, identifiers: identifiersOf(`${entry.title}\n${entry.summary}\n${keywords}`).join(' ') }
}

/** An entry with the text of its neighbours, as the index holds it. */
export interface ContextualEntry {
  entry: IndexEntry
  context: string
}

/** What the index knows of an indexed document: the file version and the context it was given. */
export function stampOf(item: ContextualEntry): string {
  return item.context === '' ? item.entry.checksum : `${item.entry.checksum}:${createHash('sha1').update(item.context).digest('hex').slice(0, 16)}`
}

/** Per field, each term with its frequency, and each field's length: its unique terms (BM25's document length). */
export function segmentDocOf(id: string, version: string, doc: IndexedDoc): SegmentDoc {
  const terms = FIELDS.map((field) => {
    const tokens = field === 'identifiers' ? doc.identifiers.split(' ').filter((t) => t !== '') : tokenize(doc[field])
    const tf = new Map<string, number>()
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1)
    return tf
  })
  return { id, stamp: version, lengths: terms.map((t) => t.size), terms }
}
