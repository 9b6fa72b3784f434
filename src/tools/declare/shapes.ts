/**
 * Schema fragments more than one tool declares: enums of the domain, the summary-layer entry,
 * nullable strings. Declared once here so the tools cannot drift apart.
 */

import { MEMORY_STATUSES, MEMORY_TYPES, SOURCE_KINDS } from '../../types.js'

export const idField = { type: 'string', minLength: 1, maxLength: 200, description: 'Memory id, such as mem_lq2x9k3a1b2c3d4e5f.' } as const
export const sessionIdField = { type: 'string', minLength: 1, maxLength: 200, description: 'The session the memory comes from.' } as const
export const nullableString = { oneOf: [{ type: 'string' }, { type: 'null' }] } as const
export const statusField = { type: 'string', enum: MEMORY_STATUSES } as const
export const typeField = { type: 'string', enum: MEMORY_TYPES } as const
export const idList = { type: 'array', items: { type: 'string' } } as const
/** Which store a listed memory is in, where a host serves two (src/stores/); absent with one store. */
export const storeNameField = { type: 'string', enum: ['project', 'user'], description: 'The store it is in: project or user (personal).' } as const

/** The fields that name a memory in a listing answer (briefOf in types.ts), all required but `store`. */
export const briefFields = {
  id: idField,
  path: { type: 'string' },
  type: typeField,
  title: { type: 'string' },
  summary: { type: 'string' },
  status: statusField,
  time: { type: 'string' },
  store: storeNameField,
} as const
export const BRIEF_REQUIRED = ['id', 'path', 'type', 'title', 'summary', 'status', 'time'] as const

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
    store: storeNameField,
  },
  required: ['id', 'path', 'type', 'title', 'summary', 'time', 'status'],
  additionalProperties: false,
} as const

/** The input of a tool that takes one memory id and nothing else. */
export const idInput = {
  type: 'object',
  properties: { id: idField },
  required: ['id'],
  additionalProperties: false,
} as const

/** Where a memory came from, as the front-matter's `sources` states it. */
export const sourceShape = {
  type: 'object',
  properties: { session_id: nullableString, kind: { type: 'string', enum: SOURCE_KINDS } },
  required: ['session_id', 'kind'],
  additionalProperties: false,
} as const

/** What a forget or purge did to the digests that repeated a value. */
/** Derived memories made again from their clean sources after a forget (memory/forgetting/rebuild-derived.ts). */
export const rebuiltDerivedShape = {
  type: 'array',
  description: 'Derived memories (summaries, exchanges, promoted topics) that drew on a forgotten memory: each made again from the sources left clean, as a new version that supersedes the old one (now forgotten).',
  items: {
    type: 'object',
    properties: {
      id: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'The new version; null in a dry run.' },
      was: { type: 'string', description: 'The version it replaces, now forgotten.' },
      derived_from: { type: 'array', items: { type: 'string' }, description: 'The clean sources it is made from.' },
      dropped: { type: 'array', items: { type: 'string' }, description: 'The forgotten sources it no longer draws on.' },
    },
    required: ['id', 'was', 'derived_from', 'dropped'],
    additionalProperties: false,
  },
} as const

export const digestChangesShape = {
  type: 'array',
  items: {
    type: 'object',
    properties: { path: { type: 'string' }, action: { type: 'string', enum: ['rebuilt', 'removed'] } },
    required: ['path', 'action'],
    additionalProperties: false,
  },
} as const
