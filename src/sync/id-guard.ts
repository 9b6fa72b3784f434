/**
 * After a pull: an id this clone holds is never taken by a file that came with it (issue 28).
 * The settling rule of store/identity.ts (the name that carries the id, else the earlier `time`,
 * else the first path) is right for copies made here, but a teammate's file that states an id
 * held here, with an older `time` or a path that sorts first, would take it: nav would show the
 * incoming text under the old id and the statement it stood for would verify as unknown. So
 * each incoming file that states an id another file here holds is given the copy id the rule
 * would give it (`copyId`, fixed by its path), written into its front-matter by compare-and-swap:
 * the file then states an id of its own, so rebuild on any clone and the teammate's clone after
 * its next pull agree. A file whose front-matter does not parse cannot be rewritten: the holder
 * keeps the id in the index (`held`) and a warning names the file. Under the store lock, before
 * the re-index; the caller adds the ledger events and commits.
 */

import type { MemoryBackend } from '../store/backend.js'
import { describeUnreadable, entryFromFile, isMemoryPath } from '../store/frontmatter.js'
import { copyId } from '../store/identity.js'
import type { LedgerEventDraft } from '../types.js'
import { patchMemoryText } from './conflicts.js'

export interface Reidentified {
  /** The incoming file. */
  path: string
  /** The id it states now. */
  id: string
  /** The id it stated, which `holder` keeps. */
  was: string
  holder: string
}

export interface IdGuard {
  reidentified: Reidentified[]
  /** Paths of files here that keep their ids whatever the settling rule says (for the re-index). */
  held: Set<string>
  events: LedgerEventDraft[]
  warnings: string[]
}

/** What a pulled file says it is, or null when it is gone or not a memory file. */
async function statedId(backend: MemoryBackend, relPath: string, now: number): Promise<{ id: string; text: string } | null> {
  if (!isMemoryPath(relPath)) return null
  const text = await backend.readFile(relPath)
  return text === null ? null : { id: entryFromFile(relPath, text, now).id, text }
}

/**
 * Gives each changed file that states an id held here by another file (one the pull left in
 * place, still stating it) the copy id of its path. `changed`: the store paths the pull changed.
 */
export async function guardPulledIds(backend: MemoryBackend, changed: readonly string[], now: number): Promise<IdGuard> {
  const out: IdGuard = { reidentified: [], held: new Set(), events: [], warnings: [] }
  const view = await backend.indexView()
  const pulled = new Set(changed)
  for (const relPath of [...pulled].sort()) {
    const incoming = await statedId(backend, relPath, now)
    if (incoming === null) continue
    const holder = view.get(incoming.id)
    if (holder === undefined || holder.path === relPath) continue
    // A holder the pull changed holds the id only if it still states it (else the id moved).
    if (pulled.has(holder.path) && (await statedId(backend, holder.path, now))?.id !== incoming.id) continue
    out.held.add(holder.path)
    const id = copyId(incoming.id, relPath)
    const broken = entryFromFile(relPath, incoming.text, now).front_matter_error
    if (broken !== undefined) {
      out.warnings.push(`${describeUnreadable(relPath, broken)}; it states id ${incoming.id}, which ${holder.path} holds here, so it is indexed as ${id}: fix its YAML and give it an id of its own`)
      continue
    }
    const done = await backend.rewriteFile(relPath, (text) => patchMemoryText(relPath, text, { id }, now))
    if (done === null) continue
    out.reidentified.push({ path: relPath, id, was: incoming.id, holder: holder.path })
    out.events.push({ event: 'reidentify', id, was: incoming.id, path: relPath, holder: holder.path, via: 'sync' })
  }
  return out
}
