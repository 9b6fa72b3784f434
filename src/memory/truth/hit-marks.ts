/**
 * The marks of search hits (the read side of the claim fields): each hit says its premises, how
 * its evidence stands and whether it was retracted; a query that matches a guard's trigger brings
 * the guard's line; and a search under premises says how many of the best matches it set aside.
 * Pure over the retrieval state; never changes the ranking itself (premises filter in search.ts).
 */

import { formatPremises, parsePremises, premisesConflict } from '../../store/premises.js'
import type { RetrievalState } from '../../retrieve/retriever.js'
import { runSearch, type SearchHit, type SearchRequest } from '../../retrieve/search.js'
import type { IndexLookup } from '../../store/index-view.js'
import type { IndexEntry } from '../../types.js'
import { evidenceState, liveRetraction, type EvidenceLabel } from './evidence.js'
import { matchingGuards, type MatchedGuard } from './guards.js'

/** What a hit adds about its claim fields (each only when it applies). */
export interface ClaimMarks {
  scope?: string
  evidence?: EvidenceLabel
  retracted_by?: string
}

/** A caller's premises in their stored form; INVALID_INPUT naming `field` when they do not parse. */
export function requestPremises(scope: string | undefined, field = 'scope'): string | undefined {
  if (scope === undefined) return undefined
  return formatPremises(parsePremises(scope, field)) ?? undefined
}

/** The marks of one memory. Evidence is said only for a memory that carries some. */
export function claimMarks(e: IndexEntry | undefined, nowMs: number, view: IndexLookup): ClaimMarks {
  if (e === undefined) return {}
  const retraction = liveRetraction(e, view)
  return {
    ...(e.scope !== undefined ? { scope: e.scope } : {}),
    ...(e.evidence !== undefined ? { evidence: evidenceState(e, nowMs).label } : {}),
    ...(retraction !== null ? { retracted_by: retraction.id } : {}),
  }
}

export interface AnnotatedHit extends SearchHit, ClaimMarks {}

export interface SearchAnnotations {
  hits: AnnotatedHit[]
  guards?: MatchedGuard[]
  scopeExcluded?: number
}

/**
 * Hits with their marks, the guards the query matches, and (under premises) how many of the
 * matches an unscoped search would have returned were set aside by them.
 */
export function annotateSearch(
  state: RetrievalState,
  req: SearchRequest,
  hits: SearchHit[],
  nowMs: number,
): SearchAnnotations {
  const guards = matchingGuards(state.entries, req.query)
  let scopeExcluded: number | undefined
  if (req.scope !== undefined) {
    const scope = req.scope
    const unscoped = runSearch(state.entries, state.index, state.aliases, { ...req, scope: undefined }).hits
    scopeExcluded = unscoped.filter((h) => premisesConflict(state.entries.get(h.id)?.scope, scope)).length
  }
  return {
    hits: hits.map((h) => ({ ...h, ...claimMarks(state.entries.get(h.id), nowMs, state.entries) })),
    ...(guards.length > 0 ? { guards } : {}),
    ...(scopeExcluded !== undefined ? { scopeExcluded } : {}),
  }
}
