/**
 * Folder memory/reading/, whose main file this is, owns memory going out: search, assembly for a
 * task, browsing and walking the store, resident injection, the panel's list and counters,
 * sessions, finding one memory by id. Imports from the other capability folders: forgetting,
 * organisation, settings, time, truth, writing; below memory/ anything (retrieve, store,
 * language, ground); nothing above (tools, stores, adapters).
 *
 * A search as one operation, for every caller (the tool, the library, the panel): the store as
 * it is now or as of a time, the store's top_k cap, the ranking (retrieve/search.ts, weighed by
 * each memory's effective importance: organisation/strength.ts), a newer memory that may revise
 * a hit put before it (truth/current-first.ts), each hit's
 * premises, evidence and guards, the memories linked to the hits and the palace cues beside them
 * (organisation/room-search.ts), the evidence batch the answer is registered as, and the usage
 * signal (direct hits only). Inputs are already checked against the tool's schema; dates are checked here.
 */

import { invalidInput } from '../../errors.js'
import { growKeywords, retrievalState } from '../../retrieve/retriever.js'
import { searchRanked } from '../../retrieve/fusion.js'
import type { SearchRequest, SearchResult } from '../../retrieve/search.js'
import { afterAnswer } from '../../store/after-answer.js'
import type { MemoryBackend } from '../../store/backend.js'
import { roomOf } from '../../store/place-fields.js'
import { buildPalaceLookup, palaceAddition, palaceGuidance, type SlotCue } from '../organisation/room-search.js'
import { recordSearch } from '../organisation/signals.js'
import { importanceLookup } from '../organisation/strength-fold.js'
import { loadConfig } from '../settings/config.js'
import { parseAsOf, retrievalAsOf } from '../time/as-of.js'
import { annotateSearch, requestPremises, type SearchAnnotations } from '../truth/hit-marks.js'
import { registerBatch } from '../truth/evidence-gate.js'
import { currentFirst } from '../truth/current-first.js'

export interface SearchInput {
  query: string
  tags?: string[]
  entities?: string[]
  time_range?: { from?: string; to?: string }
  top_k: number
  asOf?: string
  scope?: string
  session_id?: string
  room?: string
}

type Annotated = SearchResult & SearchAnnotations
type AnsweredHit = Annotated['hits'][number] & { ref: string; linked_from?: string }
export type SearchAnswer = Omit<Annotated, 'hits'> & { hits: AnsweredHit[]; batch_id?: string; nearby?: SlotCue[]; rooms?: string[] }

/** The answer on a default root not written yet: no hits, no evidence batch, and saying so (store/existing.ts). */
export function nothingStoredAnswer(guidance: string): SearchAnswer {
  return { hits: [], guidance, alias_hits: 0, eligible: 0, reason: 'nothing-stored', nearMisses: [] }
}

export async function searchMemories(backend: MemoryBackend, input: SearchInput): Promise<SearchAnswer> {
  for (const field of ['from', 'to'] as const) {
    const value = input.time_range?.[field]
    if (value !== undefined && Number.isNaN(Date.parse(value))) throw invalidInput(`time_range.${field}`, 'an ISO-8601 date-time such as 2026-01-02T10:00:00Z')
  }
  if (input.room !== undefined && roomOf(`${input.room}#1`) === null) throw invalidInput('room', 'a room name as memory_rooms lists them, such as topics or topics-2 (lower-case letters, digits and dashes)')
  const asOf = input.asOf !== undefined ? parseAsOf(input.asOf) : null
  // A look into the past ranks without today's strength from use.
  const [config, state, importance] = await Promise.all([
    loadConfig(backend),
    asOf !== null ? retrievalAsOf(backend, asOf) : retrievalState(backend),
    asOf !== null ? undefined : importanceLookup(backend),
  ])
  const now = asOf ?? Date.parse(backend.now())
  // The time as a date, so the guidance says when even for unix seconds.
  const request: SearchRequest = {
    ...input,
    ...(asOf !== null ? { asOf: new Date(asOf).toISOString() } : {}),
    scope: requestPremises(input.scope),
    top_k: Math.min(input.top_k, config.maxTopK),
    now,
    ...(importance !== undefined ? { importance } : {}),
  }
  const found = await searchRanked(backend, state, request)
  // Of a memory and a newer one that may revise it, the newer first (truth/current-first.ts).
  const ranked: SearchResult = { ...found, hits: currentFirst(found.hits, (id) => state.entries.get(id), now) }
  // Below the hits: what they link to and what stands beside them (room-search.ts).
  const palace = palaceAddition(state.entries, request, ranked.hits)
  const note = palaceGuidance(palace, request)
  const result: SearchResult = { ...ranked, hits: [...ranked.hits, ...palace.linked], guidance: note === '' ? ranked.guidance : `${ranked.guidance} ${note}` }
  const annotated: Annotated = { ...result, ...annotateSearch(state, request, result.hits, now) }
  // First, so a search refused for its session (a credential) is not recorded as use.
  const { batchId, refs } = await registerBatch(backend, input.session_id, annotated.hits.map((h) => h.id))
  // A look into the past is not use of the memories of now.
  if (asOf === null) {
    recordSearch(backend, { learn: config.learnFromSearches, query: input.query, hitIds: ranked.hits.map((h) => h.id) })
    afterAnswer(backend, 'keyword lookup', () => growKeywords(backend))
    if (palace.buildLater) afterAnswer(backend, 'palace lookup', async () => buildPalaceLookup(state.entries))
  }
  const cues = { ...(palace.nearby.length > 0 ? { nearby: palace.nearby } : {}), ...(palace.rooms.length > 0 ? { rooms: palace.rooms } : {}) }
  return { ...annotated, hits: annotated.hits.map((h, i) => ({ ...h, ref: refs[i] as string })), batch_id: batchId, ...cues }
}
