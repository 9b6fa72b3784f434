/**
 * What strength from use (issue 29) costs a search: 1,000 keyless memories in one fresh store,
 * then 2,000 searches through searchHandler, each recording its top 5 in usage.jsonl (which ranking
 * then reads). Prints p50 and p95 of the first 200 searches (usage.jsonl nearly empty) and of the
 * last 500 (about 10,000 lines), and the same for a second process's first search of the store,
 * which reads the whole file once. Build first (`npm run build`).
 *
 *   tsx bench/search-with-use.ts
 */

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileBackend, flushCaches, searchHandler, signalsSettled, writeHandler } from '../lib/api.js'

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa']
const word = (i: number) => WORDS[i % WORDS.length] as string
const pct = (sorted: number[], p: number) => (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number).toFixed(2)
const figures = (times: number[]) => {
  const s = [...times].sort((a, b) => a - b)
  return `p50 ${pct(s, 0.5)} ms, p95 ${pct(s, 0.95)} ms`
}

const root = await mkdtemp(join(tmpdir(), 'bench-search-with-use-'))
try {
  const backend = createFileBackend(root)
  for (let i = 0; i < 1000; i++) await writeHandler(backend, { summary: `Fact ${i}: the ${word(i)} service talks to ${word(i * 7)} on port ${8000 + i}.` })
  const times: number[] = []
  for (let i = 0; i < 2000; i++) {
    const t = performance.now()
    await searchHandler(backend, { query: `${word(i)} service ${word(i * 3)}` })
    times.push(performance.now() - t)
    await signalsSettled(backend)
  }
  await flushCaches(backend)
  const lines = (await readFile(join(root, 'usage.jsonl'), 'utf8')).split('\n').filter((l) => l !== '').length
  // Another process (a new backend: nothing folded yet) reads usage.jsonl whole on its first search.
  const cold: number[] = []
  for (let i = 0; i < 20; i++) {
    const other = createFileBackend(root)
    const t = performance.now()
    await searchHandler(other, { query: `${word(i)} service` })
    cold.push(performance.now() - t)
    await signalsSettled(other)
    await flushCaches(other)
  }
  console.log('search with strength from use: 1,000 memories, 2,000 searches, top 5 of each recorded')
  console.log(`  first 200 searches (usage.jsonl nearly empty): ${figures(times.slice(0, 200))}`)
  console.log(`  last 500 searches (usage.jsonl ${lines} lines, folded by this process as it appends): ${figures(times.slice(-500))}`)
  console.log(`  first search of a new process (opens the store, reads all ${lines} lines): ${figures(cold)}`)
} finally {
  await rm(root, { recursive: true, force: true })
}
