/**
 * Crash safety of the segmented search index: a real child process makes random edits to a store
 * (Chinese and English, sessions, revisions, forgetting) and saves its search index every few
 * edits (seal, merge, segments written aside and renamed, then the manifest); it is killed with
 * SIGKILL just as a save begins or in its middle. Reopened, the store must find every write the
 * child saw acknowledged, and answer every query exactly as a fresh rebuild of the same files
 * does (a missing, stale or half-written segment means "build again", never a wrong answer). A
 * property over random stores, edits and kill points (fast-check, seeded).
 *
 * The child runs the BUILT library (lib/api.js): run `npm run build` first.
 */

import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, saveConfigPatch, searchHandler, type MemoryBackend } from '../src/api.js'
import { isSearchable } from '../src/retrieve/search-index.js'
import { SEARCH_MANIFEST } from '../src/retrieve/segment-files.js'
import { runUntilKilled } from './process-kit.js'
import { explainId } from './store-diagnostics.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const WORKER = path.join(here, 'workers', 'segment-writer.mjs')
const BUILT_API = path.join(here, '..', 'lib', 'api.js')
const QUERIES = ['数据库迁移', '咖啡', '会议 周末', '发票账单', 'database migration', 'coffee', 'weekend travel', 'invoice billing', 'deploy logs server', '北京 backup']

const tmpDirs: string[] = []
afterAll(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 })
})
beforeAll(() => {
  if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run \`npm run build\` first (npm test does it)`)
})

interface Run {
  acked: Map<string, string>
  forgotten: Set<string>
  saves: number
  lastSaveMs: number
}

/**
 * Runs the writer until it announces save number `saves`, and kills it `share` percent of the
 * previous save's duration later (0: at once): most kills land inside the save.
 */
async function editThenKill(root: string, seed: number, saves: number, share: number): Promise<Run> {
  const run: Run = { acked: new Map(), forgotten: new Set(), saves: 0, lastSaveMs: 0 }
  await runUntilKilled(WORKER, [root, String(seed)], (line) => {
    const [what, id, token] = line.split(' ')
    if (what === 'ack') run.acked.set(id as string, token as string)
    else if (what === 'forgot') run.forgotten.add(id as string)
    else if (what === 'saved') run.lastSaveMs = Number(id)
    else if (what === 'saving' && ++run.saves >= saves) return (run.lastSaveMs * share) / 100
    return null
  })
  return run
}

async function answers(backend: MemoryBackend, queries: readonly string[]): Promise<Array<Array<[string, number]>>> {
  const out: Array<Array<[string, number]>> = []
  for (const query of queries) out.push((await searchHandler(backend, { query, top_k: 20 })).hits.map((h) => [h.id, h.score]))
  return out
}

describe('the search index under SIGKILL during a save', () => {
  it('finds every acknowledged write and answers as a fresh rebuild does', async () => {
    let manifestsLeft = 0
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 3, max: 30 }), fc.integer({ min: 0, max: 100 }), async (seed, saves, share) => {
        const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'seg-crash-'))
        tmpDirs.push(dir)
        const root = path.join(dir, 'store')
        const run = await editThenKill(root, seed, saves, share)
        if (existsSync(path.join(root, SEARCH_MANIFEST))) manifestsLeft++
        // Scores weigh more than the memory files: strength from use (usage.jsonl, appended by every
        // search) and recency to the backend's clock. The crashed store is searched for each
        // acknowledged token and both stores answer at different moments, so they are asked at one
        // fixed time and, before the copy, the store stops learning from searches: the two then
        // hold the same usage (the child's, copied) and compare on the index alone.
        const at = new Date().toISOString()
        const clock = { now: () => at }
        const crashed = createFileBackend(root, clock)
        await saveConfigPatch(crashed, { learnFromSearches: false })
        // The same files with no saved index: the answers a fresh rebuild gives.
        const fresh = path.join(dir, 'fresh')
        await fs.cp(root, fresh, { recursive: true })
        await fs.rm(path.join(fresh, '.cache'), { recursive: true, force: true })

        const view = await crashed.indexView()
        // The view is live: once a search has run the freshness check, it is the store made fresh.
        let searched = false
        for (const [id, token] of run.acked) {
          const entry = view.get(id)
          if (entry === undefined) {
            const when = searched ? 'after searches made the store fresh' : 'in index.jsonl as reopened'
            expect.fail(`acknowledged write ${id} is missing ${when} (seed ${seed}, kill after save ${saves} at ${share}%)\n${await explainId(root, id)}`)
          }
          if (run.forgotten.has(id) || !isSearchable(entry)) continue
          searched = true
          const hits = (await searchHandler(crashed, { query: token, top_k: 5 })).hits.map((h) => h.id)
          expect(hits, `search for ${token}`).toContain(id)
        }
        const rebuilt = createFileBackend(fresh, clock)
        const queries = [...QUERIES, ...[...run.acked.values()].slice(-3)]
        expect(await answers(crashed, queries)).toEqual(await answers(rebuilt, queries))
        // And after the reopened process saves its index in turn, the next one still agrees.
        await flushCaches(crashed)
        const reopened = createFileBackend(root, clock)
        expect(await answers(reopened, queries)).toEqual(await answers(rebuilt, queries))
        // Every backend saves now, so no timed save writes into a folder being removed.
        await flushCaches(reopened)
        await flushCaches(rebuilt)
      }),
      { numRuns: 6, seed: 1804 },
    )
    // The kills landed after saves had completed, so reopening used saved segments, not only rebuilds.
    expect(manifestsLeft).toBeGreaterThan(0)
  }, 240_000)
})
