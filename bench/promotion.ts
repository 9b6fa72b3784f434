/**
 * Promotion precision and recall on the hand-built multi-session histories of test/data/
 * (promotion.README.md): each case in a fresh store, its episodes written in session order with
 * their session ids (the confirmed ones through the confirmation gate), then one consolidation.
 * A topic consolidation made matches a fact when it holds every `must` atom (NFKC,
 * case-insensitive). Precision: created topics that match a fact of their case; recall: facts
 * some created topic matches. Issue 17's targets: precision >= 0.9, recall >= 0.7.
 *
 *   tsx bench/promotion.ts [--split dev|holdout] [--misses]
 *
 * Figures go to bench/results/promotion.json. Exit 1 when a target is missed.
 */

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { confirmHandler, consolidate, createFileBackend, EXCHANGE_TAG, flushCaches, writeHandler, type IndexEntry } from '../lib/api.js'
import { flags, resultsFile } from './args.js'

interface Case {
  id: string
  lang: string
  kind: string
  sessions: Array<{ session: string; time: string; episodes: string[]; confirmed?: number[] }>
  promote: Array<{ fact: string; must: string[] }>
  stay: string[]
}

const DATA = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'data')
const norm = (s: string) => s.normalize('NFKC').toLowerCase()

let splits = ['dev', 'holdout']
let showMisses = false
for (const f of flags(process.argv.slice(2))) {
  if (f.name === '--split') splits = [f.value()]
  else if (f.name === '--misses') showMisses = true
  else throw new Error(`unknown flag ${f.name} (--split dev|holdout, --misses)`)
}

interface Figures {
  cases: number
  topics: number
  matching: number
  facts: number
  found: number
  precision: number
  recall: number
}

async function runCase(c: Case): Promise<{ topics: string[]; wrong: string[]; missed: string[] }> {
  const root = await mkdtemp(join(tmpdir(), 'promotion-'))
  const backend = createFileBackend(root)
  try {
    for (const s of c.sessions) {
      const start = Date.parse(s.time)
      for (const [i, summary] of s.episodes.entries()) {
        const time = new Date(start + i * 60_000).toISOString()
        const confirmed = s.confirmed?.includes(i) === true
        const out = await writeHandler(backend, { summary, type: 'episode', session_id: s.session, time, requireConfirmation: confirmed })
        if (confirmed) await confirmHandler(backend, { id: out.id })
      }
    }
    await consolidate(backend, { dryRun: false })
    const view = await backend.indexView()
    // Promotion made these; a folded exchange restates a session word for word and is no promoted fact.
    const promoted = (e: IndexEntry) => e.type === 'topic' && e.derived_from !== undefined && !e.tags.includes(EXCHANGE_TAG)
    const topics = [...view.values()].filter((e) => promoted(e) && ['active', 'suggested', 'conflict'].includes(e.status)).map((e) => e.summary)
    const matches = (topic: string, fact: Case['promote'][number]) => fact.must.every((a) => norm(topic).includes(norm(a)))
    return {
      topics,
      wrong: topics.filter((t) => !c.promote.some((f) => matches(t, f))),
      missed: c.promote.filter((f) => !topics.some((t) => matches(t, f))).map((f) => f.fact),
    }
  } finally {
    await flushCaches(backend)
    await rm(root, { recursive: true, force: true })
  }
}

const started = Date.now()
const results: Record<string, Figures & { byKind: Record<string, { wrong: number; missed: number }> }> = {}
let failed = false
for (const split of splits) {
  const cases = (await readFile(join(DATA, `promotion.${split}.jsonl`), 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Case)
  const f: Figures = { cases: cases.length, topics: 0, matching: 0, facts: 0, found: 0, precision: 0, recall: 0 }
  const byKind: Record<string, { wrong: number; missed: number }> = {}
  for (const c of cases) {
    const r = await runCase(c)
    f.topics += r.topics.length
    f.matching += r.topics.length - r.wrong.length
    f.facts += c.promote.length
    f.found += c.promote.length - r.missed.length
    const k = (byKind[c.kind] ??= { wrong: 0, missed: 0 })
    k.wrong += r.wrong.length
    k.missed += r.missed.length
    if (showMisses) {
      for (const w of r.wrong) console.log(`  ${split} ${c.id} [${c.kind}] wrong topic: ${w}`)
      for (const m of r.missed) console.log(`  ${split} ${c.id} [${c.kind}] missed: ${m}`)
    }
  }
  f.precision = f.topics === 0 ? 1 : Math.round((f.matching / f.topics) * 1000) / 1000
  f.recall = f.facts === 0 ? 1 : Math.round((f.found / f.facts) * 1000) / 1000
  results[split] = { ...f, byKind }
  if (f.precision < 0.9 || f.recall < 0.7) failed = true
}

console.log('| split | cases | topics made | matching | precision | facts | found | recall |')
console.log('|---|---|---|---|---|---|---|---|')
for (const [split, f] of Object.entries(results)) console.log(`| ${split} | ${f.cases} | ${f.topics} | ${f.matching} | ${f.precision} | ${f.facts} | ${f.found} | ${f.recall} |`)
for (const [split, f] of Object.entries(results)) console.log(`${split} wrong / missed by kind: ${JSON.stringify(f.byKind)}`)
console.log(`(${Date.now() - started} ms)`)
const out = resultsFile('promotion.json')
await mkdir(dirname(out), { recursive: true })
await writeFile(out, `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`)
if (failed) {
  console.error('targets missed: precision >= 0.9 and recall >= 0.7 on every split')
  process.exitCode = 1
}
