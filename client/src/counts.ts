/**
 * Every counter the panel shows, from one source: the list counts the status op gives per store
 * (counted by the very test the list filters with, src/memory/reading/listing.ts), added up over
 * the stores of the scope. The head's counters, the filter chips and the scope switch all read
 * `countsIn`, so a number above the list is the number of rows the list has.
 */

import type { ListCounts, MemoryStatus, PanelScope, StoreName } from './api-types.js'
import type { Status } from './context.js'
import type { MessageKey } from './i18n.js'

/** A list of the memories tab: every memory but the soft-deleted (all), or one status. */
export type Filter = 'all' | Exclude<MemoryStatus, 'active'>

/** The lists, in the order the chips show them. */
export const FILTERS: ReadonlyArray<{ id: Filter; label: MessageKey }> = [
  { id: 'all', label: 'filterAll' },
  { id: 'suggested', label: 'filterSuggested' },
  { id: 'conflict', label: 'filterConflict' },
  { id: 'deleted_pending', label: 'filterDeleted' },
  { id: 'orphaned', label: 'filterOrphaned' },
  { id: 'archived', label: 'filterArchived' },
  { id: 'superseded', label: 'filterSuperseded' },
]

/** The stores a scope covers, of those the status lists. */
export function storesOf(status: Status, scope: PanelScope): StoreName[] {
  const served: StoreName[] = status.stores.user !== undefined ? ['project', 'user'] : ['project']
  return scope === 'all' ? served : served.filter((s) => s === scope)
}

/** The list counts of the scope's stores, added up. */
export function countsIn(status: Status, scope: PanelScope): ListCounts {
  const out = { ...status.stores.project.counts }
  for (const key of Object.keys(out) as Array<keyof ListCounts>) out[key] = 0
  for (const store of storesOf(status, scope)) {
    const counts = status.stores[store]?.counts
    if (counts === undefined) continue
    for (const key of Object.keys(out) as Array<keyof ListCounts>) out[key] += counts[key]
  }
  return out
}
