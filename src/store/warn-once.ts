/**
 * Reads never need write access. What a read writes on the side (the search-index and file-stats
 * caches, evidence batches, usage, the query log, edits folded into the index) is best-effort:
 * when the store refuses it (read-only, not this user's, full), the read goes on and the failure
 * is said once per backend and kind, never once per call. Must never be used for memory files
 * or for a write the caller asked for: those fail with the error.
 */

import type { MemoryBackend } from './backend.js'

const said = new WeakMap<MemoryBackend, Set<string>>()

/**
 * Warns, once for this backend in this process, that `what` did not happen (no colon in it), why,
 * and what follows from that.
 */
export function warnOnce(backend: MemoryBackend, what: string, err: unknown, consequence: string): void {
  let kinds = said.get(backend)
  if (kinds === undefined) said.set(backend, (kinds = new Set()))
  if (kinds.has(what)) return
  kinds.add(what)
  const why = err instanceof Error ? err.message : String(err)
  console.warn(`dsh-memory-agent: ${what}: ${why}; ${consequence} (said once for ${backend.root})`)
}
