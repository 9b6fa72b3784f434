/**
 * Schema fragments more than one tool declares: enums of the domain, the summary-layer entry,
 * nullable strings. Declared once here so the tools cannot drift apart.
 */

import { MEMORY_STATUSES, MEMORY_TYPES } from '../types.js'

export const idField = { type: 'string', minLength: 1, maxLength: 200, description: 'Memory id, such as mem_lq2x9k3a1b2c3d4e5f.' } as const
export const sessionIdField = { type: 'string', minLength: 1, maxLength: 200, description: 'The session the memory comes from.' } as const
export const nullableString = { oneOf: [{ type: 'string' }, { type: 'null' }] } as const
export const statusField = { type: 'string', enum: MEMORY_STATUSES } as const
export const typeField = { type: 'string', enum: MEMORY_TYPES } as const
export const idList = { type: 'array', items: { type: 'string' } } as const

export const navEntryShape = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    path: { type: 'string' },
    type: typeField,
    title: { type: 'string' },
    summary: { type: 'string' },
    time: { type: 'string' },
    status: statusField,
  },
  required: ['id', 'path', 'type', 'title', 'summary', 'time', 'status'],
  additionalProperties: false,
} as const
