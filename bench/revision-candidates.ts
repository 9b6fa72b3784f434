/**
 * Candidate recall on the claim set (issue 27, item 3): of the revisions a case expects (write i
 * superseded, write i + 1 its revision), the share whose old memory the revising write names,
 * no model. Two arms: `rules` (the store as shipped: the old memory superseded by the rules or
 * listed in `may_revise`), `listed` (automatic revision off: listed in `may_revise` alone, what a
 * caller confirming with `supersedes` has to go on) and `one store` (listed, among every memory
 * of the split). Called from bench/claims.ts.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileBackend, flushCaches, writeHandler, type MemoryBackend } from '../lib/api.js'
import { loadCases, type ClaimCase, type Split } from './claim-set.js'

/** The target: the old memory named in at least this share of revisions, on every split. */
export const CANDIDATE_RECALL_TARGET = 0.9

export const CANDIDATE_ARMS = ['rules', 'listed', 'one store'] as const
export type CandidateArm = (typeof CANDIDATE_ARMS)[number]

/** For each expected revision of the case: whether the revising write named the old memory. */
async function revisionsNamed(backend: MemoryBackend, c: ClaimCase): Promise<boolean[]> {
  const outs: Array<{ id: string; named: Set<string> }> = []
  for (const w of c.writes) {
    const out = await writeHandler(backend, { summary: w.summary, ...(w.scope !== undefined ? { scope: w.scope } : {}) })
    outs.push({ id: out.id, named: new Set([...out.superseded, ...(out.may_revise ?? []).map((m) => m.id)]) })
  }
  return c.expect.flatMap((status, i) => {
    const next = outs[i + 1]
    const old = outs[i]
    return status === 'superseded' && next !== undefined && old !== undefined ? [next.named.has(old.id)] : []
  })
}

/** Runs `use` on a fresh store (automatic revision off unless `rules`), then removes it. */
async function withStore<T>(rules: boolean, use: (backend: MemoryBackend) => Promise<T>): Promise<T> {
  const root = await mkdtemp(join(tmpdir(), 'revision-candidates-'))
  const backend = createFileBackend(root)
  try {
    if (!rules) await writeFile(join(root, 'config.json'), JSON.stringify({ autoRevise: false }))
    return await use(backend)
  } finally {
    await flushCaches(backend)
    await rm(root, { recursive: true, force: true })
  }
}

/**
 * `rules` and `listed`: each case in its own store, as the claim set runs; `one store`: every
 * case of the split written into one store, automatic revision off, so that the old memory has to
 * be picked out of hundreds of others about look-alike subjects.
 */
export async function armRevisions(cases: readonly ClaimCase[], arm: CandidateArm): Promise<Array<{ lang: string; hit: boolean }>> {
  const out: Array<{ lang: string; hit: boolean }> = []
  const run = async (backend: MemoryBackend, c: ClaimCase) => {
    for (const hit of await revisionsNamed(backend, c)) out.push({ lang: c.lang, hit })
  }
  if (arm === 'one store') {
    await withStore(false, async (backend) => {
      for (const c of cases) await run(backend, c)
    })
  } else {
    for (const c of cases) await withStore(arm === 'rules', (backend) => run(backend, c))
  }
  return out
}

const ratio = (a: number, b: number) => (b === 0 ? 1 : Math.round((a / b) * 1000) / 1000)

/** Prints candidate recall per split, arm and language; returns the targets missed. */
export async function candidateRecall(splits: readonly Split[]): Promise<string[]> {
  const missed: string[] = []
  console.log('\nRevision candidates (the old memory superseded or in may_revise; `listed`: automatic revision off, may_revise alone; `one store`: listed, every case of the split in one store):')
  console.log('| split | arm | lang | revisions | named | recall |')
  console.log('|---|---|---|---|---|---|')
  for (const split of splits) {
    const cases = (await loadCases(split)).filter((c) => c.expect.includes('superseded'))
    for (const arm of CANDIDATE_ARMS) {
      const named = await armRevisions(cases, arm)
      for (const lang of ['all', 'en', 'zh']) {
        const pick = named.filter((n) => lang === 'all' || n.lang === lang)
        const r = ratio(pick.filter((n) => n.hit).length, pick.length)
        console.log(`| ${split} | ${arm} | ${lang} | ${pick.length} | ${pick.filter((n) => n.hit).length} | ${r} |`)
        if (lang === 'all' && r < CANDIDATE_RECALL_TARGET) missed.push(`${split}/${arm}: candidate recall ${r} < ${CANDIDATE_RECALL_TARGET}`)
      }
    }
  }
  return missed
}

