/** memory_undemote: undo a merge for some folded memories. */

import { undemote } from '../memory/organisation/merge.js'
import { idField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryUndemoteTool = defineTool(
  {
    name: 'memory_undemote',
    title: 'Undo a merge',
    group: 'curate',
    description:
      'Bring back memories that memory_merge folded: each becomes active again and leaves its survivor\'s merged_from. What the survivor gained in the merge (tags, details, sources) stays with it. An id that is already active is left as it is (unchanged).',
    input: {
      type: 'object',
      properties: {
        ids: { type: 'array', items: idField, maxItems: 50, description: 'Folded memories (merged_into set) to bring back.' },
      },
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
            properties: { id: { type: 'string' }, from: { type: 'string', description: 'The survivor it had been folded into.' } },
            required: ['id', 'from'],
            additionalProperties: false,
          },
        },
        unchanged: { type: 'array', items: { type: 'string' }, description: 'Already active: nothing to do.' },
      },
      required: ['restored', 'unchanged'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: true },
    cli: { argument: 'ids' },
  },
  (backend, input) => undemote(backend, input.ids),
)

export const undemoteHandler = memoryUndemoteTool.handler
