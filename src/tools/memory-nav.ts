/** memory_nav: browse the summary layer page by page, or open one memory in full. */

import { asOfField } from '../memory/as-of.js'
import { navigate } from '../memory/nav.js'
import { navEntryShape, statusField } from './shapes.js'
import { defineTool } from './tool.js'

const counts = { type: 'object', properties: {}, additionalProperties: true } as const

export const memoryNavTool = defineTool(
  {
    name: 'memory_nav',
    title: 'Browse memory',
    description:
      'Browse memories without reading their bodies: titles and summaries, 50 per page (limit up to 500), offset to page on, has_more says whether there is more. ' +
      'path "topics/" (or episodes/, raw/) lists one folder with its _index.md; path set to a memory id, a file path or a room slot (topics#3) returns that one file in full (for a slot, also the memories sync moved away from it). The first page of the root includes the store README.',
    input: {
      type: 'object',
      properties: {
        path: { type: 'string', maxLength: 1000, description: 'A folder (topics/), a memory id, a file path, or a room slot (topics#3); empty for everything.' },
        limit: { type: 'integer', minimum: 1, maximum: 500, default: 50, description: 'Entries per page.' },
        offset: { type: 'integer', minimum: 0, default: 0, description: 'Entries to skip.' },
        sort: { type: 'string', enum: ['recent', 'oldest', 'title', 'id'], default: 'recent', description: 'Order of entries.' },
        status: { ...statusField, description: 'Only entries with this status (default: all but deleted_pending).' },
        asOf: asOfField,
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        entries: { type: 'array', items: navEntryShape },
        total: { type: 'integer' },
        offset: { type: 'integer' },
        limit: { type: 'integer' },
        has_more: { type: 'boolean' },
        facets: {
          type: 'object',
          properties: { types: counts, statuses: counts },
          required: ['types', 'statuses'],
          additionalProperties: false,
        },
        readme: { type: 'string' },
        folder: { type: 'string' },
        file: {
          type: 'object',
          properties: { path: { type: 'string' }, text: { type: 'string' } },
          required: ['path', 'text'],
          additionalProperties: false,
        },
        skipped_index_lines: { type: 'integer' },
        moved: {
          type: 'array',
          description: 'For a room slot: memories that stood there until sync moved them, because another clone had given the slot first.',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
            required: ['id', 'from', 'to'],
            additionalProperties: false,
          },
        },
      },
      required: ['entries', 'total', 'offset', 'limit', 'has_more', 'facets'],
      additionalProperties: false,
    },
    annotations: { readOnly: true, destructive: false, idempotent: true },
    cli: { argument: 'path' },
  },
  (backend, input) => navigate(backend, input),
)

export const navHandler = memoryNavTool.handler
