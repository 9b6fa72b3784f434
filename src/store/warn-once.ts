/**
 * Reads never need write access. What a read writes on the side (the search-index and file-stats
 * caches, evidence batches, usage, the query log, outside edits folded into the index) is
 * best-effort: when the store refuses it, the read goes on and the failure is said once per
 * backend, never once per call. A store that cannot be written at all (read-only, not this
 * user's, full) gets one line for everything; any other failure one line per kind. Must never be
 * used for memory files or for a write the caller asked for: those fail with the error.
 */

import { isNotWritable } from '../errors.js'
import type { MemoryBackend } from './backend.js'

const said = new WeakMap<MemoryBackend, Set<string>>()

/** What a store that cannot be written goes without, said with the first refusal. */
const WITHOUT =
  'reads go on, and what they keep on the side is not saved: the search-index and file-stats caches, usage and the query log, ' +
  'evidence batches (memory_assess refuses their refs as unknown), and files edited outside (indexed in memory only)'

/** Warns, once for this backend in this process, that `what` did not happen, why, and what follows. */
export function warnOnce(backend: MemoryBackend, what: string, err: unknown, consequence: string): void {
  const refused = isNotWritable(err)
  const key = refused ? 'refused' : what
  let kinds = said.get(backend)
  if (kinds === undefined) said.set(backend, (kinds = new Set()))
  if (kinds.has(key)) return
  kinds.add(key)
  const why = err instanceof Error ? err.message : String(err)
  console.warn(
    refused
      ? `dsh-memory-agent: the store at ${backend.root} cannot be written (${why}); ${WITHOUT}. Said once.`
      : `dsh-memory-agent: ${what}: ${why}; ${consequence}. Said once for ${backend.root}.`,
  )
}
