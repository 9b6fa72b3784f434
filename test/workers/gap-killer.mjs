// Child-process worker for test/interrupted-rewrite.test.ts: forgets one memory with the BUILT
// library, and kills itself with SIGKILL at the exact point a compare-and-swap rewrite is most
// fragile (src/store/rewrite.ts, step 3): the memory file has been moved aside and the new text is
// about to be linked into the empty place. The hook wraps node:fs's linkSync for this process
// only; everything before it (the lock, the read, the temporary file, the move aside) is the
// library's own code.
//
// usage: node gap-killer.mjs <root> <id>

import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { createFileBackend, forgetValueHandler } from '../../lib/api.js'

const [root, id] = process.argv.slice(2)
if (!root || !id) {
  process.stderr.write('usage: gap-killer.mjs <root> <id>\n')
  process.exit(2)
}
const linkSync = fs.linkSync
fs.linkSync = (from, to) => {
  // The new text (a `.rewrite` temporary file) going into a memory file's place.
  if (String(from).endsWith('.rewrite') && String(to).endsWith('.md')) process.kill(process.pid, 'SIGKILL')
  return linkSync(from, to)
}
syncBuiltinESMExports()

await forgetValueHandler(createFileBackend(root), { id })
process.stderr.write('gap-killer: the rewrite finished without reaching its link\n')
process.exit(1)
