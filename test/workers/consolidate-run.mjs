// Child-process worker for test/consolidation.test.ts: runs one consolidation of a store (the
// BUILT library; run `npm run build`) and prints its report as JSON. The parent may SIGKILL it.
//
// usage: node consolidate-run.mjs <root> [maxItems]

import { consolidate, createFileBackend, flushCaches } from '../../lib/api.js'

const [root, maxItems] = process.argv.slice(2)
if (!root) {
  process.stderr.write('usage: consolidate-run.mjs <root> [maxItems]\n')
  process.exit(2)
}
const backend = createFileBackend(root)
const report = await consolidate(backend, { dryRun: false, ...(maxItems ? { maxItems: Number(maxItems) } : {}) })
await flushCaches(backend)
process.stdout.write(`${JSON.stringify(report)}\n`)
