/**
 * The DSH plugin's consolidation model in process (route 1, Node 20): the real cordis `Context`,
 * `ToolRuntime` and the real `LlmRuntime` of `@deepseek-ai/dsh-llm` (ctx.llm). The host's
 * provider adapters (dsh-llm-deepseek) are not installed on Node 20, so one route, `mock`, is an
 * `LlmAdapter` that streams what the scripted mock LLM (test/host/mock-llm.ts) answers over HTTP.
 * With `consolidationModel: "mock/mock-chat"`, memory_consolidate run through the host's tool
 * registry asks the model through ctx.llm and takes its grounded answers; a route that fails
 * degrades the run; "off" or a malformed setting leaves it deterministic.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import LlmRuntime, { LlmAdapter, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import { ToolRuntime } from '@deepseek-ai/dsh-tools'
import { afterAll, describe, expect, it } from 'vitest'
import * as plugin from '../src/host/index.js'
import { chatCompletionsModel } from '../src/lifecycle/chat-model.js'
import type { ConsolidationReport } from '../src/memory/consolidation/consolidate.js'
import { FACT, HISTORY, script } from './consolidation-model-kit.js'
import { startMockLlm, type MockLlm } from './host/mock-llm.js'

const dirs: string[] = []
const mocks: MockLlm[] = []
afterAll(async () => {
  for (const m of mocks) await m.close()
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})

/** A provider route that answers through the mock LLM's chat-completions endpoint. */
class MockRoute extends LlmAdapter {
  constructor(private readonly mock: MockLlm) {
    super()
  }
  async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    const block = options.messages[0]?.content[0]
    const prompt = block?.type === 'text' ? block.text : ''
    const answer = await chatCompletionsModel({ baseUrl: this.mock.baseUrl, model: options.model }).complete(prompt, {
      maxTokens: options.maxTokens ?? 200,
      signal: options.signal ?? new AbortController().signal,
    })
    yield { type: 'block-start', index: 0, blockType: 'text' }
    yield { type: 'text-delta', index: 0, text: answer.text }
    yield { type: 'block-end', index: 0, block: { type: 'text', text: answer.text } }
    yield { type: 'usage', usage: { inputTokens: answer.inputTokens, outputTokens: answer.outputTokens } }
    yield { type: 'finish', reason: { kind: 'stop' } }
  }
}

interface ExecResult {
  isError: boolean
  value?: unknown
  error?: { message: string }
}

let calls = 0
const signal = new AbortController().signal

async function host(mock: MockLlm, consolidationModel: string) {
  const root = new Context()
  await root.plugin(ToolRuntime, {})
  await root.plugin(LlmRuntime as never, {})
  ;(root as unknown as { llm: { registerAdapter(p: string[], a: LlmAdapter): unknown } }).llm.registerAdapter(['mock'], new MockRoute(mock))
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'host-llm-'))
  dirs.push(dir)
  // The prompt service the plugin injects; the web server and sessions stay absent.
  const { SystemPrompt } = await import('@deepseek-ai/dsh-system-prompt')
  await root.plugin(SystemPrompt, {})
  const fiber = await root.plugin(plugin as never, { root: dir, userRoot: null, consolidateAfterEpisodes: 0, consolidationModel })
  const run = async <T>(name: string, args: Record<string, unknown>): Promise<T> => {
    const r = (await root.tools.execute({ callId: `call-${++calls}`, name, arguments: args, signal } as never)) as ExecResult
    expect(r.isError, JSON.stringify(r.error)).toBe(false)
    return r.value as T
  }
  for (const [session_id, time, summary] of HISTORY) await run('write_memory', { summary, type: 'episode', session_id, time })
  return { run, fiber }
}

async function mock(maxRequests = 50): Promise<MockLlm> {
  const m = await startMockLlm({ script: [], complete: script, maxRequests })
  mocks.push(m)
  return m
}

describe('the DSH plugin consolidates with the host LLM service', () => {
  it('a named route: the model is asked through ctx.llm and its fact becomes the topic', async () => {
    const m = await mock()
    const { run, fiber } = await host(m, 'mock/mock-chat')
    const report = await run<ConsolidationReport>('memory_consolidate', { dryRun: false })
    expect(report.model).toMatchObject({ id: 'dsh:mock/mock-chat', calls: 5, tokens: 75 })
    expect(report.promoted.map((p) => p.summary)).toEqual([FACT])
    // The setup's free-text writes are judged in the background too (issue 27): count consolidation's own asks.
    const judged = (r: (typeof m.requests)[number]) => JSON.stringify(r.body.messages ?? []).includes('A new memory was written to a long-term memory store.')
    expect(m.requests.filter((r) => !judged(r)).map((r) => r.body.model)).toEqual(Array(5).fill('mock-chat'))
    await fiber.dispose()
  })

  it('a failing route degrades the run; "off" or a malformed setting uses no model', async () => {
    const failing = await mock(0)
    const degraded = await host(failing, 'mock/mock-chat')
    const report = await degraded.run<ConsolidationReport>('memory_consolidate', { dryRun: false })
    expect(report.degraded?.reason).toMatch(/^model dsh:mock\/mock-chat failed: .*503/)
    expect(report.promoted).toHaveLength(1)
    await degraded.fiber.dispose()

    const m = await mock()
    const off = await host(m, 'off')
    expect((await off.run<ConsolidationReport>('memory_consolidate', {})).model).toBeUndefined()
    await off.fiber.dispose()
    const malformed = await host(m, 'mock-chat')
    expect((await malformed.run<ConsolidationReport>('memory_consolidate', {})).model).toBeUndefined()
    await malformed.fiber.dispose()
    expect(m.requests).toHaveLength(0)
  })
})
