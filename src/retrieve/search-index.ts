/**
 * The full-text index over the summary layer (title, summary, tags, entities) of searchable
 * memories, on minisearch with the project's tokenizer. Kept in step with the index entries
 * incrementally (by checksum), and saved to / loaded from JSON that records its format and
 * tokenizer version: a mismatch or a corrupt file means "build again", never a wrong answer.
 *
 * It ranks; it does not decide what is eligible (search.ts does) and it never touches files.
 */

import { createHash } from 'node:crypto'
import MiniSearch from 'minisearch'
import type { IndexEntry } from '../types.js'
import { SEARCHABLE_STATUSES } from '../types.js'
import { identifiersOf } from './identifiers.js'
import { TOKENIZER_VERSION, tokenize } from '../language/tokenizer.js'

/** Bump when the document shape or field set changes (3: the identifiers field; 4: the slot key among the keywords). */
export const SEARCH_INDEX_FORMAT = 4

/** BM25 parameters and field weights, documented once. */
export const RANKING = Object.freeze({
  k1: 1.2,
  b: 0.75,
  /** BM25+ lower bound on a matching term's contribution (minisearch's `d`). */
  d: 0.5,
  fieldWeights: { content: 1, keywords: 2, context: 0.3 },
  /** An episode's context field holds the summaries of this many episodes before and after it in its session. */
  contextWindow: 2,
  /** A query that names a tag or entity of a memory multiplies its score by this. */
  keywordMatchBoost: 1.5,
  /** Weight of a term brought in by an alias group. */
  aliasWeight: 0.5,
  /** Weight of a single CJK character of the query (2-grams and words weigh 1). */
  cjkUnigramWeight: 0.25,
  /** Single characters join a query only when it has this many distinct strong terms (or none). */
  cjkUnigramMinStrongTerms: 8,
})

interface IndexedDoc {
  id: string
  content: string
  keywords: string
  context: string
  /** The identifiers of the summary layer (identifiers.ts), space-separated: matched exactly, never ranked by BM25. */
  identifiers: string
}

/** The fields BM25 ranks; `identifiers` is only looked up (`literal`). */
const RANKED_FIELDS = ['content', 'keywords', 'context'] as const
const FIELDS = [...RANKED_FIELDS, 'identifiers'] as const

function minisearchOptions() {
  return {
    idField: 'id',
    fields: [...FIELDS],
    storeFields: [] as string[],
    tokenize: (text: string, field?: string) => (field === 'identifiers' ? text.split(' ').filter((t) => t !== '') : tokenize(text)),
    processTerm: (term: string) => term,
    searchOptions: {
      boost: { ...RANKING.fieldWeights },
      bm25: { k: RANKING.k1, b: RANKING.b, d: RANKING.d },
      prefix: false,
      fuzzy: false,
      combineWith: 'OR' as const,
    },
  }
}

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
function stamp(item: ContextualEntry): string {
  return item.context === '' ? item.entry.checksum : `${item.entry.checksum}:${createHash('sha1').update(item.context).digest('hex').slice(0, 16)}`
}

export interface RankedDoc {
  id: string
  score: number
  /** Query terms (original or alias) this document matched. */
  matched: string[]
}

export interface SyncStats {
  added: number
  updated: number
  removed: number
}

export class SearchIndex {
  private readonly engine: MiniSearch<IndexedDoc>
  /** id -> stamp (checksum, and context hash) of the entry as indexed. */
  private readonly indexed: Map<string, string>

  private constructor(engine: MiniSearch<IndexedDoc>, indexed: Map<string, string>) {
    this.engine = engine
    this.indexed = indexed
  }

  static empty(): SearchIndex {
    return new SearchIndex(new MiniSearch<IndexedDoc>(minisearchOptions()), new Map())
  }

  /** Restores a saved index; null when the text is not a compatible, intact save. */
  static fromJSON(text: string): SearchIndex | null {
    try {
      const saved = JSON.parse(text) as { format?: unknown; tokenizer?: unknown; docs?: unknown; engine?: unknown }
      if (saved.format !== SEARCH_INDEX_FORMAT || saved.tokenizer !== TOKENIZER_VERSION) return null
      if (typeof saved.docs !== 'object' || saved.docs === null || typeof saved.engine !== 'object' || saved.engine === null) return null
      const docs = new Map(Object.entries(saved.docs as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'))
      const engine = MiniSearch.loadJS<IndexedDoc>(saved.engine as Parameters<typeof MiniSearch.loadJS>[0], minisearchOptions())
      if (engine.documentCount !== docs.size) return null
      return new SearchIndex(engine, docs)
    } catch {
      return null
    }
  }

  /**
   * Drops what discarded documents left in the term index (minisearch keeps it until a vacuum), in
   * one pass. Called before every save, so a saved index never holds a term of a memory that left.
   */
  async compact(): Promise<void> {
    if (this.engine.dirtCount > 0) await this.engine.vacuum({ batchSize: Number.MAX_SAFE_INTEGER, batchWait: 0 })
  }

  toJSON(): string {
    return JSON.stringify({
      format: SEARCH_INDEX_FORMAT,
      tokenizer: TOKENIZER_VERSION,
      docs: Object.fromEntries(this.indexed),
      engine: this.engine,
    })
  }

  get size(): number {
    return this.indexed.size
  }

  /** Brings one entry in step: indexed if searchable and changed, dropped if no longer searchable. */
  apply(item: ContextualEntry): 'added' | 'updated' | 'removed' | 'unchanged' {
    const { entry } = item
    const known = this.indexed.get(entry.id)
    if (!isSearchable(entry)) return known === undefined ? 'unchanged' : (this.remove(entry.id), 'removed')
    const version = stamp(item)
    if (known === version) return 'unchanged'
    if (known !== undefined) this.engine.discard(entry.id)
    this.engine.add(documentOf(entry, item.context))
    this.indexed.set(entry.id, version)
    return known === undefined ? 'added' : 'updated'
  }

  remove(id: string): boolean {
    if (!this.indexed.has(id)) return false
    this.engine.discard(id)
    this.indexed.delete(id)
    return true
  }

  /** Makes the index match a full set of entries (after a load or an outside change). */
  sync(items: Iterable<ContextualEntry>): SyncStats {
    const stats: SyncStats = { added: 0, updated: 0, removed: 0 }
    const seen = new Set<string>()
    for (const item of items) {
      seen.add(item.entry.id)
      const r = this.apply(item)
      if (r !== 'unchanged') stats[r]++
    }
    for (const id of [...this.indexed.keys()]) if (!seen.has(id) && this.remove(id)) stats.removed++
    return stats
  }

  /**
   * BM25 over the given distinct terms, each multiplied by its weight (1 unless given),
   * restricted to ids the filter accepts (all, without one); best score first.
   */
  rank(terms: readonly string[], weights: ReadonlyMap<string, number>, accept: ((id: string) => boolean) | null): RankedDoc[] {
    if (terms.length === 0) return []
    const results = this.engine.search(terms.join(' '), {
      fields: [...RANKED_FIELDS],
      tokenize: () => [...terms],
      boostTerm: (term) => weights.get(term) ?? 1,
      ...(accept !== null ? { filter: (r: { id: unknown }) => accept(String(r.id)) } : {}),
    })
    return results.map((r) => ({ id: String(r.id), score: r.score, matched: r.queryTerms }))
  }

  /**
   * Documents holding any of these identifiers (identifiers.ts output), exactly, as whole
   * tokens: id -> the identifiers it shares. Restricted to ids the filter accepts, as `rank`.
   */
  literal(identifiers: readonly string[], accept: ((id: string) => boolean) | null): Map<string, string[]> {
    const out = new Map<string, string[]>()
    if (identifiers.length === 0) return out
    const results = this.engine.search(identifiers.join(' '), {
      fields: ['identifiers'],
      tokenize: () => [...identifiers],
      ...(accept !== null ? { filter: (r: { id: unknown }) => accept(String(r.id)) } : {}),
    })
    for (const r of results) out.set(String(r.id), r.queryTerms)
    return out
  }
}
