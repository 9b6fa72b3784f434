/**
 * A store transaction: everything a mutating handler does happens inside one, under the store
 * lock. It reads the index once, lets the operation create and rewrite memory files, then writes
 * the index and appends the ledger events. If anything fails, every file it created is removed
 * and every file it rewrote is put back, so a failed call leaves nothing half-written.
 *
 * Memory files are written before the index, so a crash between the two loses nothing:
 * `rebuildIndex` finds the file.
 */

import { MemoryError } from '../errors.js'
import type { MemoryBackend } from '../store/backend.js'
import { entryFromFile, parseFile, renderFile } from '../store/frontmatter.js'
import type { IndexEntry, LedgerEvent, LedgerEventDraft } from '../types.js'

/** Front-matter fields a transaction may set; null removes the field from the file. */
export type FrontMatterPatch = Record<string, unknown>

export interface Txn {
  readonly backend: MemoryBackend
  /** The time of this transaction, one value for every event and file it writes. */
  readonly now: string
  /** The index as it was read, plus this transaction's changes; insertion-ordered. */
  readonly entries: ReadonlyMap<string, IndexEntry>
  /** Writes a new memory file and indexes it. */
  create(relPath: string, data: FrontMatterPatch, body: string): Promise<IndexEntry>
  /**
   * Rewrites a memory's front-matter, keeping its body and any field this program does not
   * know (a person may have edited the file). Null when the file is gone; its entry is dropped.
   */
  update(entry: IndexEntry, patch: FrontMatterPatch): Promise<IndexEntry | null>
  /** Deletes a memory file and drops its entry. */
  remove(entry: IndexEntry): Promise<boolean>
  /** Queues a ledger event; events are appended after the index is written. */
  log(event: LedgerEventDraft): void
}

export async function transact<T>(backend: MemoryBackend, operation: (txn: Txn) => Promise<T>): Promise<T> {
  await backend.init()
  return backend.withLock(async () => {
    const entries = new Map<string, IndexEntry>()
    for (const e of await backend.readIndex()) entries.set(e.id, e)
    const now = backend.now()
    /** path -> text before this transaction touched it (null: did not exist). */
    const originals = new Map<string, string | null>()
    const events: LedgerEvent[] = []
    let dirty = false

    const remember = async (relPath: string): Promise<string | null> => {
      if (!originals.has(relPath)) originals.set(relPath, await backend.readFile(relPath))
      return originals.get(relPath) ?? null
    }
    const writeAndIndex = async (relPath: string, text: string): Promise<IndexEntry> => {
      await backend.writeFileAtomic(relPath, text)
      const entry = entryFromFile(relPath, text, Date.parse(now))
      entries.set(entry.id, entry)
      dirty = true
      return entry
    }

    const txn: Txn = {
      backend,
      now,
      entries,
      async create(relPath, data, body) {
        if ((await remember(relPath)) !== null) throw new MemoryError('INVALID_STATE', `${relPath} already exists`)
        return writeAndIndex(relPath, renderFile(data, body))
      },
      async update(entry, patch) {
        const current = originals.has(entry.path) ? await backend.readFile(entry.path) : await remember(entry.path)
        if (current === null) {
          entries.delete(entry.id)
          dirty = true
          return null
        }
        const parsed = parseFile(current)
        // Fields the file did not state (a hand-edited file) are pinned to what the index derived,
        // so rewriting the file never changes them (a time from the file's mtime, for one).
        const data = parsed.hasFrontMatter ? { id: entry.id, type: entry.type, time: entry.time, ...parsed.data } : baseFrontMatter(entry)
        return writeAndIndex(entry.path, renderFile({ ...data, ...patch }, parsed.body))
      },
      async remove(entry) {
        await remember(entry.path)
        const removed = await backend.removeFile(entry.path)
        entries.delete(entry.id)
        dirty = true
        return removed
      },
      log(event) {
        events.push({ at: now, ...event })
      },
    }

    let result: T
    try {
      result = await operation(txn)
      if (dirty) await backend.writeIndex([...entries.values()])
    } catch (err) {
      await rollBack(backend, originals)
      throw err
    }
    for (const event of events) await backend.appendLedger(event)
    return result
  })
}

async function rollBack(backend: MemoryBackend, originals: Map<string, string | null>): Promise<void> {
  for (const [relPath, text] of originals) {
    try {
      if (text === null) await backend.removeFile(relPath)
      else await backend.writeFileAtomic(relPath, text)
    } catch (err) {
      console.warn(`dsh-memory-agent: could not roll back ${relPath}: ${String(err)}`)
    }
  }
}

/** Front-matter for a hand-written file that had none, from its index entry. */
export function baseFrontMatter(entry: IndexEntry): FrontMatterPatch {
  return {
    id: entry.id,
    type: entry.type,
    title: entry.title,
    time: entry.time,
    status: entry.status,
    session_id: entry.session_id,
    sources: entry.sources,
    confidence: entry.confidence,
    tags: entry.tags,
    entities: entry.entities,
    key: entry.key,
    supersedes: entry.supersedes,
    superseded_by: entry.superseded_by,
    variants: entry.variants,
    raw_ref: entry.raw_ref,
    episode: entry.episode,
  }
}
