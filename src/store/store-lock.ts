/**
 * The store lock of the file backend: proper-lockfile between processes (a `.lock` folder in the
 * root, refreshed while held, taken over once its holder stops refreshing it), and a promise
 * queue within one process, so fn runs alone. A bounded wait, then LOCK_TIMEOUT: never silently.
 */

import path from 'node:path'
import type properLockfile from 'proper-lockfile'
import { ioError, MemoryError } from '../errors.js'
import { io, lazyRequire } from './fs-io.js'
import { errno } from './root-paths.js'

const LOCK_DIR = '.lock'

const lockfile = lazyRequire<typeof properLockfile>('proper-lockfile')

/** Queues of lock holders within this process, by real root path. */
const localQueues = new Map<string, Promise<unknown>>()

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export class StoreLock {
  constructor(
    private readonly root: string,
    /** How long to wait for the lock before LOCK_TIMEOUT. */
    private readonly lockTimeoutMs: number,
    /** A lock whose holder stopped refreshing it for this long is taken over. */
    private readonly lockStaleMs: number,
  ) {}

  async writeInProgress(): Promise<boolean> {
    const lockDir = path.join(this.root, LOCK_DIR)
    return io('look up', lockDir, () => lockfile().checkSync(this.root, { lockfilePath: lockDir, realpath: false, stale: this.lockStaleMs }))
  }

  /** Runs fn holding the lock; `key` is the store's real root (one queue per store in this process). */
  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = localQueues.get(key) ?? Promise.resolve()
    const run = previous.catch(() => undefined).then(() => this.holdFileLock(fn))
    const tail = run.catch(() => undefined)
    localQueues.set(key, tail)
    try {
      return await run
    } finally {
      if (localQueues.get(key) === tail) localQueues.delete(key)
    }
  }

  private async holdFileLock<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.lockTimeoutMs
    let compromised: Error | null = null
    let release: (() => void) | null = null
    let delay = 2
    while (release === null) {
      try {
        release = lockfile().lockSync(this.root, {
          lockfilePath: path.join(this.root, LOCK_DIR),
          realpath: false,
          stale: this.lockStaleMs,
          update: Math.floor(this.lockStaleMs / 4),
          onCompromised: (err: Error) => {
            compromised = err
          },
        })
      } catch (err) {
        if (errno(err) !== 'ELOCKED') throw ioError('create', path.join(this.root, LOCK_DIR), err)
        if (Date.now() >= deadline)
          throw new MemoryError('LOCK_TIMEOUT', `the memory store at ${this.root} stayed locked for ${this.lockTimeoutMs} ms; nothing was written, try again`)
        await sleep(delay + Math.random() * delay)
        delay = Math.min(delay * 2, 50)
      }
    }
    try {
      return await fn()
    } finally {
      try {
        release()
      } catch {
        // already released or taken over: reported below if compromised
      }
      if (compromised !== null) {
        console.warn(`dsh-memory-agent: the store lock at ${this.root} was taken over while held: ${String(compromised)}`)
      }
    }
  }
}
