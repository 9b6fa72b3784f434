/**
 * Consolidation killed at random points (a real child process, SIGKILL) ends consistent once the
 * next run has started (issue 28): every derived memory has the ledger event of the step that made
 * it, no archived episode keeps its raw text active, and no episode is lost. The child runs the
 * BUILT lib (`npm run build`); the next run is the library's, in this process.
 */

import { spawn } from 'node:child_process'
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { consolidate, createFileBackend, flushCaches, writeHandler, type IndexEntry, type LedgerEvent, type MemoryBackend } from '../src/api.js'
import { ensureFresh } from '../src/store/freshness.js'
import { tempStores } from './store-kit.js'

const store = tempStores('consolidation-crash-')
const WORKER = path.join(import.meta.dirname, 'workers', 'consolidate-run.mjs')
const ROUNDS = 20
const MAKING = new Set(['promote', 'reflect', 'fold'])

const FACTS = ['the payments service keeps its job queue in Redis', 'the billing cron runs at 02:00 UTC', 'Alice reviews every database migration', 'the staging cluster lives in Frankfurt', 'the Android app is written in Kotlin']

/** Facts said in three sessions each, with raw text, long idle: a run promotes them and archives their episodes. */
async function seed(b: MemoryBackend): Promise<string[]> {
  const ids: string[] = []
  for (const [i, fact] of FACTS.entries()) {
    const said = `${fact[0]?.toUpperCase()}${fact.slice(1)}`
    for (const [session, day, summary] of [
      [`c${i}a`, '05', `${said}.`],
      [`c${i}b`, '15', `${said}, the user said again.`],
      [`c${i}c`, '20', `The user said ${fact}.`],
    ] as const) {
      const w = await writeHandler(b, { summary, raw: `Transcript of ${session}: ${summary}`, type: 'episode', session_id: session, time: `2026-01-${day}T10:00:00Z` })
      ids.push(w.id)
    }
  }
  return ids
}

/** What is inconsistent in a store: derived memories without their event, archived episodes with active raw text, lost episodes. */
function problems(entries: readonly IndexEntry[], ledger: readonly LedgerEvent[], episodes: readonly string[]): string[] {
  const made = new Set(ledger.filter((ev) => MAKING.has(ev.event) && typeof ev.id === 'string').map((ev) => ev.id as string))
  const byPath = new Map(entries.map((e) => [e.path, e]))
  const byId = new Map(entries.map((e) => [e.id, e]))
  const out: string[] = []
  for (const e of entries) {
    if (e.derived_from !== undefined && e.derived_from.length > 0 && !made.has(e.id)) out.push(`${e.id}: derived without its event`)
    if (e.type === 'episode' && e.status === 'archived' && e.raw_ref !== null && byPath.get(e.raw_ref)?.status === 'active') out.push(`${e.id}: archived with active raw text`)
  }
  for (const id of episodes) if (byId.get(id) === undefined) out.push(`${id}: lost`)
  return out
}

const ledgerLines = async (root: string) => (await fs.readFile(path.join(root, 'ledger.jsonl'), 'utf8')).split('\n').filter((l) => l !== '').length

/**
 * Runs a consolidation in a child; with `killAt`, SIGKILLs it once the ledger holds that many more
 * lines, after `extraMs` more (a kill anywhere in the transaction that follows). Its report when
 * it finished first.
 */
async function run(root: string, kill?: { killAt: number; extraMs: number }): Promise<{ promoted: unknown[]; archived: unknown[] } | 'killed'> {
  const before = await ledgerLines(root)
  const child = spawn(process.execPath, [WORKER, root], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  let exited = false
  const done = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())))
  if (kill !== undefined) {
    while (!exited && (await ledgerLines(root)) < before + kill.killAt) await new Promise((resolve) => setTimeout(resolve, 2))
    if (kill.extraMs > 0) await new Promise((resolve) => setTimeout(resolve, kill.extraMs))
    child.kill('SIGKILL')
  }
  await done
  return child.signalCode === 'SIGKILL' ? 'killed' : JSON.parse(out)
}

describe('consolidation killed mid-run', () => {
  it(`ends consistent ${ROUNDS} of ${ROUNDS} times, killed at random points`, async () => {
    const template = await store()
    const episodes = await seed(template.backend)
    await flushCaches(template.backend)
    // How many ledger lines one whole run appends: the kills fall among them.
    const probe = `${template.root}-probe`
    await fs.cp(template.root, probe, { recursive: true })
    const before = await ledgerLines(probe)
    const report = await run(probe)
    const whole = (await ledgerLines(probe)) - before
    // The run promotes and archives (raw text with its episodes): the steps a kill may cut.
    expect(report).not.toBe('killed')
    if (report !== 'killed') expect([report.promoted.length > 0, report.archived.length > 0]).toEqual([true, true])
    await fs.rm(probe, { recursive: true, force: true })

    let consistent = 0
    let killed = 0
    /** Rounds the kill left inconsistent, before the next run repaired them. */
    let brokenByKill = 0
    const found: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const root = `${template.root}-round${round}`
      await fs.cp(template.root, root, { recursive: true })
      if ((await run(root, { killAt: 1 + Math.floor(Math.random() * (whole - 1)), extraMs: Math.floor(Math.random() * 20) })) === 'killed') killed++
      const b = createFileBackend(root)
      await ensureFresh(b)
      if (problems([...(await b.indexView()).values()], await b.readLedger(), episodes).length > 0) brokenByKill++
      await consolidate(b, { dryRun: false })
      const left = problems([...(await b.indexView()).values()], await b.readLedger(), episodes)
      await flushCaches(b)
      if (left.length === 0) consistent++
      else found.push(`round ${round}: ${left.join('; ')}`)
      await fs.rm(root, { recursive: true, force: true })
    }
    console.log(`[consolidation-crash] a whole run appends ${whole} ledger lines; ${killed} of ${ROUNDS} runs killed mid-way, ${brokenByKill} left inconsistent by the kill; ${consistent} of ${ROUNDS} consistent after the next run`)
    expect(found).toEqual([])
    expect(consistent).toBe(ROUNDS)
    expect(killed).toBeGreaterThan(ROUNDS / 2)
  }, 300_000)
})
