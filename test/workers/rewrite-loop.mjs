// Child-process worker for test/hand-edits.test.ts: the library rewriting one memory's file
// over and over until told to stop, as agents do: a repeat write that adds a new source, then a
// review grade (each a read-modify-write of the file). A status change is left out: a save made
// from the text before it would undo it (the person's edit wins), and the repeats would stop.
//
// usage: node rewrite-loop.mjs <root> <id> <summary> <tag>
// Prints "ready", waits for "go", loops until "stop", then prints
// { "tag", "ops": n, "refused": n, "strayed": n } (refused: calls that failed with INVALID_STATE).

import { createFileBackend, findTool, writeHandler } from '../../lib/api.js'
import { stopRequested, waitForGo } from './protocol.mjs'

const [root, id, summary, tag] = process.argv.slice(2)
if (!root || !id || !summary || !tag) {
  process.stderr.write('usage: rewrite-loop.mjs <root> <id> <summary> <tag>\n')
  process.exit(2)
}

const backend = createFileBackend(root)
const report = findTool('memory_report')
const steps = [
  async (n) => {
    const out = await writeHandler(backend, { summary, session_id: `${tag}-${n}` })
    if (out.id !== id) strayed++
  },
  // Now and then a lapse, which starts the interval again (it grows by the ease with every recall).
  async (n) => report.handler(backend, { id, grade: n % 6 === 5 ? 1 : 4 }),
]

await waitForGo()
let ops = 0
let refused = 0
/** Repeat writes that did not find the memory: its summary was damaged (read from a half-written file). */
let strayed = 0
try {
  while (!stopRequested()) {
    try {
      await steps[ops % steps.length](ops)
    } catch (err) {
      if (err?.code !== 'INVALID_STATE') throw err
      refused++
      if (process.env.REWRITE_DEBUG) process.stderr.write(`refused: ${err.message}\n`)
    }
    ops++
    await new Promise((resolve) => setImmediate(resolve))
  }
} catch (err) {
  process.stderr.write(`rewriter ${tag} failed after ${ops} operations: ${err?.stack ?? err}\n`)
  process.exit(1)
}
process.stdin.pause()
process.stdout.write(`${JSON.stringify({ tag, ops, refused, strayed })}\n`)
