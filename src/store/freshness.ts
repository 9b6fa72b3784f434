/**
 * Freshness without a rebuild command: memory files edited in an editor, added, or removed (by a
 * person, or by `git pull`) are noticed before the next read and folded into the index, each
 * with an `external-change` ledger event. Nothing is lost: the file is the truth and the index
 * follows it.
 *
 * Cheap by construction. The first check in a process stats every memory file and compares
 * against the stats saved last time (`.cache/file-stats.bin`); it lists only the folders whose
 * mtime changed since they were listed then (a file added, removed or renamed changes its folder;
 * the others' files are the saved ones: `forEachKnownFileStat`). Later checks stat only
 * the three memory folders (a file added, removed or renamed changes its folder) and take the
 * files a file watcher reported as touched (an in-place edit changes no folder). Where there is
 * no watcher, or memory files sit in subfolders it does not see, every check scans every file. Only a file
 * whose size or mtime differs from what was seen is read, and only one whose checksum differs
 * from its index entry is re-parsed.
 */

import { isNotWritable, MemoryError } from '../errors.js'
import type { FileStat, MemoryBackend } from './backend.js'
import { decodeFileStats, encodeFileStats, FILE_STATS_FILE, SeenStats, UNLISTED } from './file-stats.js'
import { entryFromFile, isMemoryPath } from './frontmatter.js'
import { planIndexChanges, type ChangedFile, type ExternalChange } from './index-plan.js'
import { MEMORY_FOLDERS } from './layout.js'
import { pastTruncation } from './rewrite.js'
import { vouchedByWatcher } from './watch-token.js'
import { warnOnce } from './warn-once.js'

export type { ExternalChange } from './index-plan.js'

/** Where earlier versions kept the stats, as JSON: removed at the first save. */
const LEGACY_STATS_FILE = '.cache/file-stats.json'

/**
 * A folder listed less long ago than this after its last change is listed again by the next
 * process: a change later within the same tick of the file system's clock (coarse: up to 10 ms
 * on Linux, 2 s on FAT) would leave its mtime as it was.
 */
const SETTLE_MS = 5000

interface State {
  /** Last seen size and mtime of every memory file, by path. */
  seen: SeenStats
  /** Last seen mtime of each memory folder. */
  folders: Map<string, number>
  /**
   * Per memory folder, its mtime when a listing found exactly the files in `seen` (no folder
   * inside it, and changed long enough before: SETTLE_MS), or UNLISTED: what is saved for the
   * next process.
   */
  listed: Map<string, number>
  /** The same as the stats file saved it, for the first check only (then empty). */
  savedListed: Map<string, number>
  /** Paths the watcher reported since the last check. */
  touched: Set<string>
  /** The watcher could not say which file changed: scan everything next time. */
  rescanAll: boolean
  scanned: boolean
  /** The saved stats were read (once per state). */
  loaded: boolean
  /** Memory files live in subfolders too, which the watcher does not see: scan every time. */
  nested: boolean
  dirtyStats: boolean
  stopWatching: (() => void) | null
  /** The view's generation when changes were last folded into it in memory only; null when none were. */
  foldedAt: number | null
  /** The last check was vouched for by a watcher (store/watch-token.ts): the next one asks it again. */
  vouched: boolean
}

const states = new WeakMap<MemoryBackend, State>()

function stateOf(backend: MemoryBackend): State {
  let s = states.get(backend)
  if (s === undefined) {
    s = { seen: new SeenStats(), folders: new Map(), listed: new Map(), savedListed: new Map(), loaded: false, touched: new Set(), rescanAll: false, scanned: false, nested: false, dirtyStats: false, stopWatching: null, foldedAt: null, vouched: false }
    states.set(backend, s)
  }
  return s
}

async function loadSeen(backend: MemoryBackend, s: State): Promise<void> {
  const bytes = backend.readBytes === undefined ? null : await backend.readBytes(FILE_STATS_FILE).catch(() => null)
  const saved = bytes === null ? null : decodeFileStats(bytes)
  s.loaded = true
  if (saved === null) return
  s.seen = saved.seen
  s.savedListed = saved.folders
}

/** Saves what was seen, so the next process need not read files that did not change. */
export async function saveSeenStats(backend: MemoryBackend): Promise<void> {
  const s = states.get(backend)
  // A backend that cannot write bytes keeps no stats: the next process reads every file once. A
  // process that a watcher vouched for never loaded them: the watcher keeps them.
  if (s === undefined || !s.dirtyStats || !s.loaded || backend.writeBytesAtomic === undefined) return
  await backend.writeBytesAtomic(FILE_STATS_FILE, encodeFileStats(s.seen, s.listed))
  s.dirtyStats = false
  await backend.removeFile(LEGACY_STATS_FILE)
}

/**
 * What a scan found present: with `rows` (the first scan of a process whose saved stats cover
 * exactly the indexed paths, `Found.trusting`), each saved row found is marked by number, and
 * only the paths no row holds are kept as strings; else every path found is kept as a string.
 */
class Found {
  readonly others = new Set<string>()
  readonly rows: Uint8Array | null
  nested = false

  constructor(seen: SeenStats, trusting: boolean) {
    this.rows = trusting ? new Uint8Array(seen.savedCount) : null
  }
}

/**
 * Stats every memory file under a folder; paths whose stat differs from what was seen are
 * candidates. At the first check, a folder whose mtime (`mtime`, taken before) is what a listing
 * saved by the last process found is not listed: its files are the saved ones, looked at by row
 * (no path looked up, no map built). Returns what to save as the folder's listing (`State.listed`).
 */
async function scanFolder(backend: MemoryBackend, s: State, folder: string, mtime: number, startedAt: number, candidates: Set<string>, found: Found): Promise<number> {
  const { seen } = s
  const rows = found.rows
  const look = (path: string, mtimeMs: number, size: number): void => {
    if (!isMemoryPath(path)) return
    if (path.indexOf('/', path.indexOf('/') + 1) >= 0) found.nested = true
    if (rows !== null) {
      // No change of this process lies over the saved rows (Found): a row is the stat last seen.
      const row = seen.savedRowOf(path)
      if (row < 0) {
        found.others.add(path)
        candidates.add(path)
        return
      }
      rows[row] = 1
      if (seen.savedMtime(row) !== mtimeMs || seen.savedSize(row) !== size) candidates.add(path)
      return
    }
    found.others.add(path)
    const known = seen.get(path)
    if (known === undefined || known.mtimeMs !== mtimeMs || known.size !== size) candidates.add(path)
  }
  if (mtime !== UNLISTED && s.savedListed.get(folder) === mtime && backend.forEachKnownFileStat !== undefined) {
    const [from, to] = seen.savedRows(folder)
    const paths = seen.savedUnder(folder)
    const known =
      rows === null
        ? await backend.forEachKnownFileStat(folder, paths, (i, mtimeMs, size) => look(paths[i] as string, mtimeMs, size))
        : await backend.forEachKnownFileStat(folder, paths, (i, mtimeMs, size) => {
            const path = paths[i] as string
            if (!isMemoryPath(path)) return
            const row = from + i
            rows[row] = 1
            if (seen.savedMtime(row) !== mtimeMs || seen.savedSize(row) !== size) candidates.add(path)
          })
    if (known) return mtime
    // Listed after all: what the rows of this folder said is looked at again.
    if (rows !== null) rows.fill(0, from, to)
  }
  if (backend.forEachFileStat !== undefined) {
    const nested = await backend.forEachFileStat(folder, look)
    return nested || mtime === UNLISTED || mtime > startedAt - SETTLE_MS ? UNLISTED : mtime
  }
  for (const path of await backend.listFiles(folder)) {
    const st = await backend.stat(path)
    if (st !== null) look(path, st.mtimeMs, st.size)
  }
  return UNLISTED
}

function startWatching(backend: MemoryBackend, s: State): void {
  if (backend.watch === undefined || s.stopWatching !== null) return
  const stops: Array<() => void> = []
  for (const { folder } of MEMORY_FOLDERS) {
    const stop = backend.watch(folder, (path) => {
      if (path === null) s.rescanAll = true
      else s.touched.add(path)
    })
    if (stop === null) {
      // Without a watcher an in-place edit changes no folder: look at every file each time.
      s.rescanAll = true
    } else stops.push(stop)
  }
  s.stopWatching = () => stops.forEach((stop) => stop())
}

/**
 * Records files this program just wrote (and their folders), so the next check does not take
 * them, or the folder they changed, for an outside edit.
 */
export async function noteWritten(backend: MemoryBackend, paths: readonly string[]): Promise<void> {
  const s = states.get(backend)
  if (s === undefined || !s.scanned) return
  const folders = new Set<string>()
  for (const path of paths) {
    const st = await backend.stat(path)
    if (st === null) s.seen.delete(path)
    else s.seen.set(path, { mtimeMs: st.mtimeMs, size: st.size })
    folders.add(path.split('/')[0] ?? path)
    s.dirtyStats = true
  }

  for (const folder of folders) {
    if (!s.folders.has(folder)) continue
    s.folders.set(folder, (await backend.stat(folder))?.mtimeMs ?? -1)
  }
}

/**
 * Whether this process's view may hold outside changes folded in memory only (a store it cannot
 * write): then the view is more than index.jsonl says, and nothing derived from it may claim to
 * match index.jsonl.
 */
export function heldInMemory(backend: MemoryBackend): boolean {
  return (states.get(backend)?.foldedAt ?? null) !== null
}

/** Stops the watcher of this backend, if one runs; the next check scans every file again. */
export function stopFreshness(backend: MemoryBackend): void {
  const s = states.get(backend)
  if (s === undefined) return
  s.stopWatching?.()
  s.stopWatching = null
  s.scanned = false
}

/**
 * Brings the index in line with memory files changed outside this program. Returns what changed
 * (usually nothing, after a few stats).
 */
export async function ensureFresh(backend: MemoryBackend): Promise<ExternalChange[]> {
  const s = stateOf(backend)
  const candidates = new Set<string>()
  if (!s.scanned || s.vouched) {
    // The index is loaded while the watcher answers: a start needs it whichever way the check goes.
    s.vouched = await vouchedByWatcher(backend, () => backend.indexView())
    if (s.vouched) {
      s.scanned = true
      return []
    }
    s.scanned = false
  }
  let full = !s.scanned || s.rescanAll || s.nested
  const startedAt = Date.now()
  if (!s.scanned) {
    if (!s.loaded) await loadSeen(backend, s)
  } else {
    // Let watcher events that are already queued arrive before looking at them: the second hop
    // starts after a poll phase that began after any edit made before this call.
    await new Promise<void>((resolve) => setImmediate(resolve))
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  if (!full) {
    for (const { folder } of MEMORY_FOLDERS) {
      const st = await backend.stat(folder)
      const mtime = st?.mtimeMs ?? -1
      if (s.folders.get(folder) !== mtime) full = true
    }
  }
  const view = await backend.indexView()
  if (s.foldedAt !== null && s.foldedAt !== view.generation) {
    // index.jsonl was rewritten under what this process folded in memory only: look again.
    s.seen = new SeenStats()
    s.foldedAt = null
    full = true
  }
  if (full) {
    s.rescanAll = false
    // (Re)start the watcher: a folder that was removed and made again needs a new one.
    s.stopWatching?.()
    s.stopWatching = null
    startWatching(backend, s)
    // The saved stats hold exactly the indexed paths (their fingerprints agree, path-set.ts) and
    // nothing changed them yet: a path is gone exactly when its saved row was not found.
    const found = new Found(s.seen, !s.seen.changedAny && s.seen.savedCount > 0 && view.pathHash.equals(s.seen.savedHash))
    for (const { folder } of MEMORY_FOLDERS) {
      const mtime = (await backend.stat(folder))?.mtimeMs ?? UNLISTED
      s.folders.set(folder, mtime)
      const listed = await scanFolder(backend, s, folder, mtime, startedAt, candidates, found)
      if (listed !== (s.listed.get(folder) ?? s.savedListed.get(folder) ?? UNLISTED)) s.dirtyStats = true
      s.listed.set(folder, listed)
    }
    s.savedListed = new Map()
    s.nested = found.nested
    if (found.rows !== null) {
      for (let row = 0; row < found.rows.length; row++) if (found.rows[row] === 0) candidates.add(s.seen.savedPath(row))
    } else {
      // Indexed files that are no longer there.
      for (const p of view.paths()) if (!found.others.has(p)) candidates.add(p)
      for (const p of s.seen.keys()) if (!found.others.has(p)) candidates.add(p)
    }
  }
  for (const p of s.touched) if (isMemoryPath(p)) candidates.add(p)
  s.touched.clear()
  s.scanned = true
  if (candidates.size === 0) return []
  return reconcile(backend, s, [...candidates].sort())
}

/**
 * A memory file's text as a memory (backend.readMemoryFile): a link that leads out of the memory
 * folders (a teammate's pushed link to .git/config, a watcher's event for it) is no memory, so
 * null, as if gone.
 */
async function confinedText(backend: MemoryBackend, path: string): Promise<string | null> {
  try {
    return await backend.readMemoryFile(path)
  } catch (err) {
    if (err instanceof MemoryError && (err.code === 'INVALID_INPUT' || err.code === 'PATH_OUTSIDE_ROOT')) return null
    throw err
  }
}

/**
 * Reads changed memory files into the entries they state (null when gone), calling `seen` with
 * the stat of each. Only entries are kept, never the texts. For the freshness check and for sync.
 */
export async function readChanged(backend: MemoryBackend, paths: readonly string[], seen?: (path: string, st: FileStat | null) => void): Promise<ChangedFile[]> {
  // Found empty, a file is read again a moment later (an editor's in-place save between its
  // truncate and its write), so the entry is not made from nothing: its summary would be lost.
  const read = (path: string): Promise<{ text: string; st: FileStat } | null> =>
    pastTruncation(async () => {
      const [text, st] = await Promise.all([confinedText(backend, path), backend.stat(path)])
      return text !== null && st !== null ? { text, st } : null
    })
  const files: ChangedFile[] = []
  const listed = new Set<string>()
  for (const path of paths) {
    let file = await read(path)
    const folder = path.slice(0, Math.max(0, path.lastIndexOf('/')))
    if (file === null && folder !== '' && !listed.has(folder)) {
      // Gone, or only set aside by a rewrite killed midway: listing its folder puts such a file
      // back (file backend, store/rewrite.ts) before it is taken for deleted.
      listed.add(folder)
      await backend.listFiles(folder)
      file = await read(path)
    }
    seen?.(path, file?.st ?? null)
    files.push({ path, stated: file === null ? null : entryFromFile(path, file.text, file.st.mtimeMs) })
  }
  return files
}

/**
 * Under the lock: reads each candidate and brings the index in line with the ones that really
 * changed. A store this process cannot write is read as its files are: the changes are folded
 * into this process's view only, and index.jsonl and the ledger stay as they were.
 */
async function reconcile(backend: MemoryBackend, s: State, paths: string[]): Promise<ExternalChange[]> {
  const plan = async () => {
    const files = await readChanged(backend, paths, (path, st) => {
      if (st === null) s.seen.delete(path)
      else s.seen.set(path, { mtimeMs: st.mtimeMs, size: st.size })
    })
    s.dirtyStats = true
    const planned = planIndexChanges(await backend.indexView(), files)
    for (const w of planned.warnings) console.warn(`dsh-memory-agent: ${w}`)
    return planned
  }
  try {
    return await backend.withLock(async () => {
      const { upserts, removed, changes } = await plan()
      await backend.appendIndex(upserts, removed)
      for (const c of changes) await backend.appendLedger({ at: backend.now(), event: 'external-change', ...c })
      return changes
    })
  } catch (err) {
    if (!isNotWritable(err)) throw err
    const { upserts, removed, changes } = await plan()
    if (changes.length === 0) return changes
    warnOnce(backend, 'memory files changed outside were not indexed on disk', err, 'this process indexes them in memory; index.jsonl and the ledger stay as they were')
    backend.foldIndexInMemory(upserts, removed)
    s.foldedAt = (await backend.indexView()).generation
    return changes
  }
}

/** Whether the last check of this backend was vouched for by a watcher (store/watch-token.ts) instead of looking at the files. */
export function vouchedByWatcherLastTime(backend: MemoryBackend): boolean {
  return states.get(backend)?.vouched ?? false
}
