/**
 * `memory-agent sync`: the store shared through git (`src/sync/`). Reads its flags, prints
 * progress to a terminal, and the result as text or `--json`. Errors go up to main, which maps
 * their code to the exit status once.
 */

import { flushCaches } from '../retrieve/retriever.js'
import { createFileBackend } from '../store/file-backend.js'
import { describeSync } from '../sync/describe.js'
import { syncStore } from '../sync/sync.js'
import { parseFlags } from './flags.js'
import { usageError } from './tool-commands.js'

export const SYNC_HELP = `memory-agent sync: share the store through git, across machines and teammates

Usage: memory-agent sync [--remote URL] [--root DIR | --user] [--user-root DIR] [--no-user-root] [--json]

Commits what changed in the store (the commit message lists the ledger events since the last
sync), pulls from the remote, settles what git could not merge, re-indexes the changed files
and pushes. Run it as often as you like: with nothing new it changes nothing.

  --remote URL   set the remote (git's "origin") to URL and sync with it; later syncs reuse it.
                 Any URL git accepts: git@host:me/memory.git, https://..., /path/to/repo.git
  --root DIR     the store (default: $MEMORY_AGENT_ROOT, else ./.agent/memory); --user: ~/.agent/memory
                 (--user-root DIR moves it; --no-user-root is taken, as by every store command)
  --json         the structured result instead of text

The first sync makes the store a git repository (or uses the project repository it is in).
Committed: memory files, ledger.jsonl, README and folder notes, config.json, aliases.json,
.gitignore, .gitattributes. Not committed: index.jsonl, .cache/, usage.jsonl, query-log.jsonl,
rooms.json, rooms-log.jsonl, digests/ and locks (derived or per machine; rebuilt after a pull).
When both sides changed one memory, both versions are kept as memories in conflict: settle them
with \`memory-agent resolve ID --action keep|drop\`. A file that holds something shaped like a
secret stops the sync before anything is committed or pushed, and the error names the file.
Exit codes: 0 ok, 2 usage, 4 refused (a secret, a conflict outside the store, no branch),
6 another sync or writer held the store too long, 1 git failed (the message says why).
`

export async function syncCommand(args: string[], storeRoot: (args: string[]) => string): Promise<number> {
  const flags = parseFlags('sync', args, { valued: ['--remote'], switches: ['--json'] })
  if (flags.switches.has('--help')) {
    process.stdout.write(SYNC_HELP)
    return 0
  }
  if (flags.positionals.length > 0) throw usageError(`sync: unexpected argument ${JSON.stringify(flags.positionals[0])} (a remote goes with --remote URL)`)
  const remote = flags.values.get('--remote')
  const json = flags.switches.has('--json')
  const backend = createFileBackend(storeRoot(flags.args))
  try {
    const result = await syncStore(backend, {
      ...(remote !== undefined ? { remote } : {}),
      // Progress only where a person watches; pipes and --json get the result alone.
      ...(process.stderr.isTTY && !json ? { onProgress: (p) => void process.stderr.write(`${p.message}...\n`) } : {}),
    })
    process.stdout.write(json ? `${JSON.stringify(result, null, 2)}\n` : describeSync(result))
    return 0
  } finally {
    await flushCaches(backend)
  }
}
