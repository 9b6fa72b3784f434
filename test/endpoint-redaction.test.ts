/**
 * Nothing reaches an endpoint or a cache unredacted (issue 28, item 4): real local servers that
 * record what they receive. Secrets in a query or an assemble task never reach the embedder; a
 * secret typed by hand into a memory file (one the write path never saw) is redacted before
 * `embed` sends it and before `consolidate` prompts the chat model; the chat model's reply is
 * redacted before it is cached in .cache/consolidation-model/ or quoted by the report.
 */

import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assembleHandler, consolidate, embedHandler, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { chatCompletionsModel } from '../src/lifecycle/chat-model.js'
import { MODEL_CACHE_DIR, setConsolidationModel } from '../src/memory/consolidation/model.js'
import { HISTORY, script } from './consolidation-model-kit.js'
import { startEmbeddingsServer, type EmbeddingsServer } from './embeddings-server.js'
import { startMockLlm, type MockLlm } from './host/mock-llm.js'
import { tempStores } from './store-kit.js'

const TYPED = 'ghp_Zq8xW3vB7nM2kL5jH9gF4dS1aP6oI0uY3tR8'
const ASKED = 'sk-proj4f9aB2cD3eF4gH5iJ6kL7mN8oP9'
const REPLIED = 'postgres://deploy:Tr0ub4dor-and-3@db.internal:5432/app'
const REPLIED_PASSWORD = 'Tr0ub4dor-and-3'

let embeddings: EmbeddingsServer
let llm: MockLlm | null = null
beforeAll(async () => {
  embeddings = await startEmbeddingsServer()
})
afterAll(async () => {
  await embeddings.close()
  await llm?.close()
})

const newStore = tempStores('endpoint-redaction-')

/** Types the secret into the memory's file by hand, as an editor would: the write path never sees it. */
async function handType(b: MemoryBackend, id: string, from: string, to: string): Promise<void> {
  const entry = (await b.indexView()).get(id)
  const file = path.join(b.root, entry!.path)
  const text = readFileSync(file, 'utf8')
  expect(text).toContain(from)
  writeFileSync(file, text.split(from).join(to))
}

describe('the embedder', () => {
  it('never receives a secret from a query, an assemble task or a hand-edited memory file', async () => {
    const b = (await newStore()).backend
    writeFileSync(path.join(b.root, 'config.json'), JSON.stringify({ embedder: { baseUrl: embeddings.url, model: 'redaction', dimensions: 12 } }))
    const cat = (await writeHandler(b, { summary: 'Mimi the cat sleeps on the sofa all day' })).id
    await writeHandler(b, { summary: 'The billing service stores invoices in Postgres' })
    await handType(b, cat, 'sleeps on the sofa', `sleeps on the sofa; the CI token is ${TYPED}`)
    await embedHandler(b, {})
    await searchHandler(b, { query: `kitten with key ${ASKED}` })
    await assembleHandler(b, { task: `deploy the cat service with ${ASKED}` })
    const sent = embeddings.received.join('\n')
    expect(sent).toContain('the CI token is [已脱敏:github-token]')
    expect(sent).toContain('kitten with key [已脱敏:api-key]')
    expect(sent).not.toContain(TYPED)
    expect(sent).not.toContain(ASKED)
  })
})

describe('the consolidation model', () => {
  it('is prompted without a hand-typed secret, and its reply is redacted before the cache and the report', async () => {
    const { backend: b, root } = await newStore()
    const ids: string[] = []
    for (const [session, time, summary] of HISTORY) ids.push((await writeHandler(b, { summary, type: 'episode', session_id: session, time })).id)
    // s1's second episode gets a token typed into its file.
    await handType(b, ids[1]!, 'in the scraper repo', `in the scraper repo with ${TYPED}`)
    // The model answers s1 with a connection string of its own: never cached, never quoted as it is.
    llm = await startMockLlm({ script: [], complete: (prompt) => (prompt.includes('ruff') ? `Set up ruff for the scraper repo against ${REPLIED}.` : script(prompt)), maxRequests: 50 })
    setConsolidationModel(b, chatCompletionsModel({ baseUrl: llm.baseUrl, model: 'mock-chat' }))
    const report = await consolidate(b, { dryRun: false })
    const prompts = JSON.stringify(llm.requests.map((r) => r.body))
    expect(prompts).toContain('[已脱敏:github-token]')
    expect(prompts).not.toContain(TYPED)
    const cache = readdirSync(path.join(root, MODEL_CACHE_DIR)).map((f) => readFileSync(path.join(root, MODEL_CACHE_DIR, f), 'utf8'))
    expect(cache.join('\n')).toContain('[已脱敏:connection-password]')
    expect(cache.join('\n')).not.toContain(REPLIED_PASSWORD)
    expect(JSON.stringify(report)).not.toContain(REPLIED_PASSWORD)
    expect(JSON.stringify(report)).not.toContain(TYPED)
  })
})
