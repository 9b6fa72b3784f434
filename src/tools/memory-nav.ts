/** memory_nav: browse the summary layer page by page, or open one memory in full. */

import { asOfField } from '../memory/time/as-of.js'
import { emptyListing, navigate } from '../memory/reading/browse.js'
import { nothingStoredYet } from '../store/existing.js'
import { navEntryShape, statusField } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

const counts = { type: 'object', properties: {}, additionalProperties: true } as const

export const memoryNavTool = defineTool(
  {
    name: 'memory_nav',
    title: 'Browse memory',
    group: 'core',
    description:
      'List memories page by page (titles and summaries; offset and limit, has_more), or open one in full: set path to its id or file path, or to a folder such as topics/ to list that folder.',
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
        note: { type: 'string', description: 'Why the listing is empty when nothing is stored yet.' },
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
    annotations: READS_ONLY,
    cli: { argument: 'path' },
  },
  (backend, input) => navigate(backend, input),
  (backend, input) => emptyListing(input, nothingStoredYet(backend)),
)

export const navHandler = memoryNavTool.handler
