/**
 * The claim fields of a memory file: premises (`scope`), evidence (`verify_cmd`, `verify_expect`,
 * `verify_result`, `verified_at`), retraction (`retracts`, `retracted_by`) and guard
 * (`guard_trigger`, `guard_action`). Owns how they are read from front-matter (for
 * `entryFromFile`, the single derivation) and from an index line, both tolerant of hand-written
 * values. An entry carries a field only when the file states it. Pure.
 */

import type { Evidence, Guard, IndexEntry } from '../types.js'
import { formatPremises, storedPremises } from './premises.js'

/** The front-matter names of the claim fields, as a person writes them. */
export const CLAIM_FRONT_MATTER = [
  'scope',
  'verify_cmd',
  'verify_expect',
  'verify_result',
  'verified_at',
  'retracts',
  'retracted_by',
  'guard_trigger',
  'guard_action',
] as const

export type ClaimFields = Pick<IndexEntry, 'scope' | 'evidence' | 'retracts' | 'retracted_by' | 'guard'>

function text(value: unknown): string | null {
  const s = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null
  const t = s?.replace(/\s+/g, ' ').trim()
  return t === undefined || t === '' ? null : t
}

function time(value: unknown): string | null {
  const s = value instanceof Date ? value.toISOString() : text(value)
  if (s === null) return null
  const ms = Date.parse(s)
  return Number.isNaN(ms) ? null : new Date(ms).toISOString()
}

function memoryId(value: unknown): string | null {
  const s = text(value)
  return s !== null && !/[/\\\0\s]/.test(s) ? s : null
}

function result(value: unknown): Evidence['result'] {
  const s = text(value)?.toLowerCase()
  return s === 'pass' || s === 'fail' ? s : null
}

/** Only the fields that have a value, so an ordinary memory's entry has none of them. */
function present(fields: { [K in keyof ClaimFields]-?: ClaimFields[K] | null }): ClaimFields {
  const out: ClaimFields = {}
  for (const [k, v] of Object.entries(fields)) if (v !== null && v !== undefined) (out as Record<string, unknown>)[k] = v
  return out
}

function evidenceOf(cmd: string | null, expect: string | null, res: Evidence['result'], at: string | null): Evidence | null {
  return cmd === null && expect === null && res === null && at === null ? null : { cmd, expect, result: res, verified_at: at }
}

function guardOf(trigger: string | null, action: string | null): Guard | null {
  return trigger !== null && action !== null ? { trigger, action } : null
}

/** The claim fields stated by a file's front-matter; an unusable value counts as absent. */
export function claimFieldsFromFrontMatter(data: Record<string, unknown>): ClaimFields {
  const scope = typeof data.scope === 'string' ? formatPremises(storedPremises(data.scope)) : null
  return present({
    scope,
    evidence: evidenceOf(text(data.verify_cmd), text(data.verify_expect), result(data.verify_result), time(data.verified_at)),
    retracts: memoryId(data.retracts),
    retracted_by: memoryId(data.retracted_by),
    guard: guardOf(text(data.guard_trigger), text(data.guard_action)),
  })
}

/** The claim fields of an index line (written by this program, but read defensively). */
export function claimFieldsFromIndexLine(r: Record<string, unknown>): ClaimFields {
  const ev = typeof r.evidence === 'object' && r.evidence !== null ? (r.evidence as Record<string, unknown>) : null
  const g = typeof r.guard === 'object' && r.guard !== null ? (r.guard as Record<string, unknown>) : null
  return present({
    scope: text(r.scope),
    evidence: ev === null ? null : evidenceOf(text(ev.cmd), text(ev.expect), result(ev.result), time(ev.verified_at)),
    retracts: memoryId(r.retracts),
    retracted_by: memoryId(r.retracted_by),
    guard: g === null ? null : guardOf(text(g.trigger), text(g.action)),
  })
}
