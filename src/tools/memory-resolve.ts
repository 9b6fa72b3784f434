/** memory_resolve: settle a conflict by keeping or dropping one side. */

import { resolveConflict } from '../memory/writing/resolve.js'
import { idField, idList, statusField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryResolveTool = defineTool(
  {
    name: 'memory_resolve',
    title: 'Resolve a conflict',
    group: 'review',
    description:
      'Settle a conflict between versions of one slot. keep (default): this memory becomes active and the other versions superseded. drop: this memory becomes superseded; a single remaining version becomes active.',
    input: {
      type: 'object',
      properties: {
        id: idField,
        action: { type: 'string', enum: ['keep', 'drop'], default: 'keep', description: 'keep this version, or drop it.' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        status: statusField,
        superseded: { ...idList, description: 'Memories that became superseded.' },
        activated: { ...idList, description: 'Memories that became active.' },
      },
      required: ['id', 'status', 'superseded', 'activated'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: true },
    cli: { argument: 'id' },
  },
  (backend, input) => resolveConflict(backend, input.id, input.action),
)

export const resolveHandler = memoryResolveTool.handler
