/**
 * Side work of a read, run once the read has answered: a turn of the event loop later, so none of
 * its file work (usage, the query log, an evidence trim, the keyword lookup's next step) is on the
 * read's path. Tracked per backend until done, so that a caller that must (an adapter before it
 * exits, a test) can wait for it; a failure is said once, naming `what`, and never fails anything.
 */

import type { MemoryBackend } from './backend.js'
import { warnOnce } from './warn-once.js'

const pending = new WeakMap<MemoryBackend, Set<Promise<void>>>()

/** Runs `work` after the answer, tracked until done (`afterAnswerSettled`). */
export function afterAnswer(backend: MemoryBackend, what: string, work: () => Promise<unknown>): void {
  let set = pending.get(backend)
  if (set === undefined) pending.set(backend, (set = new Set()))
  const p = new Promise<void>((resolve) => setImmediate(resolve))
    .then(work)
    .then(
      () => undefined,
      (err: unknown) => warnOnce(backend, `${what} not done`, err, 'searches go on without it'),
    )
  set.add(p)
  void p.then(() => set?.delete(p))
}

/** Resolves when every piece of side work started so far on this backend has finished. */
export async function afterAnswerSettled(backend: MemoryBackend): Promise<void> {
  const set = pending.get(backend)
  while (set !== undefined && set.size > 0) await Promise.all([...set])
}
