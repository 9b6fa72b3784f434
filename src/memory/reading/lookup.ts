/**
 * Finding one memory by id for an operation, with the errors the tools promise: NOT_FOUND for an
 * unknown id (with a hint), INVALID_STATE for raw entries, which are reached only through their
 * episode. Pure.
 */

import { MemoryError } from '../../errors.js'
import type { IndexEntry } from '../../types.js'
import type { Txn } from '../writing/txn.js'

export function requireEntry(txn: Pick<Txn, 'index'>, id: string, action: string): IndexEntry {
  const entry = txn.index.get(id)
  if (entry === undefined)
    throw new MemoryError('NOT_FOUND', `no memory with id ${JSON.stringify(id)}; list ids with memory_nav`, 'id')
  if (entry.type === 'raw')
    throw new MemoryError('INVALID_STATE', `${id} is raw text; ${action} its episode ${entry.episode ?? ''} instead`.trim(), 'id')
  return entry
}
