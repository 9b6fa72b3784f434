/** memory_digest: current belief for a slot, or the list of slots. */

import { digestForKey, listDigests } from '../memory/organisation/digest.js'
import { defineTool } from './declare/tool.js'

const statusOfDigest = { type: 'string', enum: ['active', 'conflict'] } as const

export const memoryDigestTool = defineTool(
  {
    name: 'memory_digest',
    title: 'Current belief',
    group: 'curate',
    description:
      'With key: the current belief of that slot (its latest statement, unresolved conflicts, how many older versions), at most 400 tokens; rebuilt first when the memories changed (rebuilt: true). ' +
      'Without key: every slot with whether its digest is stale. refresh: true rebuilds (one slot, or all). Read it before drilling into single memories.',
    input: {
      type: 'object',
      properties: {
        key: { type: 'string', minLength: 1, maxLength: 200, description: 'The slot key (or title) of the memories.' },
        refresh: { type: 'boolean', default: false, description: 'Rebuild even when fresh.' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      description: 'With key: slot, path, text, updated_at, status, rebuilt. Without: slots.',
      properties: {
        slot: { type: 'string' },
        path: { type: 'string' },
        text: { type: 'string' },
        updated_at: { type: 'string' },
        status: statusOfDigest,
        rebuilt: { type: 'boolean' },
        slots: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              slot: { type: 'string' },
              path: { type: 'string' },
              updated_at: { oneOf: [{ type: 'string' }, { type: 'null' }] },
              stale: { type: 'boolean' },
              entries: { type: 'integer' },
              conflict: { type: 'boolean' },
              history: { type: 'integer' },
              text: { type: 'string' },
            },
            required: ['slot', 'path', 'updated_at', 'stale', 'entries', 'conflict', 'history'],
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: true },
    cli: { argument: 'key' },
  },
  async (backend, input) => (input.key !== undefined ? digestForKey(backend, input.key, input.refresh) : listDigests(backend, input.refresh)),
)

export const digestHandler = memoryDigestTool.handler
