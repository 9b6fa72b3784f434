// Child-process worker for test/shared-log.test.ts: one process appending to a shared log without
// the lock, or one rewriting it under the lock, as searches and a trim or purge do.
//
// usage: node log-race.mjs <root> append <tag> <count>   appends <count> lines { tag, n, drop }
//                                                          (every third one marked drop: true)
//        node log-race.mjs <root> rewrite <tag> <count>  <count> rewrites that drop the lines
//                                                          marked drop, then stops
// Prints "ready", waits for "go", then prints one JSON report: { appended } (the lines, as
// written) or { dropped, rewrites } (every line a rewrite dropped).

import { createFileBackend } from '../../lib/api.js'
import { waitForGo } from './protocol.mjs'

const LOG = 'query-log.jsonl'
const [root, role, tag, countArg] = process.argv.slice(2)
const count = Number(countArg)
if (!root || (role !== 'append' && role !== 'rewrite') || !tag || !(count > 0)) {
  process.stderr.write('usage: log-race.mjs <root> append|rewrite <tag> <count>\n')
  process.exit(2)
}

const backend = createFileBackend(root)
const lines = (text) => text.split('\n').filter((l) => l.trim() !== '')
const dropMarked = (text) => {
  const kept = lines(text).filter((l) => !l.includes('"drop":true'))
  return kept.length > 0 ? `${kept.join('\n')}\n` : ''
}

await waitForGo()
process.stdin.pause()
if (role === 'append') {
  const appended = []
  for (let n = 0; n < count; n++) {
    const line = JSON.stringify({ tag, n, drop: n % 3 === 0 })
    await backend.appendLog(LOG, `${line}\n`)
    appended.push(line)
  }
  process.stdout.write(`${JSON.stringify({ appended })}\n`)
} else {
  const dropped = []
  let rewrites = 0
  for (let n = 0; n < count; n++) {
    const done = await backend.withLock(() => backend.rewriteLog(LOG, dropMarked))
    if (done !== null) {
      rewrites++
      const after = new Set(lines(done.after))
      dropped.push(...lines(done.before).filter((l) => !after.has(l)))
    }
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  process.stdout.write(`${JSON.stringify({ dropped, rewrites })}\n`)
}
