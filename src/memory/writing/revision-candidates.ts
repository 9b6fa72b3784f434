/**
 * Revision candidates (`may_revise`): the current memories a free-text write may revise and the
 * rules did not, so that the caller (itself a model, in MCP and DSH) can confirm one with
 * `supersedes`. Three sources, in this order: the same subject by rules (the write's slot, and
 * the slots its subject reaches through the store's alias groups, which confirmed revisions
 * record), then the search ranking of its text (keyword neighbours, and vectors when an embedder
 * is configured: fusion.ts). Read-only: it never changes a memory and never records use. Its
 * search is an internal read, not a search of the caller's (retrievalState quiet): no query log,
 * no usage signal, no evidence batch, no step of the keyword lookup, no timed save.
 */

import { searchRanked } from '../../retrieve/fusion.js'
import { loadUserAliases } from '../../retrieve/aliases.js'
import { retrievalState } from '../../retrieve/retriever.js'
import type { MemoryBackend } from '../../store/backend.js'
import type { IndexLookup } from '../../store/index-view.js'
import { premisesConflict } from '../../store/premises.js'
import { normalizeSlot, truncate } from '../../text.js'
import { SEARCHABLE_STATUSES, type IndexEntry } from '../../types.js'

export interface RevisionCandidate {
  id: string
  summary: string
  /** How it was found: `same-subject: …`, `alias: …`, `shares words with this text`, `close in meaning (vectors)`. */
  why: string
}

/** At most this many candidates per write. */
export const MAY_REVISE_LIMIT = 3
/** Hits of the search ranking looked at (candidates already listed or excluded are skipped). */
const SEARCH_DEPTH = 8

/** The memory just written, as the candidates are judged against it. */
export interface WrittenMemory {
  id: string
  /** Its subject as read (front-matter slot), or null when none was read. */
  subject: string | null
  summary: string
  scope: string | null
  /** Ids this write superseded or named: already revised, never candidates. */
  revised: readonly string[]
}

/**
 * The slots a subject reaches through alias groups: each group member found in the normalised
 * subject is replaced by each other member ("backend service port" with ["API", "backend
 * service"] gives "api port"). Pure.
 */
export function aliasSlots(subject: string, groups: Readonly<Record<string, readonly string[]>>): Map<string, string> {
  const slot = normalizeSlot(subject)
  const out = new Map<string, string>()
  for (const [name, members] of Object.entries(groups)) {
    const norm = members.map(normalizeSlot).filter((m) => m.length >= 2)
    for (const m of norm) {
      if (!slot.includes(m)) continue
      for (const other of norm) if (other !== m) out.set(slot.replace(m, other), name)
    }
  }
  out.delete(slot)
  return out
}

/** The current memories of a subject's slot and of the slots its aliases reach, with why. */
function bySubject(index: IndexLookup, subject: string, groups: Readonly<Record<string, readonly string[]>>): Array<[IndexEntry, string]> {
  const out: Array<[IndexEntry, string]> = index.inSlot(normalizeSlot(subject)).map((e) => [e, `same-subject: "${subject}"`])
  for (const [slot, group] of aliasSlots(subject, groups)) for (const e of index.inSlot(slot)) out.push([e, `alias: "${e.key ?? slot}" (aliases.json group "${group}")`])
  return out
}

/** Up to MAY_REVISE_LIMIT current memories the written one may revise, best first. */
export async function revisionCandidates(backend: MemoryBackend, written: WrittenMemory): Promise<RevisionCandidate[]> {
  const state = await retrievalState(backend, { quiet: true })
  const eligible = (e: IndexEntry | undefined): e is IndexEntry =>
    e !== undefined &&
    e.id !== written.id &&
    e.type !== 'raw' &&
    SEARCHABLE_STATUSES.has(e.status) &&
    e.retracts === undefined &&
    e.guard === undefined &&
    !written.revised.includes(e.id) &&
    !premisesConflict(e.scope, written.scope)
  const found = new Map<string, RevisionCandidate>()
  const add = (e: IndexEntry, why: string) => {
    if (found.size < MAY_REVISE_LIMIT && !found.has(e.id)) found.set(e.id, { id: e.id, summary: truncate(e.summary, 200), why })
  }
  if (written.subject !== null) {
    const groups = await loadUserAliases(backend)
    for (const [e, why] of bySubject(state.entries, written.subject, groups)) if (eligible(e)) add(e, why)
  }
  if (found.size < MAY_REVISE_LIMIT) {
    const result = await searchRanked(backend, state, { query: written.summary, top_k: SEARCH_DEPTH })
    for (const hit of result.hits) {
      const e = state.entries.get(hit.id)
      if (eligible(e)) add(e, hit.reason === 'meaning' ? 'close in meaning (vectors)' : 'shares words with this text')
    }
  }
  return [...found.values()]
}
