/**
 * What every view of the panel shares: the translator, the op runner that turns failures into a
 * shown error (and a lock on FORBIDDEN), the latest status (path, counters, configuration) with
 * its listeners, and the line where a card says what its last action did.
 */

import type { OpName, Ops, PanelScope, StoreName, ToolName, Tools } from './api-types.js'
import { h, replaceChildren } from './dom.js'
import type { Locale, Translate } from './i18n.js'
import { ApiError } from './transport.js'

export type Status = Ops['status']['result']

export interface PanelContext {
  t: Translate
  locale: Locale
  /**
   * Runs an op. A failure is shown on `line` (or the panel's notice) as its code and message and
   * yields undefined; a missing or refused key locks the panel.
   */
  run<K extends OpName>(op: K, args?: Ops[K]['args'], line?: ResultLine): Promise<Ops[K]['result'] | undefined>
  /** Runs a registry tool through the `tool` op, as every other surface calls it; failures as `run`. */
  tool<N extends ToolName>(name: N, input: Tools[N]['input'], line?: ResultLine): Promise<Tools[N]['output'] | undefined>
  status(): Status | null
  /** Which stores the panel shows: both (all), the personal store (user) or the project store. */
  scope(): PanelScope
  onScope(listener: (scope: PanelScope) => void): () => void
  /** Switches to the memories tab and opens one memory there (a link from the operation log). */
  showMemory(id: string, store: StoreName): void
  refreshStatus(): Promise<void>
  onStatus(listener: (status: Status) => void): () => void
  /** Switches to the memories tab and searches there. */
  searchFor(query: string): void
}

/** A card's result line: what the last action did, or its error with code and message. */
export class ResultLine {
  readonly el = h('p', { class: 'dma-result', attrs: { role: 'status', 'aria-live': 'polite', hidden: true } })

  ok(...parts: Array<string | Node>): void {
    this.show('ok', 'status', parts)
  }

  /** A failure that is no API error (a bad key pasted, an empty form). */
  fail(text: string): void {
    this.show('error', 'alert', [text])
  }

  error(err: unknown, prefix: string): void {
    const code = err instanceof ApiError ? err.code : 'ERROR'
    const message = err instanceof Error ? err.message : String(err)
    this.show('error', 'alert', [h('strong', { class: 'dma-error-code', attrs: { 'data-role': 'error-code' } }, code), ` ${prefix}: ${message}`])
  }

  private show(kind: 'ok' | 'error', role: string, parts: ReadonlyArray<string | Node>): void {
    this.el.className = `dma-result dma-result-${kind}`
    this.el.setAttribute('role', role)
    this.el.dataset['kind'] = kind
    replaceChildren(this.el, ...parts)
    this.el.hidden = false
  }

  clear(): void {
    this.el.hidden = true
    replaceChildren(this.el)
  }
}
