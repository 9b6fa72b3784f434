/** memory_audit_forgotten: what decay archived, newest first, with its reasons. */

import { auditForgotten } from '../memory/reading/walk.js'
import { nullableString, statusField } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryAuditForgottenTool = defineTool(
  {
    name: 'memory_audit_forgotten',
    title: 'Audit archivals',
    group: 'curate',
    description:
      'List recent archivals by decay, newest first: when, why (confidence and idle days), and where each memory stands now (still archived, or restored). Use it to check that nothing worth keeping was set aside; memory_restore brings one back.',
    input: {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, maximum: 200, default: 20 } },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        total: { type: 'integer' },
        archivals: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              at: { type: 'string' },
              reason: { type: 'string' },
              title: nullableString,
              path: nullableString,
              status: { oneOf: [statusField, { type: 'null' }] },
              restored: { type: 'boolean' },
            },
            required: ['id', 'at', 'reason', 'title', 'path', 'status', 'restored'],
            additionalProperties: false,
          },
        },
        guidance: { type: 'string' },
      },
      required: ['total', 'archivals', 'guidance'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
  },
  (backend, input) => auditForgotten(backend, input.limit),
)

export const auditForgottenHandler = memoryAuditForgottenTool.handler
