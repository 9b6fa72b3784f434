/**
 * Rebuild bench: a store of N tiny memory files written straight to disk (as a `git pull` or a
 * copy from another machine leaves them: front-matter and a two-line body, all in topics/, the
 * folder listing that overflowed), then `rebuildIndex` over it, the timeline in tour order and
 * the export's file list. Before issue 14 a rebuild over about 130,000 files in one folder
 * crashed with `RangeError: Maximum call stack size exceeded` (`push(...list)`), and the timeline
 * and the export spread lists of that length the same way; this checks that none throws, and
 * times them. It is a
 * bench, not a test: writing 130,000 files and rebuilding takes 1 to 2 minutes on an idle
 * machine, more on a loaded one (test/large-arrays.test.ts covers the code at 200,000 items).
 *
 *   npm run bench:rebuild                    (builds lib/, then runs this file with tsx)
 *   tsx bench/rebuild-files.ts --files 130000 [--keep]
 *
 * Prints one line per step: files, seconds. The store lives under os.tmpdir() and is deleted at
 * the end unless --keep. The product is reached only through ../lib/api.js.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileBackend, exportBundle, flushCaches, rebuildIndex, timelineHandler } from '../lib/api.js'
import { flags } from './args.js'

let files = 130_000
let keep = false
for (const flag of flags(process.argv.slice(2))) {
  if (flag.name === '--files') files = Number(flag.value())
  else if (flag.name === '--keep') keep = true
  else throw new Error(`unknown flag ${flag.name} (known: --files N, --keep)`)
}
if (!Number.isInteger(files) || files < 1) throw new Error('--files needs a positive integer')

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1)
const root = await mkdtemp(join(tmpdir(), 'bench-rebuild-'))
await createFileBackend(root).init()

let t = performance.now()
const BATCH = 500
for (let start = 0; start < files; start += BATCH) {
  const writes: Array<Promise<void>> = []
  for (let i = start; i < Math.min(files, start + BATCH); i++) {
    const id = `mem_bench${i.toString(36).padStart(6, '0')}`
    const text = `---\nid: ${id}\ntype: topic\ntitle: Fact ${i}\ntime: '2026-01-01T00:00:00.000Z'\nstatus: active\n---\n# Fact ${i}\n\nBench fact number ${i} about item${i % 997}.\n`
    writes.push(writeFile(join(root, 'topics', `fact-${i}-${id}.md`), text))
  }
  await Promise.all(writes)
}
console.log(`generate  files ${files}  seconds ${seconds(t)}`)

t = performance.now()
const result = await rebuildIndex(root)
console.log(`rebuild   files ${result.scanned}  seconds ${seconds(t)}  entries ${result.entries}  warnings ${result.warnings.length}`)
if (result.entries !== files) throw new Error(`rebuild indexed ${result.entries} of ${files} files`)

// The other lists as long as the store: the timeline in tour order and the export's file list,
// from a new backend (its first read checks every file against the rebuilt index).
t = performance.now()
const backend = createFileBackend(root)
const listed = await timelineHandler(backend, { order: 'tour', limit: 5 })
console.log(`timeline  files ${listed.total}  seconds ${seconds(t)}`)
t = performance.now()
const exported = await exportBundle(backend, { maxBytes: 64 * 1024 })
console.log(`export    files ${exported.files.length + exported.omitted_files}  seconds ${seconds(t)}  truncated ${exported.truncated}`)
await flushCaches(backend)

if (keep) console.log(`kept ${root}`)
else await rm(root, { recursive: true, force: true })
