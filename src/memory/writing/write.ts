/**
 * Folder memory/writing/, whose main file this is, owns a memory going in: the write path and its
 * transaction, automatic revision, slots and values, the confirmation gate, settling a declared
 * conflict, the claim fields a write carries, revision candidates and a model's judgement of a
 * write (through consolidation's model plumbing). Imports from the other capability folders:
 * consolidation, organisation, reading, settings, truth; below memory/ anything (retrieve, store, language,
 * ground); nothing above (tools, stores, adapters).
 *
 * The write path: redaction, exact and near duplicate detection, versioning by slot, declared
 * conflicts and the confirmation gate. One call writes at most two files (an episode and its
 * raw text), rewrites the files of the memories it supersedes, and appends its ledger events.
 */

import { pushAll } from '../../arrays.js'
import { randomBytes } from 'node:crypto'
import { invalidInput } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { anchorCuts, cleanAnchors, contentHash, detailsOf, memoryBody, parseFile } from '../../store/frontmatter.js'
import { bigramJaccard, collapseWhitespace, normalizeForHash, slugify, truncate } from '../../text.js'
import { MEMORY_STATUSES, type AnchorKind, type IndexEntry, type MemoryStatus, type Source, type SourceKind } from '../../types.js'
import { loadConfig, type RuntimeConfig } from '../settings/config.js'
import { redactRecord, type RedactionKind } from '../../redact.js'
import { rarestTerms, slotOf, type IndexLookup } from '../../store/index-view.js'
import { LIVE, rawSibling, slotMates, supersedeSlot } from './slots.js'
import { transact, type Txn } from './txn.js'
import { checkPlacard, placeNew, recordRooms, type PlacardCheck } from '../organisation/rooms.js'
import { firstDue } from '../organisation/sm2.js'
import { changeCues, deriveClaim, isStatement, type DerivedClaim } from '../truth/claim-extract.js'
import { subjectTerms } from '../../language/subject-terms.js'
import { confidenceWarning, entryClaim, rangeWarnings, relateClaims, reviseDerived, verifiedReplacedWarning } from './revise.js'
import { valueAtoms } from '../truth/claim-value.js'
import { callerClaim, confirmRevision, namedRevisions, type CallerClaim } from './confirmed-revision.js'
import { revisionCandidates, type RevisionCandidate } from './revision-candidates.js'
import { retrievalState } from '../../retrieve/retriever.js'
import { judgeInBackground } from './write-judge.js'
import { keepRawEvidence, replacedOf, storedOutcome, type ReplacedMemory, type WriteOutcome } from './write-result.js'
import { recordRepeat } from '../organisation/signals.js'
import {
  differentScopeWarning,
  enrichRepeat,
  keptApartInSlot,
  markRetracted,
  prepareClaim,
  retractionTarget,
  scopesKeepApart,
  stampedFrontMatter,
  type ClaimRequest,
  type PreparedClaim,
} from './claim-input.js'

export interface WriteRequest extends ClaimRequest {
  summary: string
  raw?: string
  title?: string
  key?: string
  type?: 'episode' | 'topic'
  tags?: string[]
  entities?: string[]
  source?: SourceKind
  session_id?: string
  confidence?: number
  time?: string
  requireConfirmation?: boolean
  expectConflict?: boolean
  anchors?: Array<{ kind: AnchorKind; name?: string; value?: string }>
  /** Ids of memories this one links to (front-matter `links`). */
  links?: string[]
  /** Ids of current memories this one replaces, as the caller confirms (confirmed-revision.ts). */
  supersedes?: string[]
  /** What the memory states, as the caller reads it: its subject and attribute are the key, and the rules' reading is not used. */
  claim?: CallerClaim
  /** How much the memory matters, 0-1 (front-matter `importance`; default 0.5): weighs it in ranking and decay. */
  importance?: number
}

export interface WriteResult {
  id: string
  path: string
  type: 'episode' | 'topic'
  status: MemoryStatus
  title: string
  raw_ref: string | null
  /** What the write did (write-result.ts). */
  outcome: WriteOutcome
  /** The current memory it replaced, newest first when several: id, version, summary. */
  replaced?: ReplacedMemory
  dedupe?: 'exact' | 'near'
  similarity?: number
  superseded: string[]
  variants: string[]
  redactions: RedactionKind[]
  /**
   * What a caller should know: premises that kept this memory apart (`different-scope:`), a
   * different value left in conflict (`conflict:`, `shielded:`), a value outside its range
   * (`value-range:`), a low confidence (`low-confidence:`), a verified memory replaced
   * (`verified-replaced:`).
   */
  warnings?: string[]
  /** The subject derived from the text (front-matter `slot`) when no key was given. */
  slot?: string
  /** The premises stored with the memory. */
  scope?: string
  /** When its evidence was last checked (a passing result without a time is stamped now). */
  verified_at?: string
  /** Its place in the palace, `room#slot` (src/memory/organisation/rooms.ts). */
  location?: string
  /** How well its title serves as a placard, with a rewrite hint below 1. */
  placard?: PlacardCheck
  /** For a free-text write: up to 3 current memories it may revise, to confirm with `supersedes` (revision-candidates.ts): its neighbours. */
  may_revise?: RevisionCandidate[]
  /** Up to 3 current memories near this one (same subject, shared words, close meaning), each with why: what the store already holds nearby. */
  neighbours?: RevisionCandidate[]
}

/** Near duplicates: same slot and character 2-gram Jaccard at least this. */
export const NEAR_DUPLICATE_THRESHOLD = 0.9

export function newMemoryId(): string {
  return `mem_${Date.now().toString(36)}${randomBytes(5).toString('hex')}`
}

export function defaultTitle(summary: string): string {
  const first = summary.split(/(?<=[。！？!?；;])|(?<=\.)\s/u)[0] ?? summary
  return truncate(collapseWhitespace(first), 60)
}

function cleanList(items: string[] | undefined): string[] {
  const out: string[] = []
  for (const item of items ?? []) {
    const s = collapseWhitespace(item)
    if (s !== '' && !out.includes(s)) out.push(s)
  }
  return out
}

function hasSource(entry: IndexEntry, source: Source): boolean {
  return entry.sources.some((s) => s.session_id === source.session_id && s.kind === source.kind)
}

/**
 * A duplicate write adds its source to the memory it repeats (a shared topic gains a session), its
 * raw text to the episode's raw file when the file does not hold it yet (`appended`), and its
 * importance, when given, to the memory.
 */
async function acknowledgeDuplicate(txn: Txn, existing: IndexEntry, w: Pick<PreparedWrite, 'source' | 'raw' | 'importance' | 'redactions'>, kind: 'exact' | 'near', similarity: number): Promise<WriteResult> {
  const { source, redactions } = w
  let entry = existing
  const newSource = source.session_id !== null && !hasSource(existing, source)
  const reweighed = w.importance !== null && existing.importance !== w.importance
  if (newSource || reweighed) {
    const patch = {
      ...(newSource ? { sources: [...existing.sources, source], session_id: existing.session_id ?? source.session_id } : {}),
      ...(reweighed ? { importance: w.importance } : {}),
    }
    entry = (await txn.update(existing, patch)) ?? existing
  }
  // Raw text said again is evidence of the same episode: kept, never dropped.
  const appended = w.raw !== undefined && entry.type === 'episode' && (await keepRawEvidence(txn, entry, w.raw, source))
  if (appended) entry = txn.index.get(entry.id) ?? entry
  else if (newSource) {
    // The raw text shares its episode's sources, so forgetting a session treats both alike.
    const raw = rawSibling(txn, entry)
    if (raw !== undefined && !hasSource(raw, source)) await txn.update(raw, { sources: [...raw.sources, source] })
  }
  txn.log({ event: 'dedupe', id: entry.id, dedupe: kind, similarity, session_id: source.session_id, source: source.kind, ...(appended ? { raw_appended: true } : {}) })
  return {
    id: entry.id,
    path: entry.path,
    type: entry.type === 'episode' ? 'episode' : 'topic',
    status: entry.status,
    title: entry.title,
    raw_ref: entry.raw_ref,
    outcome: appended ? 'appended' : 'duplicate',
    dedupe: kind,
    similarity,
    superseded: [],
    variants: entry.variants,
    redactions,
  }
}

/**
 * What a library caller (an import) may add to a write; never part of the tool's input.
 */
export interface WriteOptions {
  /** Markdown kept below the summary paragraph, redacted like the rest. A write with details repeats only a memory with the same details. */
  details?: string
  /** False: the title is not a slot key, so only an explicit key makes versions. Default true. */
  titleIsSlot?: boolean
  /** Front-matter fields this program does not know, kept in the file; a field of its own is never taken from here. */
  frontMatter?: Record<string, unknown>
  /** False: only an exact repeat is a duplicate; a near one (an edited version) is written. Default true. */
  nearDuplicates?: boolean
  /** The memories this one was made from (consolidation): front-matter `derived_from`. */
  derivedFrom?: string[]
  /**
   * False: the text reports (a session's summary) or restates (a folded exchange) and asserts no fact of its own: no subject is
   * derived from it and it revises nothing. Default true.
   */
  assertsFacts?: boolean
  /**
   * True: the write returns `neighbours` (revision-candidates.ts: one quiet read after the write)
   * and, for a free-text write that stored a memory, the same list as `may_revise`, for a caller
   * that can confirm one; write_memory sets it. Default false.
   */
  nearby?: boolean
}

/** Front-matter fields this program writes or derives; everything else in a file is a person's own. */
export const OWN_FRONT_MATTER = new Set([
  'id', 'type', 'title', 'time', 'status', 'session_id', 'sources', 'confidence', 'tags', 'entities', 'key',
  'supersedes', 'superseded_by', 'variants', 'raw_ref', 'episode', 'anchors', 'slot',
  // memory_merge's record (memory/organisation/merge.ts)
  'merged_into', 'merged_from', 'merged_at',
  // the palace (memory/organisation/rooms.ts) and decay (memory/forgetting/decay.ts)
  'location', 'moved_from', 'archived_at', 'archived_reason',
  // consolidation (memory/consolidation/)
  'derived_from',
])

/** A write request checked and normalised, secrets redacted: what the write path compares and stores. */
export interface PreparedWrite {
  summary: string
  raw: string | undefined
  type: 'episode' | 'topic'
  sessionId: string | null
  title: string
  /** The explicit key, or the explicit title when it serves as the key; null: no versions by key. */
  slotKey: string | null
  /** What the text asserts, if anything slot-like (claim-extract.ts): read once per write. */
  said: DerivedClaim | null
  /** `said`, when it names the slot: no key was given and free text is read for versions. */
  derived: DerivedClaim | null
  slot: string
  tags: string[]
  entities: string[]
  source: Source
  gated: boolean
  /** Epoch ms of an explicit time, or null for now. */
  time: number | null
  details: string
  frontMatter: Record<string, unknown>
  /** Whether a near repeat counts as a duplicate. */
  near: boolean
  redactions: RedactionKind[]
  /** Premises, evidence, retraction and guard, checked and redacted. */
  claim: PreparedClaim
  /** The importance given, 0-1, or null for none. */
  importance: number | null
}

/**
 * Fields of a write request that name something rather than say something: stored and compared
 * exactly, so a credential in one is refused (see redact.ts), never rewritten.
 */
const WRITE_IDENTIFIERS: ReadonlySet<string> = new Set(['session_id', 'links', 'anchors', 'retracts'])

/** Checks, normalises and redacts a write request. Pure; throws INVALID_INPUT naming the field. */
export function prepareWrite(config: RuntimeConfig, req: WriteRequest, options: WriteOptions = {}): PreparedWrite {
  const foreign: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(options.frontMatter ?? {})) if (!OWN_FRONT_MATTER.has(field) && value !== undefined) foreign[field] = value
  // One pass over everything the caller gives, before anything is compared or hashed: every
  // string field is redacted (those added later too), every identifier checked.
  const given = { req, details: options.details ?? '', frontMatter: foreign }
  const { value, kinds: redactions } = config.redactSecrets ? redactRecord(given, WRITE_IDENTIFIERS) : { value: given, kinds: [] }
  const { req: r, details, frontMatter } = value

  const summary = collapseWhitespace(r.summary)
  if (summary === '') throw invalidInput('summary', 'a non-empty string')
  const raw = r.raw
  const type = r.type ?? (raw !== undefined ? 'episode' : 'topic')
  if (type === 'topic' && raw !== undefined) throw invalidInput('type', '"episode" when raw is given (raw text belongs to an episode)')
  const sessionId = r.session_id?.trim() || null
  if (type === 'episode' && sessionId === null) throw invalidInput('session_id', 'a session id (episodes and raw text must name their session)')
  const explicitTitle = r.title === undefined ? null : collapseWhitespace(r.title)
  if (explicitTitle === '') throw invalidInput('title', 'a non-empty string')
  const stated = callerClaim(r.claim)
  if (stated !== null && r.key !== undefined) throw invalidInput('claim', 'no key beside it (a claim names its fact: subject and attribute are its key)')
  const key = r.key === undefined ? (stated?.subject ?? null) : collapseWhitespace(r.key)
  if (key === '') throw invalidInput('key', 'a non-empty string')
  if (r.importance !== undefined && !(typeof r.importance === 'number' && r.importance >= 0 && r.importance <= 1)) throw invalidInput('importance', 'a number from 0 to 1')
  const time = r.time === undefined ? null : Date.parse(r.time)
  if (time !== null && Number.isNaN(time)) throw invalidInput('time', 'an ISO-8601 date-time such as 2026-01-02T10:00:00Z')
  const title = explicitTitle ?? defaultTitle(summary)
  // Versioning needs intent: an explicit key, or an explicit title that then serves as the key.
  const slotKey = key ?? (options.titleIsSlot === false ? null : explicitTitle)
  const claim = prepareClaim(r)
  // Without a key, the text itself may name its subject; retractions and guards are never versions.
  const said = stated ?? deriveClaim(summary)
  const derived = slotKey === null && config.autoRevise && options.assertsFacts !== false && claim.retracts === null && claim.frontMatter.guard_trigger === undefined ? said : null
  return {
    summary,
    raw,
    type,
    sessionId,
    title,
    slotKey,
    said,
    derived,
    slot: slotOf({ key: slotKey ?? derived?.subject ?? null, title }),
    tags: cleanList([...(r.tags ?? []), ...claim.tags]),
    entities: cleanList(r.entities),
    source: { session_id: sessionId, kind: r.source ?? (sessionId !== null ? 'session' : 'user') },
    gated: r.requireConfirmation ?? config.requireConfirmation,
    time,
    details: details.trim() === '' ? '' : details,
    frontMatter,
    near: options.nearDuplicates !== false,
    redactions,
    claim,
    importance: r.importance ?? null,
  }
}

export interface Repeat {
  entry: IndexEntry
  kind: 'exact' | 'near'
  similarity: number
}

/**
 * The live memory a write repeats, if any: exact (same type and normalised summary) or near
 * (same slot and type, character 2-gram Jaccard >= 0.9; unless the write asks for exact repeats
 * only). A write with details repeats only a memory whose details are the same (case and
 * spacing aside). Reads only memory files.
 */
export async function findRepeat(
  index: IndexLookup,
  readFile: (relPath: string) => Promise<string | null>,
  w: Pick<PreparedWrite, 'type' | 'summary' | 'slot' | 'details' | 'near' | 'said'>,
): Promise<Repeat | null> {
  // A near repeat that gives its subject another value ("port 8080" / "port 8081") is a new statement.
  const mine = w.said
  const otherValue = (e: IndexEntry): boolean => {
    const theirs = entryClaim(e)
    return mine !== null && theirs !== null && relateClaims({ atoms: valueAtoms(mine.value), negated: mine.negated }, theirs) === 'different'
  }
  const details = normalizeForHash(w.details)
  const sameDetails = async (e: IndexEntry): Promise<boolean> => {
    if (details === '') return true
    const text = await readFile(e.path)
    return text !== null && normalizeForHash(detailsOf(parseFile(text).body)) === details
  }
  for (const e of index.withHash(contentHash(w.type, w.summary))) {
    if (e.type === w.type && LIVE.has(e.status) && (await sameDetails(e))) return { entry: e, kind: 'exact', similarity: 1 }
  }
  if (!w.near) return null
  let best: { entry: IndexEntry; similarity: number } | null = null
  for (const e of index.inSlot(w.slot)) {
    if (e.type !== w.type || !LIVE.has(e.status)) continue
    const similarity = bigramJaccard(w.summary, e.summary)
    if (similarity >= NEAR_DUPLICATE_THRESHOLD && (best === null || similarity > best.similarity) && !otherValue(e) && (await sameDetails(e))) best = { entry: e, similarity }
  }
  return best === null ? null : { entry: best.entry, kind: 'near', similarity: Math.round(best.similarity * 1000) / 1000 }
}

/** How many memories of neighbouring subjects a change is compared with (times four). */
const RELATED_HITS = 10

/**
 * Whether a write is compared by frame with memories of neighbouring subjects (revise.ts): a
 * statement that announces a change and names no subject a rule can read, or that retires a
 * value or says what changed with a verb ("moved", "switched", "改成"); an adverb such as "now"
 * beside a readable subject is left to the subject rule.
 */
export function wantsFrameRevision(summary: string, derived: DerivedClaim | null): boolean {
  if (!isStatement(summary)) return false
  const cues = changeCues(summary)
  if (derived === null) return cues.length > 0
  return derived.retired.length > 0 || cues.some((c) => !ADVERB_CUES.has(c))
}

/** Cues that say "as of now" without saying what changed. */
const ADVERB_CUES = new Set(['now', 'these days', 'again', 'started', '现在', '如今', '目前', '眼下', '已经', '开始', '早就', '重新'])

/**
 * The other memories whose subject shares one of the two rarest of this text's frame words
 * (index lookups, no search): where a change stated without a readable subject may land. `self`,
 * the memory of the text when it is already in the index, is left out before rarity is judged
 * (its own words would otherwise be the rarest).
 */
export function subjectNeighbours(index: IndexLookup, text: string, self: string | null = null): string[] {
  const terms = subjectTerms(text).filter((t) => !/\d/u.test(t))
  // Counted first, so that only the two lists taken are built (a common word's grows with the store).
  const rarest = (statement: boolean) =>
    rarestTerms(index, terms, statement, 2, { except: self, nonEmpty: true }).flatMap((t) =>
      (statement ? index.withStatementTerm(t) : index.withSubjectTerm(t)).filter((e) => e.id !== self),
    )
  const found = [...rarest(false), ...rarest(true)]
  return [...new Set(found.map((e) => e.id))].slice(0, RELATED_HITS * 4)
}

/**
 * The sources of a memory made from others (consolidation): the sessions they were said in, each
 * as a plugin source, so that forgetting those sessions reaches it; its own source when they name
 * none (or it is made from nothing).
 */
export function derivedSources(index: IndexLookup, derivedFrom: readonly string[] | undefined, own: Source): Source[] {
  const sessions = new Set((derivedFrom ?? []).flatMap((id) => index.get(id)?.sources.map((s) => s.session_id) ?? []).filter((s): s is string => s !== null))
  return sessions.size === 0 ? [own] : [...sessions].map((session_id) => ({ session_id, kind: own.kind }))
}

export async function writeMemory(backend: MemoryBackend, req: WriteRequest, options: WriteOptions = {}): Promise<WriteResult> {
  const config = await loadConfig(backend)
  const w = prepareWrite(config, req, options)
  const { summary, raw, type, sessionId, title, slotKey, said, derived, slot, tags, entities, source, gated, time, redactions, claim } = w
  // The slot key a version is filed under: the caller's, or the subject the text names.
  const key = slotKey ?? derived?.subject ?? null
  // A retraction is never a version of anything, and nothing supersedes it.
  const versioned = key !== null && claim.retracts === null
  const confidence = req.confidence ?? 0.6
  const noted = [
    ...(said !== null ? rangeWarnings(said) : []),
    ...[confidenceWarning(confidence, config)].filter((x): x is string => x !== null),
    ...anchorCuts(req.anchors),
  ]
  // A keyless write that announces a change may revise memories no subject links it to.
  const revising = slotKey === null && config.autoRevise && options.assertsFacts !== false && claim.retracts === null && !gated
  const byFrame = revising && wantsFrameRevision(summary, derived)

  if ((req.supersedes ?? []).length > 0 && (gated || req.expectConflict === true))
    throw invalidInput('supersedes', `no ${gated ? 'requireConfirmation' : 'expectConflict'} beside it (a replacement is neither held for confirmation nor kept as a conflict)`)
  // The search the nearby lists read is brought in line with the store before the write: a
  // process's first look then takes the saved search index as it is (it matches index.jsonl)
  // and folds in this write alone, where after the write it would check every entry.
  if (options.nearby === true) await retrievalState(backend, { quiet: true })
  const result = await transact(backend, async (txn): Promise<WriteResult> => {
    const named = namedRevisions(txn, req.supersedes)
    const warnings: string[] = [...noted]
    const repeat = await findRepeat(txn.index, (p) => txn.backend.readFile(p), w)
    // The same words under other premises are another statement, not a repeat.
    if (repeat !== null && scopesKeepApart(repeat.entry, claim)) warnings.push(differentScopeWarning(repeat.entry, claim.scope, 'repeat'))
    else if (repeat !== null) {
      const dup = await acknowledgeDuplicate(txn, await enrichRepeat(txn, repeat.entry, claim), w, repeat.kind, repeat.similarity)
      // Writing a memory again with supersedes is how a caller confirms a listed revision.
      if (named.length === 0) return dup
      const revised = await confirmRevision(txn, txn.index.get(dup.id) ?? repeat.entry, named)
      const replaced = replacedOf(txn.index, revised.winner, revised.superseded)
      return { ...dup, status: revised.winner.status, superseded: revised.superseded, ...(replaced !== null ? { outcome: 'updated' as const, replaced } : {}) }
    }
    const target = retractionTarget(txn, claim)

    const id = newMemoryId()
    const at = time !== null ? new Date(time).toISOString() : txn.now
    let rawRef: string | null = null
    if (raw !== undefined) {
      rawRef = `raw/${id}.md`
      await txn.create(
        rawRef,
        { id: `${id}-raw`, type: 'raw', title: `raw: ${title}`, time: at, status: gated ? 'suggested' : 'active', session_id: sessionId, sources: [source], episode: id },
        raw,
      )
    }
    const path = type === 'episode' ? `episodes/${at.slice(0, 10)}-${id}.md` : `topics/${slugify(title)}-${id}.md`
    const place = await placeNew(txn.backend, txn.index, type, () =>
      versioned ? slotMates(txn, { id, type, key, title, scope: claim.scope ?? undefined }, new Set(MEMORY_STATUSES)) : [],
    )
    const rivals = versioned && !gated ? slotMates(txn, { id, type, key, title, scope: claim.scope ?? undefined }) : []
    const conflict = req.expectConflict === true && rivals.length > 0
    const status: MemoryStatus = gated ? 'suggested' : conflict ? 'conflict' : 'active'
    let entry = await txn.create(
      path,
      {
        id,
        type,
        title,
        time: at,
        status,
        session_id: sessionId,
        sources: derivedSources(txn.index, options.derivedFrom, source),
        confidence,
        tags,
        entities,
        key: slotKey,
        slot: slotKey === null ? derived?.subject : undefined,
        variants: conflict ? rivals.map((r) => r.id) : [],
        raw_ref: rawRef,
        anchors: cleanAnchors(req.anchors),
        location: place.location,
        links: [...new Set(req.links ?? [])],
        ...(options.derivedFrom !== undefined && options.derivedFrom.length > 0 ? { derived_from: [...new Set(options.derivedFrom)] } : {}),
        // Retrieval practice (review.ts): first due a day after it is written, unless the store's
        // reviewScheduling is off; backfill opts out through frontMatter.
        ...(config.reviewScheduling ? { review_due: firstDue(txn.now) } : {}),
        ...w.frontMatter,
        ...(w.importance !== null ? { importance: w.importance } : {}),
        ...stampedFrontMatter(claim, txn.now),
      },
      memoryBody(title, summary, w.details),
    )
    let superseded: string[] = []
    if (conflict) {
      for (const rival of rivals) {
        await txn.update(rival, { status: 'conflict', variants: [...new Set([...rival.variants, id])] })
      }
      txn.log({ event: 'conflict', id, ids: rivals.map((r) => r.id), slot })
    } else if (status === 'active' && revising) {
      const revised = await reviseDerived(txn, entry, config, byFrame ? subjectNeighbours(txn.index, summary, id) : [])
      entry = revised.winner
      superseded = revised.superseded
      pushAll(warnings, revised.warnings)
    } else if (status === 'active' && versioned) {
      ;({ winner: entry, superseded } = await supersedeSlot(txn, entry))
      const replaced = verifiedReplacedWarning(txn, entry, superseded)
      if (replaced !== null) warnings.push(replaced)
    }
    const confirmed = named.map((n) => txn.index.get(n.id)).filter((n): n is IndexEntry => n !== undefined && n.status !== 'superseded')
    if (status === 'active' && confirmed.length > 0) {
      const revised = await confirmRevision(txn, entry, confirmed)
      entry = revised.winner
      superseded = [...superseded, ...revised.superseded]
    }
    if (versioned && !gated) {
      for (const kept of keptApartInSlot(txn, entry)) if (kept.id !== repeat?.entry.id) warnings.push(differentScopeWarning(kept, claim.scope, 'version'))
    }
    if (target !== null) await markRetracted(txn, target, id)
    const placard = place.location === null ? null : checkPlacard(entry, txn.index, (e) => versioned && e.type === type && slotOf(e) === slot)
    await recordRooms(txn.backend, place.changes)
    txn.log({
      event: 'write',
      id,
      type,
      path,
      status,
      session_id: sessionId,
      source: source.kind,
      ...(rawRef !== null ? { raw_id: `${id}-raw` } : {}),
      ...(w.importance !== null ? { importance: w.importance } : {}),
      ...(redactions.length > 0 ? { redactions } : {}),
      ...(place.location !== null ? { location: place.location } : {}),
    })
    const replaced = replacedOf(txn.index, entry, superseded)
    return {
      id,
      path,
      type,
      status: entry.status,
      title,
      raw_ref: rawRef,
      outcome: storedOutcome(entry.status, replaced !== null),
      ...(replaced !== null ? { replaced } : {}),
      superseded,
      variants: entry.variants,
      redactions,
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(entry.key_derived === true && entry.key !== null ? { slot: entry.key } : {}),
      ...(entry.scope !== undefined ? { scope: entry.scope } : {}),
      ...(entry.evidence?.verified_at != null ? { verified_at: entry.evidence.verified_at } : {}),
      ...(entry.location !== undefined ? { location: entry.location } : {}),
      ...(placard !== null ? { placard } : {}),
    }
  })
  // A repeat is a use of the memory it repeats: it grows stronger (organisation/strength.ts).
  if (result.dedupe !== undefined) recordRepeat(backend, result.id)
  if (options.nearby !== true) return result
  // One quiet read for both lists: what is near, and (free text only) what it may revise.
  const neighbours = await revisionCandidates(backend, { id: result.id, subject: key ?? said?.subject ?? null, summary, scope: claim.scope, revised: result.superseded })
  // Free text only: a keyed write names its fact, a repeat revises nothing, a retraction or guard is no version.
  const freeText = slotKey === null && options.assertsFacts !== false && result.dedupe === undefined && claim.retracts === null && claim.frontMatter.guard_trigger === undefined
  if (!freeText) return { ...result, neighbours }
  judgeInBackground(backend, { id: result.id, summary }, neighbours)
  return { ...result, may_revise: neighbours, neighbours }
}
