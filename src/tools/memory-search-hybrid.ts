/** memory_search_hybrid: BM25 keyword search with aliases over the summary layer. */

import { invalidInput } from '../errors.js'
import { loadConfig } from '../memory/config.js'
import { recordSearch } from '../memory/signals.js'
import { retrievalState } from '../retrieve/retriever.js'
import { runSearch } from '../retrieve/search.js'
import { MEMORY_STATUSES } from '../types.js'
import { idField, typeField } from './shapes.js'
import { defineTool } from './tool.js'

const stringList = (what: string) => ({ type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 32, description: what }) as const

export const memorySearchHybridTool = defineTool(
  {
    name: 'memory_search_hybrid',
    title: 'Search memory',
    description:
      'Find memories by keywords (BM25 over titles, summaries, tags and entities; Chinese and English). Synonyms from the alias table are tried at low weight and such hits say reason "alias". ' +
      'Filters narrow before ranking: tags and entities (all must match), time_range (inclusive). Only active and conflict memories are returned. With zero hits, guidance says what the store holds: rephrase or browse before concluding nothing was recorded.',
    input: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: 2000, description: 'Words to look for; empty to browse by filters only.' },
        tags: stringList('Only memories with all of these tags.'),
        entities: stringList('Only memories about all of these entities.'),
        time_range: {
          type: 'object',
          properties: {
            from: { type: 'string', maxLength: 64, description: 'ISO-8601 start, inclusive.' },
            to: { type: 'string', maxLength: 64, description: 'ISO-8601 end, inclusive.' },
          },
          additionalProperties: false,
          description: 'Only memories whose time is in this closed range.',
        },
        top_k: { type: 'integer', minimum: 1, maximum: 200, default: 10, description: 'How many hits at most (capped by the store setting maxTopK).' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        hits: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: idField,
              path: { type: 'string' },
              type: typeField,
              title: { type: 'string' },
              summary: { type: 'string' },
              status: { type: 'string', enum: MEMORY_STATUSES },
              time: { type: 'string' },
              tags: { type: 'array', items: { type: 'string' } },
              score: { type: 'number' },
              reason: { type: 'string', enum: ['match', 'alias'] },
            },
            required: ['id', 'path', 'type', 'title', 'summary', 'status', 'time', 'tags', 'score', 'reason'],
            additionalProperties: false,
          },
        },
        guidance: { type: 'string', description: 'What to do next, for the agent.' },
        alias_hits: { type: 'integer' },
        eligible: { type: 'integer', description: 'Searchable memories that passed the filters.' },
        common_tags: { type: 'array', items: { type: 'string' }, description: 'On zero hits: tags to retry with.' },
      },
      required: ['hits', 'guidance', 'alias_hits', 'eligible'],
      additionalProperties: false,
    },
    annotations: { readOnly: true, destructive: false, idempotent: true },
  },
  async (backend, input) => {
    for (const field of ['from', 'to'] as const) {
      const value = input.time_range?.[field]
      if (value !== undefined && Number.isNaN(Date.parse(value)))
        throw invalidInput(`time_range.${field}`, 'an ISO-8601 date-time such as 2026-01-02T10:00:00Z')
    }
    const [config, state] = await Promise.all([loadConfig(backend), retrievalState(backend)])
    const result = runSearch(state.entries, state.index, state.aliases, { ...input, top_k: Math.min(input.top_k, config.maxTopK) })
    recordSearch(backend, { query: input.query, hitIds: result.hits.map((h) => h.id) })
    return result
  },
)

export const searchHandler = memorySearchHybridTool.handler
