/**
 * The per-backend search state of this process: the full-text index kept in step with the live
 * index view (only changed entries are re-indexed), the alias table (built-in groups plus
 * `<root>/aliases.json`, reloaded when that file changes), and their persistence: the search
 * index is saved to `.cache/search-index.json` a while after it changes and on `flushCaches`,
 * and loaded at start instead of tokenising every memory again.
 *
 * Holds nothing that is not derivable from the store; deleting `.cache/` costs one rebuild.
 */

import type { MemoryBackend } from '../store/backend.js'
import { ensureFresh, saveSeenStats, stopFreshness } from '../store/freshness.js'
import type { IndexView } from '../store/index-view.js'
import { buildAliasTable, loadUserAliases, mergeAliasGroups, type AliasTable } from './aliases.js'
import type { IndexEntry } from '../types.js'
import { SearchIndex } from './search-index.js'
import { affectedWithContext, allWithContext } from './session-context.js'

export const SEARCH_INDEX_FILE = '.cache/search-index.json'
/** A changed search index is saved this long after its last change (the timer never keeps a process alive). */
const SAVE_DELAY_MS = 10_000

export interface RetrievalState {
  entries: IndexView
  index: SearchIndex
  aliases: AliasTable
}

interface Cached {
  index: SearchIndex
  generation: number
  version: number
  aliases: AliasTable
  aliasSignature: string
  unsaved: number
  saveTimer: ReturnType<typeof setTimeout> | null
  /** The session of each indexed entry when it was indexed, to re-context its old neighbours. */
  sessionOf: Map<string, string>
}

const caches = new WeakMap<MemoryBackend, Cached>()

async function aliasSignature(backend: MemoryBackend): Promise<string> {
  const s = await backend.stat('aliases.json')
  return s === null ? 'none' : `${s.size}:${s.mtimeMs}`
}

async function aliasTable(backend: MemoryBackend): Promise<AliasTable> {
  return buildAliasTable(mergeAliasGroups(await loadUserAliases(backend)))
}

async function loadIndex(backend: MemoryBackend): Promise<SearchIndex> {
  const text = await backend.readFile(SEARCH_INDEX_FILE).catch(() => null)
  return (text !== null ? SearchIndex.fromJSON(text) : null) ?? SearchIndex.empty()
}

function scheduleSave(backend: MemoryBackend, c: Cached): void {
  if (c.unsaved === 0 || c.saveTimer !== null) return
  c.saveTimer = setTimeout(() => {
    c.saveTimer = null
    saveIndex(backend, c).catch((err: unknown) => console.warn(`dsh-memory-agent: could not save the search index: ${String(err)}`))
  }, SAVE_DELAY_MS)
  c.saveTimer.unref()
}

async function saveIndex(backend: MemoryBackend, c: Cached): Promise<void> {
  if (c.unsaved === 0) return
  const unsaved = c.unsaved
  await backend.writeFileAtomic(SEARCH_INDEX_FILE, c.index.toJSON())
  c.unsaved -= unsaved
}

function sessionMap(view: IndexView): Map<string, string> {
  const out = new Map<string, string>()
  for (const e of view.values()) if (e.session_id !== null) out.set(e.id, e.session_id)
  return out
}

/** The retrieval state for the store as it is now, outside edits included. */
export async function retrievalState(backend: MemoryBackend): Promise<RetrievalState> {
  await ensureFresh(backend)
  const view = await backend.indexView()
  let c = caches.get(backend)
  if (c === undefined) {
    const [index, aliases, signature] = await Promise.all([loadIndex(backend), aliasTable(backend), aliasSignature(backend)])
    // The saved index may be older than the store: bring it up to date by checksum.
    const stats = index.sync(allWithContext(view))
    c = { index, generation: view.generation, version: view.currentVersion, aliases, aliasSignature: signature, unsaved: stats.added + stats.updated + stats.removed, saveTimer: null, sessionOf: sessionMap(view) }
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
    const signature = await aliasSignature(backend)
    if (signature !== c.aliasSignature) {
      c.aliases = await aliasTable(backend)
      c.aliasSignature = signature
    }
  }
  scheduleSave(backend, c)
  return { entries: view, index: c.index, aliases: c.aliases }
}

/**
 * Saves the derived caches of this store now (search index, file stats) and stops its file
 * watcher. Adapters call it when they finish (a CLI command, a server shutting down); skipping it
 * loses nothing but start-up time.
 */
export async function flushCaches(backend: MemoryBackend): Promise<void> {
  const c = caches.get(backend)
  if (c !== undefined) {
    if (c.saveTimer !== null) clearTimeout(c.saveTimer)
    c.saveTimer = null
    await saveIndex(backend, c)
  }
  await saveSeenStats(backend)
  stopFreshness(backend)
}
