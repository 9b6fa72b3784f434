/** memory_consolidate: turn repeated episodes into topics, summarise finished sessions, fold restatements, archive what topics cover. */

import { consolidate } from '../memory/consolidation/consolidate.js'
import { MEMORY_STATUSES } from '../types.js'
import { nullableString } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

const ids = { type: 'array', items: { type: 'string' } } as const

export const memoryConsolidateTool = defineTool(
  {
    name: 'memory_consolidate',
    title: 'Consolidate',
    group: 'curate',
    description:
      'Consolidate the store without a model: a statement repeated in two or more sessions (or confirmed by the user) becomes a topic naming the episodes it came from; small talk said again in other sessions is merged word for word into one topic, never promoted as a fact; ' +
      'each finished session gets a short summary (none when it would only repeat every episode); in a session idle for consolidateIdleDays, adjacent episodes that belong together (a question and its answer, follow-ups on one subject, chit-chat) are folded word for word into one topic; near-identical topics are folded (memory_undemote undoes it); episodes whose statement a topic holds, idle for the store\'s consolidateArchiveDays (7), and memories of low importance idle for consolidateIdleDays (30), are archived (memory_restore brings them back). ' +
      'Topics whose sources were replaced or forgotten are reported as stale. A preview unless dryRun is false; one run at a time per store, within its caps. ' +
      'Where the host offers a model (DSH\'s LLM, MCP sampling, a configured endpoint), it judges promotion candidates and writes session summaries, each answer held to its source episodes (the deterministic result where it is not); ' +
      'over the model token caps (consolidateModelTokensPerRun, consolidateModelTokensPerDay) or on a model failure the run goes on without it and says why in degraded. A dry run asks the model too and caches its answers, so the run that follows does what it previewed.',
    input: {
      type: 'object',
      properties: {
        dryRun: { type: 'boolean', default: true, description: 'true (default): report only; false: consolidate.' },
        maxItems: { type: 'integer', minimum: 1, maximum: 100000, description: 'At most this many memories changed in this run (default: the store setting consolidateMaxItems, 500).' },
        maxSeconds: { type: 'integer', minimum: 1, maximum: 3600, description: 'Stop after this many seconds (default: consolidateMaxSeconds, 120).' },
        useModel: { type: 'boolean', default: true, description: 'false: consolidate without a model even where one is available.' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        dry_run: { type: 'boolean' },
        promoted: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: nullableString,
              summary: { type: 'string' },
              status: { type: 'string', enum: [...MEMORY_STATUSES, 'would-promote'] },
              derived_from: ids,
              sessions: ids,
              reason: { type: 'string', enum: ['repeated', 'confirmed', 'revision'] },
              superseded: ids,
            },
            required: ['id', 'summary', 'status', 'derived_from', 'sessions', 'reason', 'superseded'],
            additionalProperties: false,
          },
        },
        reinforced: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, added: ids, status: { type: 'string', enum: MEMORY_STATUSES } },
            required: ['id', 'added', 'status'],
            additionalProperties: false,
          },
        },
        reflected: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: nullableString, session: { type: 'string' }, summary: { type: 'string' }, derived_from: ids },
            required: ['id', 'session', 'summary', 'derived_from'],
            additionalProperties: false,
          },
        },
        exchanges: {
          type: 'array',
          description: 'Exchanges of idle sessions (a question and its answer, a statement and its follow-ups, chit-chat) folded word for word into one topic each, and small talk said again across sessions merged the same way (its session: those sessions, comma-separated); their episodes are archived.',
          items: {
            type: 'object',
            properties: { id: nullableString, session: { type: 'string' }, derived_from: ids },
            required: ['id', 'session', 'derived_from'],
            additionalProperties: false,
          },
        },
        merged: {
          type: 'array',
          items: { type: 'object', properties: { survivor: { type: 'string' }, folded: ids }, required: ['survivor', 'folded'], additionalProperties: false },
        },
        merge_candidates: { type: 'integer', description: 'Groups of near restatements below the merge threshold (memory_duplicates lists them).' },
        archived: ids,
        decayed: ids,
        strengthened: { ...ids, description: 'Memories whose strength from use (repeats, search hits) was written into their files as strength and strength_at.' },
        stale: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              gone: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { id: { type: 'string' }, status: { type: 'string', enum: [...MEMORY_STATUSES, 'missing'] } },
                  required: ['id', 'status'],
                  additionalProperties: false,
                },
              },
            },
            required: ['id', 'gone'],
            additionalProperties: false,
          },
        },
        skipped: {
          type: 'array',
          items: { type: 'object', properties: { step: { type: 'string' }, reason: { type: 'string' } }, required: ['step', 'reason'], additionalProperties: false },
        },
        model: {
          type: 'object',
          description: 'Present when a model was available: its id, requests sent, answers from the cache, tokens spent, items whose answer was not taken (fallbacks) and candidate groups it judged not one fact (declined).',
          properties: {
            id: { type: 'string' },
            calls: { type: 'integer' },
            cached: { type: 'integer' },
            tokens: { type: 'integer' },
            fallbacks: {
              type: 'array',
              items: {
                type: 'object',
                properties: { step: { type: 'string', enum: ['promote', 'reflect'] }, item: { type: 'string' }, reason: { type: 'string' } },
                required: ['step', 'item', 'reason'],
                additionalProperties: false,
              },
            },
            declined: { type: 'array', items: ids },
          },
          required: ['id', 'calls', 'cached', 'tokens', 'fallbacks', 'declined'],
          additionalProperties: false,
        },
        degraded: {
          type: 'object',
          description: 'Present when the run went on without the model: why (a token cap, a model failure) and since when.',
          properties: { reason: { type: 'string' }, at: { type: 'string' } },
          required: ['reason', 'at'],
          additionalProperties: false,
        },
        guidance: { type: 'string' },
      },
      required: ['dry_run', 'promoted', 'reinforced', 'reflected', 'exchanges', 'merged', 'merge_candidates', 'archived', 'decayed', 'strengthened', 'stale', 'skipped', 'guidance'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: false },
  },
  async (backend, input) => consolidate(backend, { dryRun: input.dryRun, maxItems: input.maxItems, maxSeconds: input.maxSeconds, ...(input.useModel === false ? { model: null } : {}) }),
)

export const consolidateHandler = memoryConsolidateTool.handler
