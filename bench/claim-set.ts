/**
 * The claim test set (test/data/claims.*.jsonl, written by this project; see its README): each
 * case writes free-text memories with no key and no title into a fresh store, then checks the
 * status every write ended in and the verdict memory_verify gives each claim. Shared by the bench
 * (bench/claims.ts, figures) and the test that holds the targets (test/claim-set.test.ts).
 *
 * Arms: `topic` (plain writes), `episode` (writes of a session with raw text, as an agent logs
 * them), `confirmed` (suggested writes confirmed one by one, as auto-settle and backfill land).
 */

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { confirmHandler, createFileBackend, flushCaches, setConsolidationModel, signalsSettled, verifyHandler, writeHandler, type ConsolidationModel } from '../lib/api.js'

export type Status = 'active' | 'superseded' | 'conflict'
export type Verdict = 'supported' | 'contradicted' | 'unknown' | 'out_of_scope'
export const ARMS = ['topic', 'episode', 'confirmed'] as const
export type Arm = (typeof ARMS)[number]

export interface ClaimCase {
  id: string
  lang: 'en' | 'zh' | 'mixed'
  kind: string
  writes: Array<{ summary: string; scope?: string }>
  expect: Status[]
  checks: Array<{ claim: string; verdict: Verdict; scope?: string }>
}

export interface CaseOutcome {
  id: string
  lang: string
  kind: string
  statuses: string[]
  verdicts: string[]
  /** Case ids whose outcome differs from the expectation, with what differed. */
  misses: string[]
}

const DATA = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'data')

export type Split = 'dev' | 'dev2' | 'holdout'

export async function loadCases(split: Split): Promise<ClaimCase[]> {
  const text = await readFile(join(DATA, `claims.${split}.jsonl`), 'utf8')
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ClaimCase)
}

/** Runs one case in a fresh store; with a model, writes are judged by it in the background and verify asks it too. */
export async function runCase(c: ClaimCase, arm: Arm, model: ConsolidationModel | null = null): Promise<CaseOutcome> {
  const root = await mkdtemp(join(tmpdir(), 'claim-set-'))
  const backend = createFileBackend(root)
  setConsolidationModel(backend, model)
  try {
    const ids: string[] = []
    for (const w of c.writes) {
      const base = { summary: w.summary, ...(w.scope !== undefined ? { scope: w.scope } : {}) }
      const input = arm === 'episode' ? { ...base, raw: w.summary, session_id: 'claim-set' } : arm === 'confirmed' ? { ...base, requireConfirmation: true } : base
      const out = await writeHandler(backend, input)
      if (arm === 'confirmed' && out.status === 'suggested') await confirmHandler(backend, { id: out.id })
      ids.push(out.id)
    }
    await signalsSettled(backend)
    const view = await backend.indexView()
    const statuses = ids.map((id) => view.get(id)?.status ?? 'missing')
    const verdicts: string[] = []
    for (const k of c.checks) verdicts.push((await verifyHandler(backend, { claim: k.claim, model: model !== null, ...(k.scope !== undefined ? { scope: k.scope } : {}) })).verdict)
    const misses: string[] = []
    statuses.forEach((s, i) => {
      if (s !== c.expect[i]) misses.push(`write ${i + 1} "${c.writes[i]?.summary}": ${s}, expected ${c.expect[i]}`)
    })
    verdicts.forEach((v, i) => {
      const k = c.checks[i]
      if (k !== undefined && v !== k.verdict) misses.push(`check "${k.claim}"${k.scope !== undefined ? ` [${k.scope}]` : ''}: ${v}, expected ${k.verdict}`)
    })
    return { id: c.id, lang: c.lang, kind: c.kind, statuses, verdicts, misses }
  } finally {
    await flushCaches(backend)
    await rm(root, { recursive: true, force: true })
  }
}

export interface Figures {
  cases: number
  writes: number
  checks: number
  /** Of the writes the store superseded, the share the case expected superseded. */
  supersedePrecision: number
  /** Of the writes the case expected superseded, the share the store superseded. */
  supersedeRecall: number
  supersededByStore: number
  supersededExpected: number
  conflictPrecision: number
  conflictRecall: number
  /** Writes that ended in the expected status. */
  statusAccuracy: number
  /** Of the checks whose right verdict is not `supported`, the share answered `supported`. */
  falseSupportedRate: number
  falseSupported: number
  notSupportedChecks: number
  /** Of the checks whose right verdict is `supported`, the share answered `supported`. */
  supportedRecall: number
  verdictAccuracy: number
  /** expected -> answered -> count */
  confusion: Record<string, Record<string, number>>
}

const ratio = (a: number, b: number) => (b === 0 ? 1 : Math.round((a / b) * 1000) / 1000)

export function figures(cases: readonly ClaimCase[], outcomes: readonly CaseOutcome[]): Figures {
  let writes = 0
  let checks = 0
  let supBoth = 0
  let supStore = 0
  let supExp = 0
  let conBoth = 0
  let conStore = 0
  let conExp = 0
  let statusOk = 0
  let falseSup = 0
  let notSup = 0
  let supOk = 0
  let supChecks = 0
  let verdictOk = 0
  const confusion: Record<string, Record<string, number>> = {}
  cases.forEach((c, ci) => {
    const o = outcomes[ci] as CaseOutcome
    c.expect.forEach((exp, i) => {
      const got = o.statuses[i]
      writes++
      if (got === exp) statusOk++
      if (got === 'superseded') supStore++
      if (exp === 'superseded') supExp++
      if (got === 'superseded' && exp === 'superseded') supBoth++
      if (got === 'conflict') conStore++
      if (exp === 'conflict') conExp++
      if (got === 'conflict' && exp === 'conflict') conBoth++
    })
    c.checks.forEach((k, i) => {
      const got = o.verdicts[i] as string
      checks++
      const row = (confusion[k.verdict] ??= {})
      row[got] = (row[got] ?? 0) + 1
      if (got === k.verdict) verdictOk++
      if (k.verdict === 'supported') {
        supChecks++
        if (got === 'supported') supOk++
      } else {
        notSup++
        if (got === 'supported') falseSup++
      }
    })
  })
  return {
    cases: cases.length,
    writes,
    checks,
    supersedePrecision: ratio(supBoth, supStore),
    supersedeRecall: ratio(supBoth, supExp),
    supersededByStore: supStore,
    supersededExpected: supExp,
    conflictPrecision: ratio(conBoth, conStore),
    conflictRecall: ratio(conBoth, conExp),
    statusAccuracy: ratio(statusOk, writes),
    falseSupportedRate: ratio(falseSup, notSup),
    falseSupported: falseSup,
    notSupportedChecks: notSup,
    supportedRecall: ratio(supOk, supChecks),
    verdictAccuracy: ratio(verdictOk, checks),
    confusion,
  }
}

/** The targets of issue 13: supersede precision >= 0.97, recall >= 0.85, no false `supported`. */
export const TARGETS = Object.freeze({ supersedePrecision: 0.97, supersedeRecall: 0.85, falseSupportedRate: 0 })

export function meetsTargets(f: Figures): string[] {
  const out: string[] = []
  if (f.supersedePrecision < TARGETS.supersedePrecision) out.push(`supersede precision ${f.supersedePrecision} < ${TARGETS.supersedePrecision}`)
  if (f.supersedeRecall < TARGETS.supersedeRecall) out.push(`supersede recall ${f.supersedeRecall} < ${TARGETS.supersedeRecall}`)
  if (f.falseSupportedRate > TARGETS.falseSupportedRate) out.push(`false supported ${f.falseSupported}/${f.notSupportedChecks}`)
  return out
}
