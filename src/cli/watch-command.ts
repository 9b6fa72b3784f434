/**
 * `memory-agent watch`: watches a store and vouches for it (store/watcher.ts), so that a command
 * started meanwhile skips the look at every memory file. Runs until SIGINT or SIGTERM, then
 * removes its token and flushes.
 */

import { flushCaches } from '../retrieve/retriever.js'
import { requireStore } from '../store/existing.js'
import { createFileBackend } from '../store/file-backend.js'
import { watchStore } from '../store/watcher.js'
import { parseFlags } from './flags.js'
import { usageError } from './tool-commands.js'

export const WATCH_HELP = `memory-agent watch: watch the store so that other commands start without checking every file

Usage: memory-agent watch [--root DIR | --user] [--user-root DIR] [--no-user-root]

Checks every memory file once, then folds each edit, added or removed file in as it happens and
keeps a token in <root>/.cache/watcher.json. A command, MCP server or panel started meanwhile asks
this watcher instead of looking at every file (at 100,000 memories that look costs about 0.25 s).
A token of a watcher that is gone, or that does not answer within 0.3 s, is ignored: that start
checks every file. The MCP server, serve and the DSH plugin watch the same way while they run.
Runs until interrupted (Ctrl-C); prints one line once it vouches for the store.
`

export async function watchCommand(args: string[], storeRoot: (args: string[]) => string): Promise<number> {
  const flags = parseFlags('watch', args)
  if (flags.switches.has('--help')) {
    process.stdout.write(WATCH_HELP)
    return 0
  }
  if (flags.positionals.length > 0) throw usageError(`watch: unexpected argument ${JSON.stringify(flags.positionals[0])}`)
  const root = storeRoot(flags.args)
  const backend = createFileBackend(root)
  await requireStore(backend)
  const stop = await watchStore(backend, (err) => process.stderr.write(`memory-agent watch: ${err instanceof Error ? err.message : String(err)}\n`))
  process.stdout.write(`memory-agent watch: watching ${root}\n`)
  let stopped = (): void => undefined
  const signalled = new Promise<void>((resolve) => (stopped = resolve))
  // The file watchers keep no process alive: this timer does, until a signal.
  const alive = setInterval(() => undefined, 1 << 30)
  process.on('SIGINT', stopped)
  process.on('SIGTERM', stopped)
  await signalled
  clearInterval(alive)
  try {
    await stop()
  } finally {
    await flushCaches(backend)
    process.off('SIGINT', stopped)
    process.off('SIGTERM', stopped)
  }
  return 0
}
