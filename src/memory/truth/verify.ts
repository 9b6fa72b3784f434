/**
 * Folder memory/truth/, whose main file this is, owns whether memory can be relied on: verify,
 * the claims read from free text and their values, evidence and the evidence gate, guards,
 * anchors, the injection guard, the claim marks of search hits. Imports from the other capability
 * folders: time, writing; below memory/ anything (retrieve, store, language, ground); nothing
 * above (tools, stores, adapters).
 *
 * Source monitoring before an assertion: does memory support a claim, contradict it, say nothing,
 * or speak only under other premises? Pure over the index view and the search index; it reads
 * no memory file, writes nothing and records no search signal (a check is not a search).
 *
 * Words, not vectors: a claim's terms are the tokenizer's strong terms (2-grams and words). A
 * current memory SUPPORTS the claim when it states at least 80% of them and every number among
 * them; a memory with a slot key only when the claim names the slot (every word of its key) and
 * it states at least half of what the claim says beyond the key, or when it states every word
 * of the claim. A claim that names a slot is CONTRADICTED by the
 * slot's current memory when that memory does not support it and an older version of the slot
 * does, or the claim's numbers are all absent where the memory has others, or the claim shares
 * nothing with it beyond the key's own words. A retraction of the memory that would support it
 * contradicts it too. An old version never supports anything: it is reported in
 * `superseded_matches`. Memories whose premises conflict with the caller's are set aside
 * (`scopeExcluded`); when only they speak to the claim the verdict is OUT_OF_SCOPE. A support
 * counts only when no memory at least as new may say otherwise (doubt.ts): then the answer is
 * UNKNOWN, naming it; a change yet to come on a known day leaves it supported until that day.
 */

import { invalidInput } from '../../errors.js'
import { comparePremises, formatPremises, parsePremises, premisesConflict } from '../../store/premises.js'
import { retrievalState } from '../../retrieve/retriever.js'
import { runSearch } from '../../retrieve/search.js'
import { isSearchable } from '../../retrieve/search-index.js'
import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import type { MemoryBackend } from '../../store/backend.js'
import { contentHash } from '../../store/frontmatter.js'
import { slotOf, type IndexLookup } from '../../store/index-view.js'
import { collapseWhitespace, normalizeSlot } from '../../text.js'
import { briefOf, type IndexEntry, type MemoryStatus, type MemoryType } from '../../types.js'
import { parseAsOf, retrievalAsOf } from '../time/as-of.js'
import { changeCues, deriveClaim, kindOfValue } from './claim-extract.js'
import { frameOf, otherValue, valueNames, type Frame } from './claim-frame.js'
import { RETIRING } from '../writing/revise.js'
import { atomsWithin, compareValues, isEmptyValue, valueAtoms, type ValueAtoms } from './claim-value.js'
import { entryClaim, relateClaims, type EntryClaim } from '../writing/revise.js'
import { sameSubjectTerms, subjectTerms } from '../../language/subject-terms.js'
import { evidenceState, liveRetraction, type EvidenceLabel } from './evidence.js'
import { LIST_LIMIT, noteFor, type Doubt } from './verify-note.js'
import { doubtOf, effectiveFrom, negatesValue, pendingChange, unstructuredClaim, type DoubtClaim } from './doubt.js'

/** A claim with no recognisable subject is supported only by a memory that states every one of its terms (and all its numbers, and the memory's own value). */
export const SUPPORT_COVERAGE = 1
/** Search hits considered per claim. */
const CANDIDATES = 20
/** How far a superseded chain is followed to its current version. */
const CHAIN_LIMIT = 50

export type Verdict = 'supported' | 'contradicted' | 'unknown' | 'out_of_scope'

export interface VerifyRequest {
  claim: string
  scope?: string
  /** ISO-8601: judge by the store as it was then (as-of.ts); evidence freshness is judged at that time too. */
  asOf?: string
}

/** A memory as verify reports it. */
export interface VerifyRef {
  id: string
  path: string
  type: MemoryType
  title: string
  summary: string
  status: MemoryStatus
  time: string
  /** Share of the claim's terms this memory states, 0 to 1. */
  coverage: number
  evidence: EvidenceLabel
  scope?: string
  verified_at?: string
  retracted_by?: string
}

export interface VerifyResult {
  verdict: Verdict
  claim: string
  /** The current memory that states the claim, if any (with a contradicting verdict: a mention the slot's current value overrides). */
  support: VerifyRef | null
  /** Current memories of a slot the claim names that state another value, and retractions of its support. */
  contradicting: VerifyRef[]
  /** Memories about the same subject written after the support. */
  newer_related: VerifyRef[]
  /** Old versions that state the claim: it was true once. */
  superseded_matches: VerifyRef[]
  /** True when newer related memories exist: re-check before relying on the support. */
  stale_support: boolean
  /** Memories that matched the claim's words but hold under premises that conflict with the caller's. */
  scopeExcluded: number
  /** One paragraph the agent can quote, starting with the verdict in capitals. */
  note: string
}

/** The verdict on a default root not written yet: unknown, saying why (store/existing.ts). */
export function nothingStoredVerdict(claim: string, why: string): VerifyResult {
  const none = { support: null, contradicting: [], newer_related: [], superseded_matches: [], stale_support: false, scopeExcluded: 0 }
  return { verdict: 'unknown', claim, ...none, note: `UNKNOWN: ${why} Do not state the claim as remembered.` }
}

/** The terms a claim is checked by: strong terms, or all terms when it has none. */
export function claimTerms(text: string): Set<string> {
  const all = tokenize(text)
  const strong = all.filter(isStrongTerm)
  return new Set(strong.length > 0 ? strong : all)
}

/** Two subjects are one when their slots are equal, or they hold the same words ("token TTL of the auth service" = "auth service token TTL"). */
export function sameSubject(a: string, b: string): boolean {
  return normalizeSlot(a) === normalizeSlot(b) || sameSubjectTerms(subjectTerms(a), subjectTerms(b))
}

class Checker {
  private readonly termCache = new Map<string, Set<string>>()
  /** What the claim asserts: its subject and value, when it has a recognisable form. */
  readonly parsed: EntryClaim | null
  /** Every atom of the claim text (numbers with units, words): what an unstructured claim must find. */
  private readonly textAtoms: ValueAtoms

  constructor(
    readonly text: string,
    readonly claim: Set<string>,
    readonly premises: string | null,
    private readonly view: IndexLookup,
    /** The time judged at: a change yet to come supports nothing before its day. */
    readonly nowMs: number,
  ) {
    const d = deriveClaim(text)
    this.parsed = d === null ? null : { subject: d.subject, names: [d.subject], value: d.value, atoms: valueAtoms(d.value), negated: d.negated, form: d.form, cues: d.cues, retired: d.retired }
    this.textAtoms = valueAtoms(text)
  }

  terms(e: IndexEntry): Set<string> {
    let t = this.termCache.get(e.id)
    if (t === undefined) {
      t = new Set(tokenize([e.title, e.summary, e.key ?? '', ...e.entities].join('\n')))
      this.termCache.set(e.id, t)
    }
    return t
  }
  keyTerms(e: IndexEntry): Set<string> {
    return e.key === null ? new Set() : claimTerms(e.key)
  }
  coverage(e: IndexEntry): number {
    const t = this.terms(e)
    let n = 0
    for (const w of this.claim) if (t.has(w)) n++
    return n / this.claim.size
  }
  /**
   * The memory states the claim's subject with part of it in its value ("Kestrel staging database
   * is PostgreSQL 16 listening on port 6543" for "the Kestrel staging database port"): its subject
   * is no wider than the claim's, and the rest of the claim's subject is in its value. A memory
   * about a narrower subject ("admin API port" for "API port") never folds.
   */
  folds(e: IndexEntry, mine: EntryClaim): boolean {
    if (this.parsed === null) return false
    const claim = subjectTerms(this.parsed.subject as string)
    const value = new Set(subjectTerms(mine.value))
    return this.subjectsOf(e).some((s) => {
      const theirs = subjectTerms(s)
      return theirs.length > 0 && theirs.every((t) => claim.includes(t)) && claim.every((t) => theirs.includes(t) || value.has(t))
    })
  }
  subjectsOf(e: IndexEntry): string[] {
    return memorySubjects(e)
  }
  /** The claim is about this memory's subject. */
  namesSlot(e: IndexEntry): boolean {
    return this.subjectsOf(e).some((subject) => {
      if (this.parsed !== null) return sameSubject(this.parsed.subject as string, subject)
      const k = claimTerms(subject)
      return k.size > 0 && [...k].every((w) => this.claim.has(w))
    })
  }
  /**
   * The memory asserts the claim's value for the claim's subject. A structured claim needs the
   * same subject and every atom of its value (numbers, units, versions, names) in the memory's
   * value, with the same polarity; a memory that names no subject needs the claim's subject
   * words and value atoms in its text. Words that only overlap are never support.
   */
  states(e: IndexEntry): boolean {
    // A change yet to come states nothing true now; a memory that negates the value never supports it.
    if (pendingChange(e, this.nowMs)) return false
    const mine = entryClaim(e)
    if (this.parsed !== null) {
      const p = this.parsed
      if (isEmptyValue(p.atoms)) return false
      if (!p.negated && negatesValue(e.summary, p.value)) return false
      // A memory that tells of a change from the claim's value retires it: it never supports it.
      if (mine !== null && (mine.retired.some((v) => compareValues(valueAtoms(v), p.atoms) === 'same') || (RETIRING.test(e.summary) && valueSaidBefore(p, e.summary)))) return false
      const subjects = this.subjectsOf(e)
      if (subjects.length > 0 && mine !== null) return (this.namesSlot(e) || this.folds(e, mine)) && mine.negated === p.negated && atomsWithin(p.atoms, mine.atoms)
      if (subjects.length > 0) return false
      // A memory that names no subject: the claim's subject and value must both be in its text,
      // and where the text tells of a change, the value must be what it changed to (said last).
      const t = this.terms(e)
      return (
        !p.negated &&
        [...claimTerms(p.subject as string)].every((w) => t.has(w)) &&
        atomsWithin(p.atoms, valueAtoms(`${e.title}\n${e.summary}`)) &&
        !(changeCues(e.summary).length > 0 || RETIRING.test(e.summary) ? valueSaidBefore(p, e.summary) : false)
      )
    }
    // An unstructured claim: most of its words, all its numbers, the same polarity ("has no roof
    // rack" never supports "has a roof rack"), and the memory's own value.
    if (polarityTwins(this.text, e.summary)) return false
    const inClause = mine !== null && this.namesSlot(e) && statesInClause(e.summary, this.text, this.subjectsOf(e))
    if (!inClause && this.coverage(e) < SUPPORT_COVERAGE) return false
    const memoryAtoms = valueAtoms(`${e.title}\n${e.summary}`)
    if (!this.textAtoms.numbers.every((n) => atomsWithin({ numbers: [n], words: [] }, memoryAtoms))) return false
    return mine === null || !this.namesSlot(e) || compareValues(mine.atoms, this.textAtoms) !== 'different' || inClause
  }
  /** The memory gives the claim's subject another value (or the same value with the other polarity). */
  statesOther(e: IndexEntry): boolean {
    if (!this.namesSlot(e) || this.states(e)) return false
    const mine = entryClaim(e)
    if (mine === null) return false
    // "Mimi is a kitten" beside "Mimi is the family's pet": a thing named bare is many things at once; only values of one typed kind exclude each other.
    if (this.parsed !== null) return relateClaims(this.parsed, mine) === 'different' && !(bareSubject(this.parsed.subject) && untyped(this.parsed.value) && untyped(mine.value))
    const theirs = mine.atoms.numbers
    return this.textAtoms.numbers.length > 0 && theirs.length > 0 && compareValues({ numbers: this.textAtoms.numbers, words: [] }, { numbers: theirs, words: [] }) === 'different'
  }
  inScope(e: IndexEntry): boolean {
    return this.premises === null || !premisesConflict(e.scope, this.premises)
  }
  isRetracted(e: IndexEntry): IndexEntry | null {
    return liveRetraction(e, this.view)
  }
  /** Superseded versions of a current memory's slot that state the claim, newest first. */
  oldVersionsStating(e: IndexEntry): IndexEntry[] {
    if (e.key === null) return []
    return this.view
      .inSlot(slotOf(e))
      .filter((v) => v.id !== e.id && v.type === e.type && v.status === 'superseded' && this.inScope(v) && !premisesConflict(v.scope, e.scope) && this.states(v))
      .sort(newestFirst)
  }
  /** The current memory a superseded one leads to, following superseded_by. */
  currentOf(e: IndexEntry): IndexEntry | null {
    let cur: IndexEntry | undefined = e
    for (let i = 0; i < CHAIN_LIMIT && cur !== undefined; i++) {
      if (isSearchable(cur)) return cur
      cur = cur.superseded_by === null ? undefined : this.view.get(cur.superseded_by)
    }
    return null
  }
}

/** The subjects a memory speaks about: its slot key, and the subject its text names (doubt.ts's reader). */
export function memorySubjects(e: IndexEntry): string[] {
  const names = entryClaim(e)?.names ?? []
  return e.key === null || names.includes(e.key) ? names : [e.key, ...names]
}

/** Longest slot key looked for inside a claim, in normalised characters. */
const MAX_SLOT_CHARS = 60

/** Entries of every slot whose normalised key occurs in the normalised claim (any status). */
function slotsNamedIn(claim: string, view: IndexLookup): IndexEntry[] {
  const chars = Array.from(normalizeSlot(claim))
  const out: IndexEntry[] = []
  for (let i = 0; i < chars.length; i++) {
    let slot = ''
    for (let j = i; j < Math.min(chars.length, i + MAX_SLOT_CHARS); j++) {
      slot += chars[j]
      if (j > i) for (const e of view.inSlot(slot)) if (e.key !== null) out.push(e)
    }
  }
  return out
}

/** How many of the newest memories at least as new as a support are read for doubt beyond the search hits. */
const RECENT_LIMIT = 200

/** The newest current memories (no raw text) at least as new as `support`, at most `limit`, newest first. */
function newestSince(view: IndexLookup, support: IndexEntry, limit: number): IndexEntry[] {
  const out: IndexEntry[] = []
  for (const e of view.values()) if (e.id !== support.id && e.type !== 'raw' && e.time >= support.time && isSearchable(e)) out.push(e)
  return out.sort(newestFirst).slice(0, limit)
}

const newestFirst = (a: IndexEntry, b: IndexEntry) => b.time.localeCompare(a.time) || a.id.localeCompare(b.id)

function ref(e: IndexEntry, check: Checker, nowMs: number): VerifyRef {
  return {
    ...briefOf(e),
    coverage: Math.round(check.coverage(e) * 1000) / 1000,
    evidence: evidenceState(e, nowMs).label,
    ...(e.scope !== undefined ? { scope: e.scope } : {}),
    ...(e.evidence?.verified_at != null ? { verified_at: e.evidence.verified_at } : {}),
    ...(check.isRetracted(e) !== null ? { retracted_by: e.retracted_by } : {}),
  }
}


function pushUnique(list: IndexEntry[], e: IndexEntry): void {
  if (!list.some((x) => x.id === e.id)) list.push(e)
}

/** The verdict on a claim, from the store as it is now. */
export async function verifyClaim(backend: MemoryBackend, req: VerifyRequest): Promise<VerifyResult> {
  const claim = collapseWhitespace(req.claim)
  if (claim === '') throw invalidInput('claim', 'a non-empty statement to check')
  const premises = req.scope === undefined ? null : formatPremises(parsePremises(req.scope, 'scope'))
  const asOf = req.asOf === undefined ? null : parseAsOf(req.asOf)
  const state = asOf === null ? await retrievalState(backend) : await retrievalAsOf(backend, asOf)
  const nowMs = asOf ?? Date.parse(backend.now())
  const terms = claimTerms(claim)
  if (terms.size === 0) {
    const note = 'UNKNOWN: the claim has no words memory could be checked against. Restate it as a sentence with its subject and value.'
    return { verdict: 'unknown', claim, support: null, contradicting: [], newer_related: [], superseded_matches: [], stale_support: false, scopeExcluded: 0, note }
  }
  const view = state.entries
  const check = new Checker(claim, terms, premises, view, nowMs)

  const hits = runSearch(view, state.index, state.aliases, { query: claim, top_k: CANDIDATES }).hits
  const candidates: IndexEntry[] = []
  for (const h of hits) {
    const e = view.get(h.id)
    if (e !== undefined) candidates.push(e)
  }
  // Slots the claim names literally: their current memories are candidates even when the key's
  // words are not in their text (keys are not indexed for search).
  for (const e of slotsNamedIn(claim, view)) if (isSearchable(e)) pushUnique(candidates, e)
  // The slot of the subject the claim names, read as a write would read it.
  if (check.parsed?.subject != null) for (const e of view.inSlot(normalizeSlot(check.parsed.subject))) if (isSearchable(e)) pushUnique(candidates, e)
  // The claim word for word as a stored memory, current or not (an old version quoted exactly).
  const exact = (['topic', 'episode'] as const).flatMap((t) => view.withHash(contentHash(t, claim)))
  for (const e of exact) if (isSearchable(e)) pushUnique(candidates, e)

  // A change yet to come that a write already filed as the slot's new version: until its day the
  // value it replaces is still the current one, so that version is read as current and the change
  // as pending (a doubt or "until <date>"), never as a contradiction.
  const heldBack = new Set<string>()
  for (const e of [...candidates]) {
    if (e.supersedes === null || !pendingChange(e, nowMs)) continue
    const prev = view.get(e.supersedes)
    if (prev === undefined || prev.status !== 'superseded' || prev.type === 'raw' || prev.front_matter_error !== undefined) continue
    heldBack.add(prev.id)
    pushUnique(candidates, prev)
  }
  const excluded = candidates.filter((e) => !check.inScope(e))
  const live = candidates.filter((e) => check.inScope(e))
  const factual = live.filter((e) => e.retracts === undefined && e.guard === undefined)

  // Support: a current, unretracted memory that states the claim. Premises that were checked
  // and agree come first, then the newest.
  const stating = factual.filter((e) => check.states(e))
  const retracted = stating.filter((e) => check.isRetracted(e) !== null)
  const rank = (e: IndexEntry) => (premises === null ? 0 : comparePremises(e.scope, premises).relation === 'compatible' ? 0 : 1)
  const supporters = stating.filter((e) => check.isRetracted(e) === null).sort((a, b) => rank(a) - rank(b) || newestFirst(a, b))
  const support = supporters[0] ?? null

  // Contradiction: a named slot whose current memory states another value.
  const contradicting: IndexEntry[] = []
  const superseded: IndexEntry[] = []
  for (const e of factual) {
    if (check.subjectsOf(e).length === 0 || check.states(e) || check.isRetracted(e) !== null) continue
    if (e.supersedes !== null && heldBack.has(e.supersedes)) continue
    const old = check.oldVersionsStating(e)
    if (old.length > 0 || check.statesOther(e)) {
      pushUnique(contradicting, e)
      for (const v of old) pushUnique(superseded, v)
    }
  }
  for (const e of exact) {
    if (e.status !== 'superseded' || heldBack.has(e.id) || !check.inScope(e)) continue
    pushUnique(superseded, e)
    const current = check.currentOf(e)
    if (current !== null && check.inScope(current) && !check.states(current)) pushUnique(contradicting, current)
  }
  const retractions = retracted.map((e) => check.isRetracted(e) as IndexEntry)
  for (const r of retractions) pushUnique(contradicting, r)
  // With a support, a slot whose key holds fewer of the claim's words is about something broader
  // (the claim is about the support's more specific subject), so it does not contradict.
  const specificity = (e: IndexEntry) => [...check.keyTerms(e)].filter((w) => terms.has(w)).length
  // The other sides of an unresolved conflict with the support contest it rather than contradict it.
  // Nor does a memory under premises that conflict with the support's: each holds under its own
  // (issue 27, 5a: a caller naming a premise only one of them states is not contradicted).
  const against =
    support === null
      ? contradicting
      : contradicting.filter((e) => !support.variants.includes(e.id) && !premisesConflict(e.scope, support.scope) && (e.retracts !== undefined || specificity(e) >= specificity(support)))
  // Unresolved conflict in the support's own slot: the other sides say something else.
  const contested = support !== null && support.status === 'conflict' ? support.variants.map((id) => view.get(id)).filter((e): e is IndexEntry => e !== undefined && isSearchable(e) && !check.states(e) && check.inScope(e)) : []

  // Newer memories about the support's subject: its slot named, an entity shared, or most of what it matched.
  const newer: IndexEntry[] = []
  if (support !== null) {
    const matched = [...terms].filter((w) => check.terms(support).has(w))
    const needed = Math.max(2, Math.ceil(matched.length / 2))
    for (const e of live) {
      if (e.id === support.id || e.time <= support.time || against.includes(e) || e.retracts !== undefined) continue
      const t = check.terms(e)
      // A keyed support's subject is its key; an unkeyed one's is what it matched of the claim,
      // and so is a derived one's (the key read from its words may be worded otherwise).
      const related =
        support.entities.some((x) => e.entities.includes(x)) ||
        (support.key !== null && [...check.keyTerms(support)].every((w) => t.has(w))) ||
        ((support.key === null || support.key_derived === true) && matched.filter((w) => t.has(w)).length >= needed)
      if (related) newer.push(e)
    }
    newer.sort(newestFirst)
  }

  // A newer memory about the same subject that says something changed, and does not state the
  // claim: the support may be out of date even where no version links them.
  const frame = claimFrame(claim, check)
  const changed: IndexEntry[] = []
  const mentions: IndexEntry[] = []
  const doubts: Doubt[] = []
  // Changes yet to come on a known day: the support holds until then ("until <date>, then <value>").
  const until: Array<{ entry: IndexEntry; from: string }> = []
  const doubt = (e: IndexEntry, why: string) => {
    const from = pendingChange(e, nowMs) ? effectiveFrom(e.summary, e.time) : null
    if (from !== null) until.push({ entry: e, from })
    else doubts.push({ entry: e, why })
  }
  const doubtClaim: DoubtClaim = check.parsed?.subject != null ? { text: claim, subject: check.parsed.subject, value: check.parsed.value, frame } : unstructuredClaim(claim)
  if (support !== null) {
    // A subject worded otherwise shares no word with the claim, so search does not find it: the
    // newest memories at least as new as the support are read for doubt too.
    const seen = new Set(live.map((e) => e.id))
    for (const e of newestSince(view, support, RECENT_LIMIT)) {
      if (seen.has(e.id) || !check.inScope(e) || e.retracts !== undefined || e.guard !== undefined || support.variants.includes(e.id) || premisesConflict(e.scope, support.scope) || check.states(e)) continue
      const why = doubtOf(e, support, doubtClaim, check)
      if (why !== null) doubt(e, why)
    }
    for (const e of live) {
      if (e.id === support.id || e.type === 'raw' || e.retracts !== undefined || e.guard !== undefined || support.variants.includes(e.id) || check.states(e)) continue
      if (premisesConflict(e.scope, support.scope)) continue
      // At least as new and may be saying otherwise about the subject (doubt.ts): not enough to support.
      const why = doubtOf(e, support, doubtClaim, check)
      if (why !== null) {
        doubt(e, why)
        continue
      }
      // A memory about another attribute of the claim's subject ("billing service currency" beside
      // "billing service database") speaks of something else, unless it is newer and says that
      // something changed ("Billing portal's Stripe API version changed to 2024-06-20").
      const otherAttribute = check.parsed !== null && !check.namesSlot(e) && check.subjectsOf(e).some((s) => sharesSubjectWord(s, check.parsed?.subject ?? ''))
      const cued = e.time >= support.time && changeCues(e.summary).length > 0
      if (otherAttribute && !cued) continue
      const shared = [...frame.terms].filter((w) => check.terms(e).has(w)).length
      const about = frame.terms.size > 0 && (shared >= 2 || (shared >= 1 && frame.terms.size <= 2)) && shared / frame.terms.size >= 0.5
      // A change yet to come about the subject: until it takes effect the support may still hold, but not for sure.
      if (pendingChange(e, nowMs) && (newer.includes(e) || (about && otherValue(frame, `${e.title}\n${e.summary}`)))) {
        const from = effectiveFrom(e.summary, e.time)
        if (from !== null) until.push({ entry: e, from })
        else changed.push(e)
        continue
      }
      // The same statement with the other polarity ("has no roof rack" / "has a roof rack") is another value too.
      const other = (about && otherValue(frame, `${e.title}\n${e.summary}`)) || polarityTwins(support.summary, e.summary)
      // Newer and says something changed: about the support's subject, or taking back the
      // support's value ("We no longer use Shah & Co" after "Our accountant is Meera Shah at
      // Shah & Co"). One shared word with a cue is not enough: in a store with months of work on
      // a service, most of it shares a word with the service's facts and says "now".
      const retires = cued && check.parsed !== null && RETIRING.test(e.summary) && [...claimTerms(check.parsed.value)].some((w) => check.terms(e).has(w))
      if (cued && (newer.includes(e) || other || retires)) changed.push(e)
      // Speaks of the subject as fully and gives another value of the same kind: a conflict nobody recorded.
      else if (other && ((shared >= 2 && shared / frame.terms.size >= 0.6) || polarityTwins(support.summary, e.summary))) mentions.push(e)
    }
  }

  const outOfScope = excluded.filter((e) => e.retracts === undefined && (check.states(e) || check.namesSlot(e)))
  let verdict: Verdict
  if (against.length > 0) verdict = 'contradicted'
  else if (support !== null) verdict = contested.length > 0 || changed.length > 0 || mentions.length > 0 || doubts.length > 0 ? 'unknown' : 'supported'
  else if (outOfScope.length > 0) verdict = 'out_of_scope'
  else verdict = 'unknown'

  const r = (e: IndexEntry) => ref(e, check, nowMs)
  const result: VerifyResult = {
    verdict,
    claim,
    support: verdict === 'out_of_scope' || support === null ? null : r(support),
    contradicting: verdict === 'out_of_scope' ? [] : [...against, ...contested].slice(0, LIST_LIMIT).map(r),
    newer_related: verdict === 'out_of_scope' ? [] : newer.slice(0, LIST_LIMIT).map(r),
    superseded_matches: verdict === 'out_of_scope' ? [] : superseded.slice(0, LIST_LIMIT).map(r),
    stale_support: verdict !== 'out_of_scope' && support !== null && newer.length > 0,
    scopeExcluded: excluded.length,
    note: '',
  }
  result.note = noteFor({ verdict, support, against, contested, changed, mentions, doubts, until, superseded, retracted, newer, outOfScope, live, premises, check, nowMs })
  return result
}


const NEGATION = /\b(?:not|no|never|none|without)\b|n't\b|不|没|未|无/giu

/** The words (Latin) or characters (Chinese) of a statement, negation and filler aside. */
function polarityFree(text: string): Set<string> {
  const plain = text.normalize('NFKC').toLowerCase().replace(NEGATION, ' ')
  const out = new Set<string>(tokenize(plain).filter((t) => !/\p{Script=Han}{2}/u.test(t)))
  return out
}

/**
 * Two statements that say the same with the other polarity: one is negated and the other not,
 * and what the shorter says (negation aside) is nearly all in the longer ("女儿不喝牛奶" /
 * "女儿现在每天早上都喝一杯牛奶").
 */
function polarityTwins(a: string, b: string): boolean {
  const negA = NEGATION.test(a)
  NEGATION.lastIndex = 0
  const negB = NEGATION.test(b)
  NEGATION.lastIndex = 0
  if (negA === negB) return false
  const x = polarityFree(a)
  const y = polarityFree(b)
  const [small, large] = x.size <= y.size ? [x, y] : [y, x]
  if (small.size < 2) return false
  let n = 0
  for (const t of small) if (large.has(t)) n++
  return n / small.size >= 0.8
}

/** A subject that is one bare name ("Mimi"), with no attribute. */
function bareSubject(subject: string | null): boolean {
  return subject !== null && subjectTerms(subject).length === 1
}

/** A value of no typed kind: no number, no known kind of thing. */
function untyped(value: string): boolean {
  return valueAtoms(value).numbers.length === 0 && kindOfValue(value) === null
}

/**
 * A memory that says several things of its subject ("Mimi is the family's pet, she sleeps on the
 * sofa") states a claim that one of its clauses says in full, its subject aside.
 */
function statesInClause(summary: string, claim: string, subjects: readonly string[]): boolean {
  let rest = claim.normalize('NFKC').toLowerCase()
  for (const x of subjects) rest = rest.split(x.normalize('NFKC').toLowerCase()).join(' ')
  const subject = new Set(subjects.flatMap((x) => tokenize(x)))
  const wanted = [...claimTerms(rest)].filter((w) => !subject.has(w))
  if (wanted.length === 0) return false
  return summary.split(/[,;，；。.!?！？]/u).some((clause) => {
    const t = new Set(tokenize(clause))
    return wanted.every((w) => t.has(w))
  })
}

function sharesSubjectWord(a: string, b: string): boolean {
  const x = new Set(subjectTerms(a))
  return subjectTerms(b).some((t) => x.has(t))
}

/**
 * The claim's value is named in the text before another value of its kind: in a text that tells
 * of a change ("closed the Chase account; they bank with Ally"), the earlier one is what it was.
 */
function valueSaidBefore(claim: EntryClaim, text: string): boolean {
  const lower = text.normalize('NFKC').toLowerCase()
  const mine = [...valueNames(claim.value), ...claim.atoms.words.filter((w) => /^[a-z]/u.test(w))]
  const at = mine.reduce((first, n) => {
    const i = lower.indexOf(n)
    return i >= 0 && i < first ? i : first
  }, Number.POSITIVE_INFINITY)
  if (!Number.isFinite(at)) return false
  return [...valueNames(text)].some((n) => !mine.includes(n) && lower.indexOf(n) > at)
}

function claimFrame(claim: string, check: Checker): Frame {
  return check.parsed === null ? frameOf(claim) : frameOf(claim, check.parsed.subject ?? claim, check.parsed.value)
}
