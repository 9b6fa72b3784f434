/**
 * Compare-and-swap rewrites of one file, for the file backend: every read-modify-write of a
 * memory file (and of the other files a person may edit) goes through `rewriteFileCas`, so a
 * save made in an editor while the library rewrites the file is never written over.
 *
 * One attempt:
 * 1. open the file and read it through that descriptor; apply the change; write the result to a
 *    temporary file beside it and flush it;
 * 2. check that the path still names the file read and that it still holds the bytes read, else
 *    start again from the new text (an editor saved meanwhile);
 * 3. move the file at the path aside (one rename: whatever is there now, nothing is destroyed);
 *    if it is not the file read, or its bytes changed (a save that landed after step 2), link it
 *    back and start again; else hard-link the new file into the free path, which fails if
 *    anything appeared there meanwhile: then that newer save stays and the next attempt starts
 *    from it;
 * 4. read the replaced file once more through the descriptor: an in-place save (truncate, then
 *    write) by an editor that had opened it before step 3 writes into it, and is waited for a
 *    few milliseconds; such a save is put back in place of the new text at once, and the next
 *    attempt starts from it.

 * A process killed between the two calls of step 3 leaves the file as `.<name>.<pid>.<n>.aside`
 * beside an empty place: `restoreSetAside` links it back, and the file backend calls it whenever
 * it lists a folder holding one or rewrites a file it finds missing, so a writer killed there
 * never makes a memory look deleted (the freshness check would drop it from the index). It may
 * also put back the file of a rewrite under way in another process, inside that gap: that rewrite
 * then finds its file back (or the place taken) and starts its attempt again.
 *
 * What remains (docs/decisions.md): an in-place save that opened the file before step 3 and
 * writes more than ORPHAN_WAIT_MS after it; on a file system without hard links, an atomic save
 * landing in the microseconds between the check and a plain rename; a person's reader (another
 * process) finding no file in the microseconds between the two calls of step 3. Editors take no
 * lock this could honour.
 *
 * Synchronous from step 2 to the end of step 3: no other task of this process runs in between.
 * Must never write anything but the one file and its temporary files beside it.
 */

import * as fs from 'node:fs'
import path from 'node:path'
import { MemoryError } from '../errors.js'
import type { Rewrite } from './backend.js'

/** Attempts before a file that keeps changing is left to the person editing it. */
export const REWRITE_ATTEMPTS = 10
/** How long a replaced file is watched for the write of an in-place save that had truncated it. */
const ORPHAN_WAIT_MS = 8
/** link() errors of a file system without hard links: the path is then replaced by a plain rename. */
export const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

type Attempt = { done: Rewrite | null } | { again: true; empty?: boolean }

let siblings = 0

function errno(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * A file's text read again, a millisecond apart for up to ORPHAN_WAIT_MS, while `read` finds it
 * empty: an in-place save truncates before it writes, and a file found empty is most likely
 * half saved. What `read` returns last (still empty: it is empty).
 */
export async function pastTruncation<T extends { text: string } | string | null>(read: () => T | Promise<T>): Promise<T> {
  const emptyText = (r: T) => (typeof r === 'string' ? r === '' : r !== null && r.text === '')
  let result = await read()
  for (let waited = 0; emptyText(result) && waited < ORPHAN_WAIT_MS; waited++) {
    await sleep(1)
    result = await read()
  }
  return result
}

/** A fresh hidden name beside abs. */
export function sibling(abs: string, kind: 'rewrite' | 'aside'): string {
  return path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.${++siblings}.${kind}`)
}

/** The whole file behind fd, read from its start whatever the descriptor's position. */
function readWhole(fd: number): string {
  const chunks: Buffer[] = []
  let at = 0
  for (;;) {
    const chunk = Buffer.alloc(Math.max(4096, fs.fstatSync(fd).size - at + 1))
    const n = fs.readSync(fd, chunk, 0, chunk.length, at)
    if (n === 0) break
    chunks.push(chunk.subarray(0, n))
    at += n
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The new text in a fresh file beside abs, flushed to disk; its path and inode. */
function writeTemp(abs: string, text: string, mode: number): { path: string; ino: number } {
  const temp = sibling(abs, 'rewrite')
  const fd = fs.openSync(temp, 'wx', mode & 0o7777)
  try {
    fs.writeSync(fd, text)
    fs.fsyncSync(fd)
    return { path: temp, ino: fs.fstatSync(fd).ino }
  } catch (err) {
    fs.rmSync(temp, { force: true })
    throw err
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Step 3: moves the file at abs aside and, if it is the one expected (`ino`, and `intact`
 * confirms its bytes), hard-links `next` into the free place; otherwise puts it back. Returns
 * where the replaced file went, or null when nothing was replaced: the file at abs was another
 * (put back), a newer save appeared in the free place first (it stays), or the place was empty
 * (an editor that moves the file away while it saves, or a deletion). Never removes `next`.
 */
function swapIn(abs: string, next: string, ino: number, intact: () => boolean): string | null {
  const aside = setAside(abs)
  if (aside === null) return null
  const st = fs.statSync(aside, { throwIfNoEntry: false })
  // Put back already by another process (restoreSetAside): start again from it.
  if (st === undefined) return null
  if (st.ino !== ino || !intact()) {
    putBack(aside, abs)
    return null
  }
  try {
    fs.linkSync(next, abs)
    return aside
  } catch (err) {
    const code = errno(err) ?? ''
    if (code === 'EEXIST') {
      fs.rmSync(aside, { force: true })
      return null
    }
    if (!NO_HARD_LINKS.has(code)) {
      putBack(aside, abs)
      throw err
    }
    fs.renameSync(next, abs)
    return aside
  }
}

/** Moves the file at abs aside, under a fresh name beside it (one rename); where it went, or null when there was none. */
export function setAside(abs: string): string | null {
  const aside = sibling(abs, 'aside')
  try {
    fs.renameSync(abs, aside)
    return aside
  } catch (err) {
    if (errno(err) === 'ENOENT') return null
    throw err
  }
}

/** The name of a file step 3 moved aside (`sibling`): its place's name is the first group. */
const SET_ASIDE = /^\.(.+)\.(\d+)\.\d+\.aside$/

/** True for the name of a file a rewrite moved aside (`.<name>.<pid>.<n>.aside`). */
export function isSetAside(name: string): boolean {
  return SET_ASIDE.test(name)
}

function listNames(absDir: string): string[] {
  try {
    return fs.readdirSync(absDir)
  } catch {
    return []
  }
}

/**
 * Puts back the files that rewrites moved aside in step 3 and whose place is still empty (the
 * process was killed before it linked the new text in): among `names` (the folder's entries),
 * for each place, the newest file set aside for it is hard-linked back (never over a file that is
 * there) and its aside name removed. Returns the names of the places filled. One set aside
 * beside a place that holds a file is left alone: a rewrite under way may still need it, and the
 * file at the place is newer. What cannot be put back (a read-only store) stays as it is.
 */
export function restoreSetAside(absDir: string, names: readonly string[]): string[] {
  const byPlace = new Map<string, Array<{ abs: string; mtimeMs: number }>>()
  for (const name of names) {
    const place = SET_ASIDE.exec(name)?.[1]
    if (place === undefined) continue
    const abs = path.join(absDir, name)
    let st: fs.Stats | undefined
    try {
      st = fs.lstatSync(abs, { throwIfNoEntry: false })
    } catch {
      continue // unreadable: left as it is
    }
    if (st === undefined || !st.isFile()) continue
    const list = byPlace.get(place) ?? []
    list.push({ abs, mtimeMs: st.mtimeMs })
    byPlace.set(place, list)
  }
  const restored: string[] = []
  for (const [place, asides] of byPlace) {
    const target = path.join(absDir, place)
    for (const aside of asides.sort((a, b) => b.mtimeMs - a.mtimeMs)) {
      try {
        if (fs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) break
        try {
          fs.linkSync(aside.abs, target)
          fs.rmSync(aside.abs, { force: true })
        } catch (err) {
          if (!NO_HARD_LINKS.has(errno(err) ?? '')) throw err
          fs.renameSync(aside.abs, target)
        }
        restored.push(place)
        break
      } catch (err) {
        // Put back meanwhile by another process: look at the place again with the next one.
        if (errno(err) === 'ENOENT') continue
        // The place was taken meanwhile, or the store cannot be written: leave it.
        break
      }
    }
  }
  return restored
}

/** True when the rewrite that set this name aside may still run (its process does, this one included). */
export function runningRewriter(name: string): boolean {
  const match = SET_ASIDE.exec(name)
  return match !== null && running(Number(match[2]))
}

/** True while the process `pid` runs (this one included): its rewrite may still need what it set aside. */
function running(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return errno(err) !== 'ESRCH'
  }
}

/**
 * Removes the older texts of the file at abs that rewrites killed midway left set aside (their
 * writer no longer runs), so a deletion or a purge leaves no copy for a later listing to put
 * back. Says how many went and how many set-aside files (of any place) the folder still holds.
 * One listing of the file's folder.
 */
export function dropSetAside(abs: string): { dropped: number; left: number } {
  const dir = path.dirname(abs)
  const base = path.basename(abs)
  let dropped = 0
  let left = 0
  for (const name of listNames(dir)) {
    const match = SET_ASIDE.exec(name)
    if (match === null) continue
    if (match[1] !== base || runningRewriter(name)) left++
    else {
      fs.rmSync(path.join(dir, name), { force: true })
      dropped++
    }
  }
  return { dropped, left }
}

/** Links a file moved aside back into its place, unless a newer save took the place meanwhile (then that one stays). */
function putBack(aside: string, abs: string): void {
  try {
    fs.linkSync(aside, abs)
  } catch {
    // a newer save holds the place
  }
  fs.rmSync(aside, { force: true })
}

/**
 * Step 4: the text an in-place save wrote into the file read after the check let it be replaced
 * (its write was in flight), or null when it still holds what was read. Found empty, it was
 * truncated by a save whose write has not landed yet, which is waited for, briefly.
 */
async function lateSave(fd: number, read: string): Promise<string | null> {
  const text = await pastTruncation(() => readWhole(fd))
  return text === read || text === '' ? null : text
}

async function attempt(abs: string, change: (current: string) => string | null, emptyIsText: boolean): Promise<Attempt> {
  let fd: number
  try {
    fd = fs.openSync(abs, 'r')
  } catch (err) {
    const code = errno(err)
    if (code === 'ENOENT' || code === 'ENOTDIR') return { done: null }
    throw err
  }
  try {
    const st = fs.fstatSync(fd)
    const read = readWhole(fd)
    // An in-place save truncates before it writes: an empty file is most likely half saved, and
    // is not rewritten (a change made to nothing would throw the text of that save away) unless
    // every attempt found it empty.
    if (read === '' && !emptyIsText) return { again: true, empty: true }
    const after = change(read) ?? read
    if (after === read) return { done: { before: read, after } }
    const temp = writeTemp(abs, after, st.mode)
    let replaced: string | null = null
    try {
      // Cheap first: a save made while the new text was written and flushed.
      if (readWhole(fd) !== read || fs.statSync(abs).ino !== st.ino) return { again: true }
      replaced = swapIn(abs, temp.path, st.ino, () => readWhole(fd) === read)
      if (replaced === null) return { again: true }
      const late = await lateSave(fd, read)
      if (late === null) return { done: { before: read, after } }
      // Put that save back in place of the new text at once (unless a newer one came), then
      // start again from it.
      const ours = swapIn(abs, replaced, temp.ino, () => true)
      if (ours !== null) fs.rmSync(ours, { force: true })
      return { again: true }
    } finally {
      fs.rmSync(temp.path, { force: true })
      if (replaced !== null) fs.rmSync(replaced, { force: true })
    }
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Rewrites the file at abs from its current text (see the module comment). Null when there is
 * no file; INVALID_STATE, naming relPath, when it kept changing every attempt.
 */
export async function rewriteFileCas(abs: string, relPath: string, change: (current: string) => string | null): Promise<Rewrite | null> {
  let real: string
  try {
    // A link is rewritten where it leads (the backend has checked that this is inside the root).
    real = fs.realpathSync.native(abs)
  } catch (err) {
    const code = errno(err)
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
    // Missing: perhaps only moved aside by a rewrite that was killed in step 3.
    const dir = path.dirname(abs)
    const mine = listNames(dir).filter((name) => name.startsWith(`.${path.basename(abs)}.`))
    if (restoreSetAside(dir, mine).length === 0) return null
    real = fs.realpathSync.native(abs)
  }
  let empty = 0
  for (let n = 1; n <= REWRITE_ATTEMPTS; n++) {
    const outcome = await attempt(real, change, n === REWRITE_ATTEMPTS && empty === n - 1)
    if ('done' in outcome) return outcome.done
    if (outcome.empty === true) empty++
    // Let the save under way finish; attempts from several writers drift apart.
    await sleep(Math.random() * Math.min(2 ** n, 40))
  }
  throw new MemoryError(
    'INVALID_STATE',
    `${relPath} kept changing on disk while it was being rewritten (${REWRITE_ATTEMPTS} attempts): someone is editing it; nothing was written over the edits, try again`,
  )
}
