/**
 * Bringing index.jsonl up to date after a pull, from the files the pull changed and nothing
 * else: a pure planner (what to upsert, what to drop, given the index and the changed files as
 * read) and a thin shell that reads those files and appends the plan to the index, under the
 * store lock the caller holds. A file that vanished drops its entry; a file whose checksum the
 * index already has is left alone. No `external-change` events: the other side's ledger lines
 * came with the pull.
 */

import type { MemoryBackend } from '../store/backend.js'
import { noteWritten } from '../store/freshness.js'
import { entryFromFile, isMemoryPath } from '../store/frontmatter.js'
import type { IndexLookup } from '../store/index-view.js'
import { scanMemoryFiles } from '../store/rebuild.js'
import type { IndexEntry } from '../types.js'

/** A changed path as read after the pull: its text and mtime, or null when it is gone. */
export interface ChangedFile {
  path: string
  file: { text: string; mtimeMs: number } | null
}

export interface ReindexPlan {
  upserts: IndexEntry[]
  removed: string[]
  warnings: string[]
}

/** What the index must do so that it describes `files` as they are now. Pure. */
export function planReindex(index: IndexLookup, files: readonly ChangedFile[]): ReindexPlan {
  const upserts = new Map<string, IndexEntry>()
  const gone = new Set<string>()
  const warnings: string[] = []
  const changed = new Map(files.map((f) => [f.path, f.file]))
  const sorted = [...files].filter((f) => isMemoryPath(f.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  for (const { path, file } of sorted) {
    const indexed = index.atPath(path)
    if (file === null) {
      if (indexed !== undefined) gone.add(indexed.id)
      continue
    }
    const entry = entryFromFile(path, file.text, file.mtimeMs)
    if (indexed !== undefined && indexed.id === entry.id && indexed.checksum === entry.checksum) continue
    const owner = upserts.get(entry.id) ?? index.get(entry.id)
    // Another file that is still there holds this id: the first one keeps it.
    if (owner !== undefined && owner.path !== path && (!changed.has(owner.path) || changed.get(owner.path) !== null)) {
      warnings.push(`${path}: id ${entry.id} is already used by ${owner.path}; file left out of the index`)
      continue
    }
    if (indexed !== undefined && indexed.id !== entry.id) gone.add(indexed.id)
    upserts.set(entry.id, entry)
  }
  return { upserts: [...upserts.values()], removed: [...gone].filter((id) => !upserts.has(id)), warnings }
}

export interface ReindexResult {
  /** Changed memory files looked at. */
  files: number
  upserts: number
  removed: number
  /** True when index.jsonl was missing and was made from every file. */
  full: boolean
  warnings: string[]
  ms: number
}

/**
 * Updates the index for the given changed paths (relative to the root). When the store has no
 * index.jsonl yet (a fresh clone: it is never committed), makes it from every file instead.
 * Call inside the store lock.
 */
export async function reindexChanged(backend: MemoryBackend, paths: readonly string[]): Promise<ReindexResult> {
  const started = performance.now()
  if ((await backend.stat('index.jsonl')) === null) {
    const { entries, scanned, warnings } = await scanMemoryFiles(backend)
    await backend.writeIndex(entries)
    return { files: scanned, upserts: entries.length, removed: 0, full: true, warnings, ms: performance.now() - started }
  }
  const memoryPaths = [...new Set(paths)].filter(isMemoryPath)
  const files: ChangedFile[] = []
  for (const path of memoryPaths) {
    const [text, st] = await Promise.all([backend.readFile(path), backend.stat(path)])
    files.push({ path, file: text === null || st === null ? null : { text, mtimeMs: st.mtimeMs } })
  }
  const plan = planReindex(await backend.indexView(), files)
  await backend.appendIndex(plan.upserts, plan.removed)
  // This process's freshness check now knows these files, so it does not read them again.
  await noteWritten(backend, memoryPaths)
  return { files: memoryPaths.length, upserts: plan.upserts.length, removed: plan.removed.length, full: false, warnings: plan.warnings, ms: performance.now() - started }
}
