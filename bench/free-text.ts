/**
 * The free-text histories of issue 27 (bench/data/free-text-histories.json, written by this
 * project; see bench/data/README.md): each history writes free text with no key and no title
 * through the library's write handler into a fresh store, then checks what each write ended in,
 * the verdict memory_verify gives each probe, and which memory a search ranks first. Run by
 * bench/claims.ts beside the claim set's splits.
 */

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createFileBackend, flushCaches, searchHandler, verifyHandler, writeHandler } from '../lib/api.js'
import type { Status, Verdict } from './claim-set.js'

export const PHRASINGS = ['direct', 'subject-reworded', 'no-attribute', 'negation', 'future', 'multi-fact', 'lookalike'] as const
export type Phrasing = (typeof PHRASINGS)[number]

export interface History {
  id: string
  lang: 'en' | 'zh'
  phrasing: Phrasing
  writes: string[]
  expect: Status[]
  checks: Array<{ claim: string; verdict: Verdict }>
  /** `current`: the index of the write the query should rank first. */
  search: { query: string; current: number }
}

export interface HistoryOutcome {
  statuses: string[]
  verdicts: string[]
  /** Whether the search ranked the expected write first. */
  currentFirst: boolean
}

const DATA = join(dirname(fileURLToPath(import.meta.url)), 'data', 'free-text-histories.json')

export async function loadHistories(): Promise<History[]> {
  return JSON.parse(await readFile(DATA, 'utf8')) as History[]
}

export async function runHistory(h: History): Promise<HistoryOutcome> {
  const root = await mkdtemp(join(tmpdir(), 'free-text-'))
  const backend = createFileBackend(root)
  try {
    const ids: string[] = []
    for (const summary of h.writes) ids.push((await writeHandler(backend, { summary })).id)
    const view = await backend.indexView()
    const statuses = ids.map((id) => view.get(id)?.status ?? 'missing')
    const verdicts: string[] = []
    for (const k of h.checks) verdicts.push((await verifyHandler(backend, { claim: k.claim })).verdict)
    const found = await searchHandler(backend, { query: h.search.query, top_k: 5 })
    return { statuses, verdicts, currentFirst: found.hits[0]?.id === ids[h.search.current] }
  } finally {
    await flushCaches(backend)
    await rm(root, { recursive: true, force: true })
  }
}

export interface HistoryFigures {
  histories: number
  /** Revision histories: every write expected superseded is, and the last write is active. */
  revisionsCaught: number
  revisions: number
  /** Look-alike histories where no write was superseded. */
  lookalikesApart: number
  lookalikes: number
  currentFirst: number
  verifyRight: number
  checks: number
  falseSupported: number
  notSupportedChecks: number
}

export function historyFigures(hs: readonly History[], os: readonly HistoryOutcome[]): HistoryFigures {
  const f: HistoryFigures = { histories: hs.length, revisionsCaught: 0, revisions: 0, lookalikesApart: 0, lookalikes: 0, currentFirst: 0, verifyRight: 0, checks: 0, falseSupported: 0, notSupportedChecks: 0 }
  hs.forEach((h, i) => {
    const o = os[i] as HistoryOutcome
    if (h.phrasing === 'lookalike') {
      f.lookalikes++
      if (!o.statuses.includes('superseded')) f.lookalikesApart++
    } else {
      f.revisions++
      if (h.expect.every((e, w) => e !== 'superseded' || o.statuses[w] === 'superseded') && o.statuses.at(-1) === 'active') f.revisionsCaught++
    }
    if (o.currentFirst) f.currentFirst++
    h.checks.forEach((k, c) => {
      f.checks++
      if (o.verdicts[c] === k.verdict) f.verifyRight++
      if (k.verdict !== 'supported') {
        f.notSupportedChecks++
        if (o.verdicts[c] === 'supported') f.falseSupported++
      }
    })
  })
  return f
}

/** The targets of issue 27, rules alone: revisions caught >= 0.67, current first >= 0.85, no false `supported`, no look-alike superseded. */
export function historyTargets(f: HistoryFigures): string[] {
  const out: string[] = []
  if (f.revisionsCaught < 0.67 * f.revisions) out.push(`revisions caught ${f.revisionsCaught}/${f.revisions} < 0.67`)
  if (f.currentFirst < 0.85 * f.histories) out.push(`current first ${f.currentFirst}/${f.histories} < 0.85`)
  if (f.falseSupported > 0) out.push(`false supported ${f.falseSupported}/${f.notSupportedChecks}`)
  if (f.lookalikesApart < f.lookalikes) out.push(`look-alikes superseded ${f.lookalikes - f.lookalikesApart}/${f.lookalikes}`)
  return out
}
