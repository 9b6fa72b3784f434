/**
 * A store transaction: everything a mutating handler does happens inside one, under the store
 * lock. It sees the live index through an overlay of its own changes, lets the operation create
 * and rewrite memory files, then appends the changed entries to the index and the events to the
 * ledger: O(changes), never O(store). If anything fails, every file it created is removed, every
 * file it rewrote is put back and the overlay is dropped, so a failed call leaves nothing
 * half-written (a file a person edited since keeps the edit). Every rewrite of a memory file is a
 * compare-and-swap against hand edits (MemoryBackend.rewriteFile).
 *
 * Memory files are written before the index, so a crash between the two loses nothing:
 * `rebuildIndex` (or the next freshness check) finds the file.
 */

import { MemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { describeUnreadable, entryFromFile, parseFile, renderFile } from '../../store/frontmatter.js'
import { noteWritten } from '../../store/freshness.js'
import { slotOf, subjectWords, type IndexLookup, type IndexView } from '../../store/index-view.js'
import { placardText, roomOf } from '../../store/place-fields.js'
import type { IndexEntry, LedgerEvent, LedgerEventDraft } from '../../types.js'

/** Front-matter fields a transaction may set; null removes the field from the file. */
export type FrontMatterPatch = Record<string, unknown>

export interface Txn {
  readonly backend: MemoryBackend
  /** The time of this transaction, one value for every event and file it writes. */
  readonly now: string
  /** The index as it is, plus this transaction's changes. */
  readonly index: IndexLookup
  /** Writes a new memory file and indexes it. */
  create(relPath: string, data: FrontMatterPatch, body: string): Promise<IndexEntry>
  /**
   * Writes a new memory file exactly as given (an import) and indexes it; `mtimeMs` stands for
   * the file's time when its front-matter names none (default: this transaction's time).
   */
  put(relPath: string, text: string, mtimeMs?: number): Promise<IndexEntry>
  /**
   * Rewrites a memory's front-matter, keeping its body and any field this program does not
   * know (a person may have edited the file). Null when the file is gone; its entry is dropped.
   * A compare-and-swap: if the file is saved meanwhile, the change is made again on the saved
   * text (so `patch` as a function of the current front-matter, and `body`, may run more than
   * once), or the call fails with INVALID_STATE; an edit is never written over.
   * `body`, when given, rewrites the body from the one on disk (a merge carrying details over).
   */
  update(entry: IndexEntry, patch: FrontMatterPatch | ((current: Record<string, unknown>) => FrontMatterPatch), body?: (current: string) => string): Promise<IndexEntry | null>
  /** Deletes a memory file and drops its entry. */
  remove(entry: IndexEntry): Promise<boolean>
  /** Queues a ledger event; events are appended after the index is written. */
  log(event: LedgerEventDraft): void
}

/** A file this transaction touched: its text before (null: it did not exist) and what it left there (null: removed). */
interface Touched {
  original: string | null
  written: string | null
}

export async function transact<T>(backend: MemoryBackend, operation: (txn: Txn) => Promise<T>): Promise<T> {
  await backend.init()
  return backend.withLock(async () => {
    const overlay = new Overlay(await backend.indexView())
    const now = backend.now()
    const touched = new Map<string, Touched>()
    const events: LedgerEvent[] = []

    const index = (relPath: string, text: string, mtimeMs = Date.parse(now)): IndexEntry => {
      const entry = entryFromFile(relPath, text, mtimeMs)
      overlay.put(entry)
      return entry
    }
    const writeNew = async (relPath: string, text: string, mtimeMs?: number): Promise<IndexEntry> => {
      if ((await backend.stat(relPath)) !== null) throw new MemoryError('INVALID_STATE', `${relPath} already exists`)
      await backend.writeFileAtomic(relPath, text)
      touched.set(relPath, { original: null, written: text })
      return index(relPath, text, mtimeMs)
    }

    const txn: Txn = {
      backend,
      now,
      index: overlay,
      create: (relPath, data, body) => writeNew(relPath, renderFile(data, body)),
      put: (relPath, text, mtimeMs) => writeNew(relPath, text, mtimeMs),
      async update(entry, patch, body) {
        // Compare-and-swap: applied to the file as it is when it is replaced, so a hand edit made
        // meanwhile is kept (store/rewrite.ts).
        const done = await backend.rewriteFile(entry.path, (current) => {
          const parsed = parseFile(current)
          // Rendering fields over a block that does not parse would drop what a person wrote there.
          if (parsed.error !== undefined) throw new MemoryError('INVALID_STATE', `${describeUnreadable(entry.path, parsed.error)}: fix it by hand first; this program does not rewrite a file it cannot read`)
          // Fields the file did not state (a hand-edited file) are pinned to what the index derived,
          // so rewriting the file never changes them (a time from the file's mtime, for one). The id
          // is the index's: a copy indexed under an id of its own (store/identity.ts) gets it written.
          const data = parsed.hasFrontMatter ? { type: entry.type, time: entry.time, ...parsed.data, id: entry.id } : baseFrontMatter(entry)
          const fields = typeof patch === 'function' ? patch(data) : patch
          return renderFile({ ...data, ...fields }, body === undefined ? parsed.body : body(parsed.body))
        })
        if (done === null) {
          overlay.drop(entry.id)
          return null
        }
        const known = touched.get(entry.path)
        // Rolled back to what it held before this transaction, or (edited by hand in between) to
        // what the last rewrite found: never to a text older than a person's edit.
        if (known === undefined || known.written !== done.before) touched.set(entry.path, { original: done.before, written: done.after })
        else known.written = done.after
        return index(entry.path, done.after)
      },
      async remove(entry) {
        const original = touched.has(entry.path) ? (touched.get(entry.path)?.original ?? null) : await backend.readFile(entry.path)
        const removed = await backend.removeFile(entry.path)
        touched.set(entry.path, { original, written: null })
        overlay.drop(entry.id)
        return removed
      },
      log(event) {
        events.push({ at: now, ...event })
      },
    }

    let result: T
    try {
      result = await operation(txn)
      const { upserts, removed } = overlay.changes()
      await backend.appendIndex(upserts, removed)
    } catch (err) {
      await rollBack(backend, touched)
      throw err
    }
    // One append and one flush for all of them: a write that revises or settles costs one fdatasync, not one per event.
    await backend.appendLedger(...events)
    await noteWritten(backend, [...touched.keys()])
    return result
  })
}

/**
 * The live view with this transaction's changes laid over it; the view itself is not touched.
 * Also what a dry run lays its would-be entries over.
 */
export class Overlay implements IndexLookup {
  /** id -> changed entry, or null when removed. */
  private readonly changed = new Map<string, IndexEntry | null>()
  constructor(private readonly base: IndexView) {}

  put(entry: IndexEntry): void {
    this.changed.set(entry.id, entry)
  }
  drop(id: string): void {
    this.changed.set(id, null)
  }
  changes(): { upserts: IndexEntry[]; removed: string[] } {
    const upserts: IndexEntry[] = []
    const removed: string[] = []
    for (const [id, e] of this.changed) {
      if (e !== null) upserts.push(e)
      else if (this.base.get(id) !== undefined) removed.push(id)
    }
    return { upserts, removed }
  }

  get size(): number {
    let n = this.base.size
    for (const [id, e] of this.changed) n += (e !== null ? 1 : 0) - (this.base.get(id) !== undefined ? 1 : 0)
    return n
  }
  get(id: string): IndexEntry | undefined {
    const e = this.changed.get(id)
    return e === undefined ? this.base.get(id) : (e ?? undefined)
  }
  *values(): IterableIterator<IndexEntry> {
    for (const e of this.base.values()) if (!this.changed.has(e.id)) yield e
    for (const e of this.changed.values()) if (e !== null) yield e
  }
  private merge(fromBase: IndexEntry[], matches: (e: IndexEntry) => boolean): IndexEntry[] {
    const out = fromBase.filter((e) => !this.changed.has(e.id))
    for (const e of this.changed.values()) if (e !== null && matches(e)) out.push(e)
    return out
  }
  withHash(hash: string): IndexEntry[] {
    return this.merge(this.base.withHash(hash), (e) => e.content_hash === hash)
  }
  inSlot(slot: string): IndexEntry[] {
    return this.merge(this.base.inSlot(slot), (e) => slotOf(e) === slot)
  }
  fromSession(sessionId: string): IndexEntry[] {
    return this.merge(this.base.fromSession(sessionId), (e) => e.sources.some((s) => s.session_id === sessionId))
  }
  inRoom(room: string): IndexEntry[] {
    return this.merge(this.base.inRoom(room), (e) => roomOf(e.location) === room)
  }
  withPlacard(text: string): IndexEntry[] {
    return this.merge(this.base.withPlacard(text), (e) => placardText(e.title) === text)
  }
  withSubjectTerm(term: string): IndexEntry[] {
    return this.merge(this.base.withSubjectTerm(term), (e) => e.key !== null && subjectWords(e).includes(term))
  }
  withStatementTerm(term: string): IndexEntry[] {
    return this.merge(this.base.withStatementTerm(term), (e) => e.key === null && subjectWords(e).includes(term))
  }
  subjectWordsOf(entry: IndexEntry): string[] {
    return this.changed.get(entry.id) === entry ? subjectWords(entry) : this.base.subjectWordsOf(entry)
  }
  countWithTerm(term: string, statement: boolean, except: Iterable<string> = []): number {
    const skip = new Set(except)
    let n = this.base.countWithTerm(term, statement, [...this.changed.keys(), ...skip])
    for (const e of this.changed.values()) if (e !== null && !skip.has(e.id) && (e.key === null) === statement && subjectWords(e).includes(term)) n++
    return n
  }
  atPath(path: string): IndexEntry | undefined {
    for (const e of this.changed.values()) if (e !== null && e.path === path) return e
    const e = this.base.atPath(path)
    return e !== undefined && !this.changed.has(e.id) ? e : undefined
  }
}

/**
 * Puts back what a failed transaction changed, but only where the file still holds what the
 * transaction left: a file edited since keeps the edit (and a warning says so).
 */
async function rollBack(backend: MemoryBackend, touched: ReadonlyMap<string, Touched>): Promise<void> {
  for (const [relPath, { original, written }] of touched) {
    try {
      if (written === null) {
        if (original !== null && (await backend.stat(relPath)) === null) await backend.writeFileAtomic(relPath, original)
      } else if (original === null) {
        if ((await backend.readFile(relPath)) === written) await backend.removeFile(relPath)
        else console.warn(`dsh-memory-agent: kept ${relPath}: it was edited after a failed write made it`)
      } else {
        const done = await backend.rewriteFile(relPath, (current) => (current === written ? original : null))
        if (done !== null && done.after !== original) console.warn(`dsh-memory-agent: kept ${relPath} as edited: a failed write did not roll it back over the edit`)
      }
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
    ...(entry.key_derived === true ? { slot: entry.key } : { key: entry.key }),
    supersedes: entry.supersedes,
    superseded_by: entry.superseded_by,
    variants: entry.variants,
    raw_ref: entry.raw_ref,
    episode: entry.episode,
    anchors: entry.anchors,
  }
}
