// Child-process worker for test/interrupted-rewrite.test.ts: forgets one memory with the BUILT
// library, stopping at the most fragile point of a compare-and-swap rewrite (src/store/rewrite.ts,
// step 3: the memory file has just been moved aside, its place is empty). The hook wraps node:fs's
// renameSync for this process only; everything else (the lock, the read, the temporary file, the
// move aside) is the library's own code.
//   kill:  dies there by SIGKILL, as a writer killed mid-forget would.
//   pause: prints "paused", waits there (blocking, as the real gap does) until <gofile> exists,
//          then goes on and prints the forget's answer as JSON.
//
// usage: node rewrite-gap.mjs <root> <id> kill|pause [gofile]

import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { createFileBackend, forgetValueHandler } from '../../lib/api.js'

const [root, id, mode, gofile] = process.argv.slice(2)
if (!root || !id || (mode !== 'kill' && mode !== 'pause') || (mode === 'pause' && !gofile)) {
  process.stderr.write('usage: rewrite-gap.mjs <root> <id> kill|pause [gofile]\n')
  process.exit(2)
}
const renameSync = fs.renameSync
let stopped = false
fs.renameSync = (from, to) => {
  renameSync(from, to)
  // A memory file going aside (`.<name>.<pid>.<n>.aside`), once.
  if (stopped || !String(from).endsWith('.md') || !String(to).endsWith('.aside')) return
  stopped = true
  if (mode === 'kill') process.kill(process.pid, 'SIGKILL')
  fs.writeSync(1, 'paused\n')
  const wait = new Int32Array(new SharedArrayBuffer(4))
  while (!fs.existsSync(gofile)) Atomics.wait(wait, 0, 0, 10)
}
syncBuiltinESMExports()

const out = await forgetValueHandler(createFileBackend(root), { id })
if (!stopped) {
  process.stderr.write('rewrite-gap: the forget moved no memory file aside\n')
  process.exit(1)
}
fs.writeSync(1, `${JSON.stringify(out)}\n`)
