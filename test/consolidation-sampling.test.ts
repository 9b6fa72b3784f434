/**
 * MCP sampling as the consolidation model: the SDK's real `Client` over stdio against the BUILT
 * CLI (`node lib/cli/main.js mcp`; run `npm run build` first). A client that declares `sampling`
 * and answers `sampling/createMessage` lends its model: memory_consolidate takes the client's
 * fact and summaries (grounded in the episodes), and a second run asks nothing. A client without
 * the capability gets the deterministic run, with no model in the report.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CreateMessageRequestSchema, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, describe, expect, it } from 'vitest'
import type { ConsolidationReport } from '../src/memory/consolidation/consolidate.js'
import { EN_SUMMARY, FACT, HISTORY, script } from './consolidation-model-kit.js'

const CLI = path.join(import.meta.dirname, '..', 'lib', 'cli', 'main.js')
const dirs: string[] = []
const clients: Client[] = []

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})

async function connect(root: string, sampled: CreateMessageRequest['params'][] | null): Promise<Client> {
  const client = new Client({ name: 'sampling-test', version: '1.0.0' }, { capabilities: sampled === null ? {} : { sampling: {} } })
  if (sampled !== null) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      sampled.push(request.params)
      const first = request.params.messages[0]?.content
      const prompt = first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : ''
      return { model: 'scripted-sampler', role: 'assistant', content: { type: 'text', text: script(prompt) ?? '' } }
    })
  }
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
  // Eight episodes are fewer than consolidateAfterEpisodes (20): no idle run, only the tool calls below.
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, '--no-user-root', '--tools', 'all'], env, stderr: 'pipe' }))
  clients.push(client)
  return client
}

async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await client.callTool({ name, arguments: args })
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
  return result.structuredContent as T
}

async function storeWithHistory(client: Client): Promise<void> {
  for (const [session_id, time, summary] of HISTORY) await call(client, 'write_memory', { summary, type: 'episode', session_id, time })
}

async function tempRoot(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sampling-test-'))
  dirs.push(dir)
  return path.join(dir, 'store')
}

describe('MCP sampling gives consolidation a model', () => {
  it("a client with sampling: the client's fact and summaries, then the cache", async () => {
    const sampled: CreateMessageRequest['params'][] = []
    const client = await connect(await tempRoot(), sampled)
    await storeWithHistory(client)
    const report = await call<ConsolidationReport>(client, 'memory_consolidate', { dryRun: false })
    expect(report.model).toMatchObject({ id: 'mcp-sampling:sampling-test@1.0.0', calls: 5, cached: 0 })
    expect(report.model?.tokens).toBeGreaterThan(0)
    expect(report.degraded).toBeUndefined()
    expect(report.promoted.map((p) => p.summary)).toEqual([FACT])
    expect(report.reflected.find((s) => s.session === 's1')?.summary).toBe(`Session s1 (2026-02-02, 2 episodes): ${EN_SUMMARY}`)
    // The setup's free-text writes are judged in the background too (issue 27): consolidation's own asks are the rest.
    const asked = () => sampled.filter((p) => !JSON.stringify(p.messages).includes('A new memory was written to a long-term memory store.'))
    const judgements = sampled.length - asked().length
    expect(asked()).toHaveLength(5)
    expect(asked()[0]).toMatchObject({ includeContext: 'none', maxTokens: 200, messages: [{ role: 'user', content: { type: 'text' } }] })
    // The dry run after it asks nothing new.
    const again = await call<ConsolidationReport>(client, 'memory_consolidate', {})
    expect(sampled).toHaveLength(5 + judgements)
    expect(again.model?.calls).toBe(0)
  })

  it('a client without sampling: no model, the deterministic run', async () => {
    const client = await connect(await tempRoot(), null)
    await storeWithHistory(client)
    const report = await call<ConsolidationReport>(client, 'memory_consolidate', { dryRun: false })
    expect(report.model).toBeUndefined()
    expect(report.promoted).toHaveLength(1)
    expect(report.promoted[0]?.summary).not.toBe(FACT)
  })
})
