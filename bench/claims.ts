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
 * case that differs. Figures go to bench/results/claims.json. Exit 1 when a target is missed.
 */

import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { flags, resultsFile } from './args.js'
import { candidateRecall } from './revision-candidates.js'
import { endpointModel } from './model-endpoint.js'
import type { ConsolidationModel } from '../lib/api.js'
import { ARMS, figures, loadCases, meetsTargets, runCase, type Arm, type CaseOutcome, type Figures, type Split } from './claim-set.js'

let splits: Split[] = ['dev', 'dev2', 'holdout']
let arms: Arm[] = [...ARMS]
let showMisses = false
let model: ConsolidationModel | null = null
for (const f of flags(process.argv.slice(2))) {
  if (f.name === '--split') splits = [f.value() as Split]
  else if (f.name === '--arm') arms = [f.value() as Arm]
  else if (f.name === '--misses') showMisses = true
  else if (f.name === '--model') model = endpointModel(f.value())
  else throw new Error(`unknown flag ${f.name} (--split dev|dev2|holdout, --arm ${ARMS.join('|')}, --misses, --model <base URL>#<model>)`)
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
const all = results.filter((r) => r.lang === 'all')
console.log('')
console.log('Verdict confusion (expected -> answered), first arm of each split:')
for (const r of all.filter((x) => x.arm === arms[0])) console.log(`  ${r.split}: ${JSON.stringify(r.figures.confusion)}`)
console.log(`\n(${Date.now() - started} ms)`)
const out = resultsFile('claims.json')
await mkdir(dirname(out), { recursive: true })
await writeFile(out, `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`)
if (failures.length > 0) {
  console.error(`targets missed:\n  ${failures.join('\n  ')}`)
  process.exitCode = 1
}
