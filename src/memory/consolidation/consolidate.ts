/**
 * Folder memory/consolidation/, whose main file this is, owns turning what happened into what is
 * known: promotion of repeated or confirmed statements to topics, session summaries, folding
 * restatements, archiving covered episodes, decay, and the report of stale derived memories.
 * Imports from the other capability folders: forgetting, organisation, settings, truth, writing;
 * below memory/ anything (retrieve, store, language, ground); nothing above (tools, stores,
 * adapters).
 *
 * Consolidation, deterministic (no model): PROMOTE -> REFLECT -> FOLD -> MERGE -> ARCHIVE -> DECAY
 * -> STALE, each step a set of ordinary transactions (a crash between two leaves a consistent store,
 * and a rerun continues: promoted episodes are recognised by the topics' `derived_from`). REVISE
 * is the write path's: a promoted topic revises the topics of its subject as any write does, and
 * a correction stated once ("the port is now 9090") is promoted when it revises a topic. FOLD
 * (fold.ts) makes one topic of each exchange of an idle session, word for word, so its episodes are
 * fully covered and ARCHIVE sets them aside.
 *
 * With a model (model.ts, set by the adapter that opened the store), PROMOTE asks it whether a
 * group states one fact and for the fact's sentence, and REFLECT for an abstractive summary; an
 * answer is taken only when it is grounded in the episodes (prompts.ts), otherwise that item keeps
 * its deterministic result. Over a model token cap (per run, per day), or when the model fails,
 * the run goes on deterministically and says why (`degraded`, and a `consolidate-degraded` event).
 *
 * One run at a time per store (a lease in `.cache/consolidation.json`, taken over when its process
 * is gone or it is older than LEASE_STALE_MS). Each run stops at its caps (items changed, time)
 * and at the daily cap, and says what it skipped. Every change is a ledger event, and the run one
 * more (`consolidate`), so memory_lineage shows where a topic came from.
 */

import { redactRecord } from '../../redact.js'
import { MemoryError } from '../../errors.js'
import { isSearchable } from '../../retrieve/search-index.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import type { IndexEntry, LedgerEvent, MemoryStatus } from '../../types.js'
import { decay } from '../forgetting/decay.js'
import { restatementGroups } from '../organisation/duplicates.js'
import { mergeMemories } from '../organisation/merge.js'
import { readUsage } from '../organisation/signals.js'
import { foldStrength } from '../organisation/strength-fold.js'
import { loadConfig } from '../settings/config.js'
import { changeCues, deriveClaim } from '../truth/claim-extract.js'
import { sameSubject } from '../truth/verify.js'
import { confirmMemory } from '../writing/confirm.js'
import { setStatus } from '../writing/slots.js'
import { transact } from '../writing/txn.js'
import { recoverInterrupted } from './recover.js'
import { derivedSources, NEAR_DUPLICATE_THRESHOLD, writeMemory, type WriteOptions, type WriteRequest } from '../writing/write.js'
import { EXCHANGE_TAG, exchanges, FOLD_JOINER } from './fold.js'
import { consolidationModel, ModelRun, modelTokensOnDay, type ConsolidationModel, type Degraded, type ModelUse } from './model.js'
import { PROMOTE_PROMPT, promotePrompt, readJudgement, readSummary, REFLECT_PROMPT, reflectPrompt } from './prompts.js'
import { holdsStatement, promotionGroups, strongEvidence, type Candidate, type PromotionGroup } from './promote.js'
import { SESSION_SUMMARY_TAG, sessionSummaries, type SessionSummary } from './reflect.js'

export const LEASE_FILE = '.cache/consolidation.json'
export const LEASE_STALE_MS = 10 * 60_000
/** Restatements at least this similar (character 2-grams) are reported as candidates below the merge threshold. */
export const MERGE_REPORT_FROM = 0.6
/** Statuses in which a derived memory still holds its sources (a forgotten one gives them back). */
const HOLDING: ReadonlySet<MemoryStatus> = new Set(['active', 'suggested', 'conflict', 'superseded', 'archived'])
/** Sources in these states make a derived memory stale. */
const GONE: ReadonlySet<MemoryStatus> = new Set(['superseded', 'deleted_pending', 'orphaned'])

export interface ConsolidateOptions {
  dryRun?: boolean
  /** Caps of this run: memories changed, and wall time (defaults: the store's settings). */
  maxItems?: number
  maxSeconds?: number
  /** The model to use: undefined, the one set for the store (setConsolidationModel); null, none. */
  model?: ConsolidationModel | null
}

export interface Promotion {
  /** The topic's id; null in a dry run. */
  id: string | null
  summary: string
  status: MemoryStatus | 'would-promote'
  derived_from: string[]
  sessions: string[]
  /** Why: repeated in sessions, confirmed, or a correction of a promoted fact. */
  reason: 'repeated' | 'confirmed' | 'revision'
  /** Topics it superseded (automatic revision). */
  superseded: string[]
}

export interface ConsolidationReport {
  dry_run: boolean
  promoted: Promotion[]
  /** Existing topics that gained sources (a fact promoted before, said again), with their status after. */
  reinforced: Array<{ id: string; added: string[]; status: MemoryStatus }>
  reflected: Array<{ id: string | null; session: string; summary: string; derived_from: string[] }>
  /** Exchanges of idle sessions folded into one topic each (fold.ts); their episodes are then archived. */
  exchanges: Array<{ id: string | null; session: string; derived_from: string[] }>
  merged: Array<{ survivor: string; folded: string[] }>
  /** Restatement groups below the merge threshold, left for a person (memory_duplicates lists them). */
  merge_candidates: number
  archived: string[]
  decayed: string[]
  /** Memories whose strength from use (repeats, search hits) was written into their files (organisation/strength.ts). */
  strengthened: string[]
  stale: Array<{ id: string; gone: Array<{ id: string; status: MemoryStatus | 'missing' }> }>
  skipped: Array<{ step: string; reason: string }>
  /** Present when a model was available: what it was asked and cost, and where its answer was not taken. */
  model?: ModelUse
  /** Present when the run went on without the model: over a token cap, or the model failed. */
  degraded?: Degraded
  guidance: string
}

const STEPS = ['promote', 'reflect', 'fold', 'merge', 'archive', 'strength', 'decay'] as const
type Step = (typeof STEPS)[number]

/** The run's caps: how many memories it may change, until when, and what it stopped at. */
class Budget {
  used = 0
  readonly skipped: Array<{ step: string; reason: string }> = []
  constructor(
    private readonly maxItems: number,
    private readonly deadline: number,
  ) {}
  /** Whether one more change is allowed; records why not, once per step. */
  allows(step: Step): boolean {
    const why = this.used >= this.maxItems ? `item cap ${this.maxItems} reached` : Date.now() > this.deadline ? 'time cap reached' : null
    if (why === null) return true
    if (!this.skipped.some((s) => s.step === step)) this.skipped.push({ step, reason: why })
    return false
  }
  spend(n = 1): void {
    this.used += n
  }
}

/** Who holds the lease in this text, when the holder is alive and the lease not stale; null otherwise. Reads no file. */
export function leaseHolder(text: string | null, now: number): { pid: number; at: string } | null {
  if (text === null) return null
  let held: { pid?: unknown; at?: unknown } = {}
  try {
    held = JSON.parse(text) as typeof held
  } catch {
    // A torn lease holds nothing.
  }
  if (typeof held.pid !== 'number' || typeof held.at !== 'string') return null
  return alive(held.pid) && now - Date.parse(held.at) < LEASE_STALE_MS ? { pid: held.pid, at: held.at } : null
}

async function takeLease(backend: MemoryBackend): Promise<void> {
  const now = Date.parse(backend.now())
  await backend.withLock(async () => {
    const held = leaseHolder(await backend.readFile(LEASE_FILE).catch(() => null), now)
    if (held !== null) throw new MemoryError('INVALID_STATE', `a consolidation of this store is running (process ${held.pid}, since ${held.at}); try again when it ends`)
    await backend.writeFileAtomic(LEASE_FILE, JSON.stringify({ pid: process.pid, at: new Date(now).toISOString() }), { fsync: false })
  })
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function dropLease(backend: MemoryBackend): Promise<void> {
  await backend.withLock(() => backend.removeFile(LEASE_FILE)).catch(() => undefined)
}

/** Ids of memories the user confirmed: through memory_confirm, or written by the user. Pure. */
function confirmedIds(ledger: readonly LedgerEvent[], episodes: readonly IndexEntry[]): Set<string> {
  const out = new Set(episodes.filter((e) => e.sources.some((s) => s.kind === 'user')).map((e) => e.id))
  for (const ev of ledger) if (ev.event === 'confirm' && typeof ev.id === 'string') out.add(ev.id)
  return out
}

const isSessionSummary = (e: IndexEntry) => e.tags.includes(SESSION_SUMMARY_TAG)
const isExchange = (e: IndexEntry) => e.type === 'topic' && e.tags.includes(EXCHANGE_TAG)

/** Episode ids a holding exchange topic holds word for word. */
function heldByExchanges(entries: readonly IndexEntry[]): Set<string> {
  return new Set(entries.filter((e) => isExchange(e) && HOLDING.has(e.status)).flatMap((e) => e.derived_from ?? []))
}

/**
 * Episode ids some holding topic was made from, by that topic. A session summary or an exchange
 * is made from episodes too, but is no fact: a fact of a summarised or folded session said again
 * is still promoted.
 */
function consumedBy(entries: readonly IndexEntry[]): Map<string, IndexEntry> {
  const out = new Map<string, IndexEntry>()
  for (const e of entries) {
    if (!HOLDING.has(e.status) || e.derived_from === undefined || isSessionSummary(e) || isExchange(e)) continue
    for (const id of e.derived_from) if (!out.has(id)) out.set(id, e)
  }
  return out
}

/** Memories consolidation runs changed on day (`YYYY-MM-DD`), by their `consolidate` events: what the daily cap counts. Pure. */
export function changesOnDay(ledger: readonly LedgerEvent[], day: string): number {
  return ledger.filter((ev) => ev.event === 'consolidate' && typeof ev.at === 'string' && ev.at.startsWith(day)).reduce((n, ev) => n + (typeof ev.changed === 'number' ? ev.changed : 0), 0)
}

/** Runs consolidation on a store. A dry run changes nothing and says what a run would do now. */
export async function consolidate(backend: MemoryBackend, options: ConsolidateOptions = {}): Promise<ConsolidationReport> {
  const dryRun = options.dryRun ?? true
  const config = await loadConfig(backend)
  const deadline = Date.now() + 1000 * (options.maxSeconds ?? config.consolidateMaxSeconds)
  const budget = new Budget(options.maxItems ?? config.consolidateMaxItems, deadline)
  const model = options.model === undefined ? consolidationModel(backend) : options.model
  const report: ConsolidationReport = {
    dry_run: dryRun,
    promoted: [],
    reinforced: [],
    reflected: [],
    exchanges: [],
    merged: [],
    merge_candidates: 0,
    archived: [],
    decayed: [],
    strengthened: [],
    stale: [],
    skipped: budget.skipped,
    guidance: '',
  }
  if (!dryRun) await takeLease(backend)
  try {
    await ensureFresh(backend)
    // Read once: the daily cap and the user's confirmations both come from it.
    const ledger = await backend.readLedger()
    // A run killed mid-way left files without their events, or an episode archived without its raw text.
    if (!dryRun) await recoverInterrupted(backend, ledger)
    const today = backend.now().slice(0, 10)
    const doneToday = changesOnDay(ledger, today)
    const caps = { perRun: config.consolidateModelTokensPerRun, perDay: config.consolidateModelTokensPerDay, spentToday: modelTokensOnDay(ledger, today), deadline }
    const run = model === null ? null : new ModelRun(backend, model, caps)
    if (!dryRun && doneToday >= config.consolidateDailyItems) {
      budget.skipped.push({ step: 'all', reason: `daily cap ${config.consolidateDailyItems} reached (${doneToday} changes today)` })
    } else {
      await promote(backend, ledger, report, budget, dryRun, run)
      await reflect(backend, report, budget, dryRun, run)
      // A person's restore wins: consolidation neither folds nor archives what was brought back.
      const restored = new Set(ledger.filter((ev) => ev.event === 'restore' && typeof ev.id === 'string').map((ev) => ev.id as string))
      await fold(backend, report, budget, dryRun, config.consolidateIdleDays, restored)
      await merge(backend, report, budget, dryRun)
      await archiveCovered(backend, report, budget, dryRun, config.consolidateArchiveDays, restored)
      report.strengthened = await foldStrength(backend, dryRun, { allows: () => budget.allows('strength'), spend: () => budget.spend() })
      if (budget.allows('decay')) {
        const d = await decay(backend, { days: config.consolidateIdleDays, dryRun, limit: Math.max(1, (options.maxItems ?? config.consolidateMaxItems) - budget.used) })
        report.decayed = d.archived.map((c) => c.id)
        budget.spend(dryRun ? 0 : report.decayed.length)
      }
    }
    report.stale = staleDerived([...(await backend.indexView()).values()])
    if (run !== null) report.model = run.use
    if (run?.degraded != null) report.degraded = run.degraded
    report.guidance = guidance(report)
    if (!dryRun) {
      await transact(backend, async (txn) => {
        if (run?.degraded != null) txn.log({ event: 'consolidate-degraded', model: run.use.id, reason: run.degraded.reason, degraded_at: run.degraded.at })
        txn.log({
          event: 'consolidate',
          changed: budget.used,
          promoted: report.promoted.length,
          reinforced: report.reinforced.length,
          reflected: report.reflected.length,
          exchanges: report.exchanges.length,
          merged: report.merged.length,
          archived: report.archived.length,
          decayed: report.decayed.length,
          strengthened: report.strengthened.length,
          stale: report.stale.length,
          ...(budget.skipped.length > 0 ? { skipped: budget.skipped.map((s) => `${s.step}: ${s.reason}`) } : {}),
          ...(run !== null ? { model: run.use.id, model_tokens: run.use.tokens, model_calls: run.use.calls, model_cached: run.use.cached } : {}),
        })
      })
    }
    // What was written is redacted by the write path; the report quotes the texts it chose from
    // (a hand-typed secret in an episode, a dry run's would-be summary): redacted the same way.
    return redactRecord(report).value
  } finally {
    if (!dryRun) await dropLease(backend)
  }
}

async function promote(backend: MemoryBackend, ledger: readonly LedgerEvent[], report: ConsolidationReport, budget: Budget, dryRun: boolean, run: ModelRun | null): Promise<void> {
  const entries = [...(await backend.indexView()).values()]
  const consumed = consumedBy(entries)
  const held = heldByExchanges(entries)
  // Episodes archived into a topic still count, so that a new mention of the fact finds its group.
  const episodes = entries.filter(
    (e) => e.type === 'episode' && (e.status === 'active' || (e.status === 'archived' && (consumed.has(e.id) || held.has(e.id)))) && e.session_id !== null && !isSessionSummary(e) && e.derived_from === undefined,
  )
  const confirmed = confirmedIds(ledger, episodes)
  const sessionsOf = (e: IndexEntry) => [...new Set([e.session_id as string, ...e.sources.map((s) => s.session_id).filter((s): s is string => s !== null)])]
  const candidates: Candidate[] = episodes.map((e) => ({ entry: e, sessions: sessionsOf(e), confirmed: confirmed.has(e.id) }))
  const groups = promotionGroups(candidates)
  const grouped = new Set(groups.flatMap((g) => g.members.map((m) => m.id)))

  for (const g of groups) {
    if (g.smallTalk) {
      const loose = g.members.filter((m) => m.status === 'active' && !held.has(m.id))
      if (loose.length === 0) continue
      if (!budget.allows('promote')) return
      await mergeSmallTalk(backend, report, g, loose, dryRun)
      budget.spend(dryRun ? 0 : 1)
      continue
    }
    const fresh = g.members.filter((m) => !consumed.has(m.id))
    if (fresh.length === 0) continue
    const holder = g.members.map((m) => consumed.get(m.id)).find((h): h is IndexEntry => h !== undefined)
    if (!budget.allows('promote')) return
    if (holder !== undefined) {
      // Said again: the topic made of it before gains the new episodes as sources, and a topic
      // that waited at the confirmation gate for thin evidence passes it once the evidence is strong.
      let status = holder.status
      if (!dryRun) {
        await addSources(backend, holder, fresh.map((m) => m.id), 'promote')
        if (holder.status === 'suggested' && strongEvidence(g)) status = (await confirmMemory(backend, holder.id)).status
      }
      report.reinforced.push({ id: holder.id, added: fresh.map((m) => m.id), status })
      budget.spend(dryRun ? 0 : 1)
      continue
    }
    const changed = await promoteGroup(backend, report, g, g.confirmed && g.sessions.length < 2 ? 'confirmed' : 'repeated', dryRun, run)
    budget.spend(dryRun || !changed ? 0 : 1)
  }

  // A correction said once revises a topic of its subject: REVISE through the write path.
  const topics = (await backend.indexView()).values()
  const keys = [...topics].filter((t) => t.type === 'topic' && t.status === 'active' && t.key !== null).map((t) => t.key as string)
  for (const e of episodes) {
    if (grouped.has(e.id) || consumed.has(e.id) || e.status !== 'active' || changeCues(e.summary).length === 0) continue
    const said = deriveClaim(e.summary)
    if (said === null || !keys.some((k) => sameSubject(k, said.subject))) continue
    if (!budget.allows('promote')) return
    await promoteGroup(backend, report, { members: [e], sessions: sessionsOf(e), confirmed: false, similarity: 1, text: e, smallTalk: false }, 'revision', dryRun, null)
    budget.spend(dryRun ? 0 : 1)
  }
}

/**
 * Small talk said again in other sessions is merged, not promoted: one exchange topic holds the
 * lines not held yet, word for word, oldest first (no fact: it revises nothing), so ARCHIVE sets
 * them aside. Reported with the exchanges, its `session` the sessions it was said in.
 */
async function mergeSmallTalk(backend: MemoryBackend, report: ConsolidationReport, g: PromotionGroup, loose: readonly IndexEntry[], dryRun: boolean): Promise<void> {
  const derived = loose.map((m) => m.id)
  let id: string | null = null
  if (!dryRun) {
    const request: WriteRequest = {
      summary: loose.map((m) => m.summary).join(FOLD_JOINER),
      type: 'topic',
      time: (loose.at(-1) as IndexEntry).time,
      tags: [...new Set([EXCHANGE_TAG, ...loose.flatMap((m) => m.tags)])],
      entities: [...new Set(loose.flatMap((m) => m.entities))],
    }
    id = await writeDerived(backend, request, derived, 'fold', { assertsFacts: false })
  }
  report.exchanges.push({ id, session: g.sessions.join(', '), derived_from: derived })
}

/**
 * The sentence a group's topic takes: the model's, when it has one and the answer holds to the
 * group's episodes; the group's own text otherwise. Null when the model judged the group not one fact.
 */
async function factOf(g: PromotionGroup, run: ModelRun | null): Promise<string | null> {
  if (run === null || g.members.length < 2) return g.text.summary
  const statements = g.members.map((m) => m.summary)
  const answer = await run.ask(PROMOTE_PROMPT, promotePrompt(statements))
  if (answer === null) return g.text.summary
  const judged = readJudgement(answer, statements, g.text.summary)
  if ('declined' in judged) {
    run.use.declined.push(g.members.map((m) => m.id))
    return null
  }
  if ('reason' in judged) {
    run.fallback('promote', g.members.map((m) => m.id).join(','), judged.reason)
    return g.text.summary
  }
  return judged.fact
}

/** Promotes a group to a topic (or reinforces the topic that says it already); false when nothing changed. */
async function promoteGroup(backend: MemoryBackend, report: ConsolidationReport, g: PromotionGroup, reason: Promotion['reason'], dryRun: boolean, run: ModelRun | null): Promise<boolean> {
  const derived = g.members.map((m) => m.id)
  const latest = g.members.at(-1) as IndexEntry
  const summary = await factOf(g, run)
  if (summary === null) return false
  if (dryRun) {
    report.promoted.push({ id: null, summary, status: 'would-promote', derived_from: derived, sessions: g.sessions, reason, superseded: [] })
    return false
  }
  const out = await writeMemory(
    backend,
    {
      summary,
      type: 'topic',
      source: 'plugin',
      time: latest.time,
      confidence: Math.min(0.9, 0.6 + 0.1 * g.sessions.length + (g.confirmed ? 0.2 : 0)),
      tags: [...new Set(g.members.flatMap((m) => m.tags))],
      entities: [...new Set(g.members.flatMap((m) => m.entities))],
      // Thin evidence (two sessions, loosely alike) waits for a person: the confirmation gate.
      requireConfirmation: reason === 'repeated' && !strongEvidence(g),
    },
    { derivedFrom: derived, titleIsSlot: false },
  )
  // The same fact as a topic already there: it gains these episodes as sources instead.
  if (out.dedupe !== undefined) {
    const existing = (await backend.indexView()).get(out.id)
    if (existing !== undefined) await addSources(backend, existing, derived, 'promote')
    report.reinforced.push({ id: out.id, added: derived, status: existing?.status ?? out.status })
    return true
  }
  await transact(backend, async (txn) => txn.log({ event: 'promote', id: out.id, ids: derived, reason, sessions: g.sessions, ...(summary !== g.text.summary && run !== null ? { model: run.use.id } : {}) }))
  report.promoted.push({ id: out.id, summary, status: out.status, derived_from: derived, sessions: g.sessions, reason, superseded: out.superseded })
  return true
}

async function addSources(backend: MemoryBackend, holder: IndexEntry, ids: readonly string[], event: 'promote' | 'reflect' | 'fold'): Promise<void> {
  await transact(backend, async (txn) => {
    const current = txn.index.get(holder.id)
    if (current === undefined) return
    const derivedFrom = [...new Set([...(current.derived_from ?? []), ...ids])]
    await txn.update(current, { derived_from: derivedFrom, sources: derivedSources(txn.index, derivedFrom, { session_id: current.session_id, kind: 'plugin' }) })
    txn.log({ event, id: holder.id, ids: [...ids], reason: 'repeated' })
  })
}

/** A session's summary: the model's when it has one grounded in the session's episodes, the extractive one otherwise. */
async function summaryOf(s: SessionSummary, run: ModelRun | null): Promise<string> {
  if (run === null) return s.summary
  const episodes = s.members.map((m) => m.summary)
  const answer = await run.ask(REFLECT_PROMPT, reflectPrompt(episodes))
  if (answer === null) return s.summary
  const read = readSummary(answer, episodes)
  if ('summary' in read) return `${s.head}: ${read.summary}`
  run.fallback('reflect', s.session, read.reason)
  return s.summary
}

async function reflect(backend: MemoryBackend, report: ConsolidationReport, budget: Budget, dryRun: boolean, run: ModelRun | null): Promise<void> {
  const entries = [...(await backend.indexView()).values()]
  const summarised = new Set(entries.filter((e) => isSessionSummary(e) && e.session_id !== null).map((e) => e.session_id as string))
  const episodes = entries.filter((e) => e.type === 'episode' && isSearchable(e) && !isSessionSummary(e) && e.derived_from === undefined)
  for (const s of sessionSummaries(episodes, summarised, Date.parse(backend.now()))) {
    if (!budget.allows('reflect')) return
    const summary = await summaryOf(s, run)
    // A summary that quotes every episode whole is the session again, a second copy of each
    // statement in search: such a session gets none, as a session of one episode gets none.
    if (s.members.every((m) => summary.includes(m.summary))) continue
    // A model's summary draws on the whole session; an extractive one on the episodes it quotes.
    const model = run !== null && summary !== s.summary ? { model: run.use.id } : null
    const derived = (model !== null ? s.members : s.quoted).map((m) => m.id)
    let id: string | null = null
    if (!dryRun) {
      id = await writeDerived(backend, { summary, type: 'episode', session_id: s.session, time: s.time, tags: [SESSION_SUMMARY_TAG] }, derived, 'reflect', { assertsFacts: false }, model ?? {})
      budget.spend()
    }
    report.reflected.push({ id, session: s.session, summary, derived_from: derived })
  }
}

/**
 * Each exchange of a session idle for the window (its last episode written that long ago) becomes
 * one topic holding its episodes' words in order, `derived_from` naming them; ARCHIVE then sets the
 * episodes aside. The topic files no version and revises nothing: it restates what was said.
 */
async function fold(backend: MemoryBackend, report: ConsolidationReport, budget: Budget, dryRun: boolean, idleDays: number, restored: ReadonlySet<string>): Promise<void> {
  const entries = [...(await backend.indexView()).values()]
  const held = heldByExchanges(entries)
  const now = Date.parse(backend.now())
  const episodes = entries.filter((e) => e.type === 'episode' && e.status === 'active' && !isSessionSummary(e) && e.derived_from === undefined && e.guard === undefined && !held.has(e.id) && !restored.has(e.id))
  const ready = (_: string, members: readonly IndexEntry[]) => now - Date.parse((members.at(-1) as IndexEntry).time) >= idleDays * 86_400_000
  for (const x of exchanges(episodes, ready)) {
    if (!budget.allows('fold')) return
    const derived = x.members.map((m) => m.id)
    let id: string | null = null
    if (!dryRun) {
      const request: WriteRequest = {
        summary: x.summary,
        type: 'topic',
        session_id: x.session,
        time: (x.members.at(-1) as IndexEntry).time,
        tags: [...new Set([EXCHANGE_TAG, ...x.members.flatMap((m) => m.tags)])],
        entities: [...new Set(x.members.flatMap((m) => m.entities))],
      }
      id = await writeDerived(backend, request, derived, 'fold', { assertsFacts: false })
      budget.spend()
    }
    report.exchanges.push({ id, session: x.session, derived_from: derived })
  }
}

/**
 * Writes what a step made from `derived` (no slot from its title, only exact repeats) and logs the
 * step's event naming them; the id written, or that of the same words written before, which is
 * then derived from these episodes too.
 */
async function writeDerived(
  backend: MemoryBackend,
  req: WriteRequest,
  derived: string[],
  event: 'reflect' | 'fold',
  options: WriteOptions = {},
  logged: Readonly<Record<string, string>> = {},
): Promise<string> {
  const out = await writeMemory(backend, { ...req, source: 'plugin' }, { ...options, derivedFrom: derived, titleIsSlot: false, nearDuplicates: false })
  const existing = out.dedupe !== undefined ? (await backend.indexView()).get(out.id) : undefined
  if (existing !== undefined) await addSources(backend, existing, derived, event)
  else await transact(backend, async (txn) => txn.log({ event, id: out.id, ids: derived, session_id: req.session_id ?? null, ...logged }))
  return out.id
}

async function merge(backend: MemoryBackend, report: ConsolidationReport, budget: Budget, dryRun: boolean): Promise<void> {
  const topics = [...(await backend.indexView()).values()].filter((e) => e.type === 'topic' && e.status === 'active')
  const loose = restatementGroups(topics, MERGE_REPORT_FROM)
  const tight = restatementGroups(topics, NEAR_DUPLICATE_THRESHOLD)
  report.merge_candidates = Math.max(0, loose.length - tight.length)
  for (const group of tight) {
    if (!budget.allows('merge')) return
    const result = await mergeMemories(backend, { ids: group.map((e) => e.id), dryRun })
    if (result.folded.length === 0) continue
    report.merged.push({ survivor: result.survivor.id, folded: result.folded.map((f) => f.id) })
    budget.spend(dryRun ? 0 : result.folded.length)
  }
}

/**
 * Episodes a live topic was made of and holds the statement of (holdsStatement), idle beyond the
 * archive window (`consolidateArchiveDays`, shorter than the fold and decay window: the topic
 * keeps every word and names the episode): out of search, files kept. memory_restore brings one
 * back, and then no run archives it again.
 */
async function archiveCovered(backend: MemoryBackend, report: ConsolidationReport, budget: Budget, dryRun: boolean, idleDays: number, restored: ReadonlySet<string>): Promise<void> {
  const now = Date.parse(backend.now())
  const usage = await readUsage(backend)
  const idle = (e: IndexEntry) => {
    const last = Math.max(Date.parse(e.time), Date.parse(usage.get(e.id)?.lastHitAt ?? '') || 0)
    return now - last >= idleDays * 86_400_000
  }
  const entries = [...(await backend.indexView()).values()]
  const coveringTopics = entries.filter((e) => e.type === 'topic' && (e.status === 'active' || e.status === 'superseded') && e.derived_from !== undefined)
  const holders = new Map<string, IndexEntry[]>()
  for (const t of coveringTopics) for (const id of t.derived_from ?? []) (holders.get(id) ?? holders.set(id, []).get(id) as IndexEntry[]).push(t)
  // An exchange holds its episodes word for word: whatever found one finds the exchange, so only
  // the time it was written counts, not when it was last found.
  const whole = heldByExchanges(coveringTopics)
  const held = (e: IndexEntry) => whole.has(e.id) || (holders.get(e.id) ?? []).some((t) => holdsStatement(t.summary, e.summary))
  const written = (e: IndexEntry) => now - Date.parse(e.time) >= idleDays * 86_400_000
  const due = entries.filter((e) => e.type === 'episode' && e.status === 'active' && holders.has(e.id) && !restored.has(e.id) && held(e) && (whole.has(e.id) ? written(e) : idle(e)))
  if (dryRun) {
    // The exchanges a run would fold or merge are not written yet: their episodes written before the window would go too.
    const byId = new Map(entries.map((e) => [e.id, e]))
    const unwritten = report.exchanges.flatMap((x) => x.derived_from).filter((id) => {
      const e = byId.get(id)
      return e !== undefined && e.status === 'active' && !restored.has(id) && written(e)
    })
    report.archived = [...new Set([...due.map((e) => e.id), ...unwritten])]
    return
  }
  if (due.length === 0) return
  await transact(backend, async (txn) => {
    for (const e of due) {
      if (!budget.allows('archive')) return
      const entry = txn.index.get(e.id)
      if (entry === undefined || entry.status !== 'active') continue
      const reason = whole.has(e.id) ? 'folded into an exchange topic' : 'consolidated into a topic'
      if ((await setStatus(txn, entry, 'archived', { archived_at: txn.now, archived_reason: reason })) === null) continue
      txn.log({ event: 'archive', id: e.id, reason, window_days: idleDays })
      report.archived.push(e.id)
      budget.spend()
    }
  })
}

/** Derived memories (promoted topics, session summaries) some of whose sources were replaced, forgotten or purged. */
export function staleDerived(entries: readonly IndexEntry[]): ConsolidationReport['stale'] {
  const byId = new Map(entries.map((e) => [e.id, e]))
  const out: ConsolidationReport['stale'] = []
  for (const e of entries) {
    if (e.derived_from === undefined || !(e.status === 'active' || e.status === 'suggested')) continue
    const gone = e.derived_from
      .map((id) => ({ id, status: byId.get(id)?.status ?? ('missing' as const) }))
      .filter((s) => s.status === 'missing' || GONE.has(s.status as MemoryStatus))
    if (gone.length > 0) out.push({ id: e.id, gone })
  }
  return out
}

function guidance(r: ConsolidationReport): string {
  const parts = [
    `${r.promoted.length} promoted`,
    `${r.reinforced.length} reinforced`,
    `${r.reflected.length} session(s) summarised`,
    `${r.exchanges.length} exchange(s) folded`,
    `${r.merged.length} merge(s)`,
    `${r.archived.length} archived`,
    `${r.decayed.length} decayed`,
    `${r.stale.length} stale`,
  ].join(', ')
  const head = r.dry_run ? `Dry run, nothing changed: would be ${parts}. Call with dryRun: false to consolidate.` : `Consolidated: ${parts}.`
  const skipped = r.skipped.length > 0 ? ` Stopped early: ${r.skipped.map((s) => `${s.step} (${s.reason})`).join('; ')}; run again to continue.` : ''
  const stale = r.stale.length > 0 ? ' Stale: some sources of the listed memories were replaced or forgotten; read them (memory_lineage) and rewrite or forget them.' : ''
  const degraded = r.degraded !== undefined ? ` Without the model since ${r.degraded.at}: ${r.degraded.reason}.` : ''
  const candidates = r.merge_candidates > 0 ? ` ${r.merge_candidates} group(s) of near restatements are below the merge threshold: memory_duplicates lists them.` : ''
  const strengthened = r.strengthened.length > 0 ? ` Strength from use ${r.dry_run ? 'would be' : 'was'} written into ${r.strengthened.length} memory file(s).` : ''
  return head + skipped + degraded + stale + candidates + strengthened
}
