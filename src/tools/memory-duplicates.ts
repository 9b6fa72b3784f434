/** memory_duplicates: the read-only report of restatements that memory_merge can fold. */

import { duplicatesReport } from '../memory/organisation/duplicates.js'
import { typeField } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryDuplicatesTool = defineTool(
  {
    name: 'memory_duplicates',
    title: 'Find restatements',
    group: 'curate',
    description:
      'List groups of active memories that restate one another (summaries with character 2-gram Jaccard >= 0.9, across titles and types), changing nothing. ' +
      'Each group names the member a merge would keep (suggested_into) and says mixedPremises when two members state conflicting premises (scope): those are one claim under two conditions, not duplicates. ' +
      'Fold a group with memory_merge.',
    input: {
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 20, description: 'Groups per page, largest first.' },
        offset: { type: 'integer', minimum: 0, default: 0, description: 'Groups to skip.' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        scanned: { type: 'integer', description: 'Active memories compared.' },
        total_groups: { type: 'integer' },
        offset: { type: 'integer' },
        has_more: { type: 'boolean' },
        groups: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              suggested_into: { type: 'string', description: 'The member memory_merge keeps by default.' },
              mixedPremises: { type: 'boolean', description: 'Two members state conflicting premises; a merge never folds those together.' },
              members: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    path: { type: 'string' },
                    type: typeField,
                    title: { type: 'string' },
                    summary: { type: 'string' },
                    time: { type: 'string' },
                    scope: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'The premises it states.' },
                    similarity: { type: 'number', description: '2-gram Jaccard with suggested_into.' },
                  },
                  required: ['id', 'path', 'type', 'title', 'summary', 'time', 'scope', 'similarity'],
                  additionalProperties: false,
                },
              },
            },
            required: ['suggested_into', 'mixedPremises', 'members'],
            additionalProperties: false,
          },
        },
        guidance: { type: 'string' },
      },
      required: ['scanned', 'total_groups', 'offset', 'has_more', 'groups', 'guidance'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
  },
  (backend, input) => duplicatesReport(backend, input),
)

export const duplicatesHandler = memoryDuplicatesTool.handler
