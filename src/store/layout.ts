/**
 * The folders of a store and the notes that tell a person what each one is. Created once by
 * `init()`; never overwritten, since a person may have edited them.
 */

import type { MemoryType } from '../types.js'
import { ATTRIBUTE_LINES, GITATTRIBUTES_HEAD, GITIGNORE_HEAD, IGNORED_PATHS, withLines } from './git-settings.js'

export type LayoutItem = { kind: 'dir'; path: string } | { kind: 'file'; path: string; text: string }

/** Folders that hold memory files, and the type of memory each holds. */
export const MEMORY_FOLDERS: ReadonlyArray<{ folder: string; type: MemoryType }> = [
  { folder: 'episodes', type: 'episode' },
  { folder: 'raw', type: 'raw' },
  { folder: 'topics', type: 'topic' },
]

/** Folders whose markdown files a reader may open by path: the memory folders and digests/. */
const READABLE_FOLDERS: ReadonlySet<string> = new Set([...MEMORY_FOLDERS.map((f) => f.folder), 'digests'])

/**
 * True for a path inside a folder that holds memory files (episodes/, raw/, topics/, digests/),
 * with no dot-named part on the way: never `.git`, `.cache`, config.json, the panel key or a log.
 * Pure; a relative path with '/' separators.
 */
export function inMemoryFolder(relPath: string): boolean {
  const parts = relPath.split('/').filter((p) => p !== '' && p !== '.')
  return parts.length > 0 && READABLE_FOLDERS.has(parts[0] as string) && !parts.some((p) => p.startsWith('.'))
}

/** True for a file a reader may open by path: a markdown file in a memory folder, or the root README.md. Pure. */
export function isReadableFile(relPath: string): boolean {
  const parts = relPath.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.length === 1 && parts[0] === 'README.md') return true
  return parts.length > 1 && inMemoryFolder(relPath) && (parts[parts.length - 1] as string).toLowerCase().endsWith('.md')
}

export function typeOfFolder(relPath: string): MemoryType | null {
  const slash = relPath.indexOf('/')
  const first = slash < 0 ? relPath : relPath.slice(0, slash)
  return MEMORY_FOLDERS.find((f) => f.folder === first)?.type ?? null
}

const ROOT_README = `# Agent memory

This folder is the long-term memory of an AI agent, kept by dsh-memory-agent as plain files.
You can read, edit, diff and version everything here with ordinary tools.

| what | is |
|---|---|
| \`episodes/\` | what happened in a session: one markdown file per memory, with its session id |
| \`raw/\` | the original text behind an episode, reached only through the episode's \`raw_ref\` |
| \`topics/\` | shared knowledge: facts, preferences, decisions; may have several sources |
| \`digests/\` | current belief per slot, a cache rebuilt from the files above |
| \`ledger.jsonl\` | append-only audit trail: every write, confirmation, supersede, forget |
| \`index.jsonl\` | the summary layer of every memory; derived, \`memory-agent rebuild\` recreates it |

Each memory file starts with YAML front-matter (id, type, title, time, status, sources, tags...)
followed by a markdown body: a \`# title\` heading and the summary paragraph. Edit the body or the
front-matter freely; a file without front-matter is picked up too (id from the file name, title
from the first heading, summary from the first paragraph).

Statuses: \`active\` (searchable), \`suggested\` (waits for confirmation), \`superseded\` (an older
version), \`conflict\` (two versions wait for a decision), \`deleted_pending\` (forgotten, file
kept), \`orphaned\` (a shared topic whose sources were all forgotten), \`archived\` (idle and of low
importance, set aside by decay; \`memory_restore\` brings it back).

\`location: room#slot\` is the memory's place in the palace (rooms.json keeps the tour); each clone
of a synced store fills rooms of its own (\`topics-<wing>\`). \`links\` and \`[[id]]\` in a body link
memories to each other.
`

function folderNote(title: string, body: string): string {
  return `# ${title}\n\n${body}\n\nBrowse it with \`memory_nav({ path: "<folder>/" })\`; read one memory in full with\n\`memory_nav({ path: "<id or file path>" })\`.\n`
}

export const STORE_LAYOUT: readonly LayoutItem[] = [
  { kind: 'dir', path: 'episodes' },
  { kind: 'dir', path: 'raw' },
  { kind: 'dir', path: 'topics' },
  { kind: 'dir', path: 'digests' },
  { kind: 'file', path: 'README.md', text: ROOT_README },
  // From the start, not from the first sync: a store inside a project repository is then safe to
  // `git add -A` (no panel key, caches or logs staged).
  { kind: 'file', path: '.gitignore', text: withLines(null, GITIGNORE_HEAD, IGNORED_PATHS) ?? '' },
  { kind: 'file', path: '.gitattributes', text: withLines(null, GITATTRIBUTES_HEAD, ATTRIBUTE_LINES) ?? '' },
  {
    kind: 'file',
    path: 'episodes/_index.md',
    text: folderNote(
      'episodes/',
      'What happened in a session, one memory per file, named `<date>-<id>.md`. Every episode carries the\nsession id it came from, so `forget_memories_by_session` can find it. Its original text, if any,\nis in `raw/<id>.md`.',
    ),
  },
  {
    kind: 'file',
    path: 'raw/_index.md',
    text: folderNote(
      'raw/',
      'The original text behind each episode (`raw/<episode id>.md`), kept verbatim after secret\nredaction. It is never searched or injected; it is read only when an episode is opened.',
    ),
  },
  {
    kind: 'file',
    path: 'topics/_index.md',
    text: folderNote(
      'topics/',
      'Shared knowledge: facts, preferences, conventions, decisions. Named `<slug>-<id>.md`. A topic may\nhave several sources; forgetting a session only unlinks it, it never deletes a topic.',
    ),
  },
  {
    kind: 'file',
    path: 'digests/_index.md',
    text: folderNote(
      'digests/',
      'Current belief for each slot, rebuilt from the memory files when they change. A cache: deleting\nit loses nothing.',
    ),
  },
]
