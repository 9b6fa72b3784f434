/** The model arm's endpoint, shared by the benches that take `--model` (claims.ts, anti-hallucination.ts). */

import { chatCompletionsModel, type ConsolidationModel } from '../lib/api.js'
/**
 * The model of `--model <base URL>#<model>` (an OpenAI-compatible endpoint; the key, if any, from
 * MEMORY_AGENT_LLM_API_KEY): the model arm of a bench: writes judged and verify asked by it.
 */
export function endpointModel(spec: string): ConsolidationModel {
  const [baseUrl, name] = spec.split('#')
  if (!baseUrl || !name) throw new Error(`--model: expected <base URL>#<model>, such as http://127.0.0.1:8000/v1#qwen2.5-7b (got "${spec}")`)
  const apiKey = process.env['MEMORY_AGENT_LLM_API_KEY']
  return chatCompletionsModel({ baseUrl, model: name, ...(apiKey ? { apiKey } : {}) })
}
