/** memory_confirm: let a suggested memory through the confirmation gate. */

import { confirmMemory } from '../memory/writing/confirm.js'
import { idField, idList } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryConfirmTool = defineTool(
  {
    name: 'memory_confirm',
    title: 'Confirm a suggested memory',
    group: 'review',
    description:
      'Turn a suggested memory (written with requireConfirmation) into an active one that search and assemble use; it revises its subject like a new write (it may end in conflict, with warnings). Idempotent for an active memory; any other status is an error (use memory_resolve for conflicts).',
    input: {
      type: 'object',
      properties: { id: idField },
      required: ['id'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        status: { type: 'string', enum: ['active', 'conflict'] },
        superseded: { ...idList, description: 'Older versions in the same slot that this memory replaced.' },
        warnings: { type: 'array', items: { type: 'string' }, description: 'Why it ended in conflict: another value for the same subject and no change cue.' },
      },
      required: ['id', 'status', 'superseded'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: true },
    cli: { argument: 'id' },
  },
  (backend, input) => confirmMemory(backend, input.id),
)

export const confirmHandler = memoryConfirmTool.handler
