/** memory_forget: forget one memory, or every memory a query names, and whatever repeats its value. */

import { forgetValue } from '../memory/forgetting/forget-memory.js'
import { digestChangesShape, idField, idList, rebuiltDerivedShape, statusField, typeField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryForgetTool = defineTool(
  {
    name: 'memory_forget',
    title: 'Forget a memory',
    group: 'core',
    description:
      'Forget one memory (id) or every memory containing all the words of query, plus any other memory repeating the same value. They stop showing at once and can be restored until memory_purge. dryRun only lists what would go.',
    input: {
      type: 'object',
      properties: {
        id: { ...idField, description: 'The memory to forget (give id or query, not both).' },
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'Words naming what to forget; a memory must contain all of them.' },
        dryRun: { type: 'boolean', default: false, description: 'Only list what would be forgotten.' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        dry_run: { type: 'boolean' },
        forgotten: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              path: { type: 'string' },
              type: typeField,
              title: { type: 'string' },
              from: statusField,
              reason: { type: 'string', enum: ['id', 'query', 'repeats', 'lineage'], description: 'lineage: derived from a forgotten memory, with nothing it was made from left.' },
              via: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'For repeats: the memory whose value it repeats; for lineage: the forgotten memory it was derived from.' },
            },
            required: ['id', 'path', 'type', 'title', 'from', 'reason', 'via'],
            additionalProperties: false,
          },
        },
        raw: { ...idList, description: 'Raw text forgotten with its episode.' },
        already: { ...idList, description: 'Named or found, but forgotten before.' },
        activated: { ...idList, description: 'Other sides of a conflict left alone by the forget, now active.' },
        digests: digestChangesShape,
        rebuilt: rebuiltDerivedShape,
        injection_cleared: { type: 'integer', description: 'Forgotten memories that search and resident injection could show before.' },
        guidance: { type: 'string' },
      },
      required: ['dry_run', 'forgotten', 'raw', 'already', 'activated', 'digests', 'rebuilt', 'injection_cleared', 'guidance'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, idempotent: true },
    cli: { command: 'forget-memory', argument: 'id' },
  },
  (backend, input) => forgetValue(backend, input),
)

export const forgetValueHandler = memoryForgetTool.handler
