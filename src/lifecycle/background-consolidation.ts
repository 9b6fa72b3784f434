/**
 * Automatic consolidation in the background, for the adapters that trigger it (the DSH prompt
 * heartbeat, an idle MCP server): `poke` asks `consolidationDue` and, when a run is due, runs
 * `consolidate(backend, { dryRun: false })`, all without the caller waiting. The same poke then
 * drains up to BACKGROUND_EMBED_TEXTS of the embedding queue (retrieve/vectors.ts) when the store
 * has an embedder: writes never wait for vectors, these idle moments fill them. One check or run in
 * flight per store at a time; it never throws to its caller (a failure is a console warning on
 * stderr, and the next attempt waits RETRY_AFTER_FAILURE_MS). It never runs on the write path:
 * only the adapters' idle moments poke it.
 */

import { consolidate } from '../memory/consolidation/consolidate.js'
import { consolidationDue } from '../memory/consolidation/triggers.js'
import { embedPending } from '../retrieve/vectors.js'
import type { MemoryBackend } from '../store/backend.js'

/** After a failed check or run, the next attempt waits this long (a broken store is not retried every turn). */
export const RETRY_AFTER_FAILURE_MS = 10 * 60_000
/** Texts one poke embeds at most: a turn's idle moment, not a whole store (`memory-agent embed` does that). */
export const BACKGROUND_EMBED_TEXTS = 256

export class BackgroundConsolidation {
  private inFlight: Promise<void> | null = null
  private retryAt = 0

  constructor(private readonly backend: MemoryBackend) {}

  /** Starts a check, and a run when one is due, unless one is in flight; returns at once. */
  poke(): void {
    if (this.inFlight !== null || Date.now() < this.retryAt) return
    this.inFlight = this.run()
      .catch((err: unknown) => {
        this.retryAt = Date.now() + RETRY_AFTER_FAILURE_MS
        console.warn(`dsh-memory-agent: background consolidation of ${this.backend.root}: ${err instanceof Error ? err.message : String(err)}`)
      })
      .finally(() => {
        this.inFlight = null
      })
  }

  /** Resolves when the check or run in flight, if any, has finished (adapters wait for it before closing). */
  idle(): Promise<void> {
    return this.inFlight ?? Promise.resolve()
  }

  private async run(): Promise<void> {
    if ((await consolidationDue(this.backend)).due) await consolidate(this.backend, { dryRun: false })
    await embedPending(this.backend, { limit: BACKGROUND_EMBED_TEXTS })
  }
}
