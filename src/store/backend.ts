/**
 * The storage contract every handler talks to. Handlers get a MemoryBackend and nothing else:
 * no `process.cwd()`, no globals, no host context. Swapping the backend (SQLite, remote) means
 * implementing this interface; the shared backend suite in `test/` runs against each one.
 *
 * The first block is the seed's interface, member for member. The second block adds what the
 * seed's design needs but left implicit (see docs/decisions.md): a store-wide lock for
 * read-modify-write, file metadata for rebuild and freshness checks, appends for side files, and
 * an incremental index (a live view plus appends) so that one write costs O(1), not O(store).
 */

import type { IndexEntry, LedgerEvent } from '../types.js'
import type { MissingStore } from './existing.js'
import type { IndexView } from './index-view.js'

/**
 * How a host tells whether an anchor still holds. Each probe answers, or returns undefined when
 * it cannot tell; "cannot tell" is never taken for "no longer holds".
 */
export interface AnchorProbes {
  /** The variable's value, null when it is not set. */
  env?(name: string): string | null | undefined
  /** Names of the tools the host offers now. */
  toolNames?(): readonly string[] | undefined
  /** The running version of this plugin. */
  selfVersion?(): string | undefined
  /** Whether a path exists (the host decides what a relative path is relative to). */
  pathExists?(path: string): boolean | undefined
}

/** Synchronous reads, for hosts that ask for text synchronously (resident injection). */
export interface SyncReads {
  indexView(): IndexView
  readFile(relPath: string): string | null
  stat(relPath: string): FileStat | null
  /** Names of the files directly in relDir (dot-files left out); empty when there is no such folder. */
  list(relDir: string): string[]
}

/** What a compare-and-swap rewrite did: the text the change was applied to, and the text written (the same when nothing changed). */
export interface Rewrite {
  before: string
  after: string
}

export interface FileStat {
  mtimeMs: number
  size: number
}

export interface MemoryBackend {
  readonly root: string
  /** What a read meets where no store exists yet (store/existing.ts); absent: `not-found`. */
  readonly missingStore?: MissingStore
  /** Creates the store layout (folders, README.md, _index.md) if missing. Idempotent. */
  init(): Promise<void>
  /** Whether the store's folder exists: reads need it (NOT_FOUND otherwise, store/existing.ts); only a write creates it. */
  exists(): Promise<boolean>
  /** Every entry of index.jsonl; lines that do not parse are skipped and counted in `lastIndexSkipped`. */
  readIndex(): Promise<IndexEntry[]>
  /** Replaces index.jsonl atomically (rebuild, compaction). Call inside `withLock`. */
  writeIndex(entries: IndexEntry[]): Promise<void>
  /**
   * Appends one line per event to ledger.jsonl, every string in it redacted (src/redact.ts), in
   * one write and one flush; never rewrites it.
   */
  appendLedger(...events: LedgerEvent[]): Promise<void>
  /** Every event of ledger.jsonl; lines that do not parse are skipped. */
  readLedger(): Promise<LedgerEvent[]>
  /** The text of a file under the root, or null when there is none. */
  readFile(relPath: string): Promise<string | null>
  /**
   * The text of a memory file named by a reader (a nav path, a raw_ref), or null when there is
   * none: only markdown files in episodes/, raw/, topics/, digests/ and the root README.md, and
   * never through a link that leads anywhere else (`.git`, `.cache`, config.json, the panel key).
   * Anything else is refused with INVALID_INPUT naming the path.
   */
  readMemoryFile(relPath: string): Promise<string | null>
  /**
   * Writes a file under the root atomically (temp file, fsync, rename), creating folders.
   * `fsync: false` skips the flush to disk, for derived state that can be rebuilt after a crash.
   */
  writeFileAtomic(relPath: string, text: string, options?: { fsync?: boolean }): Promise<void>
  /** Optional: the bytes of a file under the root, or null when there is none (derived binary caches). */
  readBytes?(relPath: string): Promise<Uint8Array | null>
  /** Optional: writeFileAtomic for bytes (derived binary caches: written aside and renamed). */
  writeBytesAtomic?(relPath: string, bytes: Uint8Array, options?: { fsync?: boolean }): Promise<void>
  /**
   * Rewrites a file under the root from what it holds now, never over a change made meanwhile
   * (compare-and-swap): `change` gets the current text and returns the new text, or null to
   * leave the file as it is. When the file changed between the read and the replacement (a
   * person saved it in an editor), `change` is applied again to the new text; after a bounded
   * number of attempts the call fails with INVALID_STATE and the file keeps the edit. `change`
   * must be pure: it may run more than once. Null when there is no such file; otherwise what the
   * change was applied to (`before`) and what the file holds after it (`after`).
   */
  rewriteFile(relPath: string, change: (current: string) => string | null): Promise<Rewrite | null>
  /** Removes a file under the root; false when there was none. Older texts of it that rewrites
   * killed midway left set aside go too. */
  removeFile(relPath: string): Promise<boolean>
  /**
   * Removes the older texts of these files that rewrites killed midway left set aside (hidden
   * beside them): for a purge, which must leave no copy of what it redacted. How many went.
   */
  dropSetAside(relPaths: readonly string[]): Promise<number>
  /** Paths (relative to the root) of the regular files below relDir, recursively, dot-files left out. */
  listFiles(relDir: string): Promise<string[]>
  /**
   * Optional: listFiles with the size and mtime of each file as stat would give them, handed to
   * `found` one by one in one pass, nothing kept (the freshness check's scan of every memory
   * file). A file gone meanwhile is left out. True when relDir holds a folder (it was walked too).
   */
  forEachFileStat?(relDir: string, found: (path: string, mtimeMs: number, size: number) => void): Promise<boolean>
  /**
   * Optional: forEachFileStat for files known by path in relDir (each `relDir/<name>`), without
   * listing it (the freshness check, for a folder unchanged since it was listed): `found` with the
   * number in `paths` of each that is still a file, in the order given; a path no longer there is
   * left out. False, at once, when a name is not a plain file name or is now something else than
   * a file (a folder): then list the folder.
   */
  forEachKnownFileStat?(relDir: string, paths: readonly string[], found: (i: number, mtimeMs: number, size: number) => void): Promise<boolean>
  /** The current time as an ISO-8601 string. */
  now(): string

  /**
   * Runs fn while holding the store lock (between processes and within one). Every
   * read-modify-write of shared state happens inside it. Not re-entrant: fn must not call it.
   * Fails with LOCK_TIMEOUT after a bounded wait, never silently.
   */
  withLock<T>(fn: () => Promise<T>): Promise<T>
  /**
   * Appends text to a file under the root (created if missing), starting on a new line if a
   * crash left the last one torn. For derived, append-only side files (usage, query log).
   */
  appendText(relPath: string, text: string, options?: { fsync?: boolean }): Promise<void>
  /**
   * Appends text to a shared log under the root (created if missing): a derived, append-only
   * file that searches append to without the lock and that `rewriteLog` rewrites under it (the
   * query log, usage). The text lands once, in the log as the rewrites leave it: kept or dropped
   * by a rewrite that read it, else in the file after it. Must not be called inside `withLock`.
   */
  appendLog(relPath: string, text: string): Promise<void>
  /**
   * Rewrites a shared log (see appendLog) from what it holds now: `change` gets its text and
   * returns the new text (null: the same); it must be pure, as it may run again over more text.
   * Null when there is no such file. Call inside `withLock`.
   */
  rewriteLog(relPath: string, change: (current: string) => string | null): Promise<Rewrite | null>
  /**
   * Optional: calls onChange with the path (relative to the root) of each file created, changed
   * or removed directly in relDir, or with null when it cannot tell which. Returns the function that
   * stops watching, or null when this backend cannot watch. Never keeps a process alive.
   */
  watch?(relDir: string, onChange: (relPath: string | null) => void): (() => void) | null
  /** Size and modification time of a file under the root, or null when there is none. */
  stat(relPath: string): Promise<FileStat | null>
  /** Synchronous reads, where the backend can offer them; without, resident injection is empty. */
  readonly sync?: SyncReads
  /** How anchors are checked (the host's probes, or the process's own: store/local-probes.ts); without them every anchor is unchecked. */
  readonly probes?: AnchorProbes
  /** How many lines of index.jsonl were skipped because they did not parse. */
  readonly lastIndexSkipped: number
  /**
   * The live in-memory fold of index.jsonl, brought up to date first (reading only what other
   * writers appended since the last look). Read-only for callers: change it through appendIndex.
   */
  indexView(): Promise<IndexView>
  /**
   * Records changed entries and removed ids in index.jsonl: appended as lines, in O(changes);
   * the file is compacted now and then. Call inside `withLock`.
   */
  appendIndex(upserts: readonly IndexEntry[], removed: readonly string[]): Promise<void>
  /**
   * Optional: saves now, under the lock, what the backend keeps of the index for a quick start
   * and would otherwise save once the writes pause (the file backend's index snapshot), if it is
   * due. Adapters call it through flushCaches before they exit.
   */
  flushIndex?(): Promise<void>
  /**
   * Folds changed entries and removed ids into this process's view only, writing nothing: for a
   * store this process cannot write (read-only, full), so its reads still see the files as they
   * are. The fold lasts until index.jsonl changes on disk (the view's generation changes then).
   */
  foldIndexInMemory(upserts: readonly IndexEntry[], removed: readonly string[]): void
  /**
   * Whether some writer (in any process) holds the store lock now. Reads only, never waits: a
   * reader that takes no lock (export) asks it before and after, to tell that it read mid-write.
   */
  writeInProgress(): Promise<boolean>
}
