/**
 * The evidence gate. A search hit says a memory is related, not that it answers the question:
 * every search answer is registered as a batch (an id, and a `ref` per hit), and `assess` judges
 * whether the caller may answer from it. Sufficient takes three things at once: the caller says
 * so, at least one of its refs belongs to the batch it names, and its next strategy is `answer`.
 * Anything else is insufficient, with what to search next. A ref to a memory forgotten since the
 * search (deleted_pending, purged or removed) is refused: it is no evidence any more. Every
 * verdict is a ledger event.
 *
 * Batches are derived state, kept in `.cache/evidence-batches.jsonl` (one line per batch,
 * appended without the lock: a shared log, store/shared-log.ts; delete it any time): per session
 * only the latest 20 count, and the file is trimmed to those now and then, under the lock. A
 * failure to record a batch never fails the search (a read-only store is searched all the same)
 * and is said once per store; its refs are then refused as unknown, which is the safe side.
 */

import { randomBytes } from 'node:crypto'
import { checkIdentifier, jsonLine } from '../../redact.js'
import { afterAnswer } from '../../store/after-answer.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { warnOnce } from '../../store/warn-once.js'

export const BATCH_FILE = '.cache/evidence-batches.jsonl'
/** Batches kept per session: older ones are gone, and their refs refused. */
export const BATCHES_PER_SESSION = 20
/** Sessions kept when the file is trimmed, most recent first. */
const SESSIONS_KEPT = 100
/** This process trims the file after this many appends. */
const TRIM_EVERY = 200
/** The session of searches that name none. */
export const NO_SESSION = '-'
export const MAX_EVIDENCE_REFS = 8
export const NEXT_STRATEGIES = ['answer', 'search', 'browse', 'ask_user'] as const
export type NextStrategy = (typeof NEXT_STRATEGIES)[number]

interface BatchLine {
  batch: string
  session: string
  at: string
  /** [ref, memory id] per hit, in rank order. */
  refs: [string, string][]
}

const appendsSinceTrim = new WeakMap<MemoryBackend, number>()

/** Registers the hits of one search as a batch; returns its id and one ref per hit, in order. */
export async function registerBatch(backend: MemoryBackend, sessionId: string | undefined, hitIds: readonly string[]): Promise<{ batchId: string; refs: string[] }> {
  // The session groups batches and is matched as given by memory_assess: a credential is refused, not rewritten.
  if (sessionId !== undefined) checkIdentifier('session_id', sessionId)
  // One draw of randomness for the batch and all its refs.
  const hex = randomBytes(6 + 4 * hitIds.length).toString('hex')
  const batchId = `b_${hex.slice(0, 12)}`
  const refs = hitIds.map((_, i) => `r_${hex.slice(12 + 8 * i, 20 + 8 * i)}`)
  const line: BatchLine = { batch: batchId, session: sessionId ?? NO_SESSION, at: backend.now(), refs: hitIds.map((id, i) => [refs[i] as string, id]) }
  try {
    await backend.appendLog(BATCH_FILE, `${jsonLine(line)}\n`)
    const n = (appendsSinceTrim.get(backend) ?? 0) + 1
    appendsSinceTrim.set(backend, n)
    if (n >= TRIM_EVERY) {
      appendsSinceTrim.set(backend, 0)
      // After this answer, off its path (the file grows until a later trim if it fails).
      afterAnswer(backend, 'evidence batches trim', () => backend.withLock(() => backend.rewriteLog(BATCH_FILE, trimmed)))
    }
  } catch (err) {
    warnOnce(backend, 'evidence batches not recorded', err, 'memory_assess will refuse the refs of these searches as unknown')
  }
  return { batchId, refs }
}

function parseLines(text: string | null): BatchLine[] {
  const out: BatchLine[] = []
  for (const raw of (text ?? '').split('\n')) {
    if (raw.trim() === '') continue
    try {
      const v = JSON.parse(raw) as Partial<BatchLine>
      if (typeof v.batch === 'string' && typeof v.session === 'string' && Array.isArray(v.refs)) out.push(v as BatchLine)
    } catch {
      // a torn last line: skipped
    }
  }
  return out
}

/** The latest batches of each session, the most recent sessions first; order within a session kept. */
function latest(lines: BatchLine[]): Map<string, BatchLine[]> {
  const bySession = new Map<string, BatchLine[]>()
  for (const l of lines) {
    const list = bySession.get(l.session) ?? []
    bySession.delete(l.session)
    list.push(l)
    if (list.length > BATCHES_PER_SESSION) list.shift()
    bySession.set(l.session, list)
  }
  return new Map([...bySession].reverse())
}

/** The batches of the latest sessions, oldest first: what a trim keeps. */
function trimmed(text: string): string {
  const kept = [...latest(parseLines(text))].slice(0, SESSIONS_KEPT).reverse()
  const lines = kept.flatMap(([, batches]) => batches).sort((a, b) => a.at.localeCompare(b.at))
  return lines.map(jsonLine).join('\n') + (lines.length > 0 ? '\n' : '')
}

export interface AssessRequest {
  batchId: string
  evidenceRefs: readonly string[]
  missing: string
  nextStrategy: NextStrategy
  sufficient: boolean
  nextQuery?: string
  session_id?: string
}

export type RefusalReason = 'other-batch' | 'unknown' | 'forgotten'

export interface AssessVerdict {
  verdict: 'sufficient' | 'insufficient'
  batchId: string
  batchKnown: boolean
  accepted: { ref: string; id: string }[]
  refused: { ref: string; reason: RefusalReason; batchId?: string }[]
  nextStrategy: NextStrategy
  guidance: string
}

/** Judges a claim of sufficiency against the named batch of the caller's session; logs the verdict. */
export async function assessEvidence(backend: MemoryBackend, request: AssessRequest): Promise<AssessVerdict> {
  const session = request.session_id ?? NO_SESSION
  const batches = latest(parseLines(await backend.readFile(BATCH_FILE))).get(session) ?? []
  const batch = batches.find((b) => b.batch === request.batchId)
  await ensureFresh(backend)
  const index = await backend.indexView()
  // A hit of another store (a merged search's personal hit) is not in this index: an id missing
  // here is forgotten only when this store's ledger says it forgot or purged it.
  let gone: Set<string> | null = null
  const forgottenHere = async () => (gone ??= new Set((await backend.readLedger()).filter((ev) => ev.event === 'forget' || ev.event === 'purge').flatMap((ev) => [ev.id, ...(ev.ids ?? [])].filter((id): id is string => typeof id === 'string'))))
  const forgotten = async (id: string) => {
    const entry = index.get(id)
    return entry === undefined ? (await forgottenHere()).has(id) : entry.status === 'deleted_pending'
  }
  const accepted: AssessVerdict['accepted'] = []
  const refused: AssessVerdict['refused'] = []
  for (const ref of [...new Set(request.evidenceRefs)]) {
    const own = batch?.refs.find(([r]) => r === ref)
    if (own !== undefined) {
      if (await forgotten(own[1])) refused.push({ ref, reason: 'forgotten' })
      else accepted.push({ ref, id: own[1] })
      continue
    }
    const other = batches.find((b) => b.refs.some(([r]) => r === ref))
    refused.push(other !== undefined ? { ref, reason: 'other-batch', batchId: other.batch } : { ref, reason: 'unknown' })
  }
  const sufficient = request.sufficient && accepted.length > 0 && request.nextStrategy === 'answer'
  const nextStrategy: NextStrategy = sufficient ? 'answer' : request.nextStrategy === 'answer' ? 'search' : request.nextStrategy
  const verdict: AssessVerdict = {
    verdict: sufficient ? 'sufficient' : 'insufficient',
    batchId: request.batchId,
    batchKnown: batch !== undefined,
    accepted,
    refused,
    nextStrategy,
    guidance: sufficient ? 'Answer from the accepted evidence only, and name it.' : nextStep(request, batch !== undefined, accepted.length, refused.length),
  }
  await backend.withLock(() =>
    backend.appendLedger({
      at: backend.now(),
      event: 'assess',
      session_id: request.session_id ?? null,
      batch: request.batchId,
      verdict: verdict.verdict,
      claimed: request.sufficient,
      accepted: accepted.map((a) => a.id),
      refused: refused.map((r) => r.ref),
      nextStrategy,
      missing: request.missing.slice(0, 200),
    }),
  )
  return verdict
}

/** What to do instead of answering, for the agent. */
function nextStep(request: AssessRequest, batchKnown: boolean, accepted: number, refused: number): string {
  const why = !batchKnown
    ? `Batch ${request.batchId} is not one of this session's latest ${BATCHES_PER_SESSION} searches.`
    : accepted === 0
      ? `None of the refs belongs to batch ${request.batchId}${refused > 0 ? ` (${refused} refused: cite refs of the search you name)` : ''}.`
      : !request.sufficient
        ? 'You said the evidence is not enough.'
        : `Your next strategy is ${request.nextStrategy}, not answer.`
  const what = request.nextQuery?.trim() || request.missing.trim()
  const next = what !== '' ? `Search next for: ${what.slice(0, 200)} (memory_search_hybrid, then assess that batch).` : 'Search again with other words, or browse with memory_nav, then assess the new batch.'
  return `Not sufficient: ${why} ${next} Do not answer as if memory said it.`
}
