/**
 * Reads never create stores: a read on a root with no store is NOT_FOUND naming the path (a
 * mistyped --root must not leave a new store behind), while a write creates the store it goes to.
 * Owns this one check; changes nothing on disk.
 */

import { MemoryError } from '../errors.js'
import type { MemoryBackend } from './backend.js'

/** NOT_FOUND naming the root when backend's store does not exist. */
export async function requireStore(backend: MemoryBackend): Promise<void> {
  if (await backend.exists()) return
  throw new MemoryError('NOT_FOUND', `no memory store at ${backend.root} (a store is created by its first write; check the root you gave)`, 'root')
}
