/**
 * The palace lookup of search (src/memory/organisation/room-search.ts: who links to a hit, who
 * stands beside it): the one pass over the index that builds it, and a search's cost once it is
 * built, over synthetic stores of each size (every memory placed, one in ten with a link). The
 * first-search cost decides `eagerMax` (a larger store builds the lookup after an answer).
 *
 *   tsx bench/palace-lookup.ts [--sizes 10000,100000]
 *
 * Figures go to bench/results/palace-lookup.json. The lookup is reached through ../lib directly
 * (it is not part of the library API), over an IndexView of in-memory entries.
 */

import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { PALACE_SEARCH, palaceAddition } from '../lib/memory/organisation/room-search.js'
import type { SearchHit } from '../lib/retrieve/search.js'
import { IndexView } from '../lib/store/index-view.js'
import type { IndexEntry } from '../lib/types.js'
import { flags, resultsFile } from './args.js'

let sizes = [10_000, 100_000]
for (const flag of flags(process.argv.slice(2))) {
  if (flag.name === '--sizes') sizes = flag.value().split(',').map(Number)
  else throw new Error(`unknown flag ${flag.name}`)
}
if (sizes.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error('--sizes takes positive whole numbers, comma separated')

const locationOf = (i: number) => `topics-${Math.floor(i / 9) + 1}#${(i % 9) + 1}`

function store(n: number): IndexView {
  const view = new IndexView()
  for (let i = 0; i < n; i++) {
    view.set({
      schema_version: 2, id: `m${i}`, path: `topics/m${i}.md`, type: 'topic', title: `note ${i}`, summary: `note ${i}`, tags: [], entities: [],
      time: '2026-01-01T00:00:00Z', sources: [], session_id: null, confidence: 0.6, raw_ref: null, vector_id: null, status: 'active', key: null,
      supersedes: null, superseded_by: null, variants: [], episode: null, anchors: [], content_hash: `h${i}`, checksum: `c${i}`,
      location: locationOf(i), ...(i % 10 === 0 && i + 1 < n ? { links: [`m${i + 1}`] } : {}),
    } as IndexEntry)
  }
  return view
}

const rows: Array<{ size: number; firstMs: number; laterMs: number }> = []
for (const size of sizes) {
  // Eager whatever the size, to time the pass itself.
  const view = store(size)
  Object.defineProperty(view, 'size', { value: Math.min(size, PALACE_SEARCH.eagerMax) })
  const hits = [0, 1, 2, 3, 4].map((k) => {
    const i = Math.floor((k * size) / 5)
    return { id: `m${i}`, path: '', type: 'topic', title: '', summary: '', status: 'active', time: '', tags: [], score: 1, reason: 'match', location: locationOf(i) } as SearchHit
  })
  const req = { query: 'note', top_k: 5 }
  let t = performance.now()
  palaceAddition(view, req, hits)
  const firstMs = performance.now() - t
  const repeats = 200
  t = performance.now()
  for (let r = 0; r < repeats; r++) palaceAddition(view, req, hits)
  rows.push({ size, firstMs: Math.round(firstMs * 10) / 10, laterMs: Math.round(((performance.now() - t) / repeats) * 1000) / 1000 })
}

console.log('| memories | first search (builds the lookup) | each later search |')
console.log('|---:|---:|---:|')
for (const r of rows) console.log(`| ${r.size.toLocaleString('en')} | ${r.firstMs} ms | ${r.laterMs} ms |`)
console.log(`\nUp to ${PALACE_SEARCH.eagerMax.toLocaleString('en')} memories the first search builds it; above, the answer after the second search does.`)
const out = resultsFile('palace-lookup.json')
await mkdir(dirname(out), { recursive: true })
await writeFile(out, `${JSON.stringify({ eagerMax: PALACE_SEARCH.eagerMax, rows }, null, 2)}\n`)
