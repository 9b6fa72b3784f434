/**
 * Usage signals, written beside the search path, never on it: the top 5 hits of each search go
 * to usage.jsonl (`{ id, at, rank }`), each real query, redacted, to query-log.jsonl (`{ at,
 * query, hits }`, the latest 200 kept, the file rewritten under the store lock only when it passes
 * 250 lines). Both are shared logs (store/shared-log.ts): appended without the lock, and a trim or
 * a purge that rewrites one meanwhile never drops nor keeps a line it should not. A failure to
 * record never fails the search: evidence, not state. It is said once per store and file.
 * A write the store already held adds `{ id, at, repeat: true }` to usage.jsonl (recordRepeat):
 * the other use that strengthens a memory (strength.ts).
 */

import { afterAnswer, afterAnswerSettled } from '../../store/after-answer.js'
import type { MemoryBackend } from '../../store/backend.js'
import { jsonLine, redactSecrets } from '../../redact.js'
import { truncate } from '../../text.js'
import { addGain, EMPTY_SUM, STRENGTH, type LogSum } from './strength.js'

export const USAGE_FILE = 'usage.jsonl'
export const QUERY_LOG_FILE = 'query-log.jsonl'
export const USAGE_TOP = 5
export const QUERY_LOG_KEEP = 200
export const QUERY_LOG_TRIM_AT = 250

/** Lines appended to the query log by this process since it last counted the file. */
const appendedSinceCount = new WeakMap<MemoryBackend, number>()

/** Resolves when every signal write (and other side work of a search) started so far on this backend has finished. */
export function signalsSettled(backend: MemoryBackend): Promise<void> {
  return afterAnswerSettled(backend)
}

export interface SearchSignal {
  /** Whether the hits count as use (the store's learnFromSearches); the query is logged either way. */
  learn: boolean
  query: string
  hitIds: string[]
}

/** Records a search after it has answered, without ever failing it. */
export function recordSearch(backend: MemoryBackend, signal: SearchSignal): void {
  const at = backend.now()
  const top = signal.hitIds.slice(0, USAGE_TOP)
  if (signal.learn && top.length > 0) afterAnswer(backend, USAGE_FILE, () => appendUsage(backend, top.map((id, rank) => jsonLine({ id, at, rank: rank + 1 })).join('\n') + '\n'))
  // Redacted before the cut, so a cut never leaves the head of a secret that no longer looks like one.
  const query = truncate(redactSecrets(signal.query.replace(/\s+/g, ' ').trim()).text, 120)
  if (query === '') return
  afterAnswer(backend, QUERY_LOG_FILE, () => appendQuery(backend, jsonLine({ at, query, hits: signal.hitIds.length }) + '\n'))
}

/** Records that a write repeated a memory (strength.ts), without ever failing the write. */
export function recordRepeat(backend: MemoryBackend, id: string): void {
  const line = jsonLine({ id, at: backend.now(), repeat: true }) + '\n'
  afterAnswer(backend, USAGE_FILE, () => appendUsage(backend, line))
}

/**
 * Appends to usage.jsonl and, when the file is exactly what this process knew plus these lines
 * (nobody else wrote meanwhile), folds them into the known fold, so the next search reads no file.
 */
async function appendUsage(backend: MemoryBackend, lines: string): Promise<void> {
  await backend.appendLog(USAGE_FILE, lines)
  const known = usageFolds.get(backend)
  if (known === undefined || known.bytes < 0) return
  const st = await backend.stat(USAGE_FILE)
  if (st === null || st.size !== known.bytes + Buffer.byteLength(lines) || usageFolds.get(backend) !== known) return
  foldUsage(lines, known.stats)
  usageFolds.set(backend, { signature: signatureOf(st), bytes: st.size, text: known.text + lines, stats: known.stats })
}

async function appendQuery(backend: MemoryBackend, line: string): Promise<void> {
  await backend.appendLog(QUERY_LOG_FILE, line)
  const count = (appendedSinceCount.get(backend) ?? QUERY_LOG_TRIM_AT) + 1
  appendedSinceCount.set(backend, count)
  // Count the file only when this process may have pushed it past the mark (other processes append too).
  if (count < QUERY_LOG_TRIM_AT - QUERY_LOG_KEEP) return
  const lines = nonEmptyLines(await backend.readFile(QUERY_LOG_FILE))
  appendedSinceCount.set(backend, Math.max(0, lines.length - QUERY_LOG_KEEP))
  if (lines.length <= QUERY_LOG_TRIM_AT) return
  // Under the lock, as a purge rewrites it; appends go on meanwhile and land in the trimmed file.
  await backend.withLock(() => backend.rewriteLog(QUERY_LOG_FILE, (text) => {
    const all = nonEmptyLines(text)
    return all.length > QUERY_LOG_KEEP ? `${all.slice(-QUERY_LOG_KEEP).join('\n')}\n` : null
  }))
  appendedSinceCount.set(backend, 0)
}

const nonEmptyLines = (text: string | null): string[] => (text ?? '').split('\n').filter((l) => l.trim() !== '')

export interface QueryLogLine {
  at: string
  query: string
  hits: number
}

export interface UsageStats {
  /** Searches whose top 5 held the memory. */
  hits: number
  lastHitAt: string | null
  /** Writes that repeated it. */
  repeats: number
  lastRepeatAt: string | null
  /** Every use, each gain faded by its age (strength.ts). */
  uses: LogSum
}

function parseLines<T>(text: string | null, valid: (v: Record<string, unknown>) => boolean): T[] {
  const out: T[] = []
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue
    try {
      const v: unknown = JSON.parse(line)
      if (typeof v === 'object' && v !== null && valid(v as Record<string, unknown>)) out.push(v as T)
    } catch {
      // a torn line: skipped
    }
  }
  return out
}

export async function readQueryLog(backend: MemoryBackend): Promise<QueryLogLine[]> {
  return parseLines<QueryLogLine>(await backend.readFile(QUERY_LOG_FILE), (v) => typeof v.at === 'string' && typeof v.query === 'string' && typeof v.hits === 'number')
}

function foldUsage(text: string, stats: Map<string, UsageStats>): Map<string, UsageStats> {
  for (const { id, at, repeat } of parseLines<{ id: string; at: string; repeat?: unknown }>(text, (v) => typeof v.id === 'string' && typeof v.at === 'string')) {
    const s = stats.get(id) ?? { hits: 0, lastHitAt: null, repeats: 0, lastRepeatAt: null, uses: EMPTY_SUM }
    const ms = Date.parse(at)
    if (repeat === true) {
      s.repeats++
      if (s.lastRepeatAt === null || at > s.lastRepeatAt) s.lastRepeatAt = at
      if (!Number.isNaN(ms)) s.uses = addGain(s.uses, STRENGTH.repeatGain, ms)
    } else {
      s.hits++
      if (s.lastHitAt === null || at > s.lastHitAt) s.lastHitAt = at
      if (!Number.isNaN(ms)) s.uses = addGain(s.uses, STRENGTH.hitGain, ms)
    }
    stats.set(id, s)
  }
  return stats
}

/**
 * The fold of usage.jsonl per backend, kept with the text it was made from: the file is only
 * appended to between the rare rewrites (a purge), so a later read folds only what was appended
 * since, and folds all again when the text it knew is no longer the start of the file.
 */
interface UsageFold {
  signature: string
  /** The file's length in bytes that the fold stands for; -1 when it ended in a torn line (then the next change is read). */
  bytes: number
  text: string
  stats: Map<string, UsageStats>
}
const usageFolds = new WeakMap<MemoryBackend, UsageFold>()

function refold(backend: MemoryBackend, signature: string, text: string | null): Map<string, UsageStats> {
  const known = usageFolds.get(backend)
  const full = text ?? ''
  // Whole lines only: a line being appended right now is read once it is complete.
  const now = full.slice(0, full.lastIndexOf('\n') + 1)
  // Extended in place: a reader that holds the map sees later uses too, never fewer.
  const stats = known !== undefined && known.text !== '' && now.startsWith(known.text) ? foldUsage(now.slice(known.text.length), known.stats) : foldUsage(now, new Map())
  usageFolds.set(backend, { signature, bytes: now.length === full.length ? Buffer.byteLength(full) : -1, text: now, stats })
  return stats
}

const signatureOf = (st: { size: number; mtimeMs: number } | null) => (st === null ? 'none' : `${st.size}:${st.mtimeMs}`)

/** Hits, repeats and the faded sum of uses per memory id, from usage.jsonl. Read-only for callers; later uses are folded into it. */
export async function readUsage(backend: MemoryBackend): Promise<Map<string, UsageStats>> {
  const signature = signatureOf(await backend.stat(USAGE_FILE))
  const known = usageFolds.get(backend)
  if (known?.signature === signature) return known.stats
  return refold(backend, signature, await backend.readFile(USAGE_FILE))
}

/** The same, read synchronously (for resident injection). */
export function readUsageSync(backend: MemoryBackend): Map<string, UsageStats> {
  const sync = backend.sync
  if (sync === undefined) return new Map()
  const st = sync.stat(USAGE_FILE)
  const signature = signatureOf(st)
  const known = usageFolds.get(backend)
  if (known?.signature === signature) return known.stats
  return refold(backend, signature, st === null ? null : sync.readFile(USAGE_FILE))
}
