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
import { PathSetHash } from './path-set.js'

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

/**
 * What an entry is looked up by besides its id and path, worked out once per entry when the
 * lookups by content are built (the subject words tokenise its summary: before the lookups were
 * built on first use, most of the cost of folding a line), and kept for unlinking it.
 */
export interface EntryKeys {
  hash: string
  slot: string
  placard: string
  room: string | null
  /** The sessions of its sources. */
  sessions: string[]
  /** It has a slot key: its subject words are a slot's (`withSubjectTerm`), else a statement's. */
  keyed: boolean
  /** Its subject words (`subjectWords`): slot words when it has a key, else statement words. */
  subject: string[]
}

export function entryKeys(entry: IndexEntry): EntryKeys {
  return {
    hash: entry.content_hash,
    slot: slotOf(entry),
    placard: placardText(entry.title),
    room: roomOf(entry.location),
    sessions: entry.sources.flatMap((s) => (s.session_id === null ? [] : [s.session_id])),
    keyed: entry.key !== null,
    subject: subjectWords(entry),
  }
}

/** Ids under one lookup key: most keys (a hash, a slot, a placard) hold one, kept as the string itself. */
type Ids = string | Set<string>

function addTo(map: Map<string, Ids>, key: string, id: string): void {
  const ids = map.get(key)
  if (ids === undefined) map.set(key, id)
  else if (typeof ids !== 'string') ids.add(id)
  else if (ids !== id) map.set(key, new Set([ids, id]))
}
function removeFrom(map: Map<string, Ids>, key: string, id: string): void {
  const ids = map.get(key)
  if (ids === undefined) return
  if (typeof ids === 'string') {
    if (ids === id) map.delete(key)
    return
  }
  ids.delete(id)
  if (ids.size === 0) map.delete(key)
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
  /**
   * How many entries `withSubjectTerm(term)` (with `statement`: `withStatementTerm`) holds, the
   * ids in `except` left out, without building the list: a common word's list grows with the store.
   */
  countWithTerm(term: string, statement: boolean, except?: Iterable<string>): number
  /** `subjectWords(entry)`, as worked out when the entry was filed when it was. */
  subjectWordsOf(entry: IndexEntry): string[]
}

/**
 * The `n` of these terms with the fewest entries under them (`withSubjectTerm`, or with
 * `statement` `withStatementTerm`), ties in the order given, the entry `except` not counted;
 * with `nonEmpty`, terms no other entry has are passed over. Counts only: O(terms), whatever the
 * store's size.
 */
export function rarestTerms(index: IndexLookup, terms: readonly string[], statement: boolean, n: number, options: { except?: string | null; nonEmpty?: boolean } = {}): string[] {
  const except = options.except == null ? [] : [options.except]
  return terms
    .map((term) => ({ term, count: index.countWithTerm(term, statement, except) }))
    .filter((t) => options.nonEmpty !== true || t.count > 0)
    .sort((a, b) => a.count - b.count)
    .slice(0, n)
    .map((t) => t.term)
}

/**
 * Entries saved elsewhere (a snapshot, index-snapshot.ts) and read one at a time when first
 * asked for: what the view files every entry under (id, path, session, stated id) is at hand
 * without reading the entry itself.
 */
export interface SavedRows {
  readonly size: number
  id(row: number): string
  path(row: number): string
  sessionId(row: number): string | null
  claimedId(row: number): string | undefined
  /** Whether the entry of this row is a guard (has `guard`). */
  hasGuard(row: number): boolean
  /** The fingerprint of every row's path (path-set.ts). */
  readonly pathHash: PathSetHash
  /** The whole entry of this row (its id and path those above). */
  entry(row: number): IndexEntry
  /** What the entry of this row is filed under by content, as saved with it; null when not saved (worked out from the entry then). */
  keys(row: number): EntryKeys | null
  /** Every row is about to be read: read what they are read from at once. */
  prefetch(): void
  /** The view no longer holds these rows. */
  release(): void
}

/** The lookups by content: hash, slot, session, room, placard, subject words. */
class ContentLookups {
  readonly byHash = new Map<string, Ids>()
  readonly bySlot = new Map<string, Ids>()
  readonly bySession = new Map<string, Ids>()
  readonly byRoom = new Map<string, Ids>()
  readonly byPlacard = new Map<string, Ids>()
  readonly bySubjectTerm = new Map<string, Ids>()
  readonly byStatementTerm = new Map<string, Ids>()

  add(id: string, keys: EntryKeys): void {
    this.change(addTo, id, keys)
  }
  remove(id: string, keys: EntryKeys): void {
    this.change(removeFrom, id, keys)
  }
  private change(op: typeof addTo, id: string, keys: EntryKeys): void {
    op(this.byHash, keys.hash, id)
    op(this.bySlot, keys.slot, id)
    for (const s of keys.sessions) op(this.bySession, s, id)
    if (keys.room !== null) op(this.byRoom, keys.room, id)
    op(this.byPlacard, keys.placard, id)
    for (const t of keys.subject) op(keys.keyed ? this.bySubjectTerm : this.byStatementTerm, t, id)
  }
}

export class IndexView implements IndexLookup {
  /** An entry, or the row in `rows` of one not read yet. */
  private readonly byId = new Map<string, IndexEntry | number>()
  private rows: SavedRows | null = null
  /** Null after `loadRows` until first asked: a process that only searches never asks. */
  private byPath: Map<string, string> | null = new Map()
  /** Copies by the id their files state (identity.ts): a handful at most. */
  private readonly byClaim = new Map<string, Ids>()
  /**
   * Built on first use, from every entry at once: a process that only searches never asks for
   * them, so it never tokenises the summaries for subject words nor fills seven maps.
   */
  private content: ContentLookups | null = null
  /** The keys of the entries: every one of them while `content` is built. */
  private readonly keysById = new Map<string, EntryKeys>()
  /** Increases with every change; `generation` changes when the log cannot be followed. */
  private version = 0
  private generationId = 0
  private log: Array<{ version: number; id: string }> = []
  /** The fingerprint of the paths of every entry (path-set.ts), kept as entries come and go. */
  private readonly pathSet = new PathSetHash()

  /** The fingerprint of the paths of every entry it holds (path-set.ts). */
  get pathHash(): PathSetHash {
    return this.pathSet.copy()
  }

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
    const held = this.byId.get(id)
    return typeof held === 'number' ? this.read(id, held) : held
  }
  /**
   * The entry as `get` gives it, but a saved row is read without being kept: for a pass over
   * every entry that needs a field of each (the keyword lookup), so that it leaves the view as
   * light as it found it.
   */
  peek(id: string): IndexEntry | undefined {
    const held = this.byId.get(id)
    return typeof held === 'number' ? (this.rows as SavedRows).entry(held) : held
  }
  /** Whether some entries are saved rows not read yet (a snapshot): a pass over every entry would parse them all. */
  hasUnreadRows(): boolean {
    return this.rows !== null
  }
  /** The id of every entry, in the order of `values()`, without reading saved entries. */
  ids(): IterableIterator<string> {
    return this.byId.keys()
  }
  /** Reads a saved row into its entry, kept from then on. */
  private read(id: string, row: number): IndexEntry {
    const entry = (this.rows as SavedRows).entry(row)
    this.byId.set(id, entry)
    return entry
  }
  values(): IterableIterator<IndexEntry> {
    // Without saved rows every value is an entry.
    return this.rows === null ? (this.byId.values() as IterableIterator<IndexEntry>) : this.readingValues()
  }
  private *readingValues(): IterableIterator<IndexEntry> {
    this.rows?.prefetch()
    for (const [id, held] of this.byId) yield typeof held === 'number' ? this.read(id, held) : held
    // Every row was read: the view no longer needs them.
    this.rows?.release()
    this.rows = null
  }
  /** The path of every entry, in the order of `values()`, without reading saved entries. */
  *paths(): IterableIterator<string> {
    for (const held of this.byId.values()) yield typeof held === 'number' ? (this.rows as SavedRows).path(held) : held.path
  }
  /** Each entry's id and session id, for the entries of a session, without reading saved entries. */
  *sessions(): IterableIterator<[string, string]> {
    for (const [id, held] of this.byId) {
      const session = typeof held === 'number' ? (this.rows as SavedRows).sessionId(held) : held.session_id
      if (session !== null) yield [id, session]
    }
  }
  /** The entries with a guard, without reading saved entries that have none. */
  withGuard(): IndexEntry[] {
    const out: IndexEntry[] = []
    for (const [id, held] of this.byId) {
      if (typeof held !== 'number') {
        if (held.guard !== undefined) out.push(held)
      } else if ((this.rows as SavedRows).hasGuard(held)) out.push(this.read(id, held))
    }
    return out
  }
  private pick(ids: Ids | undefined): IndexEntry[] {
    if (ids === undefined) return []
    const out: IndexEntry[] = []
    for (const id of typeof ids === 'string' ? [ids] : ids) {
      const e = this.get(id)
      if (e !== undefined) out.push(e)
    }
    return out
  }
  /**
   * Built from every entry's keys: a saved row's as the snapshot saved them (no entry read, no
   * summary tokenised), worked out for the others.
   */
  private lookups(): ContentLookups {
    if (this.content !== null) return this.content
    const content = new ContentLookups()
    for (const [id, held] of this.byId) {
      const saved = typeof held === 'number' && !this.keysById.has(id) ? (this.rows as SavedRows).keys(held) : null
      if (saved !== null) this.keysById.set(id, saved)
      const keys = saved ?? this.keysOf(id)
      if (keys !== undefined) content.add(id, keys)
    }
    return (this.content = content)
  }
  /**
   * Every entry with the keys it is filed under by content (index-snapshot.ts saves both): those
   * known (the lookups built, or a saved row's), else worked out. Reads saved rows as `values()`.
   */
  *filed(): IterableIterator<{ entry: IndexEntry; keys: EntryKeys }> {
    this.rows?.prefetch()
    for (const [id, held] of this.byId) {
      const known = this.keysById.get(id) ?? (typeof held === 'number' ? (this.rows as SavedRows).keys(held) : null)
      const entry = typeof held === 'number' ? this.read(id, held) : held
      yield { entry, keys: known ?? entryKeys(entry) }
    }
    this.rows?.release()
    this.rows = null
  }
  withHash(hash: string): IndexEntry[] {
    return this.pick(this.lookups().byHash.get(hash))
  }
  inSlot(slot: string): IndexEntry[] {
    return this.pick(this.lookups().bySlot.get(slot))
  }
  fromSession(sessionId: string): IndexEntry[] {
    return this.pick(this.lookups().bySession.get(sessionId))
  }
  private pathIndex(): Map<string, string> {
    if (this.byPath !== null) return this.byPath
    const byPath = new Map<string, string>()
    for (const [id, held] of this.byId) byPath.set(typeof held === 'number' ? (this.rows as SavedRows).path(held) : held.path, id)
    return (this.byPath = byPath)
  }
  atPath(path: string): IndexEntry | undefined {
    const id = this.pathIndex().get(path)
    return id === undefined ? undefined : this.get(id)
  }
  inRoom(room: string): IndexEntry[] {
    return this.pick(this.lookups().byRoom.get(room))
  }
  withPlacard(text: string): IndexEntry[] {
    return this.pick(this.lookups().byPlacard.get(text))
  }
  withSubjectTerm(term: string): IndexEntry[] {
    return this.pick(this.lookups().bySubjectTerm.get(term))
  }
  withStatementTerm(term: string): IndexEntry[] {
    return this.pick(this.lookups().byStatementTerm.get(term))
  }
  subjectWordsOf(entry: IndexEntry): string[] {
    const keys = this.byId.get(entry.id) === entry ? this.keysById.get(entry.id) : undefined
    return keys?.subject ?? subjectWords(entry)
  }
  countWithTerm(term: string, statement: boolean, except: Iterable<string> = []): number {
    const ids = (statement ? this.lookups().byStatementTerm : this.lookups().bySubjectTerm).get(term)
    if (ids === undefined) return 0
    let n = typeof ids === 'string' ? 1 : ids.size
    for (const id of new Set(except)) if (typeof ids === 'string' ? ids === id : ids.has(id)) n--
    return n
  }
  /** The entries whose files state this id while another file keeps it (copies, each under an id of its own). */
  claiming(id: string): IndexEntry[] {
    return this.pick(this.byClaim.get(id))
  }

  /**
   * The keys an entry is filed under (worked out now if need be). One whose front-matter does
   * not parse is filed too, by what could be read of it: a write into its slot, or of its words,
   * then meets it (and is refused, as the file cannot be rewritten) instead of making a second
   * current version that fixing the file would reveal.
   */
  private keysOf(id: string): EntryKeys | undefined {
    const known = this.keysById.get(id)
    if (known !== undefined) return known
    const entry = this.get(id)
    if (entry === undefined) return undefined
    const keys = entryKeys(entry)
    this.keysById.set(id, keys)
    return keys
  }

  set(entry: IndexEntry): void {
    this.file(entry)
    this.touch(entry.id)
  }

  /**
   * Starts again from saved rows (a snapshot) as one change: followers resynchronise, as after
   * `clear`, so nothing is logged per entry. Each row is read only when first asked for: filed
   * by id and stated id now, by path when a path is first looked up, by content (which needs
   * every entry) when the lookups by content are first used.
   */
  loadRows(rows: SavedRows): void {
    this.clear()
    this.rows = rows
    this.byPath = null
    this.pathSet.assign(rows.pathHash)
    for (let row = 0; row < rows.size; row++) {
      const id = rows.id(row)
      if (this.byId.has(id)) this.unlink(id)
      this.byId.set(id, row)
      const claimed = rows.claimedId(row)
      if (claimed !== undefined) addTo(this.byClaim, claimed, id)
    }
  }

  private file(entry: IndexEntry): void {
    this.unlink(entry.id)
    this.byId.set(entry.id, entry)
    this.pathSet.add(entry.path)
    this.byPath?.set(entry.path, entry.id)
    if (entry.claimed_id !== undefined) addTo(this.byClaim, entry.claimed_id, entry.id)
    const keys = this.content === null ? undefined : this.keysOf(entry.id)
    if (keys !== undefined) this.content?.add(entry.id, keys)
  }

  delete(id: string): boolean {
    if (!this.unlink(id)) return false
    this.touch(id)
    return true
  }

  /** Forgets everything (before a full reload); followers must resynchronise. */
  clear(): void {
    this.byId.clear()
    this.pathSet.assign(new PathSetHash())
    this.byPath = new Map()
    this.byClaim.clear()
    this.rows?.release()
    this.rows = null
    this.content = null
    this.keysById.clear()
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
    const old = this.get(id)
    if (old === undefined) return false
    this.byId.delete(id)
    this.pathSet.remove(old.path)
    if (this.byPath?.get(old.path) === id) this.byPath.delete(old.path)
    if (old.claimed_id !== undefined) removeFrom(this.byClaim, old.claimed_id, id)
    const keys = this.keysById.get(id)
    if (keys === undefined) return true
    this.keysById.delete(id)
    this.content?.remove(id, keys)
    return true
  }

  private touch(id: string): void {
    this.version++
    this.log.push({ version: this.version, id })
    if (this.log.length > CHANGE_LOG_LIMIT) this.log = this.log.slice(-CHANGE_LOG_LIMIT / 2)
  }
}
