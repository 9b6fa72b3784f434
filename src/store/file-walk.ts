/**
 * Listing the files of a store for the file backend: recursive walks in name order, dot-files
 * and set-aside files left out (a rewrite killed midway puts its file back first), links followed
 * only when they lead inside the root and, from a memory folder, only into the memory folders;
 * the stat of each file handed over in the same pass (the freshness check's scan).
 */

import * as fsSync from 'node:fs'
import path from 'node:path'
import { ioError, MemoryError } from '../errors.js'
import type { FileStat } from './backend.js'
import { inMemoryFolder } from './layout.js'
import { isSetAside, restoreSetAside } from './rewrite.js'
import { errno, LAYOUT_DIRS, type RootPaths } from './root-paths.js'

type Found = (path: string, mtimeMs: number, size: number) => void

export class FileWalker {
  constructor(
    private readonly paths: RootPaths,
    /** The backend's checked stat: for a link, or anything the quick look cannot tell. */
    private readonly statSync: (relPath: string) => FileStat | null,
  ) {}

  listFiles(relDir: string): string[] {
    const out: string[] = []
    this.walkFiles(relDir, (rel) => out.push(rel))
    return out
  }

  forEachFileStat(relDir: string, found: Found): boolean {
    return this.walkFiles(relDir, (rel, abs, linked) => this.lookAt(rel, abs, linked, found) !== 'other')
  }

  forEachKnownFileStat(relDir: string, paths: readonly string[], found: (i: number, mtimeMs: number, size: number) => void): boolean {
    const absDir = this.paths.resolveSync(relDir)
    const prefix = `${relDir}/`
    const nameAt = prefix.length
    let mtime = 0
    let bytes = 0
    const take = (_path: string, mtimeMs: number, size: number): void => {
      mtime = mtimeMs
      bytes = size
    }
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i] as string
      // Only plain names of files directly in the folder: anything else is the listing's to find.
      if (path.length <= nameAt || !path.startsWith(prefix) || path.charCodeAt(nameAt) === 0x2e || path.indexOf('/', nameAt) >= 0) return false
      const looked = this.lookAt(path, absDir + path.slice(relDir.length), null, take)
      if (looked === 'other') return false
      if (looked === 'found') found(i, mtime, bytes)
    }
    return true
  }

  /**
   * Hands `found` the stat of a file in a folder found inside the root: its lstat is what stat
   * would say, in one system call and no path check (a freshness check takes one per memory
   * file). Anything else (a link, an odd error, a file turned into a link meanwhile) goes the
   * checked way. 'gone' when there is nothing there (or a link that leads nowhere allowed),
   * 'other' when it is there but neither a file nor a link (a folder, say).
   */
  private lookAt(rel: string, abs: string, linked: fsSync.Stats | null, found: Found): 'found' | 'gone' | 'other' {
    let st: fsSync.Stats | undefined | null = linked
    if (st === null) {
      try {
        st = fsSync.lstatSync(abs, { throwIfNoEntry: false })
      } catch {
        st = null
      }
    }
    if (st === undefined) return 'gone'
    if (st !== null && st.isFile()) {
      found(rel, st.mtimeMs, st.size)
      return 'found'
    }
    if (st !== null && !st.isSymbolicLink()) return 'other'
    const checked = this.statSync(rel)
    if (checked === null) return 'gone'
    found(rel, checked.mtimeMs, checked.size)
    return 'found'
  }

  /**
   * Calls `found` for each regular file below relDir, in name order, dot-files left out, with its
   * absolute path and, for a link (followed only when it leads inside the root), its target's stat.
   * True when it went into a folder below relDir.
   */
  private walkFiles(relDir: string, found: (rel: string, abs: string, linked: fsSync.Stats | null) => void): boolean {
    let nested = false
    const walk = (rel: string): void => {
      if (rel !== relDir) nested = true
      let abs: string
      try {
        abs = this.paths.resolveSync(rel)
      } catch (err) {
        // A folder inside that links outside is passed over, not followed; so is a listed memory
        // folder itself (a symlinked topics/): it is not part of the store, the rest keeps working.
        if (!(err instanceof MemoryError && err.code === 'PATH_OUTSIDE_ROOT') || (rel === relDir && !LAYOUT_DIRS.has(rel))) throw err
        if (rel === relDir) this.paths.passOver(rel, err.message)
        return
      }
      const read = (): fsSync.Dirent[] | null => {
        try {
          return fsSync.readdirSync(abs, { withFileTypes: true })
        } catch (err) {
          const code = errno(err)
          if (code === 'ENOENT' || code === 'ENOTDIR') return null
          throw ioError('list', abs, err)
        }
      }
      let entries = read()
      // A rewrite killed between moving a file aside and linking its new text in (rewrite.ts):
      // the file goes back to its place before anyone takes it for deleted.
      const asides = (entries ?? []).filter((e) => e.isFile() && isSetAside(e.name)).map((e) => e.name)
      if (asides.length > 0 && restoreSetAside(abs, asides).length > 0) entries = read()
      if (entries === null) return
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue
        const childRel = rel === '' ? entry.name : `${rel.replace(/\/+$/, '')}/${entry.name}`
        if (entry.isDirectory()) walk(childRel)
        else if (entry.isFile()) found(childRel, path.join(abs, entry.name), null)
        else if (entry.isSymbolicLink()) {
          // A link counts as what it leads to, and only when that is inside the root.
          let target: fsSync.Stats
          let targetAbs: string
          let realRel: string
          try {
            targetAbs = this.paths.resolveSync(childRel)
            target = fsSync.statSync(targetAbs)
            realRel = path.relative(this.paths.realRootSync(), fsSync.realpathSync.native(targetAbs)).split(path.sep).join('/')
          } catch (err) {
            if (err instanceof MemoryError || errno(err) === 'ENOENT') continue
            throw ioError('look up', path.join(this.paths.root, childRel), err)
          }
          // Inside the root is not enough: a link in a memory folder to .git/config, config.json
          // or the panel key (a teammate can push one) must never become a memory.
          if (inMemoryFolder(childRel) && !inMemoryFolder(realRel)) {
            this.paths.passOver(childRel, `a link to ${JSON.stringify(realRel)}, outside the memory folders`)
            continue
          }
          if (target.isDirectory()) walk(childRel)
          else if (target.isFile()) found(childRel, targetAbs, target)
        }
      }
    }
    relDir = relDir.replace(/\/+$/, '')
    walk(relDir)
    return nested
  }
}
