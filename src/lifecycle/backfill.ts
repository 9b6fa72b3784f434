/**
 * History backfill: the user-typed turns of past DSH sessions (`ctx.sessions`, read through
 * `SessionStore.list()` and `deriveMessages()`) settled into memory with the auto-settle rules
 * (auto-settle.ts). First an estimate that writes nothing (`dryRun`), then the run.
 *
 * Idempotent by (session, turn), where a turn is the n-th user-typed message of a session: each
 * finished turn is a ledger event `backfill/turn` in the ledger of the store given as `backend`
 * (the key store, whatever store a memory goes to), so an interrupted run resumes where it
 * stopped. A turn cut short mid-way is done again and its settled sentences come back as
 * duplicates, never as second copies. Memories are suggested (the confirmation gate, as
 * auto-settle) and written with `review: off`, so a backfill never floods today's review queue.
 * Never mutates a host message; never throws for one bad session or sentence (counted in `failed`).
 */

import type { MemoryBackend } from '../store/backend.js'
import { redactSecrets } from '../redact.js'
import { writeMemory } from '../memory/writing/write.js'
import { truncateUnits } from '../text.js'
import { AUTO_SETTLE_TAG, judgeMessage, userTypedMessages, type DropReason, type HostMessage, type SignalClass } from './auto-settle.js'

/** A session as the host's session store gives it (`HostSession` in host/host-types.ts), declared here so the library reaches no host module. */
export interface BackfillSession {
  readonly id: string
  deriveMessages(): readonly HostMessage[]
}

/** The host's `ctx.sessions`, as far as backfill reads it. */
export interface BackfillSessionSource {
  list(): readonly BackfillSession[]
}

export const BACKFILL_TAG = 'backfill'
export const BACKFILL_TURN_EVENT = 'backfill/turn'
export const BACKFILL_DEFAULTS = Object.freeze({ maxTurnsPerSession: 20, maxTotalTurns: 200 })
/** The hard cap of one run, whatever is asked. */
export const BACKFILL_MAX_TOTAL_TURNS = 5000
const SUMMARY_MAX = 2000

export interface BackfillProgress {
  sessions: number
  turnsDone: number
  turnsTotal: number
  written: number
  duplicates: number
  failed: number
  /** The session and turn just finished. */
  session_id: string
  turn: number
}

export interface BackfillOptions {
  /** True: count only, write nothing. Default true, as the seed's tool. */
  dryRun?: boolean
  /** Turns looked at per session, oldest first. Default 20. */
  maxTurnsPerSession?: number
  /** Turns settled in this run at most (at most 5000). Default 200. */
  maxTotalTurns?: number
  /** Called after every finished turn. */
  onProgress?: (progress: BackfillProgress) => void
  /** Stops the run before the next turn: finished turns stay done, the rest wait for the next run. */
  signal?: AbortSignal
  /** Which store a candidate goes to (project or user memory); default the key store. */
  storeFor?: (classes: readonly SignalClass[], sessionId: string) => MemoryBackend
}

export interface BackfillReport {
  dryRun: boolean
  /** Sessions with at least one user-typed turn. */
  sessions: number
  /** User-typed turns within maxTurnsPerSession. */
  turns: number
  /** Of those, turns finished by an earlier run. */
  alreadyDone: number
  /** Turns this run settles (dry run: would settle), within maxTotalTurns. */
  planned: number
  /** Turns left for a later run by maxTotalTurns or an interruption. */
  remaining: number
  /** Candidate sentences in the planned turns. */
  candidates: number
  /** Why the other sentences of the planned turns were dropped. */
  dropped: Partial<Record<DropReason, number>>
  /** Turns finished by this run. */
  turnsDone: number
  written: string[]
  /** Sentences the store held already (the write's outcome `duplicate` or `appended`). */
  duplicates: number
  /** Of those, the ones whose turn text was new: kept in the stored episode's raw file (outcome `appended`). */
  appended: number
  failed: number
  errors: string[]
  interrupted: boolean
}

interface Turn {
  session: string
  turn: number
  text: string
}

const turnKey = (session: string, turn: number) => `${session}\u0000${turn}`

/** The (session, turn) keys finished by earlier runs, from the key store's ledger. */
async function doneTurns(backend: MemoryBackend): Promise<Set<string>> {
  const done = new Set<string>()
  for (const e of await backend.readLedger()) {
    if (e.event === BACKFILL_TURN_EVENT && typeof e.session_id === 'string' && typeof e.turn === 'number') done.add(turnKey(e.session_id, e.turn))
  }
  return done
}

function sessionTurns(session: BackfillSession, maxPerSession: number): Turn[] {
  let messages
  try {
    messages = session.deriveMessages()
  } catch {
    return []
  }
  return userTypedMessages(messages)
    .slice(0, maxPerSession)
    .map((m, turn) => ({ session: session.id, turn, text: m.text }))
}

/** Estimates (dryRun, the default) or runs a backfill of `sessions` into `backend`. */
export async function backfillHistory(backend: MemoryBackend, sessions: BackfillSessionSource, options: BackfillOptions = {}): Promise<BackfillReport> {
  const dryRun = options.dryRun ?? true
  const perSession = Math.max(1, options.maxTurnsPerSession ?? BACKFILL_DEFAULTS.maxTurnsPerSession)
  const maxTotal = Math.min(BACKFILL_MAX_TOTAL_TURNS, Math.max(1, options.maxTotalTurns ?? BACKFILL_DEFAULTS.maxTotalTurns))
  await backend.init()
  const done = await doneTurns(backend)
  const listed = [...sessions.list()].sort((a, b) => a.id.localeCompare(b.id))
  const all = listed.map((s) => sessionTurns(s, perSession)).filter((t) => t.length > 0)
  const turns = all.flat()
  const open = turns.filter((t) => !done.has(turnKey(t.session, t.turn)))
  const planned = open.slice(0, maxTotal)
  const report: BackfillReport = {
    dryRun,
    sessions: all.length,
    turns: turns.length,
    alreadyDone: turns.length - open.length,
    planned: planned.length,
    remaining: open.length - planned.length,
    candidates: 0,
    dropped: {},
    turnsDone: 0,
    written: [],
    duplicates: 0,
    appended: 0,
    failed: 0,
    errors: [],
    interrupted: false,
  }
  const judged = planned.map((t) => ({ ...t, judged: judgeMessage(t.text) }))
  for (const t of judged) {
    for (const { judgement } of t.judged) {
      if (judgement.kept) report.candidates++
      else report.dropped[judgement.reason] = (report.dropped[judgement.reason] ?? 0) + 1
    }
  }
  if (dryRun) return report

  for (const t of judged) {
    if (options.signal?.aborted === true) {
      report.interrupted = true
      break
    }
    const ids: string[] = []
    let ok = true
    for (const { sentence, judgement } of t.judged) {
      if (!judgement.kept) continue
      try {
        const target = options.storeFor?.(judgement.classes, t.session) ?? backend
        const out = await settle(target, t, sentence, judgement.classes)
        if (out.dedupe !== undefined) report.duplicates++
        if (out.outcome === 'appended') report.appended++
        else report.written.push(out.id)
        ids.push(out.id)
      } catch (err) {
        ok = false
        report.failed++
        report.errors.push(`session ${t.session} turn ${t.turn}: ${err instanceof Error ? err.message : String(err)}`)
      }
    }
    // A turn with a failed sentence is not marked done: the next run tries it again.
    if (ok) {
      await backend.withLock(() => backend.appendLedger({ at: backend.now(), event: BACKFILL_TURN_EVENT, session_id: t.session, turn: t.turn, ids }))
      report.turnsDone++
    }
    options.onProgress?.({
      sessions: report.sessions,
      turnsDone: report.turnsDone,
      turnsTotal: report.planned,
      written: report.written.length,
      duplicates: report.duplicates,
      failed: report.failed,
      session_id: t.session,
      turn: t.turn,
    })
  }
  report.remaining = open.length - report.turnsDone
  return report
}

/** One sentence as a suggested episode, the whole message as its raw; secrets redacted first. */
function settle(target: MemoryBackend, t: Turn, sentence: string, classes: readonly SignalClass[]) {
  const summary = truncateUnits(redactSecrets(sentence).text, SUMMARY_MAX)
  return writeMemory(
    target,
    {
      type: 'episode',
      summary,
      raw: redactSecrets(t.text).text,
      tags: [AUTO_SETTLE_TAG, BACKFILL_TAG, ...classes],
      session_id: t.session,
      source: 'user',
      requireConfirmation: true,
    },
    { frontMatter: { review: 'off', backfill_turn: t.turn } },
  )
}
