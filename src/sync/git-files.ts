/**
 * What a synced store commits and what it does not, written down where git reads it: the
 * store's `.gitignore` (derived and per-machine files) and `.gitattributes` (the ledger merges
 * by union, text files keep LF). Both live in the store root, so they hold whether the root is
 * its own repository or a folder of a project's. A person may have edited either file: missing
 * lines are added, nothing is removed or rewritten.
 */

import type { MemoryBackend } from '../store/backend.js'

/** Derived or per-machine: rebuilt or re-made on every machine, never shared. */
export const IGNORED_PATHS = [
  '/index.jsonl',
  '/usage.jsonl',
  '/query-log.jsonl',
  // the palace's high-water marks: rebuilt from the ledger (merged by union) and the files' locations
  '/rooms.json',
  '/rooms-log.jsonl',
  '/.cache/',
  '/.lock',
  '/.sync.lock',
  '/digests/*',
  '!/digests/_index.md',
] as const

/** The same list as paths relative to the root, for untracking what was committed before. */
export const DERIVED_TRACKABLE = ['index.jsonl', 'usage.jsonl', 'query-log.jsonl', 'rooms.json', 'rooms-log.jsonl', '.cache', '.lock', '.sync.lock', 'digests'] as const
/** Tracked files under the derived paths that stay tracked. */
export const KEPT_UNDER_DERIVED: ReadonlySet<string> = new Set(['digests/_index.md'])

const GITIGNORE_HEAD = '# dsh-memory-agent: derived and per-machine files, rebuilt on every machine (memory-agent sync)'

export const ATTRIBUTE_LINES = [
  // Every machine only appends to the ledger: keep the lines of both sides. `sync` also drops a
  // line that both sides happen to carry, which the union driver alone would keep twice.
  'ledger.jsonl merge=union',
  // Checksums compare bytes: a checkout with CRLF would look like an edit of every file.
  '*.md text eol=lf',
  '*.jsonl text eol=lf',
  '*.json text eol=lf',
] as const

const GITATTRIBUTES_HEAD = '# dsh-memory-agent: how the store merges (memory-agent sync)'

/** The text of a settings file with every required line present; null when nothing is missing. Pure. */
export function withLines(existing: string | null, head: string, lines: readonly string[]): string | null {
  const have = new Set((existing ?? '').split('\n').map((l) => l.trim()))
  const missing = lines.filter((l) => !have.has(l))
  if (missing.length === 0) return null
  const base = existing === null || existing === '' ? '' : existing.endsWith('\n') ? existing : `${existing}\n`
  const block = [...(have.has(head) ? [] : [head]), ...missing]
  return `${base}${base === '' ? '' : '\n'}${block.join('\n')}\n`
}

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
