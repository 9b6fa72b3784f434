/**
 * The per-backend search state of this process: the full-text index kept in step with the
 * store's index entries, and the alias table (built-in groups plus `<root>/aliases.json`).
 * Cached per backend object; holds nothing that is not derivable from the store.
 */

import type { MemoryBackend } from '../store/backend.js'
import type { IndexEntry } from '../types.js'
import { buildAliasTable, loadUserAliases, mergeAliasGroups, type AliasTable } from './aliases.js'
import { SearchIndex } from './search-index.js'
import type { EntrySource } from './search.js'

export interface RetrievalState {
  entries: EntrySource
  index: SearchIndex
  aliases: AliasTable
}

interface Cached {
  signature: string
  state: RetrievalState
  aliasSignature: string
}

const cache = new WeakMap<MemoryBackend, Cached>()

async function signatureOf(backend: MemoryBackend, relPath: string): Promise<string> {
  const s = await backend.stat(relPath)
  return s === null ? 'none' : `${s.size}:${s.mtimeMs}`
}

/** The retrieval state for the store as it is now on disk. */
export async function retrievalState(backend: MemoryBackend): Promise<RetrievalState> {
  const [signature, aliasSignature] = await Promise.all([signatureOf(backend, 'index.jsonl'), signatureOf(backend, 'aliases.json')])
  let cached = cache.get(backend)
  if (cached === undefined || cached.signature !== signature) {
    const list = await backend.readIndex()
    const byId = new Map<string, IndexEntry>(list.map((e) => [e.id, e]))
    const index = cached?.state.index ?? SearchIndex.empty()
    index.sync(byId.values())
    const aliases = cached?.aliasSignature === aliasSignature ? cached.state.aliases : buildAliasTable(mergeAliasGroups(await loadUserAliases(backend)))
    cached = { signature, aliasSignature, state: { entries: { get: (id) => byId.get(id), values: () => byId.values() }, index, aliases } }
    cache.set(backend, cached)
  } else if (cached.aliasSignature !== aliasSignature) {
    cached = { ...cached, aliasSignature, state: { ...cached.state, aliases: buildAliasTable(mergeAliasGroups(await loadUserAliases(backend))) } }
    cache.set(backend, cached)
  }
  return cached.state
}
