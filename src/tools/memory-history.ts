/** memory_history: every version of a memory with its time, source, text and when it was current. */

import { memoryHistory } from '../memory/time/history.js'
import { idField, idList, nullableString, sourceShape, statusField, typeField } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

const versionShape = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    path: { type: 'string' },
    type: typeField,
    status: statusField,
    time: { type: 'string', description: 'When it was stated.' },
    recorded_at: { ...nullableString, description: 'When the store recorded it (null: written outside this program).' },
    source: sourceShape,
    sessions: { type: 'array', items: { type: 'string' } },
    title: nullableString,
    summary: nullableString,
    text: { ...nullableString, description: 'Summary and details (cut at 2000 characters); null when forgotten.' },
    raw_ref: nullableString,
    supersedes: nullableString,
    superseded_by: nullableString,
    current_from: { ...nullableString, description: 'When it first became the current statement.' },
    current_until: { ...nullableString, description: 'When it last stopped being the current statement (null: still is, or never was).' },
    forgotten: { type: 'boolean' },
  },
  required: [
    'id', 'path', 'type', 'status', 'time', 'recorded_at', 'source', 'sessions', 'title', 'summary', 'text',
    'raw_ref', 'supersedes', 'superseded_by', 'current_from', 'current_until', 'forgotten',
  ],
  additionalProperties: false,
} as const

export const memoryHistoryTool = defineTool(
  {
    name: 'memory_history',
    title: 'History of a memory',
    group: 'time',
    description:
      'Every version of a memory (its slot: the same key or title; and what supersedes and conflicts link to it), oldest first, each with its time, source, text and when it was the current statement. ' +
      'Forgotten versions are listed without text, purged ones by id only. For the whole store as it was at a time, use asOf on memory_search_hybrid or memory_nav.',
    input: {
      type: 'object',
      properties: {
        id: idField,
        limit: { type: 'integer', minimum: 1, maximum: 500, default: 50, description: 'The newest versions to show.' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        slot: nullableString,
        current: { ...idList, description: 'Versions current now (active or in conflict).' },
        versions: { type: 'array', items: versionShape },
        omitted: { type: 'integer', description: 'Older versions left out by limit.' },
        purged: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'string' }, at: { type: 'string' } }, required: ['id', 'at'], additionalProperties: false },
        },
        guidance: { type: 'string' },
      },
      required: ['id', 'slot', 'current', 'versions', 'omitted', 'purged', 'guidance'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'id' },
  },
  (backend, input) => memoryHistory(backend, input.id, input.limit),
)

export const historyHandler = memoryHistoryTool.handler
