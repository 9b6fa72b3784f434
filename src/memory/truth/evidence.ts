/**
 * Evidence freshness: a memory is VERIFIED while its last check passed within the freshness
 * window, ASSERTED otherwise (no evidence, never run, failed, or run too long ago). The memory
 * never runs a command; it keeps what the agent reports and judges its age. Also the markers
 * every rendering puts in front of a memory (`[VERIFIED]`, `[ASSERTED]`, `[retracted]`,
 * `[scope: ...]`). Pure.
 */

import { isSearchable } from '../../retrieve/search-index.js'
import type { IndexLookup } from '../../store/index-view.js'
import type { IndexEntry } from '../../types.js'

/** A passing check counts as fresh for this many days after `verified_at`. */
export const EVIDENCE_TTL_DAYS = 30
const DAY_MS = 86_400_000

export type EvidenceLabel = 'verified' | 'asserted'

export interface EvidenceState {
  label: EvidenceLabel
  /** Why: fresh pass, no evidence, not run, failed, or expired. */
  reason: 'fresh' | 'none' | 'not-run' | 'failed' | 'expired'
}

export function evidenceState(entry: Pick<IndexEntry, 'evidence'>, nowMs: number): EvidenceState {
  const ev = entry.evidence
  if (ev === undefined) return { label: 'asserted', reason: 'none' }
  if (ev.result === 'fail') return { label: 'asserted', reason: 'failed' }
  if (ev.result !== 'pass' || ev.verified_at === null) return { label: 'asserted', reason: 'not-run' }
  return nowMs - Date.parse(ev.verified_at) <= EVIDENCE_TTL_DAYS * DAY_MS ? { label: 'verified', reason: 'fresh' } : { label: 'asserted', reason: 'expired' }
}

/** The sentence a note quotes about a memory's evidence. */
export function evidenceSentence(entry: Pick<IndexEntry, 'id' | 'evidence'>, nowMs: number): string {
  const s = evidenceState(entry, nowMs)
  const at = entry.evidence?.verified_at
  switch (s.reason) {
    case 'fresh':
      return `[VERIFIED]: its check passed on ${at?.slice(0, 10)}.`
    case 'expired':
      return `[ASSERTED]: its check passed on ${at?.slice(0, 10)}, more than ${EVIDENCE_TTL_DAYS} days ago; re-run ${entry.evidence?.cmd ?? 'it'} before relying on it.`
    case 'failed':
      return `[ASSERTED]: its last check failed.`
    case 'not-run':
      return `[ASSERTED]: it names a check that has not passed yet.`
    case 'none':
      return `[ASSERTED]: stated, with no evidence recorded.`
  }
}

/**
 * The retraction that withdraws a memory, while it is current: a forgotten or not yet confirmed
 * retraction withdraws nothing.
 */
export function liveRetraction(entry: Pick<IndexEntry, 'retracted_by'>, view: Pick<IndexLookup, 'get'>): IndexEntry | null {
  if (entry.retracted_by === undefined) return null
  const r = view.get(entry.retracted_by)
  return r !== undefined && isSearchable(r) ? r : null
}

/**
 * Markers for a rendering, in front of the memory's text. Evidence is marked only where a
 * memory carries some ([VERIFIED] while fresh, [ASSERTED] once stale, failed or not run): a
 * memory with none is plainly asserted, and marking every line would bury the signal.
 */
export function markers(entry: Pick<IndexEntry, 'evidence' | 'retracted_by' | 'scope' | 'retracts' | 'guard'>, nowMs: number, view: Pick<IndexLookup, 'get'>): string[] {
  const out: string[] = []
  const retraction = liveRetraction(entry, view)
  if (retraction !== null) out.push(`[retracted by ${retraction.id}]`)
  if (entry.evidence !== undefined) out.push(evidenceState(entry, nowMs).label === 'verified' ? '[VERIFIED]' : '[ASSERTED]')
  if (entry.retracts !== undefined) out.push(`[retracts ${entry.retracts}]`)
  if (entry.guard !== undefined) out.push('[guard]')
  if (entry.scope !== undefined) out.push(`[scope: ${entry.scope}]`)
  return out
}
