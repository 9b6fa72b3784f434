/**
 * Auto-settle, the writes: the one place where extracted candidates become memories, plus the
 * throttle that decides when a session is worth a look and the tracker of messages already seen.
 *
 * Every memory it writes is a suggested episode (requireConfirmation is hard-coded, never an
 * option): machine extraction will misjudge, so nothing reaches search until memory_confirm.
 * It must never throw to its caller (the host's prompt assembly or session end): every failure
 * becomes a console.warn and an entry in the result. It reads host messages and never mutates them.
 */

import type { RedactionKind } from '../redact.js'
import { redactSecrets } from '../redact.js'
import type { MemoryBackend } from '../store/backend.js'
import { truncateUnits } from '../text.js'
import type { WriteOutcome } from '../memory/writing/write-result.js'
import { writeHandler } from '../tools/write-memory.js'
import { AUTO_SETTLE_TAG, extractCandidates, userTypedMessages, type HostMessage, type SignalClass } from './auto-settle.js'

export interface AutoSettleOptions {
  /** The least time between two attempts on a session. */
  minIntervalMs: number
  /** A session needs at least this many user-typed messages before it is looked at. */
  minMessages: number
  /** At most this many new memories per attempt; the rest waits for the next one. */
  maxCandidates: number
}

/** The seed's defaults. The on/off switch is `autoSettleEnabled` in the runtime config (default false). */
export const AUTO_SETTLE_DEFAULTS: Readonly<AutoSettleOptions> = Object.freeze({ minIntervalMs: 90_000, minMessages: 4, maxCandidates: 3 })

export interface ThrottleInput {
  /** Milliseconds since the epoch. */
  now: number
  /** When the last attempt on this session started, or null for never. */
  lastRunAt: number | null
  userMessageCount: number
  options: Pick<AutoSettleOptions, 'minIntervalMs' | 'minMessages'>
}

/** Whether a heartbeat should start an attempt. Pure: the caller keeps lastRunAt. */
export function shouldRun({ now, lastRunAt, userMessageCount, options }: ThrottleInput): boolean {
  if (userMessageCount < options.minMessages) return false
  if (lastRunAt === null) return true
  const elapsed = now - lastRunAt
  // A clock set back gives a negative elapsed time: run rather than stall until it catches up.
  return elapsed < 0 || elapsed >= options.minIntervalMs
}

/**
 * The user messages already settled, per session, by message key (rpcId and text hashed, so a
 * history that shifts or is re-derived never brings a message back). In memory: after a restart
 * the write path's dedupe keeps repeats out.
 */
export class SettledMessages {
  private readonly bySession = new Map<string, Set<string>>()

  has(sessionId: string, key: string): boolean {
    return this.bySession.get(sessionId)?.has(key) ?? false
  }

  add(sessionId: string, key: string): void {
    let keys = this.bySession.get(sessionId)
    if (keys === undefined) this.bySession.set(sessionId, (keys = new Set()))
    keys.add(key)
  }

  /** Drops what is known about a session (when the host disposes it). */
  forget(sessionId: string): void {
    this.bySession.delete(sessionId)
  }
}

export interface SettleRequest {
  sessionId: string
  /** The session's history as the host derives it; read only. */
  messages: readonly HostMessage[]
  /** Only maxCandidates is read here; the rest is for shouldRun. */
  options?: Partial<AutoSettleOptions>
  /** Messages settled before; the messages this call finishes are added to it. */
  tracker?: SettledMessages
}

export interface SettledMemory {
  id: string
  /** What the write did: `held` (suggested) unless the store settles otherwise. */
  outcome: WriteOutcome
  summary: string
  classes: SignalClass[]
  redactions: RedactionKind[]
}

export interface SettleResult {
  /** New suggested memories. */
  written: SettledMemory[]
  /** Candidates the store already held (dedupe by the write path). */
  skipped: { id: string; summary: string; dedupe: 'exact' | 'near'; outcome: WriteOutcome }[]
  /** One line per failure, also sent to console.warn. */
  errors: string[]
  /** Candidates found in the messages this call looked at. */
  candidates: number
  /** User messages left for a later call because maxCandidates was reached. */
  pending: number
}

/** The summary field holds at most 2000 characters; the whole message is kept as raw anyway. */
const SUMMARY_MAX = 2000

function warn(result: SettleResult, what: string, err: unknown): void {
  const line = `${what}: ${err instanceof Error ? err.message : String(err)}`
  result.errors.push(line)
  console.warn(`dsh-memory-agent: auto-settle ${line}`)
}

/**
 * Settles the new user-typed messages of one session: each candidate sentence becomes a suggested
 * episode whose raw is the whole message, and one `lifecycle/auto-settle` ledger event records
 * the call. Never throws.
 */
export async function settleCandidates(backend: MemoryBackend, request: SettleRequest): Promise<SettleResult> {
  const result: SettleResult = { written: [], skipped: [], errors: [], candidates: 0, pending: 0 }
  const { sessionId, tracker } = request
  const max = request.options?.maxCandidates ?? AUTO_SETTLE_DEFAULTS.maxCandidates
  try {
    const queue = userTypedMessages(request.messages).filter((m) => tracker?.has(sessionId, m.key) !== true)
    for (const [i, message] of queue.entries()) {
      const found = extractCandidates(message.text)
      // A message is finished only when all its candidates were tried; one cut short by the cap
      // stays pending, and its settled sentences come back next time as dedupe.
      if (found.length > 0 && result.written.length >= max) {
        result.pending = queue.length - i
        break
      }
      result.candidates += found.length
      let cut = false
      for (const candidate of found) {
        if (result.written.length >= max) {
          cut = true
          break
        }
        await settleOne(backend, sessionId, candidate.text, candidate.classes, message.text, result)
      }
      if (cut) {
        result.pending = queue.length - i
        break
      }
      tracker?.add(sessionId, message.key)
    }
    if (result.candidates > 0) {
      const ids = result.written.map((w) => w.id)
      await backend.withLock(() =>
        backend.appendLedger({ at: backend.now(), event: 'lifecycle/auto-settle', session_id: sessionId, ids, candidates: result.candidates, kept: ids.length }),
      )
    }
  } catch (err) {
    warn(result, `session ${sessionId}`, err)
  }
  return result
}

async function settleOne(backend: MemoryBackend, sessionId: string, sentence: string, classes: SignalClass[], raw: string, result: SettleResult): Promise<void> {
  // Redacted here whatever the store's redactSecrets switch says: that switch is for memories
  // someone chose to write, and chat text captured by a machine is not one. The write path
  // redacts again, a no-op on text already redacted.
  const redacted = redactSecrets(sentence)
  // Cut after redacting, so a cut never leaves half a secret that no longer looks like one.
  const summary = { text: truncateUnits(redacted.text, SUMMARY_MAX), kinds: redacted.kinds }
  const rawText = redactSecrets(raw)
  try {
    const out = await writeHandler(backend, {
      type: 'episode',
      summary: summary.text,
      raw: rawText.text,
      tags: [AUTO_SETTLE_TAG, ...classes],
      session_id: sessionId,
      source: 'user',
      requireConfirmation: true,
    })
    if (out.dedupe !== undefined) {
      // `appended`: the sentence was settled before, and this message is kept as its raw text too.
      result.skipped.push({ id: out.id, summary: summary.text, dedupe: out.dedupe, outcome: out.outcome })
    } else {
      const redactions = [...new Set([...summary.kinds, ...rawText.kinds, ...out.redactions])]
      result.written.push({ id: out.id, outcome: out.outcome, summary: summary.text, classes, redactions })
    }
  } catch (err) {
    warn(result, `candidate "${truncateUnits(summary.text, 40)}"`, err)
  }
}
