/** memory_neighbors: the memories one to three links away from one. */

import { MAX_NEIGHBORS, neighbors } from '../memory/reading/walk.js'
import { BRIEF_REQUIRED, briefFields, idField } from './declare/shapes.js'
import { locationField } from './declare/place-shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryNeighborsTool = defineTool(
  {
    name: 'memory_neighbors',
    title: 'Neighbours',
    group: 'browse',
    description:
      `The memories linked to one, up to hops (1-3) links away: its links (front-matter links, [[id]] in the body), the memories that link to it, and its older or newer version. Each says how far (hop), by which edge (via) and from which memory. At most ${MAX_NEIGHBORS}, nearest first.`,
    input: {
      type: 'object',
      properties: {
        id: idField,
        hops: { type: 'integer', minimum: 1, maximum: 3, default: 1, description: 'How many links away, 1 to 3.' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        hops: { type: 'integer' },
        neighbors: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              ...briefFields,
              location: locationField,
              hop: { type: 'integer' },
              via: { type: 'string', enum: ['links-to', 'linked-from', 'version'] },
              from: { type: 'string' },
            },
            required: [...BRIEF_REQUIRED, 'hop', 'via', 'from'],
            additionalProperties: false,
          },
        },
        missing: { type: 'array', items: { type: 'string' }, description: 'Linked ids that name no memory.' },
        truncated: { type: 'boolean' },
      },
      required: ['id', 'hops', 'neighbors', 'missing', 'truncated'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'id' },
  },
  (backend, input) => neighbors(backend, input.id, input.hops),
)

export const neighborsHandler = memoryNeighborsTool.handler
