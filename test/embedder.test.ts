/**
 * Vectors end to end, through a real embeddings server on 127.0.0.1 (embeddings-server.ts):
 * a query that shares no word with a memory finds it by meaning; without an embedder every
 * answer is what keyword search gives; filters, as-of and statuses apply before fusion;
 * memory_verify never takes similarity for support; an unreachable endpoint, a dimension
 * mismatch, a change of embedder (re-embedded once) and a killed `memory-agent embed` (resumed).
 */

import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  TOOLS,
  assembleHandler,
  embedHandler,
  outputViolation,
  saveConfigPatch,
  searchHandler,
  setEmbedder,
  sweepHandler,
  vectorDiagnostics,
  verifyHandler,
  writeHandler,
  forgetValueHandler,
  AUTO_SETTLE_DEFAULTS,
  rebuildIndex,
  type MemoryBackend,
} from '../src/api.js'
import { conceptVector, startEmbeddingsServer, type EmbeddingsServer } from './embeddings-server.js'
import { tempStores } from './store-kit.js'
import { Heartbeat } from '../src/host/heartbeat.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

let server: EmbeddingsServer
beforeAll(async () => {
  server = await startEmbeddingsServer()
})
afterAll(async () => {
  await server.close()
})

const newStore = tempStores('embedder-')
const store = async (): Promise<MemoryBackend> => (await newStore()).backend

function configure(b: MemoryBackend, embedder: Record<string, unknown> | null): void {
  writeFileSync(path.join(b.root, 'config.json'), JSON.stringify(embedder === null ? {} : { embedder }))
}

const concept = (model = 'concepts') => ({ baseUrl: server.url, model, dimensions: 12 })
const searchTool = TOOLS.find((t) => t.name === 'memory_search_hybrid')!
const sweepTool = TOOLS.find((t) => t.name === 'memory_sweep')!

const MEMORIES = [
  '周会定在每周二上午十点',
  'Mimi turned three in May and sleeps on the sofa all day',
  'The billing service stores invoices in Postgres',
  '她对花生过敏，点菜时要注意',
  'Release 2.4 goes out on Friday after the review',
]

async function seed(b: MemoryBackend): Promise<string[]> {
  const ids: string[] = []
  for (const summary of MEMORIES) ids.push((await writeHandler(b, { summary })).id)
  return ids
}

/** The answer without what differs between two calls by design (the evidence batch). */
function comparable(out: Record<string, unknown>): unknown {
  const { batch_id: _b, hits, ...rest } = out as { batch_id: string; hits: Array<Record<string, unknown>> }
  return { ...rest, hits: hits.map(({ ref: _r, ...h }) => h) }
}

const QUERIES = ['standup 几点', 'kitten', 'Postgres invoices', 'what is she allergic to', '忌口', 'release Friday', '']

describe('hybrid retrieval through an embeddings server', () => {
  it('a query sharing no word with a memory finds it by meaning, said in its reason, after embed', async () => {
    const b = await store()
    const ids = await seed(b)
    // Keyword-only first: these queries share no word (nor alias) with their memories.
    expect((await searchHandler(b, { query: 'standup 几点' })).hits).toEqual([])
    expect((await searchHandler(b, { query: 'kitten' })).hits).toEqual([])
    configure(b, concept())
    // Writes never wait: before embed the queue holds every memory.
    expect((await vectorDiagnostics(b))?.pending).toBe(MEMORIES.length)
    const report = await embedHandler(b, {})
    expect(report).toMatchObject({ embedder: 'openai:concepts:12', embedded: MEMORIES.length, pending: 0 })
    const meeting = await searchHandler(b, { query: 'standup 几点' })
    expect(outputViolation(searchTool.output, meeting)).toBeNull()
    expect(meeting.hits[0]).toMatchObject({ id: ids[0], reason: 'meaning' })
    expect(meeting.guidance).toMatch(/found by meaning/)
    const kitten = await searchHandler(b, { query: 'kitten' })
    expect(kitten.hits.map((h) => h.id)).toEqual([ids[1]])
    expect(kitten.hits[0]?.similarity).toBeGreaterThan(0.9)
    // A memory found by both sides keeps its keyword reason and ranks first.
    const both = await searchHandler(b, { query: 'Postgres invoices' })
    expect(both.hits[0]).toMatchObject({ id: ids[2], reason: 'match' })
    // assemble uses the same ranking.
    const block = await assembleHandler(b, { task: '小猫 kitten 的情况' })
    expect(block.context).toContain('Mimi turned three')
  })

  it('without an embedder every answer is the keyword answer, byte for byte, and nothing is written under .cache/vectors', async () => {
    const b = await store()
    // The same searches asked twice: use must not strengthen the hits in between (signals.ts).
    await saveConfigPatch(b, { learnFromSearches: false })
    await seed(b)
    const before: string[] = []
    for (const query of QUERIES) before.push(JSON.stringify(comparable(await searchHandler(b, { query, top_k: 3 }))))
    const assembled = JSON.stringify(await assembleHandler(b, { task: '开会是啥时候 Postgres' }))
    expect(existsSync(path.join(b.root, '.cache', 'vectors'))).toBe(false)
    expect(await vectorDiagnostics(b)).toBeNull()
    expect((await sweepHandler(b, {})).embeddings).toBeUndefined()
    // Vectors made, then the embedder taken away: the answers are as before.
    configure(b, concept())
    await embedHandler(b, {})
    expect(JSON.stringify(comparable(await searchHandler(b, { query: 'standup 几点', top_k: 3 })))).not.toBe(before[0])
    configure(b, null)
    const after: string[] = []
    for (const query of QUERIES) after.push(JSON.stringify(comparable(await searchHandler(b, { query, top_k: 3 }))))
    expect(after).toEqual(before)
    expect(JSON.stringify(await assembleHandler(b, { task: '开会是啥时候 Postgres' }))).toBe(assembled)
    // A library caller's null wins over config.json.
    configure(b, concept())
    setEmbedder(b, null)
    expect(JSON.stringify(comparable(await searchHandler(b, { query: QUERIES[0]!, top_k: 3 })))).toBe(before[0])
  })

  it('filters, statuses and as-of apply before fusion; memory_verify never counts similarity as support', async () => {
    const b = await store()
    const cat = (await writeHandler(b, { summary: 'Mimi the cat sleeps on the sofa', tags: ['pets'] })).id
    await writeHandler(b, { summary: 'The deploy window is Friday evening', tags: ['ops'] })
    configure(b, concept())
    await embedHandler(b, {})
    expect((await searchHandler(b, { query: 'kitten' })).hits.map((h) => h.id)).toEqual([cat])
    expect((await searchHandler(b, { query: 'kitten', tags: ['ops'] })).hits).toEqual([])
    expect((await searchHandler(b, { query: 'kitten', asOf: '2000-01-01T00:00:00Z' })).hits).toEqual([])
    // Similar in meaning, but not stated: unknown, never supported.
    const verdict = await verifyHandler(b, { claim: 'The kitten is a feline' })
    expect(verdict.verdict).not.toBe('supported')
    expect(verdict.support).toBeNull()
    await forgetValueHandler(b, { id: cat })
    expect((await searchHandler(b, { query: 'kitten' })).hits).toEqual([])
  })

  it('diagnostics in memory_sweep: kind, id, dim, coverage, queue', async () => {
    const b = await store()
    await seed(b)
    configure(b, concept())
    await embedHandler(b, { limit: 2 })
    const sweep = await sweepHandler(b, {})
    expect(outputViolation(sweepTool.output, sweep)).toBeNull()
    expect(sweep.embeddings).toMatchObject({ kind: 'openai', embedder: 'openai:concepts:12', dim: 12, embedded: 2, searchable: MEMORIES.length, pending: MEMORIES.length - 2, dimensionMismatches: 0 })
    expect(sweep.embeddings?.bytesPerVector).toBe(12 + 4 + 4)
  })
})

describe('vectors are derived data', () => {
  it('vector_id in the index points to the vector; memory files never hold one; a rebuild or a deleted .cache costs only what it must', async () => {
    const b = await store()
    const ids = await seed(b)
    configure(b, concept())
    await embedHandler(b, {})
    const view = await b.indexView()
    const segments = (await b.listFiles('.cache/vectors')).filter((f) => f.endsWith('.bin'))
    const segmentBytes = Buffer.concat(segments.map((f) => readFileSync(path.join(b.root, f))))
    for (const id of ids) {
      const vectorId = view.get(id)?.vector_id
      expect(vectorId).toMatch(/^[0-9a-f]{40}$/)
      expect(segmentBytes.includes(Buffer.from(vectorId as string, 'hex'))).toBe(true)
      const file = readFileSync(path.join(b.root, view.get(id)?.path as string), 'utf8')
      expect(file).not.toMatch(/vector/)
    }
    // A rebuild from the files: vector_id null, set again by the next drain without embedding.
    await rebuildIndex(b)
    expect((await b.indexView()).get(ids[0] as string)?.vector_id).toBeNull()
    const requests = server.requests
    expect(await embedHandler(b, {})).toMatchObject({ embedded: 0, pending: 0 })
    expect(server.requests).toBe(requests)
    expect((await b.indexView()).get(ids[0] as string)?.vector_id).toMatch(/^[0-9a-f]{40}$/)
    // A text changed by hand: its new text is embedded and the old vector leaves the files.
    const edited = (await b.indexView()).get(ids[3] as string)!
    const oldKey = edited.vector_id as string
    const file = path.join(b.root, edited.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('她对花生过敏', '她对芒果过敏'))
    expect(await embedHandler(b, {})).toMatchObject({ embedded: 1, pending: 0 })
    const after = (await b.listFiles('.cache/vectors')).filter((f) => f.endsWith('.bin'))
    expect(after.length).toBe(1)
    expect(readFileSync(path.join(b.root, after[0] as string)).includes(Buffer.from(oldKey, 'hex'))).toBe(false)
    expect((await b.indexView()).get(ids[3] as string)?.vector_id).not.toBe(oldKey)
    // .cache deleted: everything is embedded again, and found again.
    rmSync(path.join(b.root, '.cache'), { recursive: true, force: true })
    expect(await embedHandler(b, {})).toMatchObject({ embedded: MEMORIES.length, pending: 0 })
    expect((await searchHandler(b, { query: 'kitten' })).hits[0]).toMatchObject({ id: ids[1], reason: 'meaning' })
  })
})

describe('failures', () => {
  it('an unreachable endpoint: embed fails naming the URL; search goes on by keywords and says why', async () => {
    const b = await store()
    await seed(b)
    const dead = await startEmbeddingsServer()
    const url = dead.url
    await dead.close()
    configure(b, { baseUrl: url, model: 'concepts', dimensions: 12, retries: 1, timeoutMs: 2000 })
    await expect(embedHandler(b, {})).rejects.toThrow(new RegExp(`embeddings endpoint ${url.replace(/[.]/g, '\\.')}/embeddings failed \\(ECONNREFUSED\\) after 2 attempts`))
    // Nothing embedded: no vectors, nothing to fuse, the keyword answer.
    expect((await searchHandler(b, { query: 'Postgres' })).hits.map((h) => h.reason)).toEqual(['match'])
    // Embedded while the server ran, then it went away: the query cannot be embedded.
    configure(b, concept())
    await embedHandler(b, {})
    configure(b, { baseUrl: url, model: 'concepts', dimensions: 12, retries: 0 })
    const r = await searchHandler(b, { query: 'Postgres' })
    expect(r.hits.map((h) => h.reason)).toEqual(['match'])
    expect(r.guidance).toContain(`Vectors were not used: embeddings endpoint ${url}/embeddings failed`)
  })

  it('a dimension mismatch: an endpoint answering another length is refused by name; vectors of another length are counted and embedded again', async () => {
    const b = await store()
    await seed(b)
    const wide = await startEmbeddingsServer({ dim: 16 })
    try {
      configure(b, { baseUrl: wide.url, model: 'concepts', dimensions: 12 })
      await expect(embedHandler(b, {})).rejects.toThrow(/dimension mismatch: .*returned vectors of 16 dimensions, the embedder is configured for 12/)
    } finally {
      await wide.close()
    }
    // One id, two lengths (a custom embedder that changed its model and kept its name).
    const embed16 = async (texts: readonly string[]) => texts.map((t) => conceptVector(t, 16))
    setEmbedder(b, { id: 'mine', dim: 16, embed: embed16 })
    await embedHandler(b, {})
    setEmbedder(b, { id: 'mine', dim: 12, embed: async (texts) => texts.map((t) => conceptVector(t)) })
    const d = await vectorDiagnostics(b)
    expect(d).toMatchObject({ dimensionMismatches: MEMORIES.length, embedded: 0, pending: MEMORIES.length })
    expect((await embedHandler(b, {})).embedded).toBe(MEMORIES.length)
    expect((await searchHandler(b, { query: 'kitten' })).hits[0]?.reason).toBe('meaning')
  })
})

describe('a change of embedder, and a crash', () => {
  it('re-embeds once: the marker records the change, the old vectors go, a second run does nothing', async () => {
    const b = await store()
    await seed(b)
    configure(b, concept('model-a'))
    expect(await embedHandler(b, {})).toMatchObject({ embedded: MEMORIES.length, migrated: true })
    configure(b, concept('model-b'))
    expect(await vectorDiagnostics(b)).toMatchObject({ embedder: 'openai:model-b:12', completedEmbedder: 'openai:model-a:12', pending: MEMORIES.length })
    // The old vectors still serve nothing to the new embedder, and are still there until the change completes.
    const oldFiles = async () => (await b.listFiles('.cache/vectors')).filter((f) => f.includes('/openai-model-a'))
    expect((await oldFiles()).length).toBe(1)
    const before = server.texts.get('model-b') ?? 0
    expect(await embedHandler(b, {})).toMatchObject({ embedded: MEMORIES.length, migrated: true })
    expect(server.texts.get('model-b')).toBe(before + MEMORIES.length)
    expect(await oldFiles()).toEqual([])
    const requests = server.requests
    expect(await embedHandler(b, {})).toMatchObject({ embedded: 0, pending: 0, migrated: false })
    expect(server.requests).toBe(requests)
    expect(await vectorDiagnostics(b)).toMatchObject({ completedEmbedder: 'openai:model-b:12', embedded: MEMORIES.length })
  })
})

const CLI = path.resolve('lib/cli/main.js')

function runCli(args: readonly string[], env: Record<string, string> = {}): { done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>; kill(): void } {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { done, kill: () => child.kill('SIGKILL') }
}

describe('memory-agent embed, killed and run again', () => {
  it('resumes from the segments written: only the rest is embedded, once', async () => {
    const b = await store()
    const total = 150
    for (let i = 0; i < total; i++) await writeHandler(b, { summary: i % 2 === 0 ? `第${i}次周会记录：讨论了数据库迁移` : `Standup note ${i}: the cat photo contest moved` })
    const slow = await startEmbeddingsServer({ delayMs: 400 })
    try {
      configure(b, { baseUrl: slow.url, model: 'crash', dimensions: 12, batchSize: 16 })
      const first = runCli(['embed', '--root', b.root])
      const segments = async () => (await b.listFiles('.cache/vectors')).filter((f) => f.endsWith('.bin'))
      const deadline = Date.now() + 60_000
      while ((await segments()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      first.kill()
      const killed = await first.done
      expect(killed.signal).toBe('SIGKILL')
      const kept = (await segments()).length
      expect(kept).toBeGreaterThanOrEqual(1)
      expect(kept).toBeLessThan(Math.ceil(total / 64))
      slow.setDelay(0)
      const sentBefore = slow.texts.get('crash') ?? 0
      // The second run takes the endpoint from flags: the same embedder id, so it resumes.
      configure(b, null)
      const second = runCli(['embed', '--root', b.root, '--json', '--embedder-url', slow.url, '--embedder-model', 'crash', '--embedder-dimensions=12'])
      const out = await second.done
      expect(out.code, out.stderr).toBe(0)
      const report = JSON.parse(out.stdout) as { embedded: number; pending: number; migrated: boolean }
      expect(report).toMatchObject({ embedded: total - kept * 64, pending: 0, migrated: true })
      expect((slow.texts.get('crash') ?? 0) - sentBefore).toBe(total - kept * 64)
      const stats = await runCli(['stats', '--root', b.root, '--json'], { MEMORY_AGENT_EMBEDDER_URL: slow.url, MEMORY_AGENT_EMBEDDER_MODEL: 'crash', MEMORY_AGENT_EMBEDDER_DIMENSIONS: '12' }).done
      expect(JSON.parse(stats.stdout)).toMatchObject({ embeddings: { embedded: total, searchable: total, pending: 0 } })
    } finally {
      await slow.close()
    }
  }, 120_000)

  it('an unreachable endpoint: the command exits non-zero naming the URL', async () => {
    const b = await store()
    await seed(b)
    const out = await runCli(['embed', '--root', b.root, '--embedder-url', 'http://127.0.0.1:9/v1', '--embedder-model', 'm', '--embedder-dimensions', '12', '--embedder-retries', '0']).done
    expect(out.code).toBe(1)
    expect(out.stderr).toContain('embeddings endpoint http://127.0.0.1:9/v1/embeddings failed')
  })
})

describe('bench/retrieval.ts --embedder', () => {
  it('runs LoCoMo and MADial with hybrid ranking through an endpoint', async () => {
    const results = mkdtempSync(path.join(tmpdir(), 'bench-results-'))
    const before = server.texts.get('bench-concepts') ?? 0
    const child = spawn(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), 'bench/retrieval.ts', '--limit-conversations', '1', '--embedder', server.url, '--embedder-model', 'bench-concepts', '--embedder-dimensions', '12'], {
      env: { ...process.env, MEMORY_AGENT_BENCH_RESULTS: results },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code, stderr.slice(-2000)).toBe(0)
    expect(stdout).toContain('ours ranks by hybrid: keywords and vectors of openai:bench-concepts:12')
    const figures = JSON.parse(readFileSync(path.join(results, 'retrieval.json'), 'utf8')) as { ranking: string; locomo?: unknown; madial?: unknown }
    expect(figures.ranking).toMatch(/^hybrid/)
    expect(figures.locomo).toBeDefined()
    expect(figures.madial).toBeDefined()
    // Every memory of both data sets went through the endpoint, and every question too.
    expect((server.texts.get('bench-concepts') ?? 0) - before).toBeGreaterThan(100)
  }, 600_000)
})

describe('the MCP server embeds when idle', () => {
  it('writes over MCP do not wait; once idle the server drains the queue, and search finds by meaning', async () => {
    const b = await store()
    const client = new Client({ name: 'embedder-test', version: '1.0.0' })
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--root', b.root, '--no-user-root', '--tools', 'all', '--consolidate-idle-ms', '1500', '--embedder-url', server.url, '--embedder-model', 'idle', '--embedder-dimensions', '12'],
        env,
        stderr: 'pipe',
      }),
    )
    try {
      const before = server.texts.get('idle') ?? 0
      for (const summary of MEMORIES) await client.callTool({ name: 'write_memory', arguments: { summary } })
      // The writes returned before any vector was asked for.
      expect((server.texts.get('idle') ?? 0) - before).toBe(0)
      const deadline = Date.now() + 30_000
      while ((server.texts.get('idle') ?? 0) - before < MEMORIES.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      expect((server.texts.get('idle') ?? 0) - before).toBe(MEMORIES.length)
      const found = (await client.callTool({ name: 'memory_search_hybrid', arguments: { query: 'kitten' } })).structuredContent as { hits: Array<{ reason: string; summary: string }> }
      expect(found.hits[0]).toMatchObject({ reason: 'meaning', summary: MEMORIES[1] })
    } finally {
      await client.close()
    }
  }, 60_000)
})

describe('the DSH heartbeat embeds in the background', () => {
  it('a tick starts the drain without waiting for it; when it settles every memory has a vector', async () => {
    const b = await store()
    await seed(b)
    configure(b, concept('heartbeat'))
    const heartbeat = new Heartbeat(b, AUTO_SETTLE_DEFAULTS)
    heartbeat.tick(undefined)
    await heartbeat.idle()
    expect(await vectorDiagnostics(b)).toMatchObject({ embedder: 'openai:heartbeat:12', embedded: MEMORIES.length, pending: 0 })
  })
})
