/**
 * Retrieval bench: LoCoMo evidence recall and MADial-Bench zh memory recall, following the
 * protocols in bench/data/README.md, for the product (through ../lib/api.js only) and a
 * plain BM25 baseline (./plain-bm25.ts) on the same data and the same questions, in one run.
 *
 *   npm run bench:retrieval                      (builds lib/, then runs this file with tsx)
 *   tsx bench/retrieval.ts --only locomo|madial --limit-conversations N --data DIR
 *   tsx bench/retrieval.ts --embedder http://127.0.0.1:11434/v1 --embedder-model bge-m3 --embedder-dimensions 1024
 *       hybrid ranking: each store's memories embedded through that OpenAI-compatible endpoint
 *       (key in $MEMORY_AGENT_EMBEDDER_KEY) before its questions, keyword and vector candidates fused
 *
 * Tables go to stdout, progress to stderr, figures to bench/results/retrieval.json.
 */

import { flags, resultsFile } from './args.js'
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { consolidate, createFileBackend, embedPending, memoryStats, openAiEmbedder, saveConfigPatch, searchHandler, setEmbedder, signalsSettled, writeHandler, type Embedder, type MemoryBackend } from '../lib/api.js'
import { charBigrams, PlainBM25, wordTokens } from './plain-bm25.js'
import { parseLocomoDate, sessionNumbers, type LocomoConversation, type LocomoTurn } from './locomo.js'

// ---------------------------------------------------------------------------------------------
// Arguments

interface Args {
  only: 'locomo' | 'madial' | null
  limitConversations: number | null
  dataDir: string
  /** LoCoMo: also consolidate each conversation's store and ask again (issue 17). */
  consolidate: boolean
  /** Hybrid ranking through this OpenAI-compatible endpoint (--embedder, --embedder-model, --embedder-dimensions). */
  embedder: { baseUrl: string; model: string; dimensions: number } | null
}

function parseArgs(argv: string[]): Args {
  // The public data sets are kept in the repository (bench/data/, with their licences).
  const args: Args = { only: null, limitConversations: null, dataDir: join(dirname(fileURLToPath(import.meta.url)), 'data'), consolidate: false, embedder: null }
  const endpoint = { baseUrl: '', model: '', dimensions: 0 }
  for (const { name: a, value } of flags(argv)) {
    if (a === '--only') {
      const v = value()
      if (v !== 'locomo' && v !== 'madial') throw new Error(`--only takes locomo or madial, not ${v}`)
      args.only = v
    } else if (a === '--limit-conversations') {
      const n = Number(value())
      if (!Number.isInteger(n) || n < 1) throw new Error('--limit-conversations takes a positive integer')
      args.limitConversations = n
    } else if (a === '--data') {
      args.dataDir = value()
    } else if (a === '--consolidate') {
      args.consolidate = true
    } else if (a === '--embedder') {
      endpoint.baseUrl = value()
    } else if (a === '--embedder-model') {
      endpoint.model = value()
    } else if (a === '--embedder-dimensions') {
      endpoint.dimensions = Number(value())
    } else {
      throw new Error(`unknown argument ${a} (known: --only locomo|madial, --limit-conversations N, --data DIR, --consolidate, --embedder URL --embedder-model NAME --embedder-dimensions N)`)
    }
  }
  if (endpoint.baseUrl !== '') {
    if (endpoint.model === '' || !Number.isInteger(endpoint.dimensions) || endpoint.dimensions < 1) throw new Error('--embedder needs --embedder-model NAME and --embedder-dimensions N (a positive integer)')
    args.embedder = endpoint
  } else if (endpoint.model !== '' || endpoint.dimensions !== 0) throw new Error('--embedder-model and --embedder-dimensions go with --embedder URL')
  return args
}

const log = (line: string): void => void process.stderr.write(line + '\n')

/** The embedder of every store of this run (--embedder), or null: keyword ranking only. */
let embedder: Embedder | null = null

/**
 * A store of one run. Its questions do not teach it (learnFromSearches false): each is asked of
 * the store as written, as the data sets' protocols score them, not of one strengthened by the
 * questions before it.
 */
async function openStore(root: string): Promise<MemoryBackend> {
  const backend = createFileBackend(root)
  if (embedder !== null) setEmbedder(backend, embedder)
  await saveConfigPatch(backend, { learnFromSearches: false })
  return backend
}

/** With an embedder, every searchable memory gets its vector before the questions (without one, nothing happens). */
async function embedAll(backend: MemoryBackend): Promise<void> {
  const r = await embedPending(backend)
  if (r.embedder !== null) log(`  embedded ${r.embedded} texts with ${r.embedder}`)
}

// ---------------------------------------------------------------------------------------------
// Metrics

/** `frac@k` (share of gold in the top k), `any@k` (some gold in the top k) and MRR for one ranking. */
interface QuestionScore {
  frac: Record<number, number>
  any: Record<number, number>
  rr: number
}

function scoreRanking(ranked: readonly string[], gold: ReadonlySet<string>, ks: readonly number[]): QuestionScore {
  const frac: Record<number, number> = {}
  const any: Record<number, number> = {}
  for (const k of ks) {
    let found = 0
    for (const id of ranked.slice(0, k)) if (gold.has(id)) found++
    frac[k] = found / gold.size
    any[k] = found > 0 ? 1 : 0
  }
  const first = ranked.findIndex((id) => gold.has(id))
  return { frac, any, rr: first === -1 ? 0 : 1 / (first + 1) }
}

interface Aggregate {
  n: number
  frac: Record<string, number>
  any: Record<string, number>
  mrr: number
}

function aggregate(scores: readonly QuestionScore[], ks: readonly number[]): Aggregate {
  const n = scores.length
  const mean = (f: (s: QuestionScore) => number): number => (n === 0 ? NaN : scores.reduce((sum, s) => sum + f(s), 0) / n)
  const frac: Record<string, number> = {}
  const any: Record<string, number> = {}
  for (const k of ks) {
    frac[`@${k}`] = mean((s) => s.frac[k]!)
    any[`@${k}`] = mean((s) => s.any[k]!)
  }
  return { n, frac, any, mrr: mean((s) => s.rr) }
}

/**
 * Hits, best first, to source ids: each hit expanded to its sources, first position kept. A hit
 * on a memory made from others (a topic, a session summary) is expanded in the order of its
 * `sources` (those matching the query best first, memory_search_hybrid), each into its own
 * sources; every source still takes a slot, so the list cut at k holds at most k of a topic's.
 */
function expand(hits: readonly { id: string; sources?: string[] }[], sources: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  const known = (id: string): readonly string[] => {
    const ids = sources.get(id)
    if (ids === undefined) throw new Error(`search returned ${id}, which no write of this run returned`)
    return ids
  }
  for (const hit of hits) {
    const own = known(hit.id)
    // As the map was filled: a source with no turn of its own adds none.
    const ids = hit.sources === undefined ? own : hit.sources.flatMap((id) => sources.get(id) ?? [])
    if (ids.length !== own.length || ids.some((s) => !own.includes(s))) throw new Error(`hit ${hit.id}: its sources are not those it was made from`)
    for (const s of ids) {
      if (!seen.has(s)) {
        seen.add(s)
        out.push(s)
      }
    }
  }
  return out
}

function addSource(map: Map<string, string[]>, memoryId: string, sourceId: string): void {
  const list = map.get(memoryId)
  if (list === undefined) map.set(memoryId, [sourceId])
  else list.push(sourceId)
}

// ---------------------------------------------------------------------------------------------
// Tables

const f3 = (x: number): string => (Number.isNaN(x) ? '  -  ' : x.toFixed(3))
const d3 = (x: number): string => (Number.isNaN(x) ? '   -  ' : (x >= 0 ? '+' : '') + x.toFixed(3))

interface Row {
  label: string
  ours: Aggregate
  base: Aggregate
}

function printTable(title: string, rows: readonly Row[], metric: 'frac' | 'any', ks: readonly number[], withMrr: boolean): void {
  const cols: { head: string; get: (a: Aggregate) => number }[] = ks.map((k) => ({ head: `${metric}@${k}`, get: (a) => a[metric][`@${k}`]! }))
  if (withMrr) cols.push({ head: 'MRR', get: (a) => a.mrr })
  const labelWidth = Math.max(8, ...rows.map((r) => r.label.length))
  const group = 18 // " ours  bm25  delta" per metric: "0.123 0.456 +0.789"
  const line1 = ['', 'n'.padStart(5), ...cols.map((c) => c.head.padStart(Math.floor((group + c.head.length) / 2)).padEnd(group))]
  const line2 = ['', ''.padStart(5), ...cols.map(() => ' ours  bm25  delta')]
  console.log(`\n${title}`)
  console.log(''.padEnd(labelWidth) + line1.join(' | '))
  console.log(''.padEnd(labelWidth) + line2.join(' | '))
  console.log('-'.repeat(labelWidth + line2.join(' | ').length))
  for (const r of rows) {
    const cells = cols.map((c) => `${f3(c.get(r.ours))} ${f3(c.get(r.base))} ${d3(c.get(r.ours) - c.get(r.base))}`)
    console.log(r.label.padEnd(labelWidth) + ['', String(r.ours.n).padStart(5), ...cells].join(' | '))
  }
}

// ---------------------------------------------------------------------------------------------
// LoCoMo

/** Evidence repair per the README: split on [;,\s]+, parse D:?(\d+):0*(\d+) to D<s>:<t>. */
function repairEvidence(evidence: readonly string[]): string[] {
  const out: string[] = []
  for (const item of evidence) {
    for (const part of String(item).split(/[;,\s]+/)) {
      const m = /D:?(\d+):0*(\d+)/.exec(part)
      if (m === null) continue
      const id = `D${Number(m[1])}:${Number(m[2])}`
      if (!out.includes(id)) out.push(id)
    }
  }
  return out
}

const LOCOMO_KS = [1, 5, 10, 20] as const
const LOCOMO_TOP_K = 20
const SUMMARY_MAX = 2000
const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' }

interface LocomoOutcome {
  category: number
  ours: QuestionScore
  base: QuestionScore
  /** With --consolidate: the same search after consolidation, topics expanded into their sources. */
  consolidated?: QuestionScore
}


async function runLocomo(dataDir: string, limit: number | null, consolidated: boolean) {
  const all = JSON.parse(await readFile(join(dataDir, 'locomo', 'locomo.dev.json'), 'utf8')) as LocomoConversation[]
  const conversations = limit === null ? all : all.slice(0, limit)
  const outcomes: LocomoOutcome[] = []
  const counts = {
    conversations: 0,
    turns: 0,
    memories: 0,
    dedupedWrites: 0,
    truncated: 0,
    questions: 0,
    skippedNoEvidence: 0,
    droppedEvidenceIds: 0,
    repairedEvidenceItems: 0,
    searchableBefore: 0,
    searchableAfter: 0,
    promoted: 0,
    reflected: 0,
    exchanges: 0,
    archived: 0,
  }
  const perConversation: { sample_id: string; turns: number; memories: number; questions: number }[] = []

  for (const conv of conversations) {
    const started = Date.now()
    const c = conv.conversation
    const sessions = sessionNumbers(c)

    const root = await mkdtemp(join(tmpdir(), `dsh-bench-locomo-${conv.sample_id}-`))
    const backend = await openStore(root)
    const baseline = new PlainBM25<string>(wordTokens)
    const sources = new Map<string, string[]>()
    const diaIds = new Set<string>()
    let turns = 0
    try {
      for (const s of sessions) {
        const dateText = c[`session_${s}_date_time`]
        if (typeof dateText !== 'string') throw new Error(`${conv.sample_id}: session_${s} has no date_time`)
        const list = c[`session_${s}`] as LocomoTurn[]
        for (const [index, turn] of list.entries()) {
          let summary = `${turn.speaker}: ${turn.text}`
          if (turn.blip_caption !== undefined) summary += ` [shares ${turn.blip_caption}]`
          if (summary.length > SUMMARY_MAX) {
            summary = summary.slice(0, SUMMARY_MAX)
            counts.truncated++
          }
          const result = await writeHandler(backend, {
            summary,
            type: 'episode',
            session_id: `session_${s}`,
            time: parseLocomoDate(dateText, index),
          })
          if (result.dedupe !== undefined) counts.dedupedWrites++
          addSource(sources, result.id, turn.dia_id)
          baseline.add(turn.dia_id, summary)
          diaIds.add(turn.dia_id)
          turns++
        }
      }

      await embedAll(backend)
      let questions = 0
      const asked: Array<{ outcome: LocomoOutcome; question: string; gold: Set<string> }> = []
      for (const qa of conv.qa) {
        const raw = repairEvidence(qa.evidence)
        if (raw.length !== qa.evidence.length || raw.some((id, i) => id !== qa.evidence[i])) counts.repairedEvidenceItems++
        const gold = raw.filter((id) => diaIds.has(id))
        counts.droppedEvidenceIds += raw.length - gold.length
        if (gold.length === 0) {
          counts.skippedNoEvidence++
          continue
        }
        const goldSet = new Set(gold)
        const result = await searchHandler(backend, { query: qa.question, top_k: LOCOMO_TOP_K })
        const ours = expand(result.hits, sources).slice(0, LOCOMO_TOP_K)
        const base = baseline.search(qa.question, LOCOMO_TOP_K).map((h) => h.key)
        const outcome: LocomoOutcome = { category: qa.category, ours: scoreRanking(ours, goldSet, LOCOMO_KS), base: scoreRanking(base, goldSet, LOCOMO_KS) }
        outcomes.push(outcome)
        asked.push({ outcome, question: qa.question, gold: goldSet })
        questions++
      }
      const written = sources.size
      if (consolidated) {
        // Consolidate, then ask again: a derived memory stands for its sources, in their order.
        await signalsSettled(backend)
        counts.searchableBefore += (await memoryStats(backend)).searchable
        const report = await consolidate(backend, { dryRun: false, maxItems: 100_000, maxSeconds: 3600 })
        await embedAll(backend)
        counts.promoted += report.promoted.length
        counts.reflected += report.reflected.length
        counts.exchanges += report.exchanges.length
        counts.archived += report.archived.length
        for (const e of (await backend.indexView()).values()) {
          if (e.derived_from === undefined || sources.has(e.id)) continue
          sources.set(e.id, e.derived_from.flatMap((id) => sources.get(id) ?? []))
        }
        counts.searchableAfter += (await memoryStats(backend)).searchable
        for (const a of asked) {
          const result = await searchHandler(backend, { query: a.question, top_k: LOCOMO_TOP_K })
          a.outcome.consolidated = scoreRanking(expand(result.hits, sources).slice(0, LOCOMO_TOP_K), a.gold, LOCOMO_KS)
        }
      }
      await signalsSettled(backend)
      counts.conversations++
      counts.turns += turns
      counts.memories += written
      counts.questions += questions
      perConversation.push({ sample_id: conv.sample_id, turns, memories: written, questions })
      log(
        `locomo ${conv.sample_id}: ${sessions.length} sessions, ${turns} turns -> ${written} memories, ${questions} questions, ${((Date.now() - started) / 1000).toFixed(1)} s`,
      )
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  }

  const rowsFor = (label: string, pick: (o: LocomoOutcome) => boolean): Row => {
    const sel = outcomes.filter(pick)
    return {
      label,
      ours: aggregate(
        sel.map((o) => o.ours),
        LOCOMO_KS,
      ),
      base: aggregate(
        sel.map((o) => o.base),
        LOCOMO_KS,
      ),
    }
  }
  const rows: Row[] = [
    ...[1, 2, 3, 4].map((cat) => rowsFor(`${cat} ${CATEGORY_NAMES[cat]}`, (o) => o.category === cat)),
    rowsFor('1-4 all', (o) => o.category >= 1 && o.category <= 4),
    rowsFor('5 adversarial', (o) => o.category === 5),
  ]
  // The consolidated arm beside the same store before consolidation (in the baseline's column).
  const consolidatedRow = (label: string, pick: (o: LocomoOutcome) => boolean): Row => {
    const sel = outcomes.filter((o) => pick(o) && o.consolidated !== undefined)
    return { label, ours: aggregate(sel.map((o) => o.consolidated as QuestionScore), LOCOMO_KS), base: aggregate(sel.map((o) => o.ours), LOCOMO_KS) }
  }
  const consolidatedRows: Row[] = consolidated
    ? [...[1, 2, 3, 4].map((cat) => consolidatedRow(`${cat} ${CATEGORY_NAMES[cat]}`, (o) => o.category === cat)), consolidatedRow('1-4 all', (o) => o.category >= 1 && o.category <= 4)]
    : []
  return { counts, perConversation, rows, consolidatedRows }
}

// ---------------------------------------------------------------------------------------------
// MADial-Bench zh

interface MadialMemory {
  time: string
  scene: string
  emotion: string
  event: string
  'user-id': number
  id: string
}

interface MadialDialogue {
  dialogue: string[]
  'test-turn': number[]
  'relevant-id': number[]
  'user-id': number
  id: number
}

const MADIAL_KS = [1, 3, 5, 10] as const
const MADIAL_TOP_K = 200 // the whole pool (83 or 88): MRR over the full ranking

async function runMadial(dataDir: string) {
  const memories: MadialMemory[] = []
  for (const line of (await readFile(join(dataDir, 'madial-zh', 'memories.jsonl'), 'utf8')).split('\n')) {
    if (line.trim() === '') continue
    const record = JSON.parse(line) as Record<string, MadialMemory>
    for (const m of Object.values(record)) memories.push(m)
  }
  const dialogues = (await readFile(join(dataDir, 'madial-zh', 'dialogues.dev.jsonl'), 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as MadialDialogue)

  const users = [...new Set(memories.map((m) => m['user-id']))].sort((a, b) => a - b)
  const counts = { stores: 0, sourceMemories: 0, memories: 0, dedupedWrites: 0, truncated: 0, dialogues: 0, goldOutsidePool: 0, queriesTruncated: 0 }
  const perUser: { user: number; sourceMemories: number; memories: number; dialogues: number; ours: QuestionScore[]; base: QuestionScore[] }[] = []

  for (const user of users) {
    const started = Date.now()
    const root = await mkdtemp(join(tmpdir(), `dsh-bench-madial-u${user}-`))
    const backend = await openStore(root)
    const baseline = new PlainBM25<string>(charBigrams)
    const sources = new Map<string, string[]>()
    const pool = memories.filter((m) => m['user-id'] === user)
    const poolIds = new Set(pool.map((m) => String(m.id)))
    const entry = { user, sourceMemories: pool.length, memories: 0, dialogues: 0, ours: [] as QuestionScore[], base: [] as QuestionScore[] }
    try {
      for (const m of pool) {
        let summary = [m.scene, m.emotion, m.event].join(' ')
        if (summary.length > SUMMARY_MAX) {
          summary = summary.slice(0, SUMMARY_MAX)
          counts.truncated++
        }
        const result = await writeHandler(backend, { summary, type: 'topic', time: `${m.time}T00:00:00.000Z` })
        if (result.dedupe !== undefined) counts.dedupedWrites++
        addSource(sources, result.id, String(m.id))
        baseline.add(String(m.id), summary)
      }
      entry.memories = sources.size
      await embedAll(backend)

      for (const d of dialogues.filter((x) => x['user-id'] === user)) {
        const turn = d['test-turn'][0]
        if (turn === undefined) throw new Error(`dialogue ${d.id} has no test-turn`)
        let query = d.dialogue.slice(0, turn).join('')
        if (query.length > 2000) {
          query = query.slice(-2000) // the search input takes at most 2000 characters; keep the latest
          counts.queriesTruncated++
        }
        const gold = new Set(d['relevant-id'].map(String))
        for (const g of gold) if (!poolIds.has(g)) counts.goldOutsidePool++
        const result = await searchHandler(backend, { query, top_k: MADIAL_TOP_K })
        const ours = expand(result.hits, sources)
        const base = baseline.search(query).map((h) => h.key)
        entry.ours.push(scoreRanking(ours, gold, MADIAL_KS))
        entry.base.push(scoreRanking(base, gold, MADIAL_KS))
        entry.dialogues++
      }
      await signalsSettled(backend)
      counts.stores++
      counts.sourceMemories += pool.length
      counts.memories += sources.size
      counts.dialogues += entry.dialogues
      perUser.push(entry)
      log(`madial user ${user}: ${pool.length} memories -> ${sources.size} stored, ${entry.dialogues} dialogues, ${((Date.now() - started) / 1000).toFixed(1)} s`)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  }

  const row = (label: string, ours: QuestionScore[], base: QuestionScore[]): Row => ({ label, ours: aggregate(ours, MADIAL_KS), base: aggregate(base, MADIAL_KS) })
  const rows: Row[] = [
    ...perUser.map((u) => row(`user ${u.user}`, u.ours, u.base)),
    row(
      'all',
      perUser.flatMap((u) => u.ours),
      perUser.flatMap((u) => u.base),
    ),
  ]
  return {
    counts,
    perUser: perUser.map(({ user, sourceMemories, memories, dialogues }) => ({ user, sourceMemories, memories, dialogues })),
    rows,
  }
}

// ---------------------------------------------------------------------------------------------
// Main

function gitState(): { commit: string | null; dirty: boolean | null } {
  try {
    const cwd = dirname(fileURLToPath(import.meta.url))
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8' }).trim() !== ''
    return { commit, dirty }
  } catch {
    return { commit: null, dirty: null }
  }
}

const rowJson = (rows: readonly Row[]) =>
  rows.map((r) => ({
    label: r.label,
    n: r.ours.n,
    ours: r.ours,
    baseline: r.base,
    delta: {
      frac: Object.fromEntries(Object.keys(r.ours.frac).map((k) => [k, r.ours.frac[k]! - r.base.frac[k]!])),
      any: Object.fromEntries(Object.keys(r.ours.any).map((k) => [k, r.ours.any[k]! - r.base.any[k]!])),
      mrr: r.ours.mrr - r.base.mrr,
    },
  }))

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  if (args.embedder !== null) {
    const key = process.env['MEMORY_AGENT_EMBEDDER_KEY']
    embedder = openAiEmbedder({ ...args.embedder, ...(key !== undefined && key !== '' ? { apiKey: key } : {}) })
  }
  const started = Date.now()
  const date = new Date().toISOString()
  const results: Record<string, unknown> = {
    date,
    node: process.version,
    ...gitState(),
    args: { only: args.only, limitConversations: args.limitConversations, dataDir: args.dataDir, consolidate: args.consolidate, embedder: args.embedder },
    ranking: embedder === null ? 'keywords (BM25 with aliases)' : `hybrid: keywords and vectors of ${embedder.id}, reciprocal-rank fusion`,
    baseline: 'plain BM25 (bench/plain-bm25.ts): k1 1.2, b 0.75, idf log(1 + (N - df + 0.5)/(df + 0.5)); LoCoMo lowercase [a-z0-9]+ words, MADial character bigrams',
  }

  console.log(`dsh-memory-agent retrieval bench, ${date}; ours ranks by ${String(results.ranking)}`)

  if (args.only !== 'madial') {
    const t0 = Date.now()
    const r = await runLocomo(args.dataDir, args.limitConversations, args.consolidate)
    const seconds = (Date.now() - t0) / 1000
    console.log(`\n== LoCoMo (locomo.dev.json): evidence recall, top_k ${LOCOMO_TOP_K}; ours = searchHandler, bm25 = plain BM25 baseline ==`)
    console.log(
      `stores ${r.counts.conversations} (one per conversation), turns ${r.counts.turns} -> memories ${r.counts.memories} ` +
        `(${r.counts.dedupedWrites} writes deduped into an existing memory), summaries truncated to ${SUMMARY_MAX}: ${r.counts.truncated}`,
    )
    console.log(
      `questions used ${r.counts.questions}, skipped with no valid evidence ${r.counts.skippedNoEvidence}, ` +
        `evidence lists changed by repair ${r.counts.repairedEvidenceItems}, evidence ids dropped (not in the conversation) ${r.counts.droppedEvidenceIds}; ${seconds.toFixed(1)} s`,
    )
    printTable('LoCoMo frac@k (share of gold turns in top k) and MRR@20; headline: row "1-4 all"', r.rows, 'frac', LOCOMO_KS, true)
    printTable('LoCoMo any@k (some gold turn in top k)', r.rows, 'any', LOCOMO_KS, false)
    if (args.consolidate) {
      const c = r.counts
      console.log(
        `\n== LoCoMo after consolidation (each store consolidated once after its questions, then asked again; derived memories expanded into their source turns in the order of the hit's sources (best match to the query first), cut at k) ==\n` +
          `searchable records ${c.searchableBefore} -> ${c.searchableAfter} (${(100 * (1 - c.searchableAfter / Math.max(1, c.searchableBefore))).toFixed(1)}% fewer); ` +
          `promoted ${c.promoted}, session summaries ${c.reflected}, exchanges folded ${c.exchanges}, archived ${c.archived}`,
      )
      printTable('LoCoMo frac@k: consolidated (left) vs the same stores before consolidation (right)', r.consolidatedRows, 'frac', LOCOMO_KS, true)
    }
    results.locomo = {
      seconds,
      ks: LOCOMO_KS,
      top_k: LOCOMO_TOP_K,
      counts: r.counts,
      perConversation: r.perConversation,
      rows: rowJson(r.rows),
      ...(args.consolidate ? { consolidated: rowJson(r.consolidatedRows) } : {}),
    }
  }

  if (args.only !== 'locomo') {
    const t0 = Date.now()
    const r = await runMadial(args.dataDir)
    const seconds = (Date.now() - t0) / 1000
    console.log(`\n== MADial-Bench zh (dialogues.dev.jsonl): memory recall; ours = searchHandler, bm25 = plain BM25 on character bigrams ==`)
    console.log(
      `stores ${r.counts.stores} (one per user), source memories ${r.counts.sourceMemories} -> memories ${r.counts.memories} ` +
        `(${r.counts.dedupedWrites} writes deduped), summaries truncated ${r.counts.truncated}`,
    )
    console.log(
      `dialogues used ${r.counts.dialogues} (${r.perUser.map((u) => `user ${u.user}: ${u.dialogues} over a pool of ${u.sourceMemories}`).join(', ')}), ` +
        `gold ids outside the user's pool ${r.counts.goldOutsidePool}, queries truncated ${r.counts.queriesTruncated}; ${seconds.toFixed(1)} s`,
    )
    printTable('MADial zh frac@k (= |top k ∩ gold| / |gold|) and MRR; headline: row "all"', r.rows, 'frac', MADIAL_KS, true)
    printTable('MADial zh any@k', r.rows, 'any', MADIAL_KS, false)
    results.madial = { seconds, ks: MADIAL_KS, top_k: MADIAL_TOP_K, counts: r.counts, perUser: r.perUser, rows: rowJson(r.rows) }
  }

  const total = (Date.now() - started) / 1000
  results.seconds = total
  const out = resultsFile('retrieval.json')
  await mkdir(dirname(out), { recursive: true })
  await writeFile(out, JSON.stringify(results, null, 2) + '\n')
  console.log(`\ntotal run time ${total.toFixed(1)} s; figures written to ${out}`)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err)
  process.exit(1)
})
