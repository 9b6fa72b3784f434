/**
 * The heartbeat: the resident-injection provider calls `tick` on every prompt assembly. A tick is
 * synchronous and cheap and starts the real work in the background without waiting for it:
 * - auto-settle (is the switch on, which sessions were not looked at for minIntervalMs, and of
 *   those, which have enough user-typed messages), the writer's `settleCandidates`;
 * - automatic consolidation (lifecycle/background-consolidation.ts), when consolidationDue says so.
 * It subscribes to no session event, never throws to the host (failures are console warnings) and
 * never mutates a host message. Switches and thresholds are read from the runtime config on every
 * tick, so the panel's `autoSettleEnabled` and `consolidateAfterEpisodes` apply from the next turn on.
 */

import { isUserTyped } from '../lifecycle/auto-settle.js'
import { BackgroundConsolidation } from '../lifecycle/background-consolidation.js'
import { SettledMessages, settleCandidates, shouldRun, type AutoSettleOptions } from '../lifecycle/auto-settle-writer.js'
import type { HostMessage } from '../lifecycle/auto-settle.js'
import { loadConfigSync } from '../memory/settings/config.js'
import type { MemoryBackend } from '../store/backend.js'
import type { SessionStore } from './host-types.js'

interface DueSession {
  sessionId: string
  messages: readonly HostMessage[]
}

function warn(err: unknown): void {
  console.warn(`dsh-memory-agent: auto-settle heartbeat: ${err instanceof Error ? err.message : String(err)}`)
}

export class Heartbeat {
  /** When the last attempt on each session started (ms since the epoch). */
  private readonly lastRunAt = new Map<string, number>()
  private readonly settled = new SettledMessages()
  private inFlight: Promise<void> | null = null
  private readonly consolidation: BackgroundConsolidation

  constructor(
    private readonly backend: MemoryBackend,
    private readonly options: AutoSettleOptions,
  ) {
    this.consolidation = new BackgroundConsolidation(backend)
  }

  /** Starts a consolidation when one is due, and an auto-settle attempt on the sessions that are due (none without a session store). */
  tick(sessions: SessionStore | undefined, now: number = Date.now()): void {
    this.consolidation.poke()
    this.settleTick(sessions, now)
  }

  private settleTick(sessions: SessionStore | undefined, now: number): void {
    if (sessions === undefined || this.inFlight !== null) return
    try {
      if (!loadConfigSync(this.backend).autoSettleEnabled) return
      const due: DueSession[] = []
      for (const session of sessions.list()) {
        const lastRunAt = this.lastRunAt.get(session.id) ?? null
        // The interval first: deriving a long session's messages is the costly part of a tick.
        if (!shouldRun({ now, lastRunAt, userMessageCount: Number.POSITIVE_INFINITY, options: this.options })) continue
        const messages = session.deriveMessages()
        const userMessageCount = messages.filter(isUserTyped).length
        if (!shouldRun({ now, lastRunAt, userMessageCount, options: this.options })) continue
        this.lastRunAt.set(session.id, now)
        due.push({ sessionId: session.id, messages })
      }
      if (due.length === 0) return
      this.inFlight = this.settle(due)
        .catch(warn)
        .finally(() => {
          this.inFlight = null
        })
    } catch (err) {
      warn(err)
    }
  }

  /** Resolves when the work in flight, if any, has finished (the plugin waits for it on dispose). */
  async idle(): Promise<void> {
    await Promise.all([this.inFlight, this.consolidation.idle()])
  }

  private async settle(due: readonly DueSession[]): Promise<void> {
    // One session after the other: the writes share the store lock anyway.
    for (const { sessionId, messages } of due) {
      await settleCandidates(this.backend, { sessionId, messages, options: this.options, tracker: this.settled })
    }
  }
}
