/** memory_sweep: a read-only health check of the store. */

import { DEFAULT_LONG_UNUSED_DAYS, sweep } from '../memory/organisation/sweep.js'
import { nullableString } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'
import { vectorDiagnosticsShape } from './declare/vector-shapes.js'

export const memorySweepTool = defineTool(
  {
    name: 'memory_sweep',
    title: 'Health check',
    group: 'curate',
    description:
      'List what may need attention, changing nothing: memories without a search hit for `days` days (default 90), superseded versions still on disk, recent queries that found nothing (what the store lacks), memories whose anchors no longer hold, files whose front-matter does not parse (with the line; out of search until a person fixes them), damaged files of the saved search index (rebuilt, never read), and with an embedder, vector coverage, dimension mismatches and unreadable vector segments. Act with forget, resolve or a new write.',
    input: {
      type: 'object',
      properties: {
        days: { type: 'integer', minimum: 1, maximum: 3650, default: DEFAULT_LONG_UNUSED_DAYS, description: 'Days without a hit that count as long unused.' },
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 20, description: 'Entries per list at most.' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        at: { type: 'string' },
        scanned: { type: 'integer' },
        thresholds: {
          type: 'object',
          properties: { longUnusedDays: { type: 'integer' }, limit: { type: 'integer' } },
          required: ['longUnusedDays', 'limit'],
          additionalProperties: false,
        },
        longUnused: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, path: { type: 'string' }, title: { type: 'string' }, idleDays: { type: 'integer' }, hits: { type: 'integer' }, last_used_at: nullableString },
            required: ['id', 'path', 'title', 'idleDays', 'hits', 'last_used_at'],
            additionalProperties: false,
          },
        },
        supersededBacklog: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, path: { type: 'string' }, title: { type: 'string' }, superseded_by: nullableString, time: { type: 'string' } },
            required: ['id', 'path', 'title', 'superseded_by', 'time'],
            additionalProperties: false,
          },
        },
        zeroHitQueries: {
          type: 'array',
          items: { type: 'object', properties: { at: { type: 'string' }, query: { type: 'string' } }, required: ['at', 'query'], additionalProperties: false },
        },
        staleAnchors: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              path: { type: 'string' },
              title: { type: 'string' },
              kind: { type: 'string' },
              name: nullableString,
              value: { type: 'string' },
              reason: { type: 'string' },
            },
            required: ['id', 'path', 'title', 'kind', 'name', 'value', 'reason'],
            additionalProperties: false,
          },
        },
        unreadable: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, path: { type: 'string' }, line: { type: 'integer' }, reason: { type: 'string' } },
            required: ['id', 'path', 'line', 'reason'],
            additionalProperties: false,
          },
          description: 'Files whose front-matter does not parse: the line the parser stopped at, and why. Out of search until a person fixes them.',
        },
        damagedSearchIndexFiles: {
          type: 'integer',
          description: 'Files of the saved search index (.cache/search/) that do not match their checksum: never read, built again from index.jsonl at the next search.',
        },
        refusedSettings: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, message: { type: 'string' } },
            required: ['field', 'message'],
            additionalProperties: false,
          },
          description: 'Settings config.json sets that this store does not take, each with why and what to use instead: remove them.',
        },
        embeddings: vectorDiagnosticsShape,
      },
      required: ['at', 'scanned', 'thresholds', 'longUnused', 'supersededBacklog', 'zeroHitQueries', 'staleAnchors', 'unreadable', 'damagedSearchIndexFiles', 'refusedSettings'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
  },
  async (backend, input) => sweep(backend, input.days, input.limit),
)

export const sweepHandler = memorySweepTool.handler
