/**
 * Consolidation with a model (src/memory/consolidation/model.ts, prompts.ts): the real
 * chat-completions adapter (src/lifecycle/chat-model.ts) talking HTTP to the scripted mock LLM
 * (test/host/mock-llm.ts) on 127.0.0.1. Free-text episodes as an agent writes them (no key, no
 * title), English and Chinese. The model's fact and summaries are taken where they hold to their
 * episodes, garbage falls back per item, answers are cached by prompt hash (a second store with
 * the cache sends nothing; a corrupt cache file is asked again), token caps per run and per day
 * and a failing model degrade the run to the deterministic result with a ledger event, and the
 * CLI takes its endpoint from the environment (built library: run `npm run build` first).
 */

import { spawn } from 'node:child_process'
import { promises as fs } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { consolidate, EXCHANGE_TAG, consolidateHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { startPanelServer } from '../src/cli/serve.js'
import { API_PATH, PANEL_HEADER, TOKEN_HEADER } from '../src/host/api.js'
import { panelKey } from '../src/host/panel-key.js'
import { chatCompletionsModel } from '../src/lifecycle/chat-model.js'
import { MODEL_CACHE_DIR, setConsolidationModel } from '../src/memory/consolidation/model.js'
import { readJudgement, readSummary } from '../src/memory/consolidation/prompts.js'
import { EN_SUMMARY, FACT, HISTORY, script, ZH_SUMMARY } from './consolidation-model-kit.js'
import { startMockLlm, type MockLlm } from './host/mock-llm.js'
import { tempStores } from './store-kit.js'

const store = tempStores('consolidation-model-')
const repo = path.resolve(import.meta.dirname, '..')
const mocks: MockLlm[] = []
afterAll(async () => {
  for (const m of mocks) await m.close()
})

async function mock(complete: (prompt: string) => string | null = script, maxRequests = 50): Promise<MockLlm> {
  const m = await startMockLlm({ script: [], complete, maxRequests })
  mocks.push(m)
  return m
}

const modelOf = (m: MockLlm) => chatCompletionsModel({ baseUrl: m.baseUrl, model: 'mock-chat' })

async function episode(b: MemoryBackend, session: string, time: string, summary: string): Promise<string> {
  return (await writeHandler(b, { summary, type: 'episode', session_id: session, time })).id
}

async function history(b: MemoryBackend): Promise<void> {
  for (const [session, time, summary] of HISTORY) await episode(b, session, time, summary)
}

const completions = (m: MockLlm) => m.requests.filter((r) => r.answer === 'complete' || r.answer === 'title')

/** What a run produced, by text: the same for two runs that made the same choices. */
const outcome = (r: Awaited<ReturnType<typeof consolidate>>) => ({ promoted: r.promoted.map((p) => p.summary), reflected: r.reflected.map((s) => s.summary) })

describe('consolidation with a model over HTTP', () => {
  it("takes the model's fact and summaries where grounded, falls back per item, and caches by prompt hash", async () => {
    const m = await mock()
    const { backend: a, root: rootA } = await store()
    await history(a)
    setConsolidationModel(a, modelOf(m))
    // The preview asks the model the run would ask, so the two agree; the run takes the cached answers.
    const preview = await consolidate(a)
    expect(completions(m)).toHaveLength(5)
    expect(preview.model).toMatchObject({ id: `${m.baseUrl}#mock-chat`, calls: 5, cached: 0, tokens: 5 * 15 })
    expect(preview.promoted.map((p) => p.summary)).toEqual([FACT])

    const report = await consolidate(a, { dryRun: false })
    expect(completions(m)).toHaveLength(5)
    expect(report.model).toMatchObject({ calls: 0, cached: 5, tokens: 0 })
    expect(outcome(report)).toEqual(outcome(preview))
    expect(report.degraded).toBeUndefined()
    expect(report.promoted.map((p) => p.summary)).toEqual([FACT])
    const bySession = new Map(report.reflected.map((s) => [s.session, s.summary]))
    expect(bySession.get('s1')).toBe(`Session s1 (2026-02-02, 2 episodes): ${EN_SUMMARY}`)
    expect(bySession.get('s4')).toBe(`会话 s4（2026-02-10，2 条）: ${ZH_SUMMARY}`)
    // Garbage or nothing falls back to the extractive summary, item by item: s2's and s3's would
    // quote both their episodes whole (the session again), so they get none.
    expect([bySession.has('s2'), bySession.has('s3')]).toEqual([false, false])
    expect(report.model?.fallbacks).toEqual([
      { step: 'reflect', item: 's2', reason: expect.stringMatching(/^not grounded: /) },
      { step: 'reflect', item: 's3', reason: 'empty answer' },
    ])
    // One promotion prompt and four session prompts, each a request without tools, the prompt as the user message.
    expect(m.requests[0]?.body).toMatchObject({ model: 'mock-chat', stream: false, messages: [{ role: 'user' }] })
    const topic = (await a.indexView()).get(report.promoted[0]?.id as string)
    expect(topic?.summary).toBe(FACT)
    expect(topic?.derived_from).toHaveLength(3)
    const ledger = await a.readLedger()
    expect(ledger.find((e) => e.event === 'promote' && e.id === topic?.id)).toMatchObject({ model: `${m.baseUrl}#mock-chat` })
    expect(ledger.filter((e) => e.event === 'consolidate').at(-1)).toMatchObject({ model_tokens: 0, model_calls: 0, model_cached: 5 })

    // A second store with the same history and a copy of the cache: every answer from the cache, no request.
    const { backend: b, root: rootB } = await store()
    await history(b)
    setConsolidationModel(b, modelOf(m))
    await fs.cp(path.join(rootA, MODEL_CACHE_DIR), path.join(rootB, MODEL_CACHE_DIR), { recursive: true })
    const before = m.requests.length
    const previewB = await consolidate(b)
    expect(previewB.promoted.map((p) => p.summary)).toEqual([FACT])
    const cached = await consolidate(b, { dryRun: false })
    expect(m.requests.length).toBe(before)
    expect(cached.model).toMatchObject({ calls: 0, cached: 5, tokens: 0 })
    expect(outcome(cached)).toEqual(outcome(report))

    // A corrupt cache file is not fatal: that prompt is asked again.
    const { backend: c, root: rootC } = await store()
    await history(c)
    setConsolidationModel(c, modelOf(m))
    await fs.cp(path.join(rootA, MODEL_CACHE_DIR), path.join(rootC, MODEL_CACHE_DIR), { recursive: true })
    const files = await fs.readdir(path.join(rootC, MODEL_CACHE_DIR))
    await fs.writeFile(path.join(rootC, MODEL_CACHE_DIR, files[0] as string), '{"text": tor')
    const repaired = await consolidate(c, { dryRun: false })
    expect(m.requests.length).toBe(before + 1)
    expect(repaired.model).toMatchObject({ calls: 1, cached: 4 })
    expect(outcome(repaired)).toEqual(outcome(report))
  })

  it('a fact not in the episodes falls back to the group text; "not one fact" leaves the episodes alone', async () => {
    const invented = await mock((p) => script(p, 'The user lives in Porto.'))
    const { backend: a } = await store()
    await history(a)
    const plain = await consolidate(a, { model: null })
    const { backend: b } = await store()
    await history(b)
    const report = await consolidate(b, { dryRun: false, model: modelOf(invented) })
    expect(report.promoted.map((p) => p.summary)).toEqual(plain.promoted.map((p) => p.summary))
    expect(report.model?.fallbacks[0]).toEqual({ step: 'promote', item: expect.any(String), reason: 'not grounded: the name "Porto" is not in the sources' })

    const declines = await mock((p) => (p.startsWith('These notes') ? '```json\n{"same": false}\n```' : script(p)))
    const { backend: c } = await store()
    await history(c)
    const candidates = await consolidate(c, { model: null })
    const declined = await consolidate(c, { dryRun: false, model: modelOf(declines) })
    expect(declined.promoted).toEqual([])
    expect(declined.model?.declined).toEqual([candidates.promoted[0]?.derived_from])
    // No fact was promoted (a folded exchange only restates what was said).
    expect([...(await c.indexView()).values()].filter((e) => e.type === 'topic' && !e.tags.includes(EXCHANGE_TAG))).toEqual([])
  })

  it('over the per-run token cap the run is the deterministic one, and the ledger says why', async () => {
    const m = await mock()
    const { backend: plainStore } = await store()
    await history(plainStore)
    const plain = await consolidate(plainStore, { dryRun: false })
    const { backend: b, root } = await store()
    await history(b)
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateModelTokensPerRun: 300 }))
    const report = await consolidate(b, { dryRun: false, model: modelOf(m) })
    expect(m.requests).toHaveLength(0)
    expect(report.degraded).toEqual({ reason: expect.stringMatching(/^model token cap per run \(300\) reached after 0 tokens$/), at: expect.any(String) })
    expect(report.guidance).toContain('Without the model since')
    expect(outcome(report)).toEqual(outcome(plain))
    const ledger = await b.readLedger()
    expect(ledger.find((e) => e.event === 'consolidate-degraded')).toMatchObject({ model: `${m.baseUrl}#mock-chat`, reason: report.degraded?.reason })
  })

  it('the per-day cap counts the tokens of earlier runs that day', async () => {
    const m = await mock()
    const { backend: b, root } = await store('2026-03-01T12:00:00Z')
    await history(b)
    const first = await consolidate(b, { dryRun: false, model: modelOf(m) })
    expect(first.model?.tokens).toBe(75)
    // Room for 75 + 100 tokens today: any new prompt (estimated at its length plus 200 for the answer) is over.
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateModelTokensPerDay: 175 }))
    await episode(b, 's5', '2026-02-20T10:00:00Z', 'Reviewed the scraper retry policy with the user.')
    await episode(b, 's5', '2026-02-20T10:15:00Z', 'Looked at the retry dashboards.')
    await episode(b, 's5', '2026-02-20T10:30:00Z', 'Decided to cap scraper retries at 5 attempts.')
    const second = await consolidate(b, { dryRun: false, model: modelOf(m) })
    expect(second.degraded?.reason).toBe('model token cap per day (175) reached after 75 tokens today')
    expect(second.reflected.map((s) => s.session)).toEqual(['s5'])
    expect(second.reflected[0]?.summary).toMatch(/^Session s5 \(2026-02-20, 3 episodes\): Decided: /)
    expect(m.requests).toHaveLength(5)
  })

  it('a failing model (HTTP 503) degrades the run, never fails it', async () => {
    const m = await mock(script, 0)
    const { backend: plainStore } = await store()
    await history(plainStore)
    const plain = await consolidate(plainStore, { dryRun: false })
    const { backend: b } = await store()
    await history(b)
    const report = await consolidate(b, { dryRun: false, model: modelOf(m) })
    expect(m.requests).toHaveLength(1)
    expect(report.degraded?.reason).toMatch(/^model .* failed: HTTP 503 /)
    expect(outcome(report)).toEqual(outcome(plain))
    expect((await b.readLedger()).some((e) => e.event === 'consolidate-degraded')).toBe(true)
  })

  it('a model that does not answer degrades the run at its time cap', async () => {
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    try {
      const { backend: b } = await store()
      await history(b)
      const started = Date.now()
      const report = await consolidate(b, { dryRun: false, maxSeconds: 2, model: chatCompletionsModel({ baseUrl: `http://127.0.0.1:${port}`, model: 'silent' }) })
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(report.degraded?.reason).toMatch(/failed: .*(?:timeout|abort)/i)
      expect(report.promoted).toHaveLength(1)
    } finally {
      silent.closeAllConnections()
      silent.close()
    }
  })

  it('useModel: false on the tool consolidates without the model set for the store', async () => {
    const m = await mock()
    const { backend: b } = await store()
    await history(b)
    setConsolidationModel(b, modelOf(m))
    const report = await consolidateHandler(b, { dryRun: false, useModel: false })
    expect(report.model).toBeUndefined()
    expect(m.requests).toHaveLength(0)
    expect(report.promoted).toHaveLength(1)
  })

  it("the panel server's consolidate op uses the model it was given", async () => {
    const m = await mock()
    const { backend: b, root } = await store()
    await history(b)
    const panel = await startPanelServer({ root, host: '127.0.0.1', port: 0, model: modelOf(m) })
    try {
      const res = await fetch(`${panel.url.split('#')[0]?.replace(/\/$/, '')}${API_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [PANEL_HEADER]: 'panel', [TOKEN_HEADER]: panelKey(root) },
        body: JSON.stringify({ op: 'consolidate', dryRun: false }),
      })
      const body = (await res.json()) as { ok: boolean; result: Awaited<ReturnType<typeof consolidate>> }
      expect(res.status, JSON.stringify(body)).toBe(200)
      expect(body.result.model).toMatchObject({ id: `${m.baseUrl}#mock-chat`, calls: 5 })
      expect(body.result.promoted.map((p) => p.summary)).toEqual([FACT])
    } finally {
      await panel.close()
    }
  })

  it('the CLI takes its endpoint from MEMORY_AGENT_LLM_BASE_URL and MEMORY_AGENT_LLM_MODEL', async () => {
    const m = await mock()
    const { backend: b, root } = await store()
    await history(b)
    // Not spawnSync: the mock answers from this process's event loop.
    const child = spawn(process.execPath, [path.join(repo, 'lib/cli/main.js'), 'consolidate', '--root', root, '--no-dry-run', '--json', '--no-user-root'], {
      env: { ...process.env, MEMORY_AGENT_LLM_BASE_URL: m.baseUrl, MEMORY_AGENT_LLM_MODEL: 'mock-chat' },
    })
    const run = { stdout: '', stderr: '', status: null as number | null }
    child.stdout.on('data', (d: Buffer) => (run.stdout += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (run.stderr += d.toString('utf8')))
    run.status = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    const report = JSON.parse(run.stdout) as Awaited<ReturnType<typeof consolidate>>
    expect(report.model).toMatchObject({ id: `${m.baseUrl}#mock-chat`, calls: 5 })
    expect(report.promoted.map((p) => p.summary)).toEqual([FACT])
  })
})

describe('reading model answers', () => {
  const notes = ['The staging database of Kestrel listens on port 6543.', 'Kestrel staging DB: PostgreSQL 16 on port 6543.']
  it('a fact must keep the numbers and names of its notes, and the newest value', () => {
    expect(readJudgement('{"same": true, "fact": "Kestrel staging runs PostgreSQL 16 on port 6543."}', notes, notes[1] as string)).toEqual({ fact: 'Kestrel staging runs PostgreSQL 16 on port 6543.' })
    expect(readJudgement('{"same": true, "fact": "Kestrel staging listens on port 6544."}', notes, notes[1] as string)).toEqual({ reason: 'not grounded: a number not in the sources' })
    expect(readJudgement('yes', notes, notes[1] as string)).toEqual({ reason: 'no JSON object in the answer' })
    expect(readJudgement('{"same": "maybe"}', notes, notes[1] as string)).toEqual({ reason: '"same" is not true or false' })
    expect(readJudgement('{"same": true}', notes, notes[1] as string)).toEqual({ reason: '"fact" is not a non-empty string' })
  })
  it('a summary must be short and mostly in its notes', () => {
    expect(readSummary('"Checked the Kestrel staging database port (6543)."', notes)).toEqual({ summary: 'Checked the Kestrel staging database port (6543).' })
    expect(readSummary('x'.repeat(500), notes)).toEqual({ reason: 'longer than 400 characters' })
    expect(readSummary('Weather forecasts mention rain tomorrow in several regions.', notes)).toMatchObject({ reason: expect.stringMatching(/^not grounded: only \d+% of its words/) })
  })
})
