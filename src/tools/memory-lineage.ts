/** memory_lineage: where a memory comes from and what became of it. */

import { memoryLineage } from '../memory/time/lineage.js'
import { idInput, idList, nullableString, sourceShape, statusField, typeField } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryLineageTool = defineTool(
  {
    name: 'memory_lineage',
    title: 'Lineage of a memory',
    group: 'time',
    description:
      'Where a memory comes from and what became of it: its sources and the sessions that stated or repeated it, its raw text, the supersede chain around it (older and newer versions), merges, and every ledger event that names it. Read-only.',
    input: idInput,
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        type: typeField,
        status: statusField,
        path: { type: 'string' },
        title: { ...nullableString, description: 'Null when the memory is forgotten.' },
        forgotten: { type: 'boolean' },
        sources: { type: 'array', items: sourceShape },
        sessions: { type: 'array', items: { type: 'string' } },
        raw_ref: nullableString,
        episode: nullableString,
        chain: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              time: { type: 'string' },
              status: statusField,
              relation: { type: 'string', enum: ['older', 'self', 'newer'] },
            },
            required: ['id', 'time', 'status', 'relation'],
            additionalProperties: false,
          },
        },
        merges: {
          type: 'object',
          properties: { merged_from: idList, merged_into: nullableString },
          required: ['merged_from', 'merged_into'],
          additionalProperties: false,
        },
        events: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              at: { type: 'string' },
              event: { type: 'string' },
              role: { type: 'string', enum: ['subject', 'related'] },
              detail: { type: 'object', properties: {}, additionalProperties: true },
            },
            required: ['at', 'event', 'role', 'detail'],
            additionalProperties: false,
          },
        },
        events_total: { type: 'integer' },
        guidance: { type: 'string' },
      },
      required: ['id', 'type', 'status', 'path', 'title', 'forgotten', 'sources', 'sessions', 'raw_ref', 'episode', 'chain', 'merges', 'events', 'events_total', 'guidance'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'id' },
  },
  (backend, input) => memoryLineage(backend, input.id),
)

export const lineageHandler = memoryLineageTool.handler
