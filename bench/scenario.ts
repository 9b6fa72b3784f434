/**
 * Seed 003's 30-day scenario as a bench (bench/scenario-data.ts: 25 writes, one forget, 12
 * questions through the tool handlers, the clock moved day by day), one fresh store per arm:
 *
 * - `keyed`: facts written with a title (the slot), chit-chat as episodes; no consolidation;
 * - `free text, naive`: every write a keyless, untitled episode of its day's session; no
 *   consolidation;
 * - `free text, consolidated`: the same writes, consolidation (`consolidate`, not a dry run) late
 *   on each day, after that day's session and questions.
 *
 *   tsx bench/scenario.ts [--arm "free text, consolidated" ...] [--answers]
 *
 * Prints, per arm, the questions answered right (of 12, and by category) and the searchable
 * (active) memories when the last questions are asked; figures go to bench/results/scenario.json.
 * Exit 1 when the consolidated arm is below 12/12 or does not leave fewer searchable memories than
 * the naive free-text arm.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import * as api from '../lib/api.js'
import { flags, resultsFile } from './args.js'
import { ARMS, QUESTIONS, answerReport, day, playScenario, type Arm, type ScenarioRun } from './scenario-data.js'

const chosen: Arm[] = []
let showAnswers = false
for (const f of flags(process.argv.slice(2))) {
  if (f.name === '--arm') {
    const arm = f.value()
    if (!(ARMS as readonly string[]).includes(arm)) throw new Error(`--arm: unknown arm "${arm}" (arms: ${ARMS.map((a) => `"${a}"`).join(', ')})`)
    chosen.push(arm as Arm)
  } else if (f.name === '--answers') showAnswers = true
  else throw new Error(`unknown flag ${f.name} (--arm NAME, repeatable; --answers)`)
}
const arms: readonly Arm[] = chosen.length > 0 ? chosen : ARMS

async function runArm(arm: Arm): Promise<ScenarioRun> {
  const root = await mkdtemp(join(tmpdir(), 'scenario-'))
  let now = day(1)
  const backend = api.createFileBackend(root, { now: () => now })
  try {
    return await playScenario(api, backend, (iso) => (now = iso), arm)
  } finally {
    await api.flushCaches(backend)
    await rm(root, { recursive: true, force: true })
  }
}

const started = Date.now()
const categories = [...new Set(QUESTIONS.map((q) => q.category))]
const results: Record<string, Omit<ScenarioRun, 'answers'> & { correct: number; of: number; byCategory: Record<string, string>; misses: string[] }> = {}
for (const arm of arms) {
  const run = await runArm(arm)
  const byCategory: Record<string, string> = {}
  for (const c of categories) {
    const asked = run.answers.filter((a) => a.q.category === c)
    byCategory[c] = `${asked.filter((a) => a.right).length}/${asked.length}`
  }
  results[arm] = {
    correct: run.answers.filter((a) => a.right).length,
    of: run.answers.length,
    byCategory,
    records: run.records,
    dedupes: run.dedupes,
    forgotten: run.forgotten,
    consolidation: run.consolidation,
    misses: answerReport(run.answers.filter((a) => !a.right)).split('\n').filter((l) => l !== ''),
  }
  if (showAnswers) console.log(`${arm}:\n${answerReport(run.answers)}\n`)
}

console.log(`| arm | correct | ${categories.join(' | ')} | active records at question time | suggested | archived |`)
console.log(`|---|---|${categories.map(() => '---|').join('')}---|---|---|`)
for (const [arm, r] of Object.entries(results))
  console.log(`| ${arm} | ${r.correct}/${r.of} | ${categories.map((c) => r.byCategory[c]).join(' | ')} | ${r.records.searchable} | ${r.records.suggested} | ${r.records.archived} |`)
for (const [arm, r] of Object.entries(results)) if (arm.endsWith('consolidated')) console.log(`${arm}, consolidation over the days: ${JSON.stringify(r.consolidation)}`)
for (const [arm, r] of Object.entries(results)) for (const m of r.misses) console.log(`${arm}: ${m}`)
console.log(`(${Date.now() - started} ms)`)

const out = resultsFile('scenario.json')
await mkdir(dirname(out), { recursive: true })
await writeFile(out, `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`)

const consolidated = results['free text, consolidated']
const naive = results['free text, naive']
if (consolidated !== undefined) {
  const fewer = naive === undefined || consolidated.records.searchable < naive.records.searchable
  if (consolidated.correct < consolidated.of || !fewer) {
    console.error(`targets missed: the consolidated arm needs 12/12 (has ${consolidated.correct}/${consolidated.of}) and fewer active records than the naive free-text arm (${consolidated.records.searchable} vs ${naive?.records.searchable ?? 'not run'})`)
    process.exitCode = 1
  }
}
