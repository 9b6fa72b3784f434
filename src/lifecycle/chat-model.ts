/**
 * A consolidation model behind an OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek,
 * a local server): one user message per prompt, `POST {baseUrl}/chat/completions`. It reads no
 * environment (the CLI does, `modelFromEnv`), and it fails loudly (a rejected promise) on any
 * HTTP error or an answer it cannot read: the engine turns that into a degraded run.
 * An endpoint that streams whatever it was asked (`text/event-stream`) is read as SSE.
 */

import type { ConsolidationModel, ModelAnswer } from '../memory/consolidation/model.js'
import { estimateTokens } from '../types.js'

export interface ChatEndpoint {
  /** For example `https://api.deepseek.com` or `http://127.0.0.1:8000/v1`; `/chat/completions` is appended. */
  baseUrl: string
  model: string
  apiKey?: string
}

/** The environment variables the CLI reads for an endpoint: base URL and model, the key optional. */
export const ENDPOINT_ENV = { baseUrl: 'MEMORY_AGENT_LLM_BASE_URL', model: 'MEMORY_AGENT_LLM_MODEL', apiKey: 'MEMORY_AGENT_LLM_API_KEY' } as const

interface Usage {
  prompt_tokens?: unknown
  completion_tokens?: unknown
}

const count = (n: unknown): number | null => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null)

/** The answer with its tokens: the endpoint's usage where it gives one, an estimate otherwise. */
function answerOf(prompt: string, text: string, usage: Usage | undefined): ModelAnswer {
  return { text, inputTokens: count(usage?.prompt_tokens) ?? estimateTokens(prompt), outputTokens: count(usage?.completion_tokens) ?? estimateTokens(text) }
}

/** The text and usage of an SSE chat-completions stream. */
function readStream(body: string): { text: string; usage: Usage | undefined } {
  let text = ''
  let usage: Usage | undefined
  for (const line of body.split('\n')) {
    const data = line.startsWith('data:') ? line.slice(5).trim() : ''
    if (data === '' || data === '[DONE]') continue
    const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: unknown } }>; usage?: Usage }
    const piece = chunk.choices?.[0]?.delta?.content
    if (typeof piece === 'string') text += piece
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage
  }
  return { text, usage }
}

export function chatCompletionsModel(endpoint: ChatEndpoint): ConsolidationModel {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`
  return {
    id: `${endpoint.baseUrl}#${endpoint.model}`,
    async complete(prompt, { maxTokens, signal }) {
      const res = await fetch(url, {
        method: 'POST',
        signal,
        headers: { 'content-type': 'application/json', ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}) },
        body: JSON.stringify({ model: endpoint.model, messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, temperature: 0, stream: false }),
      }).catch((err: unknown) => {
        // fetch says only "fetch failed"; its cause says why (ECONNREFUSED: nothing listens there).
        if (signal?.aborted === true) throw err
        const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined
        const why = cause?.code === 'ECONNREFUSED' ? 'connection refused (is the model server running?)' : (cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err)))
        throw new Error(`chat model endpoint ${url} failed: ${why}`)
      })
      const body = await res.text()
      if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}: ${body.slice(0, 200)}`)
      if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        const read = readStream(body)
        return answerOf(prompt, read.text, read.usage)
      }
      const value = JSON.parse(body) as { choices?: Array<{ message?: { content?: unknown } }>; usage?: Usage }
      const text = value.choices?.[0]?.message?.content
      if (typeof text !== 'string') throw new Error(`no choices[0].message.content in the answer of ${url}`)
      return answerOf(prompt, text, value.usage)
    },
  }
}

/** The endpoint model the environment names (base URL and model both set), or null. */
export function modelFromEnv(env: NodeJS.ProcessEnv): ConsolidationModel | null {
  const baseUrl = env[ENDPOINT_ENV.baseUrl]
  const model = env[ENDPOINT_ENV.model]
  if (!baseUrl || !model) return null
  const apiKey = env[ENDPOINT_ENV.apiKey]
  return chatCompletionsModel({ baseUrl, model, ...(apiKey ? { apiKey } : {}) })
}
