/**
 * The model consolidation may use, never needs: a narrow interface (one prompt in, text and its
 * token cost out) that the adapters fill (the DSH host's LLM service, MCP sampling, an
 * OpenAI-compatible endpoint for the CLI), set per store with `setConsolidationModel`; and the
 * run's use of it (`ModelRun`): answers cached in `.cache/consolidation-model/` by a hash of
 * (model id, prompt id and version, prompt text), token caps per run and per day, and the
 * degraded state a run falls into when a cap is reached or the model fails. It never throws to
 * the engine: every failure is a null answer and the engine keeps its deterministic result.
 * Nothing passes it unredacted: the prompt is redacted before it is sent (a hand-typed memory
 * file may hold a secret the write path never saw), and the answer before it is cached or
 * returned, so neither the cache nor a report quoting the answer holds one.
 */

import { createHash } from 'node:crypto'
import { redactSecrets } from '../../redact.js'
import type { MemoryBackend } from '../../store/backend.js'
import { estimateTokens, type LedgerEvent } from '../../types.js'
import type { PromptSpec } from './prompts.js'

/** What a model answered and what it cost. */
export interface ModelAnswer {
  text: string
  inputTokens: number
  outputTokens: number
}

/** A chat model, as consolidation sees it. */
export interface ConsolidationModel {
  /** Which model (for example `deepseek-official/deepseek-chat`): part of the cache key. */
  readonly id: string
  /** One prompt, one answer of at most maxTokens; rejects on any failure (signal aborts it). */
  complete(prompt: string, options: { maxTokens: number; signal: AbortSignal }): Promise<ModelAnswer>
}

export const MODEL_CACHE_DIR = '.cache/consolidation-model'
/** One model call may take this long before it counts as failed (and the run degrades). */
export const MODEL_CALL_TIMEOUT_MS = 60_000

const models = new WeakMap<MemoryBackend, ConsolidationModel>()

/** The model consolidation of this store uses from now on; null: none (the deterministic path). Set by adapters. */
export function setConsolidationModel(backend: MemoryBackend, model: ConsolidationModel | null): void {
  if (model === null) models.delete(backend)
  else models.set(backend, model)
}

/** The model an adapter set for this store, or null. */
export function consolidationModel(backend: MemoryBackend): ConsolidationModel | null {
  return models.get(backend) ?? null
}

/** The model's part of a report: which model, what it was asked, what it cost, where its answer was not taken. */
export interface ModelUse {
  id: string
  /** Requests sent to the model in this run. */
  calls: number
  /** Answers taken from the cache (no request, no tokens). */
  cached: number
  /** Tokens the model's requests cost in this run. */
  tokens: number
  /** Items whose model answer was malformed or not grounded in the sources: the deterministic result was kept. */
  fallbacks: Array<{ step: 'promote' | 'reflect'; item: string; reason: string }>
  /** Promotion candidates the model judged not to state one fact: left as episodes. */
  declined: string[][]
}

/** Why the run went on without the model, and since when. */
export interface Degraded {
  reason: string
  at: string
}

/** Model tokens consolidation runs spent on day (`YYYY-MM-DD`), by their `consolidate` events: what the daily token cap counts. Pure. */
export function modelTokensOnDay(ledger: readonly LedgerEvent[], day: string): number {
  return ledger
    .filter((ev) => ev.event === 'consolidate' && typeof ev.at === 'string' && ev.at.startsWith(day))
    .reduce((n, ev) => n + (typeof ev.model_tokens === 'number' ? ev.model_tokens : 0), 0)
}

/** The cache key of one prompt: what makes two requests the same request. Pure. */
export function cacheKey(modelId: string, prompt: PromptSpec, text: string): string {
  return createHash('sha256').update(JSON.stringify([modelId, prompt.id, prompt.version, text])).digest('hex')
}

/** One run's use of a model: cache, caps, and the switch to the deterministic path. */
export class ModelRun {
  readonly use: ModelUse
  degraded: Degraded | null = null

  constructor(
    private readonly backend: MemoryBackend,
    private readonly model: ConsolidationModel,
    // A dry run asks too (within the same caps), so that its preview is what the run will do:
    // the run then takes the answers from the cache.
    private readonly caps: { perRun: number; perDay: number; spentToday: number; deadline: number },
  ) {
    this.use = { id: model.id, calls: 0, cached: 0, tokens: 0, fallbacks: [], declined: [] }
  }

  /** The model's answer to prompt (from the cache when asked before), or null when degraded. */
  async ask(spec: PromptSpec, raw: string): Promise<string | null> {
    if (this.degraded !== null) return null
    const prompt = redactSecrets(raw).text
    const file = `${MODEL_CACHE_DIR}/${cacheKey(this.model.id, spec, prompt)}.json`
    const cached = parseCached(await this.backend.readFile(file).catch(() => null))
    if (cached !== null) {
      this.use.cached++
      // A cache file written before answers were redacted is redacted as it is read.
      return redactSecrets(cached).text
    }
    const estimate = estimateTokens(prompt) + spec.maxTokens
    if (this.use.tokens + estimate > this.caps.perRun) return this.degrade(`model token cap per run (${this.caps.perRun}) reached after ${this.use.tokens} tokens`)
    if (this.caps.spentToday + this.use.tokens + estimate > this.caps.perDay) {
      return this.degrade(`model token cap per day (${this.caps.perDay}) reached after ${this.caps.spentToday + this.use.tokens} tokens today`)
    }
    const wait = Math.min(MODEL_CALL_TIMEOUT_MS, this.caps.deadline - Date.now())
    if (wait <= 0) return this.degrade('time cap reached before the model was asked')
    let answer: ModelAnswer
    this.use.calls++
    try {
      answer = await this.model.complete(prompt, { maxTokens: spec.maxTokens, signal: AbortSignal.timeout(wait) })
    } catch (err) {
      return this.degrade(`model ${this.model.id} failed: ${redactSecrets(err instanceof Error ? err.message : String(err)).text}`)
    }
    this.use.tokens += Math.max(0, answer.inputTokens) + Math.max(0, answer.outputTokens)
    const text = redactSecrets(answer.text).text
    // A cache that cannot be written costs the next run tokens, nothing more.
    await this.backend.writeFileAtomic(file, JSON.stringify({ model: this.model.id, prompt: `${spec.id}@${spec.version}`, text }), { fsync: false }).catch(() => undefined)
    return text
  }

  /** The model's answer for an item was not taken. */
  fallback(step: ModelUse['fallbacks'][number]['step'], item: string, reason: string): void {
    this.use.fallbacks.push({ step, item, reason })
  }

  private degrade(reason: string): null {
    this.degraded = { reason, at: this.backend.now() }
    return null
  }
}

/** The text of a cache file, or null when there is none or it is not one (a torn or hand-edited file is ignored). */
function parseCached(text: string | null): string | null {
  if (text === null) return null
  try {
    const value = JSON.parse(text) as { text?: unknown }
    return typeof value.text === 'string' ? value.text : null
  } catch {
    return null
  }
}
