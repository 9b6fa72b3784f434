/** memory_decay: archive low-importance memories nobody has found for a while. */

import { DECAY_CONFIDENCE_BELOW, decay } from '../memory/forgetting/decay.js'
import { nullableString } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryDecayTool = defineTool(
  {
    name: 'memory_decay',
    title: 'Decay',
    group: 'curate',
    description:
      `Archive active memories of low importance (confidence below ${DECAY_CONFIDENCE_BELOW}, or importance plus strength from use below decayImportanceBelow; or failing review again and again) without a search hit or repeat for days (default: the store's decayAfterDays, 90). Archived memories leave search and injection but keep their files; memory_restore brings them back, memory_audit_forgotten lists them. A preview unless dryRun is false.`,
    input: {
      type: 'object',
      properties: {
        days: { type: 'integer', minimum: 1, maximum: 3650, description: 'Idle days that count (default: decayAfterDays of the store).' },
        dryRun: { type: 'boolean', default: true, description: 'true (default): list only; false: archive.' },
        limit: { type: 'integer', minimum: 1, maximum: 500, default: 50, description: 'At most this many per call.' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        dry_run: { type: 'boolean' },
        days: { type: 'integer' },
        confidence_below: { type: 'number' },
        archived: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              path: { type: 'string' },
              title: { type: 'string' },
              idleDays: { type: 'integer' },
              confidence: { type: 'number' },
              last_used_at: nullableString,
              reason: { type: 'string' },
            },
            required: ['id', 'path', 'title', 'idleDays', 'confidence', 'last_used_at', 'reason'],
            additionalProperties: false,
          },
        },
        more: { type: 'integer', description: 'Candidates beyond limit.' },
        guidance: { type: 'string' },
      },
      required: ['dry_run', 'days', 'confidence_below', 'archived', 'more', 'guidance'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, idempotent: true },
  },
  (backend, input) => decay(backend, input),
)

export const decayHandler = memoryDecayTool.handler
