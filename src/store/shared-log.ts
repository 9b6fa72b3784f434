/**
 * Shared logs: derived, append-only files (the query log, usage) that every search appends to
 * without the store lock, and that a trim or a purge rewrites now and then under it. A line
 * appended while a rewrite is under way must end up exactly once in what the rewrite read (and
 * then kept or dropped as the rewrite decides: a purged query never comes back) or in the new
 * file, never lost and never both.
 *
 * A rewrite (under the store lock): moves the log aside (one rename, the name of
 * store/rewrite.ts, so a rewrite killed here is put back like any other), appends a seal line with
 * a nonce to it, reads it, and takes the text before its seal as the log; it writes the changed
 * text to a new file, flushed, and links it into the free place. When an appender made a new file
 * in the place meanwhile, the link fails, that file is taken the same way, and the change runs
 * again over everything taken. Every file taken is then removed.
 *
 * An append: opens the log (O_APPEND, created if missing), writes the line in one write, and
 * checks that the path still names the file it wrote into. If it does, the line was in the log
 * before any later rewrite moved it aside, so that rewrite reads it. If not, the file was moved
 * aside or replaced: the appender waits for the store lock (no rewrite is then under way) and reads
 * its old file through its descriptor. A seal after its line means a rewrite took it; none means
 * it landed after the seal, or in a file no rewrite read: it is appended again to the log.
 *
 * Seal lines (`{"sealed":"<nonce>"}`) exist only in files set aside, or in one a rewrite killed
 * midway left behind; readers skip them as lines of no known shape. On a file system without hard
 * links the new file is renamed into place instead, and an appender's file made in the place in
 * that moment is lost. Must never write anything but the log and its files beside it.
 */

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import path from 'node:path'
import type { Rewrite } from './backend.js'
import { isSetAside, NO_HARD_LINKS, runningRewriter, setAside, sibling } from './rewrite.js'

const SEAL = Buffer.from('{"sealed":"')
/** Files made in the free place by appenders, taken in before a rewrite gives up on linking its own. */
const TAKE_LIMIT = 100

function errno(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined
}

/**
 * Appends text through fd (opened `a+` on abs), on a new line if a crash left the last one torn.
 * All of it or none: a write cut short (a full disk) is taken back, and a file it made (`made`)
 * is removed, unless someone else has appended since. Returns the bytes written.
 */
export function appendThrough(fd: number, abs: string, made: boolean, text: string, flush: boolean): Buffer {
  const { size } = fs.fstatSync(fd)
  let prefix = ''
  if (size > 0) {
    // A crash may have left a torn last line; never glue the next one onto it.
    const last = Buffer.alloc(1)
    fs.readSync(fd, last, 0, 1, size - 1)
    if (last[0] !== 0x0a) prefix = '\n'
  }
  const bytes = Buffer.from(prefix + text, 'utf8')
  let done = 0
  try {
    while (done < bytes.length) done += fs.writeSync(fd, bytes, done)
    if (flush) fs.fdatasyncSync(fd)
  } catch (err) {
    if (fs.fstatSync(fd).size === size + done) {
      if (!made) fs.ftruncateSync(fd, size)
      else fs.rmSync(abs, { force: true })
    }
    throw err
  }
  return bytes
}

/** Opens abs for appending and reading, creating it (and its folder) when missing. */
function openLog(abs: string): { fd: number; made: boolean } {
  const made = !fs.existsSync(abs)
  try {
    return { fd: fs.openSync(abs, 'a+'), made }
  } catch (err) {
    if (errno(err) !== 'ENOENT') throw err
    fs.mkdirSync(path.dirname(abs), { recursive: true })
    return { fd: fs.openSync(abs, 'a+'), made: true }
  }
}

/** Every byte of the file behind fd, whatever its position. */
function bytesOf(fd: number): Buffer {
  const chunks: Buffer[] = []
  for (let at = 0; ; ) {
    const chunk = Buffer.alloc(Math.max(4096, fs.fstatSync(fd).size - at + 1))
    const n = fs.readSync(fd, chunk, 0, chunk.length, at)
    if (n === 0) return Buffer.concat(chunks)
    chunks.push(chunk.subarray(0, n))
    at += n
  }
}

/** True when abs names the file behind fd. */
function namesFile(abs: string, fd: number): boolean {
  const mine = fs.fstatSync(fd)
  const there = fs.statSync(abs, { throwIfNoEntry: false })
  return there !== undefined && there.ino === mine.ino && there.dev === mine.dev
}

function appendOnce(abs: string, text: string): void {
  const { fd, made } = openLog(abs)
  try {
    appendThrough(fd, abs, made, text, false)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Appends text to the shared log at abs without the store lock (see the module comment);
 * `underLock` runs its work under it, only when the log was replaced meanwhile. Must not be
 * called with the lock held.
 */
export async function appendShared(abs: string, text: string, underLock: (work: () => Promise<void>) => Promise<void>): Promise<void> {
  const { fd, made } = openLog(abs)
  try {
    const line = appendThrough(fd, abs, made, text, false)
    const end = fs.fstatSync(fd).size
    if (namesFile(abs, fd)) return
    await underLock(async () => {
      const bytes = bytesOf(fd)
      const at = bytes.lastIndexOf(line, end - line.length)
      if (at >= 0 && bytes.indexOf(SEAL, at + line.length) >= 0) return
      appendOnce(abs, text)
    })
  } finally {
    fs.closeSync(fd)
  }
}

const sealLine = (nonce: string) => `${SEAL.toString()}${nonce}"}\n`

/** The text without seal lines (left by a rewrite killed midway in a file that was put back). */
function withoutSeals(text: string): string {
  return text.includes(SEAL.toString()) ? text.split('\n').filter((line) => !line.startsWith(SEAL.toString())).join('\n') : text
}

/**
 * Moves the file at abs aside and seals it; the text before the seal, and where the file went.
 * `sealed` holds the nonces of the seals this rewrite put before: a file of theirs put back in
 * the place meanwhile (a listing of the folder restores what it finds set aside) gives only what
 * came after them. Null when there is no file.
 */
function take(abs: string, sealed: string[]): { text: string; aside: string } | null {
  const aside = setAside(abs)
  if (aside === null) return null
  const fd = fs.openSync(aside, 'a+')
  try {
    const nonce = randomBytes(8).toString('hex')
    appendThrough(fd, aside, false, sealLine(nonce), false)
    const bytes = bytesOf(fd)
    let from = 0
    for (const earlier of sealed) {
      const at = bytes.lastIndexOf(sealLine(earlier))
      if (at >= 0) from = Math.max(from, at + Buffer.byteLength(sealLine(earlier)))
    }
    sealed.push(nonce)
    return { text: withoutSeals(bytes.subarray(from, bytes.indexOf(sealLine(nonce))).toString('utf8')), aside }
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The logs of rewrites of abs killed between moving it aside and linking the new file in (their
 * process is gone): the text each had taken, before its first seal, and where it lies. The lines
 * after that seal were appended again by their writers.
 */
function orphans(abs: string): Array<{ text: string; aside: string }> {
  const dir = path.dirname(abs)
  const base = path.basename(abs)
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  const out: Array<{ text: string; aside: string }> = []
  for (const name of names) {
    if (!isSetAside(name) || !name.startsWith(`.${base}.`) || runningRewriter(name)) continue
    const aside = path.join(dir, name)
    const bytes = fs.readFileSync(aside)
    const seal = bytes.indexOf(SEAL)
    out.push({ text: withoutSeals((seal < 0 ? bytes : bytes.subarray(0, seal)).toString('utf8')), aside })
  }
  return out
}

function writeTemp(abs: string, text: string): string {
  const temp = sibling(abs, 'rewrite')
  const fd = fs.openSync(temp, 'wx', 0o644)
  try {
    fs.writeSync(fd, text)
    fs.fsyncSync(fd)
    return temp
  } catch (err) {
    fs.rmSync(temp, { force: true })
    throw err
  } finally {
    fs.closeSync(fd)
  }
}

/** Links temp into the free place abs: false when a file appeared there first. */
function linkIn(temp: string, abs: string): boolean {
  try {
    fs.linkSync(temp, abs)
    return true
  } catch (err) {
    const code = errno(err) ?? ''
    if (code === 'EEXIST') return false
    if (!NO_HARD_LINKS.has(code)) throw err
    fs.renameSync(temp, abs)
    return true
  }
}

/**
 * Rewrites the shared log at abs (see the module comment); call it holding the store lock.
 * `change` gets the log's text and returns the new text (null: the same); it may run more than
 * once, over more text each time, so it must be pure. Null when there is no log. When it fails,
 * what it took stays set aside, where a later rewrite (once this process is gone) or a listing
 * of the folder (while the place is empty) finds it again.
 */
export function rewriteShared(abs: string, change: (current: string) => string | null): Rewrite | null {
  const sealed: string[] = []
  const taken = orphans(abs)
  const first = take(abs, sealed)
  if (first === null && taken.length === 0) return null
  if (first !== null) taken.push(first)
  for (let n = 0; ; n++) {
    const before = taken.map((t) => (t.text === '' || t.text.endsWith('\n') ? t.text : `${t.text}\n`)).join('')
    const after = change(before) ?? before
    const temp = writeTemp(abs, after)
    try {
      if (linkIn(temp, abs)) {
        for (const t of taken) fs.rmSync(t.aside, { force: true })
        return { before, after }
      }
    } finally {
      fs.rmSync(temp, { force: true })
    }
    // An appender made a new log in the free place: take it in too.
    if (n >= TAKE_LIMIT) throw new Error(`${abs} kept being made again while it was rewritten (${TAKE_LIMIT} times)`)
    const more = take(abs, sealed)
    if (more !== null) taken.push(more)
  }
}
