/**
 * The DSH host's LLM service (`ctx.llm` of `@deepseek-ai/dsh-llm`, rc.8) as the consolidation
 * model: one auxiliary call per prompt, as the host's own session-title plugin makes them — a
 * user message made with `createUserMessage` (source: this plugin), `ctx.llm.stream` with the
 * provider route and model, the stream's text deltas joined, its `usage` counted, and a terminal
 * `error` or `aborted` finish turned into a rejection (the engine then degrades the run), except
 * an empty completion, which is an empty answer.
 *
 * Which model: the plugin setting `consolidationModel` — `auto` (the default) takes the host's
 * default selection for new agents (`ctx.agentDefaultModel.currentSelection()`), read at each
 * call; `provider/model` names a route; `off` uses none. The host's types are declared here
 * structurally; `@deepseek-ai/dsh-llm` is loaded only when the service is there.
 */

import type { ConsolidationModel } from '../memory/consolidation/model.js'

/** `ctx.llm` (LlmRuntime), as far as consolidation uses it. */
export interface LlmService {
  stream(options: { provider: string; model: string; messages: unknown[]; maxTokens: number; temperature: number; signal: AbortSignal }): AsyncIterable<unknown>
}

/** `ctx.agentDefaultModel` (dsh-agent-default-model): the route new agents use. */
export interface DefaultModelService {
  currentSelection(): { provider: string; model: string }
}

export interface Route {
  provider: string
  model: string
}

export function isLlmService(value: unknown): value is LlmService {
  return typeof value === 'object' && value !== null && typeof (value as { stream?: unknown }).stream === 'function'
}

export function isDefaultModelService(value: unknown): value is DefaultModelService {
  return typeof value === 'object' && value !== null && typeof (value as { currentSelection?: unknown }).currentSelection === 'function'
}

/** What the setting asks for: the host's default, a named route, or no model; null when it is none of these. */
export function parseModelSetting(setting: string): 'auto' | 'off' | Route | null {
  const value = setting.trim()
  if (value === 'auto' || value === 'off') return value
  const slash = value.indexOf('/')
  return slash <= 0 || slash === value.length - 1 ? null : { provider: value.slice(0, slash), model: value.slice(slash + 1) }
}

type MakeMessage = (input: { content: Array<{ type: 'text'; text: string }>; source: { kind: 'plugin'; plugin: string } }) => unknown

let loading: Promise<MakeMessage> | undefined
function messageMaker(): Promise<MakeMessage> {
  loading ??= import('@deepseek-ai/dsh-llm').then((mod: { createUserMessage?: unknown }) => {
    if (typeof mod.createUserMessage !== 'function') throw new Error('@deepseek-ai/dsh-llm has no createUserMessage')
    return mod.createUserMessage as MakeMessage
  })
  return loading
}

interface Chunk {
  type?: unknown
  text?: unknown
  usage?: { inputTokens?: unknown; outputTokens?: unknown; cacheReadTokens?: unknown; cacheWriteTokens?: unknown }
  reason?: { kind?: unknown; failure?: { code?: unknown; message?: unknown } }
}

/** dsh-llm's EMPTY_RESPONSE_CODE: a terminal `stop` that carried no content blocks. */
const EMPTY_RESPONSE = 'EMPTY_RESPONSE'

const tokens = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0)

/** The host's model on route (a function: `auto` reads the host's current default at each call), its messages made by plugin. */
export function hostModel(llm: LlmService, route: () => Route, plugin: string): ConsolidationModel {
  return {
    get id() {
      const r = route()
      return `dsh:${r.provider}/${r.model}`
    },
    async complete(prompt, { maxTokens, signal }) {
      const { provider, model } = route()
      const message = (await messageMaker())({ content: [{ type: 'text', text: prompt }], source: { kind: 'plugin', plugin } })
      let text = ''
      let input = 0
      let output = 0
      for await (const raw of llm.stream({ provider, model, messages: [message], maxTokens, temperature: 0, signal })) {
        const chunk = raw as Chunk
        if (chunk.type === 'text-delta' && typeof chunk.text === 'string') text += chunk.text
        else if (chunk.type === 'usage' && chunk.usage !== undefined) {
          // Disjoint counts: cached input is billed input too.
          input = tokens(chunk.usage.inputTokens) + tokens(chunk.usage.cacheReadTokens) + tokens(chunk.usage.cacheWriteTokens)
          output = tokens(chunk.usage.outputTokens)
        } else if (chunk.type === 'finish' && (chunk.reason?.kind === 'error' || chunk.reason?.kind === 'aborted')) {
          // A completion with no content is the host's EMPTY_RESPONSE error: an empty answer for
          // this item (the engine keeps its own result), not a broken model.
          if (chunk.reason.failure?.code === EMPTY_RESPONSE) return { text: '', inputTokens: input, outputTokens: output }
          throw new Error(`${String(chunk.reason.failure?.code ?? chunk.reason.kind)}: ${String(chunk.reason.failure?.message ?? '')}`)
        }
      }
      return { text, inputTokens: input, outputTokens: output }
    },
  }
}
