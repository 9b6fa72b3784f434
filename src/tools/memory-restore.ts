/** memory_restore: bring archived memories back. */

import { restore } from '../memory/forgetting/decay.js'
import { idField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryRestoreTool = defineTool(
  {
    name: 'memory_restore',
    title: 'Restore archived memories',
    group: 'curate',
    description:
      'Bring back memories that decay archived: each becomes active again, or superseded when a newer version of its fact was written meanwhile. An id that is not archived is left as it is (unchanged); one that names no memory is listed in missing.',
    input: {
      type: 'object',
      properties: { ids: { type: 'array', items: idField, maxItems: 50, description: 'Archived memories to bring back.' } },
      required: ['ids'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        restored: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              status: { type: 'string', enum: ['active', 'superseded'] },
              superseded_by: { type: 'string' },
            },
            required: ['id', 'status'],
            additionalProperties: false,
          },
        },
        unchanged: { type: 'array', items: { type: 'string' }, description: 'Not archived: nothing to do.' },
        missing: { type: 'array', items: { type: 'string' }, description: 'Ids that name no memory.' },
      },
      required: ['restored', 'unchanged', 'missing'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: true },
    cli: { argument: 'ids' },
  },
  (backend, input) => restore(backend, input.ids),
)

export const restoreHandler = memoryRestoreTool.handler
