/** What a tab of the panel is: its element, and what happens when it is shown or dropped. */

import type { StoreName } from '../api-types.js'

export interface View {
  el: HTMLElement
  /** Called each time the tab is shown (reload what may have changed). */
  show?(): void
  dispose?(): void
  /** The memories tab only: run a search there. */
  search?(query: string): void
  /** The memories tab only: show one memory, its details open. */
  reveal?(id: string, store: StoreName): void
}
