/** memory_undo_judgement: undo what a model's background judgement of a write changed. */

import { undoJudgements } from '../memory/writing/write-judge.js'
import { idField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryUndoJudgementTool = defineTool(
  {
    name: 'memory_undo_judgement',
    title: 'Undo a model judgement',
    group: 'curate',
    description:
      "Undo the model's judgement of a written memory (a model-judge ledger event): the memory it said was replaced, or the other side of the conflict it declared, becomes active again. An id with no judgement taken is left as it is (unchanged).",
    input: {
      type: 'object',
      properties: { ids: { type: 'array', items: idField, maxItems: 50, description: 'Memories whose model judgement to undo (the written memory of the event).' } },
      required: ['ids'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        undone: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              decision: { type: 'string', enum: ['update', 'conflict'] },
              other: { type: 'string', description: 'The other memory, active again.' },
            },
            required: ['id', 'decision', 'other'],
            additionalProperties: false,
          },
        },
        unchanged: { type: 'array', items: { type: 'string' }, description: 'No model judgement taken: nothing to do.' },
      },
      required: ['undone', 'unchanged'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: true },
    cli: { argument: 'ids' },
  },
  (backend, input) => undoJudgements(backend, input.ids),
)

export const undoJudgementHandler = memoryUndoJudgementTool.handler
