/** memory_timeline: the memories in time order, or room by room (the tour). */

import { timeline } from '../memory/reading/walk.js'
import { statusField } from './declare/shapes.js'
import { placedBriefShape } from './declare/place-shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryTimelineTool = defineTool(
  {
    name: 'memory_timeline',
    title: 'Timeline',
    group: 'time',
    description:
      'Walk memories instead of searching: order time (default) lists the newest first; order tour goes room by room, slot by slot (see memory_rooms). Current memories unless status is given; summaries only, paged.',
    input: {
      type: 'object',
      properties: {
        order: { type: 'string', enum: ['time', 'tour'], default: 'time', description: 'time: newest first; tour: room by room, slot by slot.' },
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
        offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
        status: { ...statusField, description: 'Only memories with this status (such as archived).' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        order: { type: 'string', enum: ['time', 'tour'] },
        total: { type: 'integer' },
        offset: { type: 'integer' },
        limit: { type: 'integer' },
        has_more: { type: 'boolean' },
        unplaced: { type: 'integer', description: 'Tour only: memories without a location, listed after the route.' },
        entries: { type: 'array', items: placedBriefShape },
      },
      required: ['order', 'total', 'offset', 'limit', 'has_more', 'entries'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
  },
  (backend, input) => timeline(backend, input),
)

export const timelineHandler = memoryTimelineTool.handler
