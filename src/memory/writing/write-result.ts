/**
 * What a write says it did, beyond the memory's own fields: its outcome, one of a small closed set
 * (WRITE_OUTCOMES); the memory it replaced, with that memory's place in its version chain; and
 * the raw text a repeated episode brings, kept beside the text the episode already had (never
 * dropped: a repeat of an episode's summary with other raw text is the same episode said again,
 * with new evidence). Pure except for the transaction calls.
 */

import { MemoryError } from '../../errors.js'
import { parseFile } from '../../store/frontmatter.js'
import type { IndexLookup } from '../../store/index-view.js'
import { normalizeForHash, truncate } from '../../text.js'
import type { IndexEntry, MemoryStatus, Source } from '../../types.js'
import { rawSibling } from './slots.js'
import type { Txn } from './txn.js'

/**
 * What a write did. `created`: a new memory. `updated`: a new memory that replaced the current
 * version of its fact (`replaced` names it). `duplicate`: the store held it already; nothing new
 * was stored and the memory grew stronger. `appended`: the store held the episode already and the
 * raw text given was new: it was added to the episode's raw file. `conflict`: kept beside a
 * different value of the same fact, both in conflict until memory_resolve. `held`: stored as
 * suggested, waiting for memory_confirm.
 */
export const WRITE_OUTCOMES = ['created', 'updated', 'duplicate', 'appended', 'conflict', 'held'] as const
export type WriteOutcome = (typeof WRITE_OUTCOMES)[number]

/** The memory a write replaced: its id, its version (1 for the first of its chain) and its summary. */
export interface ReplacedMemory {
  id: string
  version: number
  summary: string
}

/** The longest chain of versions walked back (a loop a hand edit made stops there too). */
const MAX_CHAIN = 1000

/** A memory's version: 1 plus the versions before it, along `supersedes`. */
export function versionOf(index: IndexLookup, entry: IndexEntry): number {
  const seen = new Set([entry.id])
  let version = 1
  for (let at = entry.supersedes; at !== null && !seen.has(at) && version < MAX_CHAIN; version++) {
    seen.add(at)
    at = index.get(at)?.supersedes ?? null
  }
  return version
}

/** The newest memory among `superseded` (the one the winner's `supersedes` names), as the write reports it; null when none. */
export function replacedOf(index: IndexLookup, winner: IndexEntry, superseded: readonly string[]): ReplacedMemory | null {
  const id = winner.supersedes !== null && superseded.includes(winner.supersedes) ? winner.supersedes : superseded.at(-1)
  const entry = id === undefined ? undefined : index.get(id)
  return entry === undefined ? null : { id: entry.id, version: versionOf(index, entry), summary: truncate(entry.summary, 200) }
}

/** The outcome of a write that stored a memory, from the status it ended in and what it replaced. Pure. */
export function storedOutcome(status: MemoryStatus, replaced: boolean): WriteOutcome {
  if (status === 'suggested') return 'held'
  if (status === 'conflict') return 'conflict'
  return replaced ? 'updated' : 'created'
}

/** Where raw text said again starts in the raw file: a rule, and when and in which session. */
function againHeading(at: string, source: Source): string {
  return `---\n\nSaid again${source.session_id !== null ? ` in session ${source.session_id}` : ''}, ${at}:`
}

/**
 * Keeps the raw text of a repeated episode: added to the episode's raw file, below a line saying
 * when and in which session, unless that file holds it already (spacing and case aside); a raw
 * file made for an episode that had none. True when the text was kept, false when it was there.
 */
export async function keepRawEvidence(txn: Txn, episode: IndexEntry, raw: string, source: Source): Promise<boolean> {
  const sibling = rawSibling(txn, episode)
  if (sibling !== undefined) {
    const text = await txn.backend.readFile(sibling.path)
    if (text !== null && normalizeForHash(parseFile(text).body).includes(normalizeForHash(raw))) return false
    const sources = sibling.sources.some((s) => s.session_id === source.session_id && s.kind === source.kind) ? sibling.sources : [...sibling.sources, source]
    // Null: the file is gone (a person deleted it); the text then makes a raw file anew.
    if ((await txn.update(sibling, { sources }, (body) => `${body.trimEnd()}\n\n${againHeading(txn.now, source)}\n\n${raw}\n`)) !== null) return true
  }
  const rawRef = `raw/${episode.id}.md`
  if ((await txn.backend.stat(rawRef)) !== null) throw new MemoryError('INVALID_STATE', `${rawRef} exists but is not the raw text of ${episode.id}: move it aside, then write again`)
  await txn.create(rawRef, { id: `${episode.id}-raw`, type: 'raw', title: `raw: ${episode.title}`, time: txn.now, status: episode.status, session_id: source.session_id, sources: [source], episode: episode.id }, raw)
  await txn.update(episode, { raw_ref: rawRef })
  return true
}
