/**
 * The watcher side of the token (store/watch-token.ts): a long-lived process (the MCP server,
 * `serve`, the DSH plugin, `memory-agent watch`) keeps the index and the saved file stats in line
 * with the memory folders as they change, and answers the asks of processes starting up.
 *
 * It checks exactly once (every file), then writes the token; each change it is told of folds in
 * soon after (SETTLE_MS), and each ask is answered only after a check that began after the ask
 * arrived. The token is renewed every HEARTBEAT_MS and removed when watching stops.
 */

import { isNotWritable } from '../errors.js'
import { ensureFresh, heldInMemory, saveSeenStats } from './freshness.js'
import type { MemoryBackend } from './backend.js'
import { MEMORY_FOLDERS } from './layout.js'
import { ASK_FOLDER, encodeToken, HEARTBEAT_MS, HEARTBEAT_STALE_MS, parseToken, processStarted, TOKEN_FILE } from './watch-token.js'

/** How long after a change the watcher folds it in, so that a burst is folded once. */
const SETTLE_MS = 20
const ASK = /^watch-ask-[0-9a-f]+$/

/**
 * Watches the store and vouches for it. Resolves, after the first exact check, with the function
 * that stops watching (and removes the token); never rejects. `onError` hears a check or a token
 * write that failed; the token is then not renewed, so starts check exactly again.
 */
export function watchStore(backend: MemoryBackend, onError: (err: unknown) => void): Promise<() => Promise<void>> {
  return startWatcher(backend, onError).catch((err: unknown) => {
    onError(err)
    return async () => {}
  })
}

async function startWatcher(backend: MemoryBackend, onError: (err: unknown) => void): Promise<() => Promise<void>> {
  const started = processStarted(process.pid)
  // A store not made yet is not made by watching it (reads never make one): watched from the next start.
  if (backend.watch === undefined || backend.writeBytesAtomic === undefined || started === null || !(await backend.exists())) return async () => {}
  const write = backend.writeBytesAtomic.bind(backend)
  let healthy = true
  let chain: Promise<void> = Promise.resolve()
  let pending = new Set<string>()
  let timer: NodeJS.Timeout | null = null
  const stops: Array<() => void> = []

  const check = async (): Promise<void> => {
    const asks = pending
    pending = new Set()
    try {
      await ensureFresh(backend)
      await saveSeenStats(backend)
      // Folded in this process only (a store it cannot write): a start would not see it.
      healthy = !heldInMemory(backend)
    } catch (err) {
      healthy = false
      onError(err)
    }
    if (!healthy) return
    for (const ask of asks) {
      // An ask that is gone (its removal is an event too) needs no answer.
      if ((await backend.stat(ask)) !== null) await write(`${ask}.ok`, new Uint8Array(0), { fsync: false }).catch(onError)
    }
  }
  const schedule = (delay: number): void => {
    if (timer !== null) return
    timer = setTimeout(() => {
      timer = null
      chain = chain.then(check)
    }, delay)
    timer.unref()
  }
  const renew = async (): Promise<void> => {
    const now = Date.now()
    await write(TOKEN_FILE, encodeToken({ pid: process.pid, started, heartbeat: now }), { fsync: false })
    // Asks whose asker gave up before the answer came.
    for (const path of await backend.listFiles(ASK_FOLDER)) {
      if (!ASK.test(path.slice(ASK_FOLDER.length + 1).replace(/\.ok$/, ''))) continue
      const st = await backend.stat(path)
      if (st !== null && now - st.mtimeMs > HEARTBEAT_STALE_MS) await backend.removeFile(path)
    }
  }

  try {
    // A token no start trusts yet (its heartbeat is 0), written first: it makes .cache, and tells
    // a store this process cannot write before anything else is written.
    await write(TOKEN_FILE, encodeToken({ pid: process.pid, started, heartbeat: 0 }), { fsync: false })
  } catch (err) {
    // Nothing to vouch with; the store's reads say themselves that it cannot be written.
    if (isNotWritable(err)) return async () => {}
    throw err
  }
  const asks = backend.watch(ASK_FOLDER, (path) => {
    const name = path?.slice(ASK_FOLDER.length + 1) ?? ''
    if (!ASK.test(name)) return
    pending.add(path as string)
    schedule(0)
  })
  if (asks === null) return async () => {}
  stops.push(asks)
  for (const { folder } of MEMORY_FOLDERS) {
    const stop = backend.watch(folder, () => schedule(SETTLE_MS))
    if (stop !== null) stops.push(stop)
  }
  await ensureFresh(backend)
  await saveSeenStats(backend)
  healthy = !heldInMemory(backend)
  if (healthy) await renew()
  const heartbeat = setInterval(() => {
    if (healthy) chain = chain.then(renew).catch(onError)
  }, HEARTBEAT_MS)
  heartbeat.unref()

  return async () => {
    clearInterval(heartbeat)
    if (timer !== null) clearTimeout(timer)
    stops.forEach((stop) => stop())
    await chain
    const bytes = await backend.readBytes?.(TOKEN_FILE).catch(() => null)
    if (bytes != null && parseToken(bytes)?.pid === process.pid) await backend.removeFile(TOKEN_FILE)
  }
}
