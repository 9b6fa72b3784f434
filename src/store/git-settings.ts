/**
 * What a store shares through git and what it keeps to the machine, as the lines of its
 * `.gitignore` and `.gitattributes`: one list, written when the store is created (layout.ts), so a
 * store inside a project repository is safe to `git add` before its first sync, and completed by
 * every sync (sync/git-files.ts). Pure.
 */

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

export const GITIGNORE_HEAD = '# dsh-memory-agent: derived and per-machine files, rebuilt on every machine (memory-agent sync)'

export const ATTRIBUTE_LINES = [
  // Every machine only appends to the ledger: keep the lines of both sides. `sync` also drops a
  // line that both sides happen to carry, which the union driver alone would keep twice.
  'ledger.jsonl merge=union',
  // Checksums compare bytes: a checkout with CRLF would look like an edit of every file.
  '*.md text eol=lf',
  '*.jsonl text eol=lf',
  '*.json text eol=lf',
] as const

export const GITATTRIBUTES_HEAD = '# dsh-memory-agent: how the store merges (memory-agent sync)'

/** The text of a settings file with every required line present; null when nothing is missing. Pure. */
export function withLines(existing: string | null, head: string, lines: readonly string[]): string | null {
  const have = new Set((existing ?? '').split('\n').map((l) => l.trim()))
  const missing = lines.filter((l) => !have.has(l))
  if (missing.length === 0) return null
  const base = existing === null || existing === '' ? '' : existing.endsWith('\n') ? existing : `${existing}\n`
  const block = [...(have.has(head) ? [] : [head]), ...missing]
  return `${base}${base === '' ? '' : '\n'}${block.join('\n')}\n`
}
