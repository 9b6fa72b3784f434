/**
 * The in-memory fold of index.jsonl: entries by id, plus the lookups the write path needs in
 * O(1) (by content hash, by slot, by session) and a bounded log of changed ids so that derived
 * indexes can catch up incrementally. Pure data structure; the backend feeds it lines.
 *
 * index.jsonl is append-only between compactions: a line is a whole entry (the latest line for
 * an id wins) or a removal `{"id": "...", "removed": true}`.
 *
 * An entry whose front-matter does not parse is known by id and path only: no write finds it as
 * a repeat, a version or a session's memory, so nothing tries to rewrite a file that a person
 * has to fix first.
 */

import { normalizeSlot } from '../text.js'
import { subjectTerms, termsInOrder } from '../language/subject-terms.js'
import type { IndexEntry } from '../types.js'
import { placardText, roomOf } from './place-fields.js'

/** A keyless statement this short is found by its words too (the change that revises it may name no subject). */
const STATEMENT_CHARS = 240
/** At most this many words of a keyless statement are looked up. */
const STATEMENT_WORDS = 4

/**
 * The words a memory is found by as a subject: its slot key's, or for a short keyless statement
 * the first words of its summary (numbers aside). What `withSubjectTerm` looks up.
 */
export function subjectWords(entry: Pick<IndexEntry, 'key' | 'summary' | 'type'>): string[] {
  if (entry.key !== null) return subjectTerms(entry.key)
  if (entry.type === 'raw' || entry.summary.length > STATEMENT_CHARS) return []
  return termsInOrder(entry.summary)
    .filter((t) => !/\d/u.test(t))
    .slice(0, STATEMENT_WORDS)
}

/** The slot of an entry: its key when it has one, else its title; normalised (case, width, punctuation, spaces). */
export function slotOf(entry: Pick<IndexEntry, 'key' | 'title'>): string {
  return normalizeSlot(entry.key ?? entry.title)
}

const CHANGE_LOG_LIMIT = 50_000

function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  let set = map.get(key)
  if (set === undefined) map.set(key, (set = new Set()))
  set.add(id)
}
function removeFrom(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key)
  if (set === undefined) return
  set.delete(id)
  if (set.size === 0) map.delete(key)
}

/** What every index lookup offers: the view itself, and a transaction's view of its own changes. */
export interface IndexLookup {
  readonly size: number
  get(id: string): IndexEntry | undefined
  values(): Iterable<IndexEntry>
  withHash(hash: string): IndexEntry[]
  inSlot(slot: string): IndexEntry[]
  fromSession(sessionId: string): IndexEntry[]
  atPath(path: string): IndexEntry | undefined
  /** The memories whose location is in this room (a handful: rooms hold 9 slots). */
  inRoom(room: string): IndexEntry[]
  /** The memories whose title reads the same as a placard (`placardText`). */
  withPlacard(text: string): IndexEntry[]
  /** The memories with a slot key among whose words (`subjectTerms`) is this one. */
  withSubjectTerm(term: string): IndexEntry[]
  /** The short keyless statements among whose first words (`subjectWords`) is this one. */
  withStatementTerm(term: string): IndexEntry[]
}

export class IndexView implements IndexLookup {
  private readonly byId = new Map<string, IndexEntry>()
  private readonly byHash = new Map<string, Set<string>>()
  private readonly bySlot = new Map<string, Set<string>>()
  private readonly bySession = new Map<string, Set<string>>()
  private readonly byPath = new Map<string, string>()
  private readonly byRoom = new Map<string, Set<string>>()
  private readonly byPlacard = new Map<string, Set<string>>()
  private readonly bySubjectTerm = new Map<string, Set<string>>()
  private readonly byStatementTerm = new Map<string, Set<string>>()
  /** Copies by the id their files state (identity.ts): a handful at most. */
  private readonly byClaim = new Map<string, Set<string>>()
  /** Increases with every change; `generation` changes when the log cannot be followed. */
  private version = 0
  private generationId = 0
  private log: Array<{ version: number; id: string }> = []

  get size(): number {
    return this.byId.size
  }
  get currentVersion(): number {
    return this.version
  }
  get generation(): number {
    return this.generationId
  }

  get(id: string): IndexEntry | undefined {
    return this.byId.get(id)
  }
  values(): IterableIterator<IndexEntry> {
    return this.byId.values()
  }
  private pick(ids: Set<string> | undefined): IndexEntry[] {
    const out: IndexEntry[] = []
    for (const id of ids ?? []) {
      const e = this.byId.get(id)
      if (e !== undefined) out.push(e)
    }
    return out
  }
  withHash(hash: string): IndexEntry[] {
    return this.pick(this.byHash.get(hash))
  }
  inSlot(slot: string): IndexEntry[] {
    return this.pick(this.bySlot.get(slot))
  }
  fromSession(sessionId: string): IndexEntry[] {
    return this.pick(this.bySession.get(sessionId))
  }
  atPath(path: string): IndexEntry | undefined {
    const id = this.byPath.get(path)
    return id === undefined ? undefined : this.byId.get(id)
  }
  inRoom(room: string): IndexEntry[] {
    return this.pick(this.byRoom.get(room))
  }
  withPlacard(text: string): IndexEntry[] {
    return this.pick(this.byPlacard.get(text))
  }
  withSubjectTerm(term: string): IndexEntry[] {
    return this.pick(this.bySubjectTerm.get(term))
  }
  withStatementTerm(term: string): IndexEntry[] {
    return this.pick(this.byStatementTerm.get(term))
  }
  /** The entries whose files state this id while another file keeps it (copies, each under an id of its own). */
  claiming(id: string): IndexEntry[] {
    return this.pick(this.byClaim.get(id))
  }

  set(entry: IndexEntry): void {
    this.unlink(entry.id)
    this.byId.set(entry.id, entry)
    this.byPath.set(entry.path, entry.id)
    if (entry.claimed_id !== undefined) addTo(this.byClaim, entry.claimed_id, entry.id)
    if (entry.front_matter_error === undefined) this.link(entry)
    this.touch(entry.id)
  }

  /** The lookups by content: hash, slot, session, room, placard, subject words. */
  private link(entry: IndexEntry): void {
    addTo(this.byHash, entry.content_hash, entry.id)
    addTo(this.bySlot, slotOf(entry), entry.id)
    for (const s of entry.sources) if (s.session_id !== null) addTo(this.bySession, s.session_id, entry.id)
    const room = roomOf(entry.location)
    if (room !== null) addTo(this.byRoom, room, entry.id)
    addTo(this.byPlacard, placardText(entry.title), entry.id)
    for (const t of subjectWords(entry)) addTo(entry.key !== null ? this.bySubjectTerm : this.byStatementTerm, t, entry.id)
  }

  delete(id: string): boolean {
    if (!this.unlink(id)) return false
    this.touch(id)
    return true
  }

  /** Forgets everything (before a full reload); followers must resynchronise. */
  clear(): void {
    this.byId.clear()
    this.byHash.clear()
    this.bySlot.clear()
    this.bySession.clear()
    this.byPath.clear()
    this.byRoom.clear()
    this.byPlacard.clear()
    this.bySubjectTerm.clear()
    this.byStatementTerm.clear()
    this.byClaim.clear()
    this.log = []
    this.generationId++
    this.version++
  }

  /** Ids changed after `version` in this generation, or null when the log no longer reaches back. */
  changedSince(generation: number, version: number): string[] | null {
    if (generation !== this.generationId) return null
    if (version === this.version) return []
    const first = this.log[0]
    if (first === undefined || first.version > version + 1) return null
    const ids = new Set<string>()
    for (const c of this.log) if (c.version > version) ids.add(c.id)
    return [...ids]
  }

  private unlink(id: string): boolean {
    const old = this.byId.get(id)
    if (old === undefined) return false
    this.byId.delete(id)
    if (this.byPath.get(old.path) === id) this.byPath.delete(old.path)
    if (old.claimed_id !== undefined) removeFrom(this.byClaim, old.claimed_id, id)
    removeFrom(this.byHash, old.content_hash, id)
    removeFrom(this.bySlot, slotOf(old), id)
    for (const s of old.sources) if (s.session_id !== null) removeFrom(this.bySession, s.session_id, id)
    const room = roomOf(old.location)
    if (room !== null) removeFrom(this.byRoom, room, id)
    removeFrom(this.byPlacard, placardText(old.title), id)
    for (const t of subjectWords(old)) removeFrom(old.key !== null ? this.bySubjectTerm : this.byStatementTerm, t, id)
    return true
  }

  private touch(id: string): void {
    this.version++
    this.log.push({ version: this.version, id })
    if (this.log.length > CHANGE_LOG_LIMIT) this.log = this.log.slice(-CHANGE_LOG_LIMIT / 2)
  }
}
