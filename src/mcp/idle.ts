/**
 * Consolidation when the MCP server is idle: every tool call begins and ends here; once no call
 * has run for `idleMs`, the store is consolidated in the background if a run is due, and the
 * embedding queue drained when the store has an embedder (lifecycle/background-consolidation.ts
 * decides and runs, one at a time). Its timer never keeps
 * the process alive, and nothing starts before `arm` (the server arms it when it connects).
 */

import { BackgroundConsolidation } from '../lifecycle/background-consolidation.js'
import type { MemoryBackend } from '../store/backend.js'

export class IdleConsolidation {
  private readonly runner: BackgroundConsolidation
  private timer: NodeJS.Timeout | null = null
  private busy = 0
  private closed = false

  constructor(
    backend: MemoryBackend,
    private readonly idleMs: number,
  ) {
    this.runner = new BackgroundConsolidation(backend)
  }

  /** A call began: the idle wait starts over when it ends. */
  begin(): void {
    this.busy++
    this.disarm()
  }

  /** A call ended. */
  end(): void {
    this.busy = Math.max(0, this.busy - 1)
    if (this.busy === 0) this.arm()
  }

  /** Starts the idle wait: after idleMs without a call, a consolidation starts if one is due. */
  arm(): void {
    if (this.closed) return
    this.disarm()
    this.timer = setTimeout(() => {
      this.timer = null
      this.runner.poke()
    }, this.idleMs)
    this.timer.unref()
  }

  /** Stops the wait and resolves when a run in flight has finished. */
  async close(): Promise<void> {
    this.closed = true
    this.disarm()
    await this.runner.idle()
  }

  private disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
  }
}
