/**
 * Progress of a long operation on a store, for the adapter that shows it (the CLI's bar): the
 * adapter sets a listener for the store, the operation reports `done` of `total` to it. Without
 * a listener a report costs nothing. Pure bookkeeping: it draws nothing.
 */

import type { MemoryBackend } from './backend.js'

export type ProgressListener = (done: number, total: number) => void

const listeners = new WeakMap<MemoryBackend, ProgressListener>()

/** Sets (or, with null, removes) the listener of this store's progress reports. */
export function listenToProgress(backend: MemoryBackend, listener: ProgressListener | null): void {
  if (listener === null) listeners.delete(backend)
  else listeners.set(backend, listener)
}

/** The listener of this store, if an adapter set one. */
export function progressListener(backend: MemoryBackend): ProgressListener | undefined {
  return listeners.get(backend)
}
