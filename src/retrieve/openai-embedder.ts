/**
 * The adapter for any OpenAI-compatible embeddings endpoint (`POST <baseUrl>/embeddings`: hosted
 * providers, and local servers such as Ollama, LM Studio or vLLM): texts sent in batches, each
 * request under a timeout, retried with exponential backoff on a network failure, a 429 or a 5xx,
 * and every vector checked against the declared dimension. A failure is an error naming the URL
 * and what happened; it never returns a partial answer.
 *
 * The embedder id is `openai:<model>:<dimensions>`: the same model at the same size gives the
 * same vectors whichever server answers, so moving a server re-embeds nothing.
 */

import { pushAll } from '../arrays.js'
import { invalidInput, MemoryError } from '../errors.js'
import type { Embedder } from './embedder.js'

/** The largest vector length accepted (the widest common models have 4096). */
export const MAX_DIM = 8192

export interface OpenAiEmbedderOptions {
  /** Up to the version path: `http://127.0.0.1:11434/v1`, `https://api.openai.com/v1`. */
  baseUrl: string
  model: string
  /** The length of the vectors the model returns (checked on every answer). */
  dimensions: number
  /** Sent as `Authorization: Bearer`; local servers need none. */
  apiKey?: string
  /** Texts per request (default 64). */
  batchSize?: number
  /** Milliseconds one request may take (default 30 000). */
  timeoutMs?: number
  /** Milliseconds a search waits for its query's vector, all attempts together (default 8 000). */
  queryDeadlineMs?: number
  /** Further attempts after a failed request (default 2), waiting 250 ms, 500 ms, 1 s... between. */
  retries?: number
  /** Ask the model for `dimensions` (models that can shorten their vectors, such as text-embedding-3); default false. */
  sendDimensions?: boolean
}

export const OPENAI_DEFAULTS = Object.freeze({ batchSize: 64, timeoutMs: 30_000, retries: 2, backoffMs: 250 })

function integerIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalidInput(field, `an integer from ${min} to ${max}`)
  return value
}

function optionalInteger(value: unknown, field: string, min: number, max: number): number | undefined {
  return value === undefined ? undefined : integerIn(value, field, min, max)
}

/** Options from an untyped source (config.json's `embedder` block, flags): INVALID_INPUT naming the field. */
export function openAiOptionsFrom(value: unknown, where: string): OpenAiEmbedderOptions {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidInput(where, 'an object { baseUrl, model, dimensions }')
  const r = value as Record<string, unknown>
  const text = (key: string): string => {
    const v = r[key]
    if (typeof v !== 'string' || v.trim() === '') throw invalidInput(`${where}.${key}`, 'a non-empty string')
    return v.trim()
  }
  const batchSize = optionalInteger(r.batchSize, `${where}.batchSize`, 1, 2048)
  const timeoutMs = optionalInteger(r.timeoutMs, `${where}.timeoutMs`, 100, 600_000)
  const retries = optionalInteger(r.retries, `${where}.retries`, 0, 10)
  const queryDeadlineMs = optionalInteger(r.queryDeadlineMs, `${where}.queryDeadlineMs`, 100, 600_000)
  if (r.sendDimensions !== undefined && typeof r.sendDimensions !== 'boolean') throw invalidInput(`${where}.sendDimensions`, 'true or false')
  return {
    baseUrl: text('baseUrl'),
    model: text('model'),
    dimensions: integerIn(r.dimensions, `${where}.dimensions`, 1, MAX_DIM),
    ...(typeof r.apiKey === 'string' && r.apiKey !== '' ? { apiKey: r.apiKey } : {}),
    ...(batchSize !== undefined ? { batchSize } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(retries !== undefined ? { retries } : {}),
    ...(queryDeadlineMs !== undefined ? { queryDeadlineMs } : {}),
    ...(r.sendDimensions === true ? { sendDimensions: true } : {}),
  }
}

function endpointOf(baseUrl: string): string {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw invalidInput('embedder.baseUrl', `an http(s) URL such as http://127.0.0.1:11434/v1, got ${JSON.stringify(baseUrl)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidInput('embedder.baseUrl', `an http(s) URL, got ${JSON.stringify(baseUrl)}`)
  const base = url.href.replace(/\/+$/, '')
  return base.endsWith('/embeddings') ? base : `${base}/embeddings`
}

/** A failed attempt: whether another one may help. */
class AttemptError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message)
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function malformed(url: string, what: string): MemoryError {
  return new MemoryError('INVALID_STATE', `malformed embeddings answer: endpoint ${url} ${what}`)
}

/** One vector per text, each in the place its `index` names (or its position): every place filled once, else a malformed answer. */
function vectorsOf(body: unknown, count: number, dim: number, url: string): number[][] {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined
  if (!Array.isArray(data) || data.length !== count) {
    throw malformed(url, `answered without ${count} vectors in "data" (got ${Array.isArray(data) ? data.length : 'none'})`)
  }
  const out: (number[] | undefined)[] = new Array<number[] | undefined>(count).fill(undefined)
  data.forEach((item: unknown, position) => {
    const rec = typeof item === 'object' && item !== null ? (item as { index?: unknown; embedding?: unknown }) : {}
    const index = rec.index === undefined ? position : rec.index
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) throw malformed(url, `answered item ${position} with index ${JSON.stringify(index)}, not one of 0..${count - 1}`)
    if (out[index] !== undefined) throw malformed(url, `answered index ${index} twice (item ${position})`)
    const v = rec.embedding
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isFinite(x))) throw malformed(url, `answered item ${position} without a numeric "embedding"`)
    if (v.length !== dim) {
      throw new MemoryError('INVALID_STATE', `dimension mismatch: embeddings endpoint ${url} returned vectors of ${v.length} dimensions, the embedder is configured for ${dim} (embedder.dimensions)`, 'embedder.dimensions')
    }
    out[index] = v as number[]
  })
  return out as number[][]
}

/** An Embedder over an OpenAI-compatible endpoint. */
export function openAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const url = endpointOf(options.baseUrl)
  const dim = integerIn(options.dimensions, 'embedder.dimensions', 1, MAX_DIM)
  const batchSize = options.batchSize ?? OPENAI_DEFAULTS.batchSize
  const timeoutMs = options.timeoutMs ?? OPENAI_DEFAULTS.timeoutMs
  const retries = options.retries ?? OPENAI_DEFAULTS.retries
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {}) }

  async function attempt(texts: readonly string[], stop: AbortSignal | undefined): Promise<number[][]> {
    let response: Response
    try {
      const body = { model: options.model, input: texts, encoding_format: 'float', ...(options.sendDimensions === true ? { dimensions: dim } : {}) }
      response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: stop === undefined ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]) })
    } catch (err) {
      if (stop?.aborted === true) throw new AttemptError('the caller stopped waiting', false)
      const cause = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : err instanceof Error ? ((err.cause as { code?: string } | undefined)?.code ?? err.message) : String(err)
      throw new AttemptError(cause, true)
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 200)
      throw new AttemptError(`HTTP ${response.status}${detail !== '' ? `: ${detail}` : ''}`, response.status === 429 || response.status >= 500)
    }
    let parsed: unknown
    try {
      parsed = await response.json()
    } catch {
      throw new AttemptError('the answer is not JSON', false)
    }
    return vectorsOf(parsed, texts.length, dim, url)
  }

  async function batch(texts: readonly string[], stop: AbortSignal | undefined): Promise<number[][]> {
    for (let n = 0; ; n++) {
      try {
        return await attempt(texts, stop)
      } catch (err) {
        if (!(err instanceof AttemptError)) throw err
        if (!err.retry || n >= retries || stop?.aborted === true) {
          const tries = n + 1
          throw new MemoryError('IO_ERROR', `embeddings endpoint ${url} failed (${err.message}) after ${tries} attempt${tries === 1 ? '' : 's'}: is the server running and the URL right (embedder.baseUrl)?`)
        }
        await sleep(OPENAI_DEFAULTS.backoffMs * 2 ** n)
      }
    }
  }

  return {
    kind: 'openai',
    id: `openai:${options.model}:${dim}`,
    endpoint: url,
    dim,
    ...(options.queryDeadlineMs !== undefined ? { queryDeadlineMs: options.queryDeadlineMs } : {}),
    async embed(texts, call) {
      const out: number[][] = []
      for (let i = 0; i < texts.length; i += batchSize) pushAll(out, await batch(texts.slice(i, i + batchSize), call?.signal))
      return out
    },
  }
}
