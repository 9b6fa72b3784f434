/**
 * Root confinement for the file backend: every relative path is checked before it is used.
 * `..`, absolute, encoded and NUL paths and symlinks leading outside the root are refused with
 * PATH_OUTSIDE_ROOT; a memory folder that links outside (a pushed `topics/` link) is passed over,
 * said once; `.cache/` as a link is replaced by a folder of the store's own; a reader's path
 * (nav, raw_ref) opens only memory files. Synchronous: each check is a few system calls.
 */

import * as fsSync from 'node:fs'
import path from 'node:path'
import { ioError, MemoryError } from '../errors.js'
import { isReadableFile, STORE_LAYOUT } from './layout.js'
import { readRegularFile } from './regular-file.js'

const CACHE_DIR = '.cache'
/** The folders init() makes: one of them that links outside is passed over, not an error for every call. */
export const LAYOUT_DIRS: ReadonlySet<string> = new Set(STORE_LAYOUT.filter((item) => item.kind === 'dir').map((item) => item.path))

/** True when something is at abs; false when nothing is, or its name cannot be (too long, a file as a folder). */
export function existsQuietly(abs: string): boolean {
  try {
    return fsSync.lstatSync(abs, { throwIfNoEntry: false }) !== undefined
  } catch (err) {
    if (errno(err) === 'ENAMETOOLONG' || errno(err) === 'ENOTDIR') return false
    throw ioError('look up', abs, err)
  }
}

function notMemoryFile(relPath: string, why: string): MemoryError {
  return new MemoryError(
    'INVALID_INPUT',
    `path ${JSON.stringify(relPath.slice(0, 200))} is not a memory file (${why}): only markdown files in episodes/, raw/, topics/, digests/ and README.md are opened, never .git, .cache, config.json or the panel key`,
    'path',
  )
}

function outside(relPath: string, why: string): MemoryError {
  return new MemoryError('PATH_OUTSIDE_ROOT', `path ${JSON.stringify(relPath.slice(0, 200))} is not inside the memory root (${why})`, 'path')
}

/** Rejects traversal in a relative path and in its percent-decoded form. Pure. */
export function assertRelativeInside(relPath: string): string {
  if (typeof relPath !== 'string') throw outside(String(relPath), 'not a string')
  const forms = [relPath]
  if (/%[0-9a-fA-F]{2}/.test(relPath)) {
    try {
      forms.push(decodeURIComponent(relPath))
    } catch {
      throw outside(relPath, 'malformed percent-encoding')
    }
  }
  for (const form of forms) {
    if (form.includes('\0')) throw outside(relPath, 'contains a NUL byte')
    const slashed = form.replace(/\\/g, '/')
    if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) throw outside(relPath, 'absolute paths are not allowed')
    if (slashed.split('/').some((seg) => seg === '..')) throw outside(relPath, "'..' is not allowed")
  }
  return relPath.replace(/\\/g, '/')
}

export function errno(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined
}

/** Where a path under the root really is, and what looking there found. */
export interface Looked {
  abs: string
  /** The lstat of something that is not a symlink, undefined for nothing, null when it did not look. */
  looked: fsSync.Stats | undefined | null
}

/** The checks for one root: folders found inside it and links passed over are remembered. */
export class RootPaths {
  private realRoot: string | null = null
  /** Folders (as spelled under the root) whose real location was checked to be inside it. */
  private readonly verifiedDirs = new Set<string>()
  /** Links and folders passed over because they lead out of the memory folders, said once each. */
  private readonly passedOver = new Set<string>()

  constructor(readonly root: string) {}

  realRootSync(): string {
    if (this.realRoot !== null) return this.realRoot
    try {
      this.realRoot = fsSync.realpathSync.native(this.root)
      return this.realRoot
    } catch (err) {
      if (errno(err) === 'ENOENT') return this.root
      throw ioError('look up', this.root, err)
    }
  }

  /**
   * The absolute path for relPath, after checking that neither the path nor any symlink on the
   * way leads outside the root. Missing parts are fine (writes create them).
   */
  resolveSync(relPath: string): string {
    return this.resolveLooked(relPath).abs
  }

  /**
   * `resolveSync`, with what its fast path found there when it looked: the lstat of something
   * that is not a symlink (what a stat would say), undefined for nothing, null when it did not
   * look. Spares a stat its second system call (a freshness check stats every memory file).
   */
  resolveLooked(relPath: string): Looked {
    try {
      return this.resolveChecked(relPath)
    } catch (err) {
      if (!(err instanceof MemoryError && err.code === 'PATH_OUTSIDE_ROOT') || !this.replaceCacheLink(relPath)) throw err
      return this.resolveChecked(relPath)
    }
  }

  /**
   * `.cache/` as a link (a pushed commit, a hand-made link leading outside): the cache is derived,
   * so the link is removed (never what it points at) and a folder of the store's own takes its
   * place; true when it did. False for any other path, or a store that refuses the change.
   */
  private replaceCacheLink(relPath: string): boolean {
    const rel = relPath.replace(/\\/g, '/')
    if (rel !== CACHE_DIR && !rel.startsWith(`${CACHE_DIR}/`)) return false
    const abs = path.join(this.root, CACHE_DIR)
    try {
      if (fsSync.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return false
      fsSync.unlinkSync(abs)
      fsSync.mkdirSync(abs)
    } catch {
      return false
    }
    this.passOver(CACHE_DIR, 'a link leading outside the store: replaced by a folder of its own, the cache is derived and rebuilt')
    return true
  }

  private resolveChecked(relPath: string): Looked {
    const rel = assertRelativeInside(relPath)
    const abs = path.resolve(this.root, rel)
    if (abs !== this.root && !abs.startsWith(this.root + path.sep)) throw outside(relPath, 'resolves outside')
    const realRoot = this.realRootSync()
    // Fast path: a plain file (or nothing yet) in a folder already found to be inside the root.
    const dir = path.dirname(abs)
    if (this.verifiedDirs.has(dir)) {
      let st: fsSync.Stats | undefined | null = null
      try {
        st = fsSync.lstatSync(abs, { throwIfNoEntry: false })
      } catch {
        // an odd name (too long, a file on the way): the full check below decides
      }
      if (st !== null && (st === undefined || !st.isSymbolicLink())) return { abs, looked: st }
    }
    // Find the deepest part of the path that exists and check where it really leads.
    let probe = abs
    for (;;) {
      let real: string
      try {
        real = fsSync.realpathSync.native(probe)
      } catch (err) {
        const code = errno(err)
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ENAMETOOLONG') throw ioError('look up', probe, err)
        // A symlink whose target does not exist (yet) could be created through, wherever it
        // points, possibly by way of further links: refused rather than followed.
        let link = false
        try {
          link = fsSync.lstatSync(probe).isSymbolicLink()
        } catch {
          // nothing there
        }
        if (link) throw outside(relPath, 'a symlink on the way has no target')
        const parent = path.dirname(probe)
        if (parent === probe || probe === this.root) break
        probe = parent
        continue
      }
      if (real !== realRoot && !real.startsWith(realRoot + path.sep)) throw outside(relPath, 'a symlink leads outside')
      // Every existing folder on the way is now known to be inside: remember the file's folder.
      if (probe === abs || probe === dir) this.verifiedDirs.add(dir)
      break
    }
    return { abs, looked: null }
  }


  /**
   * `resolveLooked` for a read: null for a path in a memory folder that links outside the store
   * (a symlinked topics/), which is not part of the store, so a read finds nothing there instead
   * of failing; every other refusal stands.
   */
  lookOrPassOver(relPath: string): Looked | null {
    try {
      return this.resolveLooked(relPath)
    } catch (err) {
      if (!(err instanceof MemoryError && err.code === 'PATH_OUTSIDE_ROOT')) throw err
      const top = relPath.replace(/\\/g, '/').split('/')[0] as string
      if (!LAYOUT_DIRS.has(top) || fsSync.lstatSync(path.join(this.root, top), { throwIfNoEntry: false })?.isSymbolicLink() !== true) throw err
      this.passOver(top, err.message)
      return null
    }
  }

  readMemoryFile(relPath: string): string | null {
    // Outside the root first (PATH_OUTSIDE_ROOT), then outside the memory files (INVALID_INPUT).
    const abs = this.resolveSync(relPath)
    const rel = assertRelativeInside(relPath)
    // Nothing there (an unknown id, a missing file, a name too long): not found, whatever its name.
    if (!isReadableFile(rel)) {
      if (!existsQuietly(abs)) return null
      throw notMemoryFile(relPath, 'not a markdown file in a memory folder')
    }
    let real: string
    try {
      real = fsSync.realpathSync.native(abs)
    } catch (err) {
      if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR' || errno(err) === 'ENAMETOOLONG') return null
      throw ioError('look up', abs, err)
    }
    const realRel = path.relative(this.realRootSync(), real).split(path.sep).join('/')
    if (!isReadableFile(realRel)) throw notMemoryFile(relPath, `it links to ${JSON.stringify(realRel)}`)
    return readRegularFile(real)?.toString('utf8') ?? null
  }

  /** Says once, for this backend, that a link or folder is passed over and why. */
  passOver(relPath: string, why: string): void {
    if (this.passedOver.has(relPath)) return
    this.passedOver.add(relPath)
    console.warn(`dsh-memory-agent: ${relPath} is passed over (${why}): it is not indexed, searched or read as a memory. Said once for ${this.root}.`)
  }
}
