/**
 * The watcher's token (`.cache/watcher.json`), git's fsmonitor way: a long-lived process that
 * watches the memory folders (store/watcher.ts) keeps the index and the saved file stats in line
 * with every edit it is told of, and vouches for them with this token. A process starting up that
 * finds a live token asks the watcher, and once it is answered skips the lstat of every memory
 * file: the index already holds every edit made before it asked.
 *
 * The ask closes the window between an edit and the watcher's record of it. The asker creates
 * `.cache/watch-ask-<id>`; the watcher, told of that file by the same file watcher (events
 * arrive in order), folds every change it was told of before (store/freshness.ts, under the lock)
 * and only then writes `watch-ask-<id>.ok`. An edit finished before the ask is therefore in the index
 * when the answer is there. No answer within ASK_WAIT_MS (a watcher busy or stopped), a token of
 * a process that is gone, of a pid now used by another process (the start time differs), or one
 * whose heartbeat is older than HEARTBEAT_STALE_MS: the token is ignored and the exact check runs.
 *
 * The start time of a process is read from /proc (Linux); where there is none, no token is trusted.
 */

import { readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import type { MemoryBackend } from './backend.js'

export const TOKEN_FILE = '.cache/watcher.json'
/** Where asks are made (`watch-ask-<id>`) and answered (`watch-ask-<id>.ok`): beside the token. */
export const ASK_FOLDER = '.cache'
/** How often the watcher renews its token. */
export const HEARTBEAT_MS = 5000
/** A token not renewed for this long belongs to a watcher that no longer runs its timers: ignored. */
export const HEARTBEAT_STALE_MS = 3 * HEARTBEAT_MS
/** How long a start waits for the watcher's answer before it checks every file itself. */
export const ASK_WAIT_MS = 300
const POLL_MS = 2

export interface WatchToken {
  pid: number
  /** The process's start time as the system counts it (/proc/<pid>/stat, field 22): tells a reused pid. */
  started: string
  /** When the watcher last renewed the token (ms since the epoch). */
  heartbeat: number
}

/** The start time of a process (clock ticks since boot), or null where it cannot be known. */
export function processStarted(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null
  }
}

/** The token's fields, or null when the file is missing or not a token. */
export function parseToken(bytes: Uint8Array): WatchToken | null {
  try {
    const t = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<WatchToken>
    return Number.isInteger(t.pid) && typeof t.started === 'string' && typeof t.heartbeat === 'number' ? { pid: t.pid as number, started: t.started, heartbeat: t.heartbeat } : null
  } catch {
    return null
  }
}

export function encodeToken(token: WatchToken): Uint8Array {
  return Buffer.from(`${JSON.stringify(token)}\n`, 'utf8')
}

/** Why a token is not trusted, or null when it vouches for a live watcher (one to ask). */
export function tokenDoubt(token: WatchToken | null, now: number): string | null {
  if (token === null) return 'no token'
  if (now - token.heartbeat > HEARTBEAT_STALE_MS) return 'stale heartbeat'
  const started = processStarted(token.pid)
  if (started === null) return 'watcher gone'
  if (started !== token.started) return 'pid reused'
  return null
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Asks the watcher that the token names, if it is live, to vouch for the store: true once it
 * answered (every edit made before this call is in index.jsonl), false when the token is missing,
 * dead, stale or the watcher did not answer in time. `meanwhile` runs once the ask is made,
 * before the answer is looked for: work the start needs either way (loading the index: lines
 * the watcher appends while it runs are read by the next look at it), done while the watcher
 * folds instead of after.
 */
export async function vouchedByWatcher(backend: MemoryBackend, meanwhile?: () => Promise<unknown>): Promise<boolean> {
  if (backend.readBytes === undefined || backend.writeBytesAtomic === undefined) return false
  const bytes = await backend.readBytes(TOKEN_FILE).catch(() => null)
  const token = bytes === null ? null : parseToken(bytes)
  // The watcher itself checks exactly: it would wait on its own answer.
  if (token?.pid === process.pid || tokenDoubt(token, Date.now()) !== null) return false
  const ask = `${ASK_FOLDER}/watch-ask-${randomBytes(6).toString('hex')}`
  try {
    await backend.writeBytesAtomic(ask, new Uint8Array(0), { fsync: false })
  } catch {
    return false
  }
  try {
    await meanwhile?.()
    for (const deadline = Date.now() + ASK_WAIT_MS; Date.now() < deadline; await sleep(POLL_MS)) {
      if ((await backend.readBytes(`${ask}.ok`).catch(() => null)) !== null) return true
    }
    return false
  } finally {
    await backend.removeFile(ask).catch(() => false)
    await backend.removeFile(`${ask}.ok`).catch(() => false)
  }
}
