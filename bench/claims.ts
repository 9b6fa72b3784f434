/**
 * The claim-set bench: automatic revision and verify on keyless, free-text writes, Chinese and
 * English (test/data/claims.*.jsonl; bench/claim-set.ts runs the cases).
 *
 *   npm run bench:claims                          every split (dev, dev2, holdout), every arm
 *   npm run bench:claims -- --split dev --arm topic --misses
 *   npm run bench:claims -- --model http://127.0.0.1:8000/v1#some-model   the model arm
 *
 * Prints, per split and arm: supersede precision and recall, conflict precision and recall,
 * status accuracy, the false-`supported` rate, and the verdict confusion; `--misses` lists every
 * case that differs. Then the free-text histories of issue 27 (bench/free-text.ts), per phrasing
 * and language: revisions caught, look-alikes kept apart, current value ranked first, verify
 * right, false `supported` (`--split histories` runs only them). Figures go to
 * bench/results/claims.json. Exit 1 when a target is missed.
 */

import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { flags, resultsFile } from './args.js'
import { candidateRecall } from './revision-candidates.js'
import { endpointModel } from './model-endpoint.js'
import type { ConsolidationModel } from '../lib/api.js'
import { historyFigures, historyTargets, loadHistories, PHRASINGS, runHistory, type HistoryFigures, type HistoryOutcome } from './free-text.js'
import { ARMS, figures, loadCases, meetsTargets, runCase, type Arm, type CaseOutcome, type Figures, type Split } from './claim-set.js'

let splits: Split[] = ['dev', 'dev2', 'holdout']
let histories = true
let arms: Arm[] = [...ARMS]
let showMisses = false
let model: ConsolidationModel | null = null
for (const f of flags(process.argv.slice(2))) {
  if (f.name === '--split') {
    const v = f.value()
    histories = v === 'histories'
    splits = histories ? [] : [v as Split]
  }
  else if (f.name === '--arm') arms = [f.value() as Arm]
  else if (f.name === '--misses') showMisses = true
  else if (f.name === '--model') model = endpointModel(f.value())
  else throw new Error(`unknown flag ${f.name} (--split dev|dev2|holdout|histories, --arm ${ARMS.join('|')}, --misses, --model <base URL>#<model>)`)
}

const started = Date.now()
const results: Array<{ split: string; arm: Arm; lang: string; figures: Figures }> = []
const failures: string[] = []
console.log('| split | arm | lang | cases | supersede P | supersede R | conflict P | conflict R | status acc. | false supported | supported R | verdict acc. |')
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|')
for (const split of splits) {
  const cases = await loadCases(split)
  for (const arm of arms) {
    const outcomes: CaseOutcome[] = []
    for (const [i, c] of cases.entries()) {
      outcomes.push(await runCase(c, arm, model))
      if (process.stderr.isTTY) process.stderr.write(`\r${split}/${arm}: ${i + 1}/${cases.length}`)
    }
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
    for (const lang of ['all', 'en', 'zh']) {
      const pick = (i: number) => lang === 'all' || cases[i]?.lang === lang
      const cs = cases.filter((_, i) => pick(i))
      const os = outcomes.filter((_, i) => pick(i))
      const f = figures(cs, os)
      results.push({ split, arm, lang, figures: f })
      console.log(
        `| ${split} | ${arm} | ${lang} | ${f.cases} | ${f.supersedePrecision} | ${f.supersedeRecall} (${f.supersededExpected}) | ${f.conflictPrecision} | ${f.conflictRecall} | ${f.statusAccuracy} | ${f.falseSupported}/${f.notSupportedChecks} | ${f.supportedRecall} | ${f.verdictAccuracy} |`,
      )
      if (lang === 'all') for (const miss of meetsTargets(f)) failures.push(`${split}/${arm}: ${miss}`)
    }
    if (showMisses) for (const o of outcomes) for (const m of o.misses) console.error(`  ${split}/${arm} ${o.id} (${o.kind}): ${m}`)
  }
}
failures.push(...(await candidateRecall(splits)))
const historyResults: Array<{ phrasing: string; lang: string; figures: HistoryFigures }> = []
if (histories) {
  const hs = await loadHistories()
  const os: HistoryOutcome[] = []
  for (const [i, h] of hs.entries()) {
    os.push(await runHistory(h))
    if (process.stderr.isTTY) process.stderr.write(`\rhistories: ${i + 1}/${hs.length}`)
  }
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
  console.log('')
  console.log('| histories | lang | n | revisions caught | look-alikes apart | current first | verify right | false supported |')
  console.log('|---|---|---|---|---|---|---|---|')
  for (const phrasing of ['all', ...PHRASINGS]) {
    for (const lang of ['all', 'en', 'zh']) {
      const pick = (i: number) => (phrasing === 'all' || hs[i]?.phrasing === phrasing) && (lang === 'all' || hs[i]?.lang === lang)
      const f = historyFigures(hs.filter((_, i) => pick(i)), os.filter((_, i) => pick(i)))
      historyResults.push({ phrasing, lang, figures: f })
      const part = (a: number, b: number) => (b === 0 ? '-' : `${a}/${b}`)
      console.log(`| ${phrasing} | ${lang} | ${f.histories} | ${part(f.revisionsCaught, f.revisions)} | ${part(f.lookalikesApart, f.lookalikes)} | ${part(f.currentFirst, f.histories)} | ${part(f.verifyRight, f.checks)} | ${part(f.falseSupported, f.notSupportedChecks)} |`)
      if (phrasing === 'all' && lang === 'all') for (const miss of historyTargets(f)) failures.push(`histories: ${miss}`)
    }
  }
}
const all = results.filter((r) => r.lang === 'all')
console.log('')
console.log('Verdict confusion (expected -> answered), first arm of each split:')
for (const r of all.filter((x) => x.arm === arms[0])) console.log(`  ${r.split}: ${JSON.stringify(r.figures.confusion)}`)
console.log(`\n(${Date.now() - started} ms)`)
const out = resultsFile('claims.json')
await mkdir(dirname(out), { recursive: true })
await writeFile(out, `${JSON.stringify({ at: new Date().toISOString(), results, histories: historyResults }, null, 2)}\n`)
if (failures.length > 0) {
  console.error(`targets missed:\n  ${failures.join('\n  ')}`)
  process.exitCode = 1
}
