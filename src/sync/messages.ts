/**
 * Commit messages made from what the ledger recorded since the last sync, so that `git log`
 * reads as the store's history: a subject that counts the events by kind, then one line per
 * event (at most 100). Files changed with no event behind them (a hand edit not yet noticed,
 * the store's own settings) are listed instead. Pure.
 */

import type { LedgerEvent } from '../types.js'

const MAX_LINES = 100

/** The ledger lines of `working` that `committed` does not have (the file is append-only). Pure. */
export function newLedgerLines(committed: string, working: string): string[] {
  const fresh = working.startsWith(committed) ? working.slice(committed.length) : null
  if (fresh !== null) return fresh.split('\n').filter((l) => l.trim() !== '')
  // Not a prefix (a merge put lines in between): fall back to the lines committed does not have.
  const old = new Set(committed.split('\n'))
  return working.split('\n').filter((l) => l.trim() !== '' && !old.has(l))
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : word.endsWith('s') ? 'es' : 's'}`
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

/** One event as a line of the commit message. */
export function eventLine(e: LedgerEvent): string {
  const parts: string[] = [e.event]
  const change = str(e['change'])
  if (change !== null) parts.push(change)
  if (str(e.id) !== null) parts.push(e.id as string)
  const ids = Array.isArray(e.ids) ? e.ids.filter((i): i is string => typeof i === 'string') : []
  if (ids.length > 0) parts.push(`(${ids.slice(0, 5).join(', ')}${ids.length > 5 ? `, +${ids.length - 5}` : ''})`)
  for (const field of ['type', 'status', 'action', 'path', 'session_id']) {
    const v = str(e[field])
    if (v !== null) parts.push(field === 'session_id' ? `session ${v}` : v)
  }
  return `- ${parts.join(' ')}`
}

export function commitMessage(events: readonly LedgerEvent[], files: readonly string[]): string {
  if (events.length === 0) {
    const listed = files.slice(0, MAX_LINES).map((f) => `- ${f}`)
    if (files.length > listed.length) listed.push(`- and ${files.length - listed.length} more`)
    return `memory-agent sync: ${plural(files.length, 'file')} changed\n\n${listed.join('\n')}\n`
  }
  const byKind = new Map<string, number>()
  for (const e of events) byKind.set(e.event, (byKind.get(e.event) ?? 0) + 1)
  const subject = [...byKind].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => plural(n, k)).join(', ')
  const lines = events.slice(0, MAX_LINES).map(eventLine)
  if (events.length > lines.length) lines.push(`- and ${events.length - lines.length} more events`)
  return `memory-agent sync: ${subject}\n\n${lines.join('\n')}\n\n${plural(files.length, 'file')} changed.\n`
}
