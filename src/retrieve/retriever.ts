/**
 * The per-backend search state of this process: the full-text index kept in step with the live
 * index view (only changed entries are re-indexed), the alias table (built-in groups plus
 * `<root>/aliases.json`, reloaded when that file changes), and their persistence: the search
 * index is saved as segments under `.cache/search/` (segment-files.ts) a while after it changes
 * and on `flushCaches`, and opened at start instead of tokenising every memory again.
 *
 * Holds nothing that is not derivable from the store; deleting `.cache/` costs one rebuild. A
 * store whose `.cache/` cannot be written is searched all the same: each process then builds the
 * search index in memory, and says once that it could not save it.
 */

import type { MemoryBackend } from '../store/backend.js'
import { ensureFresh, heldInMemory, saveSeenStats, stopFreshness } from '../store/freshness.js'
import type { IndexView } from '../store/index-view.js'
import { warnOnce } from '../store/warn-once.js'
import { buildAliasTable, loadUserAliases, mergeAliasGroups, type AliasTable } from './aliases.js'
import type { IndexEntry } from '../types.js'
import { packageVersion } from '../version.js'
import { KeywordBuild, type KeywordLookup } from './keywords.js'
import { SearchIndex } from './search-index.js'
import { SEARCH_MANIFEST, loadSavedIndex, removeSearchIndex, saveSearchIndex, savedIndexState } from './segment-files.js'
import { affectedWithContext, allWithContext } from './session-context.js'

/** Removing this file drops the saved search index (its segments are no longer listed). */
export const SEARCH_INDEX_FILE = SEARCH_MANIFEST
/** A changed search index is saved this long after its last change (the timer never keeps a process alive). */
const SAVE_DELAY_MS = 10_000

export interface RetrievalState {
  entries: IndexView
  index: SearchIndex
  aliases: AliasTable
  /** The keywords of the live entries (null for the store as of a past time). */
  keywords: KeywordLookup | null
}

interface Cached {
  index: SearchIndex
  /** Null until built beside the searches (or after the view was replaced, until built again). */
  keywords: KeywordLookup | null
  /** The lookup under way (`growKeywords`), and whether its steps are running now. */
  keywordBuild: KeywordBuild | null
  keywordBuilding: boolean
  /** Calls made for this state: a process that searches once never builds the keyword lookup. */
  looks: number
  generation: number
  version: number
  aliases: AliasTable
  aliasSignature: string
  unsaved: number
  saveTimer: ReturnType<typeof setTimeout> | null
  /** A save failed (a read-only or full store): no more timed saves, only the one at flushCaches. */
  saveFailed: boolean
  /** The session of each indexed entry when it was indexed, to re-context its old neighbours. */
  sessionOf: Map<string, string>
  /**
   * The state of index.jsonl (indexSignature) the index was last brought in line with, claimed
   * when it is saved; null when not known (index.jsonl changed while the view was read, or the
   * view holds changes folded in memory only), which no later process trusts.
   */
  matches: string | null
}

const caches = new WeakMap<MemoryBackend, Cached>()

async function aliasSignature(backend: MemoryBackend): Promise<string> {
  const s = await backend.stat('aliases.json')
  return s === null ? 'none' : `${s.size}:${s.mtimeMs}`
}

async function aliasTable(backend: MemoryBackend): Promise<AliasTable> {
  return buildAliasTable(mergeAliasGroups(await loadUserAliases(backend)))
}


function scheduleSave(backend: MemoryBackend, c: Cached): void {
  if (c.unsaved === 0 || c.saveTimer !== null || c.saveFailed) return
  c.saveTimer = setTimeout(() => {
    c.saveTimer = null
    void trySave(backend, c)
  }, SAVE_DELAY_MS)
  c.saveTimer.unref()
}

/** Saves the search index if the store lets it; a failure is said once, never thrown. */
async function trySave(backend: MemoryBackend, c: Cached): Promise<void> {
  try {
    await saveIndex(backend, c)
  } catch (err) {
    c.saveFailed = true
    warnOnce(backend, 'search index not saved', err, 'each process builds it in memory from index.jsonl')
  }
}

/**
 * index.jsonl's state (size:mtime) as this program version reads it: a saved index claiming it is
 * used without a check of each entry, and another version may make documents otherwise.
 */
async function indexSignature(backend: MemoryBackend): Promise<string> {
  const st = await backend.stat('index.jsonl')
  return st === null ? 'none' : `${st.size}:${st.mtimeMs}@${packageVersion()}`
}

async function saveIndex(backend: MemoryBackend, c: Cached): Promise<void> {
  if (c.unsaved === 0) return
  const unsaved = c.unsaved
  await saveSearchIndex(backend, c.index, c.matches)
  c.unsaved -= unsaved
}

/** True when the saved search index was made from index.jsonl as it is now. */
async function savedIndexIsCurrent(backend: MemoryBackend): Promise<boolean> {
  const state = await savedIndexState(backend)
  return state !== null && state === (await indexSignature(backend))
}

function sessionMap(view: IndexView): Map<string, string> {
  return new Map(view.sessions())
}

export interface StateUse {
  /**
   * An internal read, not a search of the process (a write's may_revise candidates): it is not
   * counted as a look (so it never brings the keyword lookup build forward) and starts no timed
   * save of the search index (a process that only wrote saves it at flushCaches, as before).
   */
  quiet?: boolean
}

/** The retrieval state for the store as it is now, outside edits included. */
export async function retrievalState(backend: MemoryBackend, use: StateUse = {}): Promise<RetrievalState> {
  await ensureFresh(backend)
  // index.jsonl as the view is read: the same before and after means the view is exactly it.
  const before = await indexSignature(backend)
  const view = await backend.indexView()
  const after = await indexSignature(backend)
  const matches = before === after && !heldInMemory(backend) ? after : null
  let c = caches.get(backend)
  if (c === undefined) {
    const [saved, aliases, signature] = await Promise.all([loadSavedIndex(backend), aliasTable(backend), aliasSignature(backend)])
    const index = saved?.index ?? SearchIndex.empty()
    // A saved index made from index.jsonl as it is now is used as it is; one older than the
    // store is brought up to date by checksum, entry by entry.
    const current = saved !== null && matches !== null && saved.state === matches
    const stats = current ? null : index.sync(allWithContext(view))
    const unsaved = stats === null ? 0 : stats.added + stats.updated + stats.removed
    c = { index, keywords: null, keywordBuild: null, keywordBuilding: false, looks: 0, generation: view.generation, version: view.currentVersion, aliases, aliasSignature: signature, unsaved, saveTimer: null, saveFailed: false, sessionOf: sessionMap(view), matches }
    caches.set(backend, c)
  } else {
    const changed = view.changedSince(c.generation, c.version)
    if (changed === null) {
      const stats = c.index.sync(allWithContext(view))
      c.unsaved += stats.added + stats.updated + stats.removed
      c.sessionOf = sessionMap(view)
    } else if (changed.length > 0) {
      const present: IndexEntry[] = []
      const sessions = new Set<string>()
      for (const id of changed) {
        const entry = view.get(id)
        const before = c.sessionOf.get(id)
        if (before !== undefined) sessions.add(before)
        if (entry === undefined) {
          if (c.index.remove(id)) c.unsaved++
          c.sessionOf.delete(id)
          continue
        }
        present.push(entry)
        if (entry.session_id !== null) {
          sessions.add(entry.session_id)
          c.sessionOf.set(id, entry.session_id)
        } else c.sessionOf.delete(id)
      }
      for (const item of affectedWithContext(view, present, sessions)) if (c.index.apply(item) !== 'unchanged') c.unsaved++
    }
    c.generation = view.generation
    c.version = view.currentVersion
    c.matches = matches
    const signature = await aliasSignature(backend)
    if (signature !== c.aliasSignature) {
      c.aliases = await aliasTable(backend)
      c.aliasSignature = signature
    }
  }
  if (use.quiet !== true) {
    scheduleSave(backend, c)
    c.looks++
  }
  if (c.keywords !== null && !c.keywords.follow(view)) c.keywords = null
  return { entries: view, index: c.index, aliases: c.aliases, keywords: c.keywords }
}

/** Entries the keyword lookup files per step. */
const KEYWORD_STEP = 2000

/**
 * Builds this store's keyword lookup, for the caller to run after a search has answered (off its
 * path), from the second look of a process on: the first tokenisation of every keyword (slot keys
 * are phrases) costs about 13 ms of CPU per 1,000 memories, which a one-shot command would spend
 * for nothing. It goes on a step at a time, a turn of the event loop between steps, until done,
 * so a search arriving meanwhile waits for one step at most; until it is built, searches draw as
 * far as the boost reaches (at 100,000 memories a common word then reads tens of thousands of
 * entries). A view that changed past following means a build from the start at the next search.
 */
export async function growKeywords(backend: MemoryBackend): Promise<void> {
  const c = caches.get(backend)
  if (c === undefined || c.keywords !== null || c.looks < 2 || c.keywordBuilding) return
  c.keywordBuilding = true
  try {
    const build = (c.keywordBuild ??= new KeywordBuild(await backend.indexView()))
    for (let done = build.step(KEYWORD_STEP); ; done = build.step(KEYWORD_STEP)) {
      if (done !== undefined) {
        c.keywordBuild = null
        c.keywords = done
        return
      }
      await new Promise((resolve) => setImmediate(resolve))
      // Dropped meanwhile (rebuildSearchCache): its build is no one's.
      if (caches.get(backend) !== c) return
    }
  } finally {
    c.keywordBuilding = false
  }
}

/**
 * The terms this store's synonym groups (built-in and `<root>/aliases.json`) add to query tokens,
 * exactly as a search adds them: what a reader of search results can count as the query's words.
 */
export async function aliasTerms(backend: MemoryBackend, queryTokens: readonly string[]): Promise<string[]> {
  return (await retrievalState(backend)).aliases.expand(queryTokens)
}

/**
 * Builds the search index of this store again from the index, in this process and on disk,
 * dropping the saved copy first: after a purge no term of a removed memory survives in either.
 */
export async function rebuildSearchCache(backend: MemoryBackend): Promise<void> {
  const c = caches.get(backend)
  if (c?.saveTimer != null) clearTimeout(c.saveTimer)
  caches.delete(backend)
  await removeSearchIndex(backend)
  await retrievalState(backend)
  const fresh = caches.get(backend)
  if (fresh === undefined) return
  if (fresh.saveTimer !== null) clearTimeout(fresh.saveTimer)
  fresh.saveTimer = null
  fresh.unsaved = Math.max(fresh.unsaved, 1)
  await saveIndex(backend, fresh)
}

/**
 * Brings the derived caches of this store up to date on disk now (search index, index snapshot,
 * file stats) and stops its file watcher. Adapters call it when they finish (a CLI command, a
 * server shutting down). A process that only wrote still leaves a current search index behind, so the next
 * process starts from it instead of catching up; skipping the call loses nothing but start-up
 * time. A store that cannot be written keeps its caches as they were: said once, never thrown.
 */
export async function flushCaches(backend: MemoryBackend): Promise<void> {
  const stale = (await backend.stat('index.jsonl')) !== null && !(await savedIndexIsCurrent(backend))
  // Catch the index up with the store first, whether or not this process had it loaded: the
  // marker saved with it must never claim a state the index does not hold.
  if (stale) await retrievalState(backend)
  const c = caches.get(backend)
  if (c !== undefined) {
    if (c.saveTimer !== null) clearTimeout(c.saveTimer)
    c.saveTimer = null
    // An index that matches the store but was saved without its marker is saved again once.
    if (stale) c.unsaved = Math.max(c.unsaved, 1)
    await trySave(backend, c)
  }
  await saveSeenStats(backend).catch((err: unknown) => warnOnce(backend, 'file stats not saved', err, 'the next process looks at every memory file again'))
  await backend.flushIndex?.().catch((err: unknown) => warnOnce(backend, 'index snapshot not saved', err, 'the next process folds more of index.jsonl'))
  stopFreshness(backend)
}
