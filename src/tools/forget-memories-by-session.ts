/** forget_memories_by_session: forget what one session contributed. */

import { forgetSession } from '../memory/forgetting/forget-session.js'
import { rebuiltDerivedShape, sessionIdField, statusField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const forgetMemoriesBySessionTool = defineTool(
  {
    name: 'forget_memories_by_session',
    title: 'Forget a session',
    group: 'curate',
    description:
      "Forget the episodes and raw text of one session. soft (default) marks them deleted_pending and keeps the files; hard removes the files. Shared topics are never deleted: with scope include_shared_unlink the session is removed from their sources, and a topic left with none becomes orphaned. A topic made from episodes is forgotten with the last session it was made from. Repeating the call changes nothing.",
    input: {
      type: 'object',
      properties: {
        session_id: sessionIdField,
        scope: { type: 'string', enum: ['session_only', 'include_shared_unlink'], default: 'session_only', description: 'Also unlink the session from shared topics.' },
        mode: { type: 'string', enum: ['soft', 'hard'], default: 'soft', description: 'soft keeps the files; hard deletes episode and raw files.' },
      },
      required: ['session_id'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        session_id: { type: 'string' },
        scope: { type: 'string', enum: ['session_only', 'include_shared_unlink'] },
        mode: { type: 'string', enum: ['soft', 'hard'] },
        deleted_episode_count: { type: 'integer' },
        deleted_raw_count: { type: 'integer' },
        unlinked_topic_count: { type: 'integer' },
        orphaned_topic_count: { type: 'integer' },
        forgotten_derived_count: { type: 'integer', description: 'Topics made from episodes (promoted, folded) forgotten because nothing they were made from is left.' },
        rebuilt_derived: rebuiltDerivedShape,
        affected_paths: { type: 'array', items: { type: 'string' } },
        status_changes: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              from: statusField,
              to: { oneOf: [statusField, { type: 'string', enum: ['removed'] }] },
            },
            required: ['id', 'from', 'to'],
            additionalProperties: false,
          },
        },
      },
      required: [
        'session_id',
        'scope',
        'mode',
        'deleted_episode_count',
        'deleted_raw_count',
        'unlinked_topic_count',
        'orphaned_topic_count',
        'forgotten_derived_count',
        'affected_paths',
        'status_changes',
      ],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, idempotent: true },
    sessionDefault: true,
    cli: { command: 'forget', argument: 'session_id' },
  },
  (backend, input) => forgetSession(backend, input.session_id, input.scope, input.mode),
)

export const forgetHandler = forgetMemoriesBySessionTool.handler
