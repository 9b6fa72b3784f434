/**
 * The "don't ask again" memo of a failing embedder, kept across processes: after a query could
 * not be embedded, `.cache/embedder-down.json` records which embedder failed, why, and until
 * when searches go by keywords alone. Every CLI search is a process of its own; without the file
 * each one would wait out the stalled endpoint again.
 *
 * Derived and best-effort: a store that cannot be written keeps the memo in this process only,
 * and a damaged or foreign file is as good as none. It never holds a secret (the message is the
 * adapter's, redacted before it is written like every line the store keeps).
 */

import type { MemoryBackend } from '../store/backend.js'
import type { Embedder } from './embedder.js'
import { warnOnce } from '../store/warn-once.js'
import { redactSecrets } from '../redact.js'

export const EMBEDDER_MEMO = '.cache/embedder-down.json'
/** After a query could not be embedded, searches of the store go by keywords alone this long before asking again. */
export const QUERY_RETRY_MS = 60_000

interface Memo {
  embedder: string
  until: number
  message: string
}

const inProcess = new WeakMap<MemoryBackend, Memo>()

function parse(text: string): Memo | null {
  try {
    const m = JSON.parse(text) as Partial<Memo>
    return typeof m.embedder === 'string' && typeof m.until === 'number' && typeof m.message === 'string' ? { embedder: m.embedder, until: m.until, message: m.message } : null
  } catch {
    return null
  }
}

/** The memo's name for an embedder: its id at its endpoint (pointing it elsewhere asks again at once). */
export function memoName(embedder: Embedder): string {
  return embedder.endpoint === undefined ? embedder.id : `${embedder.id} at ${embedder.endpoint}`
}

/** Why the embedder is not to be asked now, or null: ask it. */
export async function embedderDown(backend: MemoryBackend, name: string): Promise<string | null> {
  const now = Date.now()
  const held = inProcess.get(backend)
  if (held !== undefined && held.embedder === name && now < held.until) return held.message
  const text = await backend.readFile(EMBEDDER_MEMO).catch(() => null)
  const memo = text === null ? null : parse(text)
  // A memo from further ahead than one retry period is not one this program wrote: ignored.
  if (memo === null || memo.embedder !== name || now >= memo.until || memo.until - now > QUERY_RETRY_MS) return null
  inProcess.set(backend, memo)
  return memo.message
}

/** Records that the embedder failed: no process asks it again for QUERY_RETRY_MS. */
export async function noteEmbedderDown(backend: MemoryBackend, name: string, message: string): Promise<void> {
  const memo: Memo = { embedder: name, until: Date.now() + QUERY_RETRY_MS, message: redactSecrets(message).text }
  inProcess.set(backend, memo)
  try {
    await backend.writeFileAtomic(EMBEDDER_MEMO, `${JSON.stringify(memo)}\n`)
  } catch (err) {
    warnOnce(backend, 'embedder failure not recorded', err, 'other processes ask the embedder again')
  }
}

/** The embedder answered: every process may ask it again. */
export async function noteEmbedderUp(backend: MemoryBackend): Promise<void> {
  if (inProcess.get(backend) === undefined) return
  inProcess.delete(backend)
  await backend.removeFile(EMBEDDER_MEMO).catch((err: unknown) => warnOnce(backend, 'embedder failure not cleared', err, 'other processes wait for it to expire'))
}
