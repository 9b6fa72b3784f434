/**
 * ledger.jsonl: the append-only audit trail. This module only parses lines; appending is the
 * backend's job and nothing ever rewrites the file.
 */

import type { LedgerEvent } from '../types.js'

/** One ledger line to an event, or null when it does not parse or lacks `at` / `event`. */
export function parseLedgerLine(line: string): LedgerEvent | null {
  try {
    const raw: unknown = JSON.parse(line)
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null
    const r = raw as Record<string, unknown>
    if (typeof r.at !== 'string' || typeof r.event !== 'string') return null
    return r as LedgerEvent
  } catch {
    return null
  }
}
