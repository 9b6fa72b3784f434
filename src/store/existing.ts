/**
 * Reads never create stores. A read on a root with no store is NOT_FOUND naming the path when the
 * root was named (a mistyped --root must not look like an empty store, nor leave one behind); on
 * the default root (the working directory's `.agent/memory`, not written yet) the tools that
 * answer a first call (search, verify, nav) say "nothing stored yet" instead. Owns this one check;
 * changes nothing on disk.
 */

import { MemoryError } from '../errors.js'
import type { MemoryBackend } from './backend.js'

/**
 * What a read meets where no store exists yet: `not-found` (the default: the root was named, so a
 * missing store is likely a typo) or `empty` (the root is the default one: a store not written yet).
 */
export type MissingStore = 'not-found' | 'empty'

/** NOT_FOUND naming the root when backend's store does not exist. */
export async function requireStore(backend: MemoryBackend): Promise<void> {
  if (await backend.exists()) return
  throw new MemoryError('NOT_FOUND', `no memory store at ${backend.root} (a store is created by its first write; check the root you gave)`, 'root')
}

/** Whether a read on backend answers "nothing stored yet": its default root holds no store yet. */
export async function storeNotWrittenYet(backend: MemoryBackend): Promise<boolean> {
  return backend.missingStore === 'empty' && !(await backend.exists())
}

/** The sentence a first-use answer carries, for the agent reading it. */
export function nothingStoredYet(backend: MemoryBackend): string {
  return `nothing stored yet: no memory has been written in ${backend.root}; a store starts with its first write_memory, so save what is worth keeping and search again later.`
}
