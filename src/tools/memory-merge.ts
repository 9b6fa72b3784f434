/** memory_merge: fold restatements into one survivor (a preview unless dryRun is false). */

import { mergeMemories } from '../memory/organisation/merge.js'
import { idField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryMergeTool = defineTool(
  {
    name: 'memory_merge',
    title: 'Merge restatements',
    group: 'curate',
    description:
      'Fold memories that restate one another (a group from memory_duplicates) into one survivor: into, or else the one with passing evidence, higher confidence, more search hits, more sources, the earliest. ' +
      'The survivor keeps its summary and gains the others\' tags, entities, sources, longer or other details and higher confidence; the folded ones become superseded (merged_into) and stay on disk: memory_undemote brings them back. ' +
      'Members whose premises (scope) conflict are never folded (blocked). Repeating a merge changes nothing (alreadyFolded). A preview by default: dryRun false applies it.',
    input: {
      type: 'object',
      properties: {
        ids: { type: 'array', items: idField, maxItems: 50, description: 'The restatements to fold (two or more with into).' },
        into: { ...idField, description: 'The survivor; default: chosen as described.' },
        dryRun: { type: 'boolean', default: true, description: 'True (default): say what would happen and change nothing.' },
      },
      required: ['ids'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        dryRun: { type: 'boolean' },
        survivor: {
          type: 'object',
          properties: { id: { type: 'string' }, path: { type: 'string' }, title: { type: 'string' }, summary: { type: 'string' } },
          required: ['id', 'path', 'title', 'summary'],
          additionalProperties: false,
        },
        folded: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, path: { type: 'string' }, summary: { type: 'string' }, similarity: { type: 'number' } },
            required: ['id', 'path', 'summary', 'similarity'],
            additionalProperties: false,
          },
          description: 'Folded into the survivor (or, in a preview, that would be).',
        },
        alreadyFolded: { type: 'array', items: { type: 'string' }, description: 'Named, but folded by an earlier merge into a memory named here: nothing to do.' },
        blocked: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, conflictsWith: { type: 'string' }, keys: { type: 'array', items: { type: 'string' } } },
            required: ['id', 'conflictsWith', 'keys'],
            additionalProperties: false,
          },
          description: 'Not folded: their premises conflict (on these keys) with the survivor or a folded member.',
        },
        carried: { type: 'array', items: { type: 'string' }, description: 'What the survivor gained.' },
        note: { type: 'string' },
      },
      required: ['dryRun', 'survivor', 'folded', 'alreadyFolded', 'blocked', 'carried', 'note'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, idempotent: true },
    cli: { argument: 'ids' },
  },
  (backend, input) => mergeMemories(backend, input),
)

export const mergeHandler = memoryMergeTool.handler
