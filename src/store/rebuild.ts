/**
 * Rebuilding the index from the memory files: the recovery path that makes index.jsonl a
 * projection. Reads every memory file; never modifies one.
 */

import type { IndexEntry } from '../types.js'
import type { MemoryBackend } from './backend.js'
import { createFileBackend } from './file-backend.js'
import { entryFromFile, isMemoryPath } from './frontmatter.js'
import { MEMORY_FOLDERS } from './layout.js'

export interface RebuildResult {
  /** Entries in the new index. */
  entries: number
  /** Memory files read. */
  scanned: number
  /** Files passed over (a second file claiming an id already taken), with the reason. */
  skipped: number
  /** Unparsable lines the old index had. */
  badIndexLines: number
  warnings: string[]
}

export interface RebuildOptions {
  /** Called after each memory file read, with how many are done and how many there are. */
  onProgress?: (done: number, total: number) => void
}

/** Reads every memory file below the memory folders into index entries. Does not lock or write. */
export async function scanMemoryFiles(
  backend: MemoryBackend,
  options: RebuildOptions = {},
): Promise<{ entries: IndexEntry[]; scanned: number; warnings: string[] }> {
  const entries: IndexEntry[] = []
  const seen = new Map<string, string>()
  const warnings: string[] = []
  let scanned = 0
  // Listed first, so progress knows the total.
  const paths: string[] = []
  for (const { folder } of MEMORY_FOLDERS) paths.push(...(await backend.listFiles(folder)).filter(isMemoryPath))
  for (const [i, relPath] of paths.entries()) {
    const [text, stat] = await Promise.all([backend.readFile(relPath), backend.stat(relPath)])
    options.onProgress?.(i + 1, paths.length)
    if (text === null || stat === null) continue // vanished while scanning
    scanned++
    const entry = entryFromFile(relPath, text, stat.mtimeMs)
    const owner = seen.get(entry.id)
    if (owner !== undefined) {
      warnings.push(`${relPath}: id ${entry.id} is already used by ${owner}; file left out of the index`)
      continue
    }
    seen.set(entry.id, relPath)
    entries.push(entry)
  }
  return { entries, scanned, warnings }
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
    const { entries, scanned, warnings } = await scanMemoryFiles(backend, options)
    await backend.writeIndex(entries)
    await backend.appendLedger({
      at: backend.now(),
      event: 'rebuild',
      entries: entries.length,
      scanned,
      skipped: scanned - entries.length,
      bad_index_lines: badIndexLines,
    })
    return { entries: entries.length, scanned, skipped: scanned - entries.length, badIndexLines, warnings }
  })
}
