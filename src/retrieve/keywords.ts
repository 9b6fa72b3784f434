/**
 * The keywords of memories (tags, entities, slot key) as a search reads them: a match whose
 * keyword the query names (every token of it among the query's tokens) is raised by
 * RANKING.keywordMatchBoost (search.ts). `namesKeyword` is that test; `KeywordLookup` finds the
 * memories it can hold for, from the query alone, so that a search can score those apart and
 * stop its draw of all the others at their own scores instead of at a boost they cannot get.
 *
 * The lookup is derived from the index view: built beside the searches of a process and then
 * kept in step with the view, entry by entry (retriever.ts). Until it is there, searches draw as
 * far as the boost reaches, with the same answers.
 */

import { tokenize } from '../language/tokenizer.js'
import type { IndexEntry } from '../types.js'

/** Tokens of each tag, entity and slot key, per entry object (entries are replaced, never changed). */
const keywordTokens = new WeakMap<IndexEntry, string[][]>()
/** Tokens of one keyword: tags and entities recur across many entries, so each is tokenised once. */
const tokensOfKeyword = new Map<string, string[]>()
/** The keyword token cache is emptied past this many keywords (a bound, not a tuning). */
const KEYWORD_CACHE_LIMIT = 50_000

function keywordTokensOf(keyword: string): string[] {
  let tokens = tokensOfKeyword.get(keyword)
  if (tokens === undefined) {
    if (tokensOfKeyword.size >= KEYWORD_CACHE_LIMIT) tokensOfKeyword.clear()
    tokens = tokenize(keyword, { cjkUnigrams: 'isolated' })
    tokensOfKeyword.set(keyword, tokens)
  }
  return tokens
}

/** The entry's tags, entities and slot key that have tokens. */
function keywordsOf(entry: IndexEntry): string[] {
  return [...entry.tags, ...entry.entities, ...(entry.key !== null ? [entry.key] : [])].filter((k) => keywordTokensOf(k).length > 0)
}

/** True when every token of one of the entry's tags, entities or slot key is among the query tokens. */
export function namesKeyword(entry: IndexEntry, queryTokens: ReadonlySet<string>): boolean {
  let keywords = keywordTokens.get(entry)
  if (keywords === undefined) {
    keywords = keywordsOf(entry).map(keywordTokensOf)
    keywordTokens.set(entry, keywords)
  }
  return keywords.some((tokens) => tokens.every((t) => queryTokens.has(t)))
}

/**
 * The one token a keyword is filed under: a query names it only when it holds every token of it,
 * so one is enough to find it, and the longest (the first of those) is the rarest bet.
 */
function anchorOf(keyword: string): string {
  return keywordTokensOf(keyword).reduce((best, t) => (t.length > best.length ? t : best))
}

const addTo = (map: Map<string, Set<string>>, key: string, value: string): void => {
  const set = map.get(key)
  if (set === undefined) map.set(key, new Set([value]))
  else set.add(value)
}

const removeFrom = (map: Map<string, Set<string>>, key: string, value: string): void => {
  const set = map.get(key)
  if (set === undefined) return
  set.delete(value)
  if (set.size === 0) map.delete(key)
}

/** The view a lookup follows: its entries, and the changes since a position of it. */
export interface KeywordSource {
  readonly generation: number
  readonly currentVersion: number
  get(id: string): IndexEntry | undefined
  /** As `get`, without keeping an entry read from a saved row (index-view.ts). */
  peek(id: string): IndexEntry | undefined
  ids(): Iterable<string>
  changedSince(generation: number, version: number): string[] | null
}

/**
 * Which memories hold which keywords, and which keywords hold which tokens. Built a part at a
 * time (`KeywordBuild`), then kept in step with the view it follows.
 */
export class KeywordLookup {
  private readonly idsByKeyword = new Map<string, Set<string>>()
  private readonly keywordsByToken = new Map<string, Set<string>>()
  private readonly keywordsById = new Map<string, string[]>()
  /** The view's position this lookup holds. */
  private generation = -1
  private version = -1

  /** Takes the view's position: the entries filed since are what it was then. */
  at(view: KeywordSource): this {
    this.generation = view.generation
    this.version = view.currentVersion
    return this
  }

  /** Brings the lookup in line with the view; false when it cannot follow it (rebuild). */
  follow(view: KeywordSource): boolean {
    const changed = view.changedSince(this.generation, this.version)
    if (changed === null) return false
    for (const id of changed) {
      const entry = view.get(id)
      if (entry === undefined) this.remove(id)
      else this.set(entry)
    }
    this.generation = view.generation
    this.version = view.currentVersion
    return true
  }

  /** Files the entry's keywords under its id, in place of what was filed there before. */
  set(entry: IndexEntry): void {
    this.remove(entry.id)
    const keywords = [...new Set(keywordsOf(entry))]
    if (keywords.length === 0) return
    this.keywordsById.set(entry.id, keywords)
    for (const k of keywords) {
      if (!this.idsByKeyword.has(k)) addTo(this.keywordsByToken, anchorOf(k), k)
      addTo(this.idsByKeyword, k, entry.id)
    }
  }

  remove(id: string): void {
    const keywords = this.keywordsById.get(id)
    if (keywords === undefined) return
    this.keywordsById.delete(id)
    for (const k of keywords) {
      removeFrom(this.idsByKeyword, k, id)
      if (!this.idsByKeyword.has(k)) removeFrom(this.keywordsByToken, anchorOf(k), k)
    }
  }

  /**
   * The ids of the memories holding a keyword these query tokens name, or null when there are
   * more than `limit` of them (scoring each apart would cost more than it saves).
   */
  naming(queryTokens: ReadonlySet<string>, limit: number): Set<string> | null {
    const out = new Set<string>()
    let looked = 0
    for (const t of queryTokens) {
      for (const k of this.keywordsByToken.get(t) ?? []) {
        // Many keywords to look at (slot keys are phrases): drawing as far as the boost reaches costs less.
        if (++looked > limit * 4) return null
        if (!keywordTokensOf(k).every((kt) => queryTokens.has(kt))) continue
        const ids = this.idsByKeyword.get(k) as Set<string>
        if (out.size + ids.size > limit) return null
        for (const id of ids) out.add(id)
      }
    }
    return out
  }
}

/**
 * A lookup built over several steps (each files the next `size` of the entries the view held
 * when the build began), so that no one step holds a search up for long. Entries are peeked, not
 * read into the view: a view started from a snapshot stays as light as it was.
 */
export class KeywordBuild {
  private readonly ids: string[]
  private readonly lookup: KeywordLookup
  private filed = 0

  constructor(private readonly view: KeywordSource) {
    this.ids = [...view.ids()]
    this.lookup = new KeywordLookup().at(view)
  }

  /** Files the next entries; the lookup once all are, brought in line with the view (null: start again), else undefined. */
  step(size: number): KeywordLookup | null | undefined {
    const end = Math.min(this.ids.length, this.filed + size)
    for (; this.filed < end; this.filed++) {
      // One removed since the build began is the view's change log's to file (follow).
      const entry = this.view.peek(this.ids[this.filed] as string)
      if (entry !== undefined) this.lookup.set(entry)
    }
    if (this.filed < this.ids.length) return undefined
    return this.lookup.follow(this.view) ? this.lookup : null
  }
}
