/**
 * File-system calls whose failures name the file: an operating-system error becomes an IO_ERROR
 * ("cannot create /store/.cache: the file system is read-only (EROFS)"). For the file backend
 * and the few adapters that touch files of their own (the panel key, an export's --out file).
 */

import * as fsSync from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { ioError, MemoryError } from '../errors.js'

const requireModule = createRequire(import.meta.url)

/**
 * A CommonJS package loaded at its first use instead of at start: a process that only searches
 * never parses front-matter, takes the lock or writes a file, and loading what does (gray-matter
 * with js-yaml and esprima, proper-lockfile, write-file-atomic) was a fifth of its start-up.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= requireModule(id) as T)
}

/** Runs file-system calls on abs; an operating-system error leaves as an IO_ERROR naming abs. */
export function io<T>(action: string, abs: string, run: () => T): T {
  try {
    return run()
  } catch (err) {
    throw err instanceof MemoryError ? err : ioError(action, abs, err)
  }
}

/** `io` for asynchronous work: an operating-system error leaves as an IO_ERROR naming abs. */
export async function ioAsync<T>(action: string, abs: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (err) {
    throw err instanceof MemoryError ? err : ioError(action, abs, err)
  }
}

/**
 * Creates a folder and the missing ones above it, one at a time: Node's recursive mkdir says
 * ENOENT where the cause is a read-only file system or a missing permission.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = []
  for (let d = dir; !fsSync.existsSync(d) && path.dirname(d) !== d; d = path.dirname(d)) missing.push(d)
  for (const d of missing.reverse()) {
    try {
      fsSync.mkdirSync(d)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('create', d, err)
    }
  }
}
