/**
 * Strength from use (strength.ts) as readers need it: the effective importance of each memory
 * for a ranking (search, assemble), read from usage.jsonl as it is now; and the fold that writes
 * it into the memory files (front-matter `strength`, `strength_at`), which consolidation runs:
 * the only time a use reaches a memory file. A fold writes a file only when its value changed.
 */

import type { MemoryBackend } from '../../store/backend.js'
import type { IndexEntry } from '../../types.js'
import { transact } from '../writing/txn.js'
import { readUsage } from './signals.js'
import { effectiveImportance, EMPTY_SUM, foldValue } from './strength.js'

/** Each memory's effective importance now (its own plus strength from use), for a ranking. */
export async function importanceLookup(backend: MemoryBackend): Promise<(entry: IndexEntry) => number> {
  const usage = await readUsage(backend)
  const now = Date.parse(backend.now())
  return (entry) => effectiveImportance(entry, usage.get(entry.id)?.uses ?? EMPTY_SUM, now)
}

export interface StrengthFold {
  /** Whether one more file may be rewritten (the run's caps); false stops the fold. */
  allows(): boolean
  spend(): void
}

/** A memory whose file a fold may rewrite: a memory (not raw text) whose front-matter parses. */
const foldable = (e: IndexEntry | undefined): e is IndexEntry => e !== undefined && e.type !== 'raw' && e.front_matter_error === undefined

/**
 * Writes each used memory's strength into its file where it changed (a `strength` ledger event
 * each); ids of those written, or that would be in a dry run.
 */
export async function foldStrength(backend: MemoryBackend, dryRun: boolean, caps: StrengthFold): Promise<string[]> {
  const usage = await readUsage(backend)
  if (usage.size === 0) return []
  if (dryRun) {
    const view = await backend.indexView()
    const now = Date.parse(backend.now())
    return [...usage].filter(([id, s]) => {
      const e = view.get(id)
      return foldable(e) && foldValue(e, s.uses, now) !== null
    }).map(([id]) => id)
  }
  return transact(backend, async (txn) => {
    const now = Date.parse(txn.now)
    const done: string[] = []
    for (const [id, stats] of usage) {
      const entry = txn.index.get(id)
      if (!foldable(entry)) continue
      const value = foldValue(entry, stats.uses, now)
      if (value === null) continue
      if (!caps.allows()) break
      if ((await txn.update(entry, { strength: value, strength_at: txn.now })) === null) continue
      caps.spend()
      txn.log({ event: 'strength', id, strength: value, hits: stats.hits, repeats: stats.repeats })
      done.push(id)
    }
    return done
  })
}
