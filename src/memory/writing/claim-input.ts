/**
 * The write side of the claim fields: premises, evidence, retraction and guard as a write
 * request gives them (already redacted by the write path), checked (INVALID_INPUT naming the
 * field) and turned into front-matter; and what a write does with them inside its transaction
 * (premises that keep a repeat or a version apart, evidence refreshed by a repeat, the retracted
 * memory marked).
 * Pure except for the transaction calls; it never decides duplicates or versions itself.
 */

import { MemoryError, invalidInput } from '../../errors.js'
import { describeConflict, formatPremises, parsePremises, premisesConflict } from '../../store/premises.js'
import { collapseWhitespace } from '../../text.js'
import { slotOf } from '../../store/index-view.js'
import { SEARCHABLE_STATUSES, type IndexEntry } from '../../types.js'
import type { Txn } from './txn.js'

/** The claim fields of a write request (write_memory's input). */
export interface ClaimRequest {
  scope?: string
  verify_cmd?: string
  verify_expect?: string
  verify_result?: 'pass' | 'fail'
  verified_at?: string
  retracts?: string
  guard_trigger?: string
  guard_action?: string
}

/** Tags a retraction and a guard always carry, so they can be found and filtered by tag. */
export const RETRACTION_TAG = 'retraction'
export const GUARD_TAG = 'guard'

export interface PreparedClaim {
  /** Canonical premises, or null. */
  scope: string | null
  retracts: string | null
  /** Front-matter fields to write (only those with a value). */
  frontMatter: Record<string, unknown>
  /** True when the request carries evidence (a repeat then refreshes the stored evidence). */
  hasEvidence: boolean
  /** Tags the memory gets besides the caller's. */
  tags: string[]
}

function clean(value: string | undefined): string | null {
  if (value === undefined) return null
  const s = collapseWhitespace(value)
  return s === '' ? null : s
}

/** Checks and normalises the claim fields of a request already redacted (write.ts). Pure; throws INVALID_INPUT naming the field. */
export function prepareClaim(req: ClaimRequest): PreparedClaim {
  const scope = req.scope === undefined ? null : formatPremises(parsePremises(req.scope, 'scope'))
  const cmd = clean(req.verify_cmd)
  const expect = clean(req.verify_expect)
  let verifiedAt: string | null = null
  if (req.verified_at !== undefined) {
    const ms = Date.parse(req.verified_at)
    if (Number.isNaN(ms)) throw invalidInput('verified_at', 'an ISO-8601 date-time such as 2026-01-02T10:00:00Z')
    if (req.verify_result === undefined) throw invalidInput('verify_result', '"pass" or "fail" when verified_at is given (the time of which result?)')
    verifiedAt = new Date(ms).toISOString()
  }
  const trigger = clean(req.guard_trigger)
  const action = clean(req.guard_action)
  if ((trigger === null) !== (action === null))
    throw invalidInput(trigger === null ? 'guard_trigger' : 'guard_action', 'a non-empty string (a guard needs both guard_trigger and guard_action)')
  const retracts = req.retracts === undefined ? null : req.retracts.trim()
  if (retracts === '') throw invalidInput('retracts', 'the id of the memory this one retracts')
  const frontMatter: Record<string, unknown> = {}
  const put = (k: string, v: unknown) => {
    if (v !== null && v !== undefined) frontMatter[k] = v
  }
  put('scope', scope)
  put('verify_cmd', cmd)
  put('verify_expect', expect)
  put('verify_result', req.verify_result)
  put('verified_at', verifiedAt)
  put('retracts', retracts)
  put('guard_trigger', trigger)
  put('guard_action', action)
  return {
    scope,
    retracts,
    frontMatter,
    hasEvidence: cmd !== null || expect !== null || req.verify_result !== undefined,
    tags: [...(retracts !== null ? [RETRACTION_TAG] : []), ...(trigger !== null ? [GUARD_TAG] : [])],
  }
}

/**
 * The front-matter to write now: a passing result without a time counts as just run, so it is
 * stamped with the transaction's time.
 */
export function stampedFrontMatter(claim: PreparedClaim, now: string): Record<string, unknown> {
  const fm = { ...claim.frontMatter }
  if (fm.verify_result === 'pass' && fm.verified_at === undefined) fm.verified_at = now
  return fm
}

/** The `different-scope` warning for a memory kept apart because the premises disagree. */
export function differentScopeWarning(existing: IndexEntry, scope: string | null, what: 'repeat' | 'version'): string {
  const why = describeConflict(existing.scope, scope)
  return what === 'repeat'
    ? `different-scope: ${existing.id} says the same under other premises (${why}); stored as a separate memory, not a repeat.`
    : `different-scope: ${existing.id} is in the same slot under other premises (${why}); it stays current beside this one, not superseded.`
}

/** True when a stored memory and a write cannot be the same statement: their premises disagree. */
export function scopesKeepApart(existing: IndexEntry, claim: PreparedClaim): boolean {
  return premisesConflict(existing.scope, claim.scope)
}

/**
 * What a repeat of a stored memory adds to it: premises it lacked, and fresh evidence (a re-run
 * renews `verified_at`). Returns the updated entry (the same one when nothing changed).
 */
export async function enrichRepeat(txn: Txn, existing: IndexEntry, claim: PreparedClaim): Promise<IndexEntry> {
  const patch: Record<string, unknown> = {}
  if (existing.scope === undefined && claim.scope !== null) patch.scope = claim.scope
  if (claim.hasEvidence) {
    const fm = stampedFrontMatter(claim, txn.now)
    for (const k of ['verify_cmd', 'verify_expect', 'verify_result', 'verified_at'] as const) if (fm[k] !== undefined) patch[k] = fm[k]
    // A new result without a time replaces the old time too: it was not checked then.
    if (fm.verify_result !== undefined && fm.verified_at === undefined) patch.verified_at = null
  }
  if (Object.keys(patch).length === 0) return existing
  const updated = (await txn.update(existing, patch)) ?? existing
  txn.log({ event: 'claim-update', id: existing.id, fields: Object.keys(patch) })
  return updated
}

/** The memory a retraction withdraws; NOT_FOUND when it does not exist. */
export function retractionTarget(txn: Txn, claim: PreparedClaim): IndexEntry | null {
  if (claim.retracts === null) return null
  const target = txn.index.get(claim.retracts)
  if (target === undefined || target.type === 'raw') throw new MemoryError('NOT_FOUND', `retracts: no memory with id ${claim.retracts}`, 'retracts')
  return target
}

/** Marks the retracted memory in its file (`retracted_by`), so every reader and a person see it. */
export async function markRetracted(txn: Txn, target: IndexEntry, retractionId: string): Promise<void> {
  await txn.update(target, { retracted_by: retractionId })
  txn.log({ event: 'retract', id: retractionId, ids: [target.id] })
}

/**
 * Current memories of an entry's slot kept apart from it by their premises: the write neither
 * superseded them nor took them for repeats, and says so.
 */
export function keptApartInSlot(txn: Txn, entry: IndexEntry): IndexEntry[] {
  return txn.index
    .inSlot(slotOf(entry))
    .filter((o) => o.id !== entry.id && o.type === entry.type && SEARCHABLE_STATUSES.has(o.status) && premisesConflict(o.scope, entry.scope))
}
