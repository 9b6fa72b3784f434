/**
 * Bringing index.jsonl up to date after a pull, from the files the pull changed and nothing
 * else: the files are read and handed to the store's planner (store/index-plan.ts, the one the
 * freshness check uses, with the ids settled as rebuild settles them), and the plan is appended
 * to the index, under the store lock the caller holds. No `external-change` events: the other
 * side's ledger lines came with the pull.
 */

import type { MemoryBackend } from '../store/backend.js'
import { noteWritten, readChanged } from '../store/freshness.js'
import { isMemoryPath } from '../store/frontmatter.js'
import { planIndexChanges } from '../store/index-plan.js'
import { scanMemoryFiles } from '../store/rebuild.js'

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
 * `held`: files here that keep the ids they state (sync/id-guard.ts). Call inside the store lock.
 */
export async function reindexChanged(backend: MemoryBackend, paths: readonly string[], held: ReadonlySet<string> = new Set()): Promise<ReindexResult> {
  const started = performance.now()
  if ((await backend.stat('index.jsonl')) === null) {
    const { entries, scanned, warnings } = await scanMemoryFiles(backend)
    await backend.writeIndex(entries)
    return { files: scanned, upserts: entries.length, removed: 0, full: true, warnings, ms: performance.now() - started }
  }
  const memoryPaths = [...new Set(paths)].filter(isMemoryPath)
  const plan = planIndexChanges(await backend.indexView(), await readChanged(backend, memoryPaths), held)
  await backend.appendIndex(plan.upserts, plan.removed)
  // This process's freshness check now knows these files, so it does not read them again.
  await noteWritten(backend, memoryPaths)
  return { files: memoryPaths.length, upserts: plan.upserts.length, removed: plan.removed.length, full: false, warnings: plan.warnings, ms: performance.now() - started }
}
