/**
 * Automatic revision: what a new memory about a subject does to the current memories of that
 * subject, when nobody gave a key. A memory's claim is its derived subject and value
 * (claim-extract.ts); two memories of one slot either agree (nothing happens), or state
 * different values, and then:
 *
 *   supersede  the evidence of a change is clear: the new text carries a change cue (now, no
 *              longer, migrated, from A to B, 现在, 不再, 改成...), retires the old value by name
 *              ("不再是素食"), or both are structured declarations (`X -> Y`, `X: Y`; setting
 *              `structuredRevises`);
 *   version    no cue, but the new memory is the later statement of the same subject: it is the
 *              new version (as under a key), and the write says so in a `versioned:` warning;
 *   conflict   the new memory is dated before the current one: both become `conflict`, and the
 *              write says so in `warnings`;
 *   shielded   the old memory's check passed recently ([VERIFIED]) and the new one has no
 *              passing evidence: both become `conflict` with a `shielded:` warning.
 *
 * It never leaves two active memories that give one subject different values. Also the
 * warnings a write earns by what it says (values outside their natural range, low confidence).
 * Pure except for the transaction calls.
 */

import type { IndexEntry } from '../../types.js'
import { ADDITIVE, changeCues, deriveClaim, deriveClaims, holdsSeveral, isStatement, kindOfValue, type ClaimForm, type DerivedClaim } from '../truth/claim-extract.js'
import { frameOf, otherValue, sharedTerms, valueNames } from '../truth/claim-frame.js'
import { acrossLanguages, atomsWithin, compareValues, unitClass, valueAtoms, type ValueAtoms } from '../truth/claim-value.js'
import type { RuntimeConfig } from '../settings/config.js'
import { evidenceState } from '../truth/evidence.js'
import { slotMates, supersedeEntries } from './slots.js'
import { premisesConflict } from '../../store/premises.js'
import { rarestTerms } from '../../store/index-view.js'
import { nearSubjectTerms, sameSubjectTerms, subjectTerms, termsInOrder } from '../../language/subject-terms.js'
import { aliasSlots } from './revision-candidates.js'
import type { Txn } from './txn.js'
import { loadUserAliases } from '../../retrieve/aliases.js'
import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import { normalizeSlot, truncate } from '../../text.js'

/** What a stored memory claims, as revision and verify compare it. */
export interface EntryClaim {
  /** The memory's slot subject (its key, derived or given), or the derived subject. */
  subject: string | null
  /** Every subject the memory speaks about: its key, and the subject its own text names. */
  names: string[]
  value: string
  atoms: ValueAtoms
  negated: boolean
  /** How it was stated; `keyed` when only a caller's key names the subject. */
  form: ClaimForm | 'keyed'
  cues: string[]
  retired: string[]
  /** It adds a value beside the others ("also", "too", "也"): it revises nothing. */
  additive?: true
}

const claimCache = new WeakMap<IndexEntry, EntryClaim | null>()

/** The claim a text makes under a subject, from a derivation. */
function fromDerived(d: DerivedClaim, subject: string | null): EntryClaim {
  return { subject: subject ?? d.subject, names: [...new Set([subject ?? d.subject, d.subject])], value: d.value, atoms: valueAtoms(d.value), negated: d.negated, form: d.form, cues: d.cues, retired: d.retired, ...(d.additive === true ? { additive: true } : {}) }
}

/**
 * What a memory claims: its summary's derived claim (the title's when the summary gives none),
 * or, for a keyed memory whose text has no recognisable form, the summary without the key's
 * words as the value. Null: the memory asserts nothing slot-like. Cached per entry object.
 */
export function entryClaim(e: IndexEntry): EntryClaim | null {
  const known = claimCache.get(e)
  if (known !== undefined) return known
  const d = deriveClaim(e.summary) ?? (e.title !== e.summary && !e.summary.startsWith(e.title.replace(/…$/, '')) ? deriveClaim(e.title) : null)
  let claim: EntryClaim | null = d === null ? null : fromDerived(d, e.key)
  if (claim === null && e.key !== null) {
    const keyTerms = new Set(tokenize(e.key))
    const rest = tokenize(e.summary).filter((t) => !keyTerms.has(t) && isStrongTerm(t))
    const value = rest.length > 0 ? e.summary : ''
    claim = value === '' ? null : { subject: e.key, names: [e.key], value, atoms: valueAtoms(value), negated: false, form: 'keyed', cues: [], retired: [] }
  }
  claimCache.set(e, claim)
  return claim
}

/** How two claims of one subject relate: they agree, they disagree, or one says nothing comparable. */
export function relateClaims(a: Pick<EntryClaim, 'atoms' | 'negated'>, b: Pick<EntryClaim, 'atoms' | 'negated'>): 'same' | 'different' | 'empty' {
  const values = compareValues(a.atoms, b.atoms)
  if (values === 'empty') return 'empty'
  if (a.negated !== b.negated) return values === 'same' ? 'different' : 'empty'
  return values
}

const HAN = /\p{Script=Han}/u

const STRUCTURED: ReadonlySet<EntryClaim['form']> = new Set(['arrow', 'colon', 'keyed'])

/** The text names the old value as one that no longer holds ("不再是素食", "no longer vegetarian", "from A to B"). */
function retires(newClaim: EntryClaim, old: EntryClaim): boolean {
  return newClaim.retired.some((v) => compareValues(valueAtoms(v), old.atoms) === 'same')
}

/** Why a new claim supersedes an old one, or null when the evidence of a change is not clear. */
export function changeEvidence(newClaim: EntryClaim, old: EntryClaim, config: Pick<RuntimeConfig, 'structuredRevises'>): string | null {
  if (retires(newClaim, old)) return 'the new text retires the old value'
  if (newClaim.cues.length > 0) return `change cue "${newClaim.cues[0]}"`
  if (config.structuredRevises && STRUCTURED.has(newClaim.form) && STRUCTURED.has(old.form)) return 'both are structured declarations'
  return null
}

export interface RevisionOutcome {
  winner: IndexEntry
  superseded: string[]
  warnings: string[]
}

const quoteValue = (c: EntryClaim) => `"${truncate(c.value, 80)}"`

/** True when the memory's last check passed within the freshness window. */
function freshlyVerified(e: IndexEntry, nowMs: number): boolean {
  return evidenceState(e, nowMs).label === 'verified'
}

/** At most this many other sides a conflict names in a memory's `variants`. */
const MAX_VARIANTS = 16
/** At most this many conflict warnings are spelled out for one write. */
const MAX_WARNINGS = 3

/** Statuses of memories a revision compares with: the current statements. */
const CURRENT: ReadonlySet<string> = new Set(['active', 'conflict'])

/**
 * Current memories of the same type about the entry's subject: the slot itself, the same words
 * in another order or spelling (`exact`), subjects one word wider or narrower (`near`: only a
 * change the text announces revises those), and with `overlap`, every subject sharing a word
 * (only a value the text retires by name revises those). Premises that disagree keep a memory apart.
 */
export type SubjectMatch = 'exact' | 'near' | 'overlap'

/** Alias groups by name (`<root>/aliases.json`, retrieve/aliases.ts). */
type AliasGroups = Readonly<Record<string, readonly string[]>>

export function subjectMates(txn: Txn, entry: IndexEntry, overlap = false, aliases: AliasGroups = {}): Array<{ entry: IndexEntry; match: SubjectMatch }> {
  if (entry.key === null) return []
  const out = new Map<string, { entry: IndexEntry; match: SubjectMatch }>()
  const current = (e: IndexEntry) =>
    !out.has(e.id) && e.id !== entry.id && e.type === entry.type && CURRENT.has(e.status) && e.retracts === undefined && e.key !== null && !premisesConflict(e.scope, entry.scope)
  // The subject as written, and as each of the store's alias groups words it (aliases.json, which
  // confirmed revisions record: "API port" is also "backend service port").
  for (const key of [entry.key, ...aliasSlots(entry.key, aliases).keys()]) {
    const mine = subjectTerms(key)
    for (const e of slotMates(txn, { ...entry, key })) if (!out.has(e.id)) out.set(e.id, { entry: e, match: 'exact' })
    // A near subject misses at most one of the entry's terms, so it holds one of the two rarest.
    // Only the lists scanned are built: the common words' ones grow with the store.
    for (const term of overlap ? mine : rarestTerms(txn.index, mine, false, 2)) {
      for (const e of txn.index.withSubjectTerm(term)) {
        if (!current(e)) continue
        const theirs = txn.index.subjectWordsOf(e)
        const match: SubjectMatch | null = sameSubjectTerms(mine, theirs) ? 'exact' : nearSubjectTerms(mine, theirs) ? 'near' : overlap ? 'overlap' : null
        if (match !== null) out.set(e.id, { entry: e, match })
      }
    }
  }
  // A memory about one of the same entities (the writes' `entities`) whose subject ends in the
  // same attribute word ("port", "端口") is a near subject, however each names the thing.
  const named = new Set(entry.entities.map((n) => n.toLowerCase()))
  const attribute = termsInOrder(entry.key).at(-1)
  if (named.size > 0 && attribute !== undefined) {
    for (const e of txn.index.withSubjectTerm(attribute)) {
      if (current(e) && e.entities.some((n) => named.has(n.toLowerCase())) && termsInOrder(e.key as string).at(-1) === attribute) out.set(e.id, { entry: e, match: 'near' })
    }
  }
  const sorted = [...out.values()].sort((a, b) => a.entry.time.localeCompare(b.entry.time) || a.entry.id.localeCompare(b.entry.id))
  // Every active mate, and the newest of those already in conflict: a subject many writes
  // disagree on is not read whole on every write.
  const inConflict = sorted.filter((m) => m.entry.status === 'conflict')
  const recent = new Set(inConflict.slice(-MAX_VARIANTS).map((m) => m.entry.id))
  return sorted.filter((m) => m.entry.status !== 'conflict' || recent.has(m.entry.id))
}

interface FactMate {
  entry: IndexEntry
  match: SubjectMatch
  /** The new memory's fact it is compared with. */
  mine: EntryClaim
  /** That fact's subject. */
  key: string
}

/**
 * The subject mates of every fact the entry states (claim-extract.ts deriveClaims): its slot's,
 * compared with `mine`, then each other fact's, compared with that fact. A memory is met once.
 */
function factMates(txn: Txn, entry: IndexEntry & { key: string }, mine: EntryClaim, aliases: AliasGroups): FactMate[] {
  const out: FactMate[] = subjectMates(txn, entry, mine.retired.length > 0, aliases).map((m) => ({ ...m, mine, key: entry.key }))
  const seen = new Set(out.map((m) => m.entry.id))
  for (const fact of deriveClaims(entry.summary)) {
    if (normalizeSlot(fact.subject) === normalizeSlot(entry.key)) continue
    const claim = fromDerived(fact, null)
    for (const m of subjectMates(txn, { ...entry, key: fact.subject }, fact.retired.length > 0, aliases)) {
      if (seen.has(m.entry.id)) continue
      seen.add(m.entry.id)
      out.push({ ...m, mine: claim, key: fact.subject })
    }
  }
  return out
}

/** What a memory claims about a subject: the fact of its text whose subject reads as this one, else its first claim. */
function factAbout(e: IndexEntry, subject: string): EntryClaim | null {
  const first = entryClaim(e)
  const terms = subjectTerms(subject)
  if (first === null || e.key === null || sameSubjectTerms(subjectTerms(e.key), terms)) return first
  const fact = deriveClaims(e.summary).find((d) => sameSubjectTerms(subjectTerms(d.subject), terms))
  return fact === undefined ? first : fromDerived(fact, null)
}

/**
 * Revises the current memories of a derived-slot entry's subject (see the module comment).
 * `entry` is the new memory, already written as active. A memory of a near subject is revised
 * only when the text announces a change and the two values are of one kind (two times, two
 * sizes, two databases); the new memory then joins its slot, so both read as one history.
 */
export async function reviseDerived(
  txn: Txn,
  entry: IndexEntry,
  config: Pick<RuntimeConfig, 'structuredRevises'>,
  /** Memories of neighbouring subjects (write.ts subjectNeighbours): revised by frame when the text announces a change. */
  related: readonly string[] = [],
): Promise<RevisionOutcome> {
  const out: RevisionOutcome = { winner: entry, superseded: [], warnings: [] }
  const mine = entryClaim(entry)
  // "now supports Linux too", "也支持": a value added beside the others, not instead of them
  // (a fact of its own clause, claim-extract.ts; the whole text when no fact is read).
  if (mine === null ? ADDITIVE.test(entry.summary) : mine.additive === true) return out
  const nowMs = Date.parse(txn.now)
  const verifiedSelf = freshlyVerified(entry, nowMs)
  const losers: IndexEntry[] = []
  const rivals: IndexEntry[] = []
  const bySubject = mine === null || entry.key === null ? [] : factMates(txn, { ...entry, key: entry.key }, mine, await loadUserAliases(txn.backend))
  // The memories a fact other than the first revises keep their own slot (one claim per fact).
  const ownSlot = new Set<string>()
  for (const { entry: other, match, mine: fact, key } of bySubject) {
    const theirs = factAbout(other, key)
    if (fact.additive === true) continue
    if (theirs === null || relateClaims(fact, theirs) !== 'different') continue
    // "用户是素食者" and "The user is vegetarian": one subject across languages, values no rule compares.
    if (HAN.test(entry.summary) !== HAN.test(other.summary) && acrossLanguages(fact.atoms, theirs.atoms)) continue
    const why = changeEvidence(fact, theirs, config)
    if (match === 'overlap' && !retires(fact, theirs)) continue
    // Another pet is one more pet: neither a change nor a conflict, unless the old one is retired by name.
    if (holdsSeveral(other.key ?? '') && !retires(fact, theirs)) continue
    // Subjects that differ only by a "uses" the relation gave one of them ("公司企业邮箱是…" and
    // "公司的企业邮箱用的是…") are one subject when the values are of one kind.
    const relationOnly = match === 'near' && other.key !== null && sameSubjectTerms(withoutUses(key), withoutUses(other.key)) && sameKind(fact, theirs)
    if (match === 'near' && !relationOnly && (why === null || fact.cues.length + fact.retired.length === 0 || !sameKind(fact, theirs))) continue
    if (key !== entry.key) ownSlot.add(other.id)
    const older = other.time <= entry.time
    if (why !== null && older && freshlyVerified(other, nowMs) && !verifiedSelf) {
      rivals.push(other)
      out.warnings.push(
        `shielded: ${other.id} says ${quoteValue(theirs)} for "${other.key}" and its check passed on ${other.evidence?.verified_at?.slice(0, 10)}; this memory has no passing evidence, so both are kept as conflict. Record a passing check (verify_result: pass) or settle it with memory_resolve.`,
      )
    } else if (why !== null && older) losers.push(other)
    else if (older && !freshlyVerified(other, nowMs) && sameKind(fact, theirs) && valueKind(fact) !== 'text') {
      // No cue word: the later statement of one subject, with a value of the same kind, is its new
      // version (as under a key); the write says so, so a caller who meant both undoes it
      // (docs/decisions.md, issue 27). Values of two kinds ("uses React", "uses Postgres") and
      // plain words, which a relation may hold several of (languages spoken, allergies), conflict.
      losers.push(other)
      out.warnings.push(`versioned: ${other.id} said ${quoteValue(theirs)} for "${other.key}"; this later memory says ${quoteValue(fact)} with no change cue, so it is kept as the new version and ${other.id} is superseded. If both hold, write again with expectConflict or restore ${other.id}.`)
    } else {
      rivals.push(other)
      out.warnings.push(
        `conflict: ${other.id} says ${quoteValue(theirs)} for "${other.key}", this memory says ${quoteValue(fact)}, and nothing says which is current (no change cue such as "now" or "现在"); both are kept as conflict. Settle it with memory_resolve.`,
      )
    }
  }
  // A change announced in words no subject could be read from ("we moved the DNS off GoDaddy onto
  // Route 53"), or a subject worded otherwise than the one it changes: the neighbouring memories
  // whose frame it shares and whose value it replaces.
  if ((changeCues(entry.summary).length > 0 || (mine?.retired.length ?? 0) > 0) && isStatement(entry.summary)) {
    const seen = new Set([...losers, ...rivals, ...bySubject.map((m) => m.entry)].map((e) => e.id))
    for (const id of related) {
      const other = txn.index.get(id)
      if (other === undefined || seen.has(id) || other.id === entry.id || other.type !== entry.type || !CURRENT.has(other.status)) continue
      if (other.retracts !== undefined || other.guard !== undefined || other.time > entry.time || premisesConflict(other.scope, entry.scope)) continue
      if ((freshlyVerified(other, nowMs) && !verifiedSelf) || !isStatement(other.summary)) continue
      // Where both name a subject, the subjects decide (above): "The admin server was moved to
      // port 9443" never revises the API server's port by frame.
      if (mine !== null && entryClaim(other) !== null) continue
      if (replacesByFrame(entry, other)) losers.push(other)
    }
  }
  if (out.warnings.length > MAX_WARNINGS) out.warnings = [...out.warnings.slice(0, MAX_WARNINGS), `conflict: and ${out.warnings.length - MAX_WARNINGS} more memories of this subject; memory_history lists them.`]
  // One history: the new memory files under the slot of what it revises (the oldest such slot).
  const joined = [...losers, ...rivals].find((e) => e.key !== entry.key && e.key !== null && !ownSlot.has(e.id))
  if (joined !== undefined && joined.key !== null) out.winner = (await txn.update(out.winner, { slot: joined.key })) ?? out.winner
  if (losers.length > 0) {
    const done = await supersedeEntries(txn, out.winner, losers)
    out.winner = done.winner
    out.superseded = done.superseded
  }
  if (rivals.length > 0) {
    // The newest sides name each other; an older side already in conflict keeps its list, so a
    // subject many writes disagree on costs one file per write, not one per earlier side.
    const named = rivals.slice(-MAX_VARIANTS)
    out.winner = (await txn.update(out.winner, { status: 'conflict', variants: [...new Set([...out.winner.variants, ...named.map((r) => r.id)])].slice(-MAX_VARIANTS) })) ?? out.winner
    for (const rival of rivals) {
      if (rival.status === 'conflict' && rival !== rivals[rivals.length - 1]) continue
      await txn.update(rival, { status: 'conflict', variants: [...new Set([...rival.variants, entry.id])].slice(-MAX_VARIANTS) })
    }
    txn.log({ event: 'conflict', id: entry.id, ids: rivals.map((r) => r.id), slot: out.winner.key, reason: 'different-value' })
  }
  return out
}

/** Words that take a value back: the old value may be named in a change only beside one of these. */
export const RETIRING = /\b(?:replaced|replacing|off|from|instead|gone|no longer|not|dropped|left|closed|retired|lapsed|ditched|stopped|quit)\b|不再|取代|替换|从|不用|停用|下线|退掉|离开|离职|而不是/iu

/**
 * The new memory replaces the old by frame: it talks about most of what the old one talks about
 * (two of its words, or its only one), gives a value of the old one's kind that the old one
 * lacks, and either no longer names the old value or names it only beside a word that takes it
 * back ("off", "instead of", "不再").
 */
export function replacesByFrame(next: IndexEntry, old: IndexEntry): boolean {
  const theirs = entryClaim(old)
  const frame = theirs === null ? frameOf(old.summary) : frameOf(old.summary, theirs.subject ?? old.summary, theirs.value)
  if (frame.terms.size === 0 || (frame.names.size === 0 && frame.atoms.numbers.length === 0)) return false
  const nextFrame = frameOf(next.summary)
  const shared = sharedTerms(frame, nextFrame.terms)
  if (!(shared >= 2 || (shared >= 1 && frame.terms.size <= 2)) || shared / frame.terms.size < 0.5) return false
  if (!otherValue(frame, next.summary)) return false
  const names = valueNames(next.summary)
  const numbers = valueAtoms(next.summary)
  const stillNamed = [...frame.names].some((n) => names.has(n)) || frame.atoms.numbers.some((n) => atomsWithin({ numbers: [n], words: [] }, numbers))
  return !stillNamed || RETIRING.test(next.summary)
}

/** The kind of a value: a number's unit class (time, duration, size, share, count), a known kind of thing, or text. */
export function valueKind(c: Pick<EntryClaim, 'atoms' | 'value'>): string {
  const n = c.atoms.numbers[0]
  if (n !== undefined) return unitClass(n) ?? 'number'
  return kindOfValue(c.value) ?? 'text'
}

/** A subject's terms without 使用, the word claim-extract.ts gives "X 用的是 Y" (English "uses" is filler already). */
const withoutUses = (subject: string) => subjectTerms(subject).filter((t) => t !== '使用')

function sameKind(a: EntryClaim, b: EntryClaim): boolean {
  const ka = valueKind(a)
  const kb = valueKind(b)
  return ka === kb
}

// ---------------------------------------------------------------------------------------------
// Warnings a write earns by what it says

const DURATION_OR_COUNT = /(?:ms|s|min|h|d|w|mo|y|kb|mb|gb|tb|b|rps)$/u
const COUNT_SUBJECT = /\b(?:count|number|retries|retry|replicas?|workers?|threads?|nodes?|size|limit|timeout|ttl|duration|interval|delay|age|port|capacity|quota)\b|数量|次数|个数|副本|线程|节点|大小|上限|超时|时长|间隔|延迟|年龄|端口|容量|配额/iu
const RATIO_SUBJECT = /\b(?:ratio|probability|fraction|share|rate)\b|比例|概率|比率|占比/iu

/** Values outside their natural range: a percentage over 100, a negative count, duration or size, a port past 65535, a ratio over 1. */
export function rangeWarnings(claim: Pick<DerivedClaim, 'subject' | 'value'>): string[] {
  const out: string[] = []
  const value = claim.value.normalize('NFKC')
  for (const m of value.matchAll(/(-?\d+(?:\.\d+)?)\s*(?:%|percent|百分)/giu)) {
    const n = Number(m[1])
    if (n > 100 && !/\b(?:growth|increase|more|faster|slower|over|improv\w*|change)\b|增长|提升|增加|提高/iu.test(`${claim.subject} ${value}`))
      out.push(`value-range: ${m[0].trim()} for "${claim.subject}" is over 100%; check the figure.`)
    if (n < 0) out.push(`value-range: ${m[0].trim()} for "${claim.subject}" is a negative percentage; check the figure.`)
  }
  for (const m of value.matchAll(/(?:^|[\s(（=:：])(-\d+(?:\.\d+)?)\s*([\p{L}%]*)/gu)) {
    const atoms = valueAtoms(`${(m[1] as string).slice(1)} ${m[2] ?? ''}`).numbers
    if (atoms.some((a) => DURATION_OR_COUNT.test(a)) || COUNT_SUBJECT.test(claim.subject))
      out.push(`value-range: ${(m[1] as string) + (m[2] ?? '')} for "${claim.subject}" is negative, and a count, duration or size cannot be; check the sign.`)
  }
  if (/\bport\b|端口/iu.test(claim.subject)) {
    for (const m of value.matchAll(/\d+/gu)) if (Number(m[0]) > 65535) out.push(`value-range: port ${m[0]} for "${claim.subject}" is past 65535; check the number.`)
  }
  if (RATIO_SUBJECT.test(claim.subject) && !/%|percent|百分/iu.test(value)) {
    const m = /^(\d+(?:\.\d+)?)$/u.exec(value.trim())
    if (m !== null && Number(m[1]) > 1 && Number(m[1]) <= 100) out.push(`value-range: ${m[1]} for "${claim.subject}" is a ratio over 1; did you mean ${m[1]}%?`)
  }
  return [...new Set(out)]
}

/** The `low-confidence` warning, when a write's confidence is below the configured threshold. */
export function confidenceWarning(confidence: number, config: Pick<RuntimeConfig, 'lowConfidencePercent'>): string | null {
  const threshold = config.lowConfidencePercent / 100
  return confidence < threshold
    ? `low-confidence: stored with confidence ${confidence} (below ${threshold}, setting lowConfidencePercent); verify it before anyone relies on it.`
    : null
}

/** The `verified-replaced` warning: a keyed write superseded memories whose check passed recently, with no passing evidence of its own. */
export function verifiedReplacedWarning(txn: Txn, winner: IndexEntry, superseded: readonly string[]): string | null {
  const nowMs = Date.parse(txn.now)
  if (freshlyVerified(winner, nowMs)) return null
  const verified = superseded.map((id) => txn.index.get(id)).filter((e): e is IndexEntry => e !== undefined && freshlyVerified(e, nowMs))
  if (verified.length === 0) return null
  return `verified-replaced: ${verified.map((e) => `${e.id} (check passed ${e.evidence?.verified_at?.slice(0, 10)})`).join(', ')} replaced by a memory with no passing evidence; record a check for it (verify_cmd, verify_result).`
}
