/** write_memory: store one memory (topic, or episode with its raw text). */

import { writeMemory } from '../memory/writing/write.js'
import { WRITE_OUTCOMES } from '../memory/writing/write-result.js'
import { REDACTION_KINDS } from '../redact.js'
import { ANCHOR_KINDS, SOURCE_KINDS } from '../types.js'
import { idList, nullableString, sessionIdField, statusField } from './declare/shapes.js'
import { claimInputFields } from './declare/claim-shapes.js'
import { linksInput, locationField, placardShape } from './declare/place-shapes.js'
import { defineTool } from './declare/tool.js'

/** A memory near the one written: its id, its summary and why it is listed. */
const nearbyItem = {
  type: 'object',
  properties: { id: { type: 'string' }, summary: { type: 'string' }, why: { type: 'string' } },
  required: ['id', 'summary', 'why'],
  additionalProperties: false,
} as const

const textList = (what: string) =>
  ({ type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 32, description: what }) as const

export const writeMemoryTool = defineTool(
  {
    name: 'write_memory',
    title: 'Write a memory',
    group: 'core',
    description:
      'Save one fact as a memory. Without raw a topic; with raw an episode, kept with its original text (a repeat adds new raw text). outcome says what it did; neighbours are nearby memories. A new value under the same key or title replaces the old one (replaced); expectConflict keeps both for memory_resolve. Without key or title, may_revise lists memories it may replace: confirm one by writing it again with supersedes: [id]. Secrets are masked.',
    input: {
      type: 'object',
      properties: {
        summary: { type: 'string', minLength: 1, maxLength: 2000, description: 'The memory in one paragraph (at most 2000 characters); longer text goes in raw.' },
        raw: { type: 'string', maxLength: 1_000_000, description: 'Original text behind an episode, kept verbatim in raw/.' },
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'Short title; also the slot key when key is not given.' },
        key: { type: 'string', minLength: 1, maxLength: 200, description: 'Slot key: writes with the same key are versions of one fact.' },
        type: { type: 'string', enum: ['episode', 'topic'], description: 'Defaults to episode when raw is given, else topic.' },
        tags: textList('Tags, such as database or preference.'),
        entities: textList('Named things the memory is about, such as PostgreSQL.'),
        source: { type: 'string', enum: SOURCE_KINDS, description: 'Who said it: session (default with a session id), user or plugin.' },
        session_id: sessionIdField,
        confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How sure the writer is, 0 to 1 (default 0.6).' },
        time: { type: 'string', minLength: 1, maxLength: 64, description: 'When it happened (ISO-8601); default now.' },
        requireConfirmation: { type: 'boolean', description: 'Store as suggested until memory_confirm (default: the store setting).' },
        expectConflict: { type: 'boolean', description: 'Keep both this and the current memory of the slot, as a conflict to resolve.' },
        anchors: {
          type: 'array',
          maxItems: 8,
          description:
            'Conditions the memory depends on; when one no longer holds the memory leaves resident injection (search still finds it). env: name = variable, value = expected (empty: only that it is set); tool-list: value = tool name; self-version: value = plugin version; path-exists: value = path.',
          items: {
            type: 'object',
            properties: {
              kind: { type: 'string', enum: ANCHOR_KINDS },
              name: { type: 'string', maxLength: 4000, description: 'Cut to 200 characters (a warning says so).' },
              value: { type: 'string', maxLength: 4000, description: 'Cut to 200 characters (a warning says so).' },
            },
            required: ['kind'],
            additionalProperties: false,
          },
        },
        ...claimInputFields,
        links: linksInput,
        supersedes: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 200 },
          maxItems: 8,
          description: 'Ids of current memories this one replaces (confirm a may_revise entry): each must exist and be active or in conflict.',
        },
        importance: { type: 'number', minimum: 0, maximum: 1, description: 'How much it matters, 0-1 (default 0.5).' },
        claim: {
          type: 'object',
          description: 'What the memory states, when you know it better than the text reads: the subject ("the API"), the attribute ("port") and the value ("9090"). Subject and attribute are then the key (not with key): writes with the same ones are versions of one fact.',
          properties: {
            subject: { type: 'string', minLength: 1, maxLength: 200 },
            attribute: { type: 'string', minLength: 1, maxLength: 200 },
            value: { type: 'string', minLength: 1, maxLength: 500 },
          },
          required: ['subject', 'attribute', 'value'],
          additionalProperties: false,
        },
      },
      required: ['summary'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        path: { type: 'string' },
        type: { type: 'string', enum: ['episode', 'topic'] },
        status: statusField,
        title: { type: 'string' },
        raw_ref: nullableString,
        outcome: {
          type: 'string',
          enum: WRITE_OUTCOMES,
          description:
            'created; updated (it replaced the current version of its fact: see replaced); duplicate (already stored, nothing new saved: the memory grows stronger); appended (the episode was stored, its new raw text was added); conflict (kept beside another value, for memory_resolve); held (suggested, for memory_confirm).',
        },
        replaced: {
          type: 'object',
          description: 'The current memory this write replaced (the newest, when several: superseded lists them all).',
          properties: { id: { type: 'string' }, version: { type: 'integer', minimum: 1 }, summary: { type: 'string' } },
          required: ['id', 'version', 'summary'],
          additionalProperties: false,
        },
        dedupe: { type: 'string', enum: ['exact', 'near'], description: 'Set when the memory was already stored; id is the existing one.' },
        similarity: { type: 'number' },
        superseded: { ...idList, description: 'Ids of older versions this write replaced.' },
        variants: { ...idList, description: 'Ids of the other sides of a conflict.' },
        redactions: { type: 'array', items: { type: 'string', enum: REDACTION_KINDS }, description: 'Kinds of secrets replaced before writing.' },
        warnings: {
          type: 'array',
          items: { type: 'string' },
          description: 'Things to know, each led by its kind: different-scope, conflict, shielded, value-range, low-confidence, verified-replaced.',
        },
        slot: { type: 'string', description: 'The subject read from the summary (front-matter slot) when no key or title was given.' },
        scope: { type: 'string', description: 'The premises stored with the memory.' },
        verified_at: { type: 'string', description: 'When its evidence was last checked.' },
        location: locationField,
        placard: placardShape,
        may_revise: {
          type: 'array',
          maxItems: 3,
          description: 'For a write without key or title: current memories it may replace, best first (its neighbours); confirm one by writing again with supersedes.',
          items: nearbyItem,
        },
        neighbours: {
          type: 'array',
          maxItems: 3,
          description: 'Current memories near this one, best first, each with why (same subject, shared words, close in meaning).',
          items: nearbyItem,
        },
      },
      required: ['id', 'path', 'type', 'status', 'title', 'raw_ref', 'outcome', 'superseded', 'variants', 'redactions'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: true },
    sessionDefault: true,
    createsStore: true,
    cli: { command: 'write', argument: 'summary' },
  },
  (backend, input) => writeMemory(backend, input, { nearby: true }),
)

export const writeHandler = writeMemoryTool.handler
