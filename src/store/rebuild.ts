/**
 * Rebuilding the index from the memory files: the recovery path that makes index.jsonl a
 * projection. Reads every memory file; never modifies one.
 */

import { pushAll } from '../arrays.js'
import type { IndexEntry } from '../types.js'
import type { MemoryBackend } from './backend.js'
import { createFileBackend } from './file-backend.js'
import { describeUnreadable, entryFromFile, isMemoryPath, unreadableFiles, type UnreadableFile } from './frontmatter.js'
import { settleAll } from './identity.js'
import { MEMORY_FOLDERS } from './layout.js'

export interface RebuildResult {
  /** Entries in the new index. */
  entries: number
  /** Memory files read. */
  scanned: number
  /** Files passed over: only a file whose copy id another file states by hand (see warnings). */
  skipped: number
  /** Files indexed under an id of their own, because another file keeps the id they state (copies). */
  reidentified: number
  /** Files whose front-matter does not parse: known by the fields that parse one by one (their name's id, their slot and status), out of search until fixed. */
  unreadable: UnreadableFile[]
  /** Unparsable lines the old index had. */
  badIndexLines: number
  /** One line per file given a new id, left out, or unreadable, naming the files. */
  warnings: string[]
}

export interface RebuildOptions {
  /** Called after each memory file read, with how many are done and how many there are. */
  onProgress?: (done: number, total: number) => void
}

export interface ScannedStore {
  entries: IndexEntry[]
  scanned: number
  reidentified: number
  unreadable: UnreadableFile[]
  warnings: string[]
}

/** Reads every memory file below the memory folders into index entries, ids settled. Does not lock or write. */
export async function scanMemoryFiles(backend: MemoryBackend, options: RebuildOptions = {}): Promise<ScannedStore> {
  const stated: IndexEntry[] = []
  // Listed first, so progress knows the total.
  const paths: string[] = []
  for (const { folder } of MEMORY_FOLDERS) pushAll(paths, (await backend.listFiles(folder)).filter(isMemoryPath))
  for (const [i, relPath] of paths.entries()) {
    const [text, stat] = await Promise.all([backend.readFile(relPath), backend.stat(relPath)])
    options.onProgress?.(i + 1, paths.length)
    if (text === null || stat === null) continue // vanished while scanning
    stated.push(entryFromFile(relPath, text, stat.mtimeMs))
  }
  const settled = settleAll(stated)
  const unreadable = unreadableFiles(settled.entries)
  const warnings = unreadable.map((u) => `${describeUnreadable(u.path, u)}; indexed as ${u.id} from its file name with its slot and status as far as they parse, left out of search and never rewritten until it is fixed`)
  pushAll(warnings, settled.warnings)
  return { entries: settled.entries, scanned: stated.length, reidentified: settled.reidentified, unreadable, warnings }
}

/**
 * Recreates index.jsonl from the memory files (episodes/, raw/, topics/; folder notes skipped).
 * Files without front-matter are recovered: id from the file name, title from the first heading,
 * summary from the first paragraph, time from the modification time.
 */
export async function rebuildIndex(rootOrBackend: string | MemoryBackend, options: RebuildOptions = {}): Promise<RebuildResult> {
  const backend = typeof rootOrBackend === 'string' ? createFileBackend(rootOrBackend) : rootOrBackend
  await backend.init()
  return backend.withLock(async () => {
    await backend.readIndex()
    const badIndexLines = backend.lastIndexSkipped
    const { entries, scanned, reidentified, unreadable, warnings } = await scanMemoryFiles(backend, options)
    await backend.writeIndex(entries)
    const skipped = scanned - entries.length
    await backend.appendLedger({
      at: backend.now(),
      event: 'rebuild',
      entries: entries.length,
      scanned,
      skipped,
      reidentified,
      unreadable: unreadable.length,
      bad_index_lines: badIndexLines,
    })
    return { entries: entries.length, scanned, skipped, reidentified, unreadable, badIndexLines, warnings }
  })
}
