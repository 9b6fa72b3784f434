/**
 * What a synced store commits and what it does not, written down where git reads it: the
 * store's `.gitignore` (derived and per-machine files) and `.gitattributes` (the ledger merges
 * by union, text files keep LF). Both live in the store root, so they hold whether the root is
 * its own repository or a folder of a project's. A person may have edited either file: missing
 * lines are added, nothing is removed or rewritten.
 */

import type { MemoryBackend } from '../store/backend.js'
import { ATTRIBUTE_LINES, GITATTRIBUTES_HEAD, GITIGNORE_HEAD, IGNORED_PATHS, withLines } from '../store/git-settings.js'

/** IGNORED_PATHS (store/git-settings.ts) as paths relative to the root, for untracking what was committed before. */
export const DERIVED_TRACKABLE = ['index.jsonl', 'usage.jsonl', 'query-log.jsonl', 'rooms.json', 'rooms-log.jsonl', '.cache', '.lock', '.sync.lock', 'digests'] as const
/** Tracked files under the derived paths that stay tracked. */
export const KEPT_UNDER_DERIVED: ReadonlySet<string> = new Set(['digests/_index.md'])

/** Writes or completes `.gitignore` and `.gitattributes` in the root. Returns the files it changed. Call inside the lock. */
export async function ensureGitFiles(backend: MemoryBackend): Promise<string[]> {
  const changed: string[] = []
  for (const [file, head, lines] of [
    ['.gitignore', GITIGNORE_HEAD, IGNORED_PATHS],
    ['.gitattributes', GITATTRIBUTES_HEAD, ATTRIBUTE_LINES],
  ] as const) {
    // A compare-and-swap: a person may be editing the file.
    const done = await backend.rewriteFile(file, (text) => withLines(text, head, lines))
    if (done !== null) {
      if (done.after !== done.before) changed.push(file)
      continue
    }
    const created = withLines(null, head, lines)
    if (created === null) continue
    await backend.writeFileAtomic(file, created)
    changed.push(file)
  }
  return changed
}
