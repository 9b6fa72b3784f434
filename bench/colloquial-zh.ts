/**
 * Colloquial Chinese recall on the hand-written set of test/data/ (colloquial-zh.README.md): the
 * memories written keyless (summary only) into one fresh store, then each question asked as people
 * ask it ("小猫几岁了", "开会是啥时候"), top 5. A question is found at k when a gold memory is among
 * the first k hits. Figures per split: recall@1, recall@5, and the share of hits that came
 * through an alias (reason "alias").
 *
 *   tsx bench/colloquial-zh.ts [--split dev|holdout] [--misses]
 *
 * Figures go to bench/results/colloquial-zh.json.
 */

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createFileBackend, searchHandler, writeHandler } from '../lib/api.js'
import { flags, resultsFile } from './args.js'

interface Memory {
  id: string
  text: string
}

interface Question {
  id: string
  query: string
  gold: string[]
}

const DATA = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'data')
const TOP_K = 5

let splits = ['dev', 'holdout']
let showMisses = false
for (const f of flags(process.argv.slice(2))) {
  if (f.name === '--split') {
    const v = f.value()
    if (v !== 'dev' && v !== 'holdout') throw new Error(`--split takes dev or holdout, not ${v}`)
    splits = [v]
  } else if (f.name === '--misses') showMisses = true
  else throw new Error(`unknown flag ${f.name} (--split dev|holdout, --misses)`)
}

async function jsonl<T>(name: string): Promise<T[]> {
  const text = await readFile(join(DATA, name), 'utf8')
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T)
}

interface Figures {
  questions: number
  recallAt1: number
  recallAt5: number
  aliasHits: number
  hits: number
}

const memories = await jsonl<Memory>('colloquial-zh.memories.jsonl')
const root = await mkdtemp(join(tmpdir(), 'colloquial-zh-'))
const backend = createFileBackend(root)
const figures: Record<string, Figures> = {}
try {
  // Store id -> the set's memory ids (a write the store merged into another answers for both).
  const source = new Map<string, string[]>()
  for (const m of memories) {
    const out = await writeHandler(backend, { summary: m.text })
    source.set(out.id, [...(source.get(out.id) ?? []), m.id])
  }
  for (const split of splits) {
    const questions = await jsonl<Question>(`colloquial-zh.${split}.jsonl`)
    const f: Figures = { questions: questions.length, recallAt1: 0, recallAt5: 0, aliasHits: 0, hits: 0 }
    let at1 = 0
    let at5 = 0
    for (const q of questions) {
      const result = await searchHandler(backend, { query: q.query, top_k: TOP_K })
      const ranked = result.hits.map((h) => source.get(h.id) ?? [])
      const first = ranked.findIndex((ids) => ids.some((id) => q.gold.includes(id)))
      if (first === 0) at1++
      if (first !== -1) at5++
      f.hits += result.hits.length
      f.aliasHits += result.alias_hits
      if (showMisses && first !== 0) console.log(`${split} ${q.id} ${q.query} -> [${ranked.map((ids) => ids.join('+')).join(', ')}] want ${q.gold.join('|')}`)
    }
    f.recallAt1 = Math.round((at1 / questions.length) * 1000) / 1000
    f.recallAt5 = Math.round((at5 / questions.length) * 1000) / 1000
    figures[split] = f
  }
} finally {
  await rm(root, { recursive: true, force: true })
}

console.log('split    questions  recall@1  recall@5  alias hits / hits')
for (const [split, f] of Object.entries(figures)) {
  console.log(`${split.padEnd(8)} ${String(f.questions).padStart(9)}  ${f.recallAt1.toFixed(3).padStart(8)}  ${f.recallAt5.toFixed(3).padStart(8)}  ${f.aliasHits} / ${f.hits}`)
}
const out = resultsFile('colloquial-zh.json')
await mkdir(dirname(out), { recursive: true })
await writeFile(out, JSON.stringify({ memories: memories.length, topK: TOP_K, figures }, null, 2) + '\n')
