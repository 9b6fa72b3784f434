// Child-process worker for test/hand-edits.test.ts: a person editing one memory file in an
// editor, `count` times. Each save reads the file, appends a paragraph `hand edit <tag> <i>` and
// writes it back the way editors do: `atomic` writes a temporary file beside it and renames it
// over the original; `inplace` truncates the file and writes into it (open O_TRUNC, write).
// A save is acknowledged once its write returned. Pauses 0-2 ms between saves.
//
// usage: node hand-editor.mjs <absolute file> <atomic|inplace> <count> <tag>
// Prints "ready", waits for "go", then prints { "tag", "mode", "acked": [i, ...], "missing": n }
// (missing: reads that found no file, each tried again a moment later: the library swaps its rewrite
// in by moving the old file aside and linking the new one in its place, microseconds apart).

import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { waitForGo, stopListening } from './protocol.mjs'

const [file, mode, countArg, tag] = process.argv.slice(2)
const count = Number(countArg)
if (!file || (mode !== 'atomic' && mode !== 'inplace') || !Number.isInteger(count) || count <= 0 || !tag) {
  process.stderr.write('usage: hand-editor.mjs <file> <atomic|inplace> <count> <tag>\n')
  process.exit(2)
}

const temp = path.join(path.dirname(file), `.${path.basename(file)}.${tag}.swp`)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Reads the file; a read that finds no file (the library swaps its rewrite in) is tried again a moment later. */
let missing = 0
async function readCurrent() {
  for (const started = Date.now(); ; ) {
    try {
      return readFileSync(file, 'utf8')
    } catch (err) {
      if (err?.code !== 'ENOENT' || Date.now() - started > 5000) throw err
      missing++
      await sleep(0)
    }
  }
}

await waitForGo()
stopListening()
const acked = []
for (let i = 0; i < count; i++) {
  const text = await readCurrent()
  // A paragraph of its own, below the summary: the memory's summary (and so its repeats) stay as they are.
  const next = `${text.endsWith('\n') ? text : `${text}\n`}\nhand edit ${tag} ${i}\n`
  if (mode === 'atomic') {
    writeFileSync(temp, next)
    renameSync(temp, file)
  } else {
    writeFileSync(file, next)
  }
  acked.push(i)
  await sleep(Math.random() * 2)
}
process.stdout.write(`${JSON.stringify({ tag, mode, acked, missing })}\n`)
