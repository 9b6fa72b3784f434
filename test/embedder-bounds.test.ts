/**
 * Endpoint calls bounded (issue 28, item 3), against a real HTTP server on 127.0.0.1 that
 * stalls or answers malformed: a search waits at most its deadline for the query vector, the
 * "don't ask again" memo holds across processes (a second CLI search does not call the stalled
 * endpoint), and a malformed answer is a named error, never a TypeError.
 */

import { execFile } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { embedHandler, MemoryError, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { EMBEDDER_MEMO } from '../src/retrieve/embedder-memo.js'
import { startEmbeddingsServer, type Answer, type EmbeddingsServer } from './embeddings-server.js'
import { tempStores } from './store-kit.js'

let server: EmbeddingsServer
beforeAll(async () => {
  server = await startEmbeddingsServer()
})
afterAll(async () => {
  await server.close()
})

const newStore = tempStores('embedder-bounds-')

function configure(b: MemoryBackend, extra: Record<string, unknown> = {}): void {
  writeFileSync(path.join(b.root, 'config.json'), JSON.stringify({ embedder: { baseUrl: server.url, model: 'bounds', dimensions: 12, ...extra } }))
}

async function seeded(): Promise<MemoryBackend> {
  const b = (await newStore()).backend
  await writeHandler(b, { summary: 'Mimi the cat sleeps on the sofa' })
  await writeHandler(b, { summary: 'The billing service stores invoices in Postgres' })
  return b
}

/** A store whose memories are embedded, then pointed at the endpoint stalled, with these settings. */
async function stalled(settings: Record<string, unknown>): Promise<MemoryBackend> {
  const b = await seeded()
  configure(b)
  await embedHandler(b, {})
  configure(b, settings)
  server.setAnswer('stall')
  return b
}

const cli = promisify(execFile)
const CLI = path.resolve('lib/cli/main.js')

describe('a malformed embeddings answer', () => {
  it.each<[Answer, RegExp]>([
    ['all-index-0', /malformed embeddings answer: endpoint .* answered index 0 twice/],
    ['no-embedding', /malformed embeddings answer: endpoint .* without a numeric "embedding"/],
    ['wrong-dim', /dimension mismatch: .* 13 dimensions/],
  ])('%s: embed fails with a named error, not a TypeError', async (answer, message) => {
    const b = await seeded()
    configure(b, { retries: 0 })
    server.setAnswer(answer)
    try {
      const err = await embedHandler(b, {}).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(MemoryError)
      expect((err as MemoryError).code).toBe('INVALID_STATE')
      expect((err as Error).message).toMatch(message)
    } finally {
      server.setAnswer('vectors')
    }
  })
})

describe('a stalled embedder', () => {
  it('a search waits at most its deadline, whatever the retries and timeouts, and goes on by keywords', async () => {
    const b = await stalled({ timeoutMs: 600_000, retries: 10, queryDeadlineMs: 400 })
    try {
      const started = Date.now()
      const r = await searchHandler(b, { query: 'Postgres invoices' })
      expect(Date.now() - started).toBeLessThan(3_000)
      expect(r.hits.map((h) => h.reason)).toEqual(['match'])
      expect(r.guidance).toMatch(/no query vector within 400 ms/)
    } finally {
      server.setAnswer('vectors')
    }
  })

  it('after one failure a search in another process does not ask the endpoint again, and returns at once', async () => {
    const b = await stalled({ timeoutMs: 600_000, retries: 10, queryDeadlineMs: 1_000 })
    try {
      const first = await cli(process.execPath, [CLI, 'search', 'Postgres invoices', '--root', b.root, '--json'])
      expect((JSON.parse(first.stdout) as { guidance: string }).guidance).toMatch(/no query vector within 1000 ms/)
      expect(existsSync(path.join(b.root, EMBEDDER_MEMO))).toBe(true)
      const asked = server.requests
      // A deadline of ten minutes now: only the memo can make the second search quick.
      configure(b, { timeoutMs: 600_000, retries: 10, queryDeadlineMs: 600_000 })
      const started = Date.now()
      const second = await cli(process.execPath, [CLI, 'search', 'Postgres invoices', '--root', b.root, '--json'])
      expect(Date.now() - started).toBeLessThan(20_000)
      expect(server.requests).toBe(asked)
      const out = JSON.parse(second.stdout) as { hits: Array<{ reason: string }>; guidance: string }
      expect(out.hits.map((h) => h.reason)).toEqual(['match'])
      expect(out.guidance).toMatch(/Vectors were not used: the embedder gave no query vector/)
    } finally {
      server.setAnswer('vectors')
    }
  }, 60_000)
})
