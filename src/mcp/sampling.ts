/**
 * MCP sampling as the consolidation model: when the connected client declared the `sampling`
 * capability, a prompt becomes one `sampling/createMessage` request to it (one user message,
 * no context from its own session, temperature 0), and the client's model answers. Sampling
 * reports no token usage, so tokens are estimated from the text (types.ts `estimateTokens`).
 * A client without the capability gives no model: consolidation stays deterministic.
 */

import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ConsolidationModel } from '../memory/consolidation/model.js'
import { estimateTokens } from '../types.js'

/** The client's model through sampling, or null when the client does not offer sampling. */
export function samplingModel(server: Server): ConsolidationModel | null {
  if (server.getClientCapabilities()?.sampling === undefined) return null
  const client = server.getClientVersion()
  return {
    // The model behind sampling is the client's choice; the client names it.
    id: `mcp-sampling:${client?.name ?? 'client'}@${client?.version ?? '?'}`,
    async complete(prompt, { maxTokens, signal }) {
      const result = await server.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens, includeContext: 'none', temperature: 0 },
        { signal },
      )
      if (result.content.type !== 'text') throw new Error(`sampling answered with ${result.content.type} content, not text`)
      return { text: result.content.text, inputTokens: estimateTokens(prompt), outputTokens: estimateTokens(result.content.text) }
    },
  }
}
