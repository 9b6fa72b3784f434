/**
 * Schema fragments of the palace and navigation tools: a location, a placard check, and a
 * listed memory with its place. Declared once so write_memory, memory_rooms, memory_timeline and
 * memory_neighbors cannot drift apart.
 */

import { BRIEF_REQUIRED, briefFields, idField } from './shapes.js'

export const locationField = { type: 'string', description: 'Its fixed place: room#slot, such as topics-2#4.' } as const

export const linksInput = {
  type: 'array',
  items: idField,
  maxItems: 50,
  description: 'Ids of memories this one links to (also written as [[id]] in a body). memory_neighbors walks them.',
} as const

export const placardShape = {
  type: 'object',
  description: 'How well the title serves as a placard: unique in the store 0.4, dated 0.3, unlike its room neighbours 0.3.',
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1 },
    unique: { type: 'boolean' },
    differentiated: { type: 'boolean' },
    dated: { type: 'boolean' },
    hint: { type: 'string', description: 'How to rewrite the title (below 1 only).' },
  },
  required: ['score', 'unique', 'differentiated', 'dated'],
  additionalProperties: false,
} as const

/** A memory in a navigation answer: the brief fields plus its location when it has one. */
export const placedBriefShape = {
  type: 'object',
  properties: { ...briefFields, location: locationField },
  required: BRIEF_REQUIRED,
  additionalProperties: false,
} as const
