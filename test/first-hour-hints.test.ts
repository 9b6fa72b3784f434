/**
 * What a new user is told instead of silence (issue 30 item 3), against real local servers: a
 * search says when meaning search is configured but new writes wait for `embed`; a chat model
 * whose port is closed names its endpoint and the cause; the consolidate preview asks the model
 * the run would ask, so preview and run agree.
 */

import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCompletionsModel, embedHandler, openAiEmbedder, searchHandler, setEmbedder, writeHandler } from '../src/api.js'
import { startEmbeddingsServer, type EmbeddingsServer } from './embeddings-server.js'
import { tempStores } from './store-kit.js'

const store = tempStores('first-hour-')
let server: EmbeddingsServer

beforeAll(async () => {
  server = await startEmbeddingsServer()
})
afterAll(async () => {
  await server.close()
})

/** A port that was just free: nothing listens there. */
async function closedPort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

describe('hints instead of silence', () => {
  it('a search says how many memories wait for embed while meaning search is configured, and stops once they are embedded', async () => {
    const { backend } = await store()
    setEmbedder(backend, openAiEmbedder({ baseUrl: server.url, model: 'concepts', dimensions: 12 }))
    await writeHandler(backend, { summary: 'The cache lives in Redis on port 6379.' })
    await writeHandler(backend, { summary: 'Deploys go out on Tuesdays.' })
    const before = await searchHandler(backend, { query: 'redis cache' })
    expect(before.guidance).toContain('2 memories not embedded yet (written since the last embed), so meaning search cannot find them: run memory_embed.')
    await embedHandler(backend, {})
    const after = await searchHandler(backend, { query: 'redis cache' })
    expect(after.guidance).not.toContain('not embedded yet')
    await writeHandler(backend, { summary: 'The queue is RabbitMQ.' })
    expect((await searchHandler(backend, { query: 'queue' })).guidance).toContain('1 memory not embedded yet')
  })

  it('a chat model on a closed port names the endpoint and the cause, not only "fetch failed"', async () => {
    const port = await closedPort()
    const model = chatCompletionsModel({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'none' })
    await expect(model.complete('hello', { maxTokens: 5 })).rejects.toThrow(`chat model endpoint http://127.0.0.1:${port}/v1/chat/completions failed: connection refused (is the model server running?)`)
  })
})
