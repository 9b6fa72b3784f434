/** memory_embed: embed the memories still waiting for a vector (`memory-agent embed`). */

import { embedPending, type EmbedOptions, type EmbedReport } from '../retrieve/vectors.js'
import { progressListener } from '../store/progress.js'
import { defineTool } from './declare/tool.js'

function guidance(embedder: string | null, embedded: number, pending: number, migrated: boolean): string {
  if (embedder === null) return 'No embedder is configured: search is by keywords only. Add an "embedder" block to config.json (baseUrl, model, dimensions) or pass --embedder-url, --embedder-model and --embedder-dimensions.'
  const done = `${embedded} embedded with ${embedder}`
  if (pending > 0) return `${done}; ${pending} still waiting: run again to go on.`
  return `${done}; every searchable memory has a vector.${migrated ? ' The change of embedder is complete: the older vectors were removed.' : ''}`
}

export const memoryEmbedTool = defineTool(
  {
    name: 'memory_embed',
    title: 'Embed memories',
    group: 'curate',
    description:
      'Give every searchable memory a vector from the configured embedder, so search and assemble also find memories by meaning. Writes never wait for this: the heartbeat and an idle MCP server embed in the background; this runs the queue now. Vectors are derived data under .cache/. Nothing to do without an embedder.',
    input: {
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 10000000, description: 'Embed at most this many texts now; the rest stay queued.' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        embedder: { type: 'string', description: 'The embedder id; absent when none is configured.' },
        embedded: { type: 'integer', description: 'Texts embedded by this call.' },
        pending: { type: 'integer', description: 'Texts still waiting.' },
        migrated: { type: 'boolean', description: 'This call completed a change of embedder.' },
        guidance: { type: 'string' },
      },
      required: ['embedded', 'pending', 'migrated', 'guidance'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: true },
    progress: 'embedding',
  },
  async (backend, input) => {
    const options: EmbedOptions = {}
    const onProgress = progressListener(backend)
    if (onProgress !== undefined) options.onProgress = onProgress
    if (input.limit !== undefined) options.limit = input.limit
    const r: EmbedReport = await embedPending(backend, options)
    const text = guidance(r.embedder, r.embedded, r.pending, r.migrated)
    const out: { embedder?: string; embedded: number; pending: number; migrated: boolean; guidance: string } = { embedded: r.embedded, pending: r.pending, migrated: r.migrated, guidance: text }
    if (r.embedder !== null) out.embedder = r.embedder
    return out
  },
)

export const embedHandler = memoryEmbedTool.handler
