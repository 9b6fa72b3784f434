/** memory_assemble: put the memories relevant to a task into one context block, within a token budget. */

import { assembleForTask } from '../memory/reading/assemble.js'
import { idField } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryAssembleTool = defineTool(
  {
    name: 'memory_assemble',
    title: 'Assemble memory for a task',
    group: 'browse',
    description:
      'Build one context block of memories for a task, never longer than the token budget (tokens = characters / 1.6, rounded up). Uses the given hits (best first) or searches for the task. ' +
      'Each memory gets its summary and up to 600 characters of its original text when there is room, else its summary, else a cut summary; every block names its source file. What did not fit is counted in omitted and said in the text. When nothing matches the task, the closest memory is given framed as [memory data] and labelled as a guess (lowConfidence).',
    input: {
      type: 'object',
      properties: {
        task: { type: 'string', minLength: 1, maxLength: 2000, description: 'What the memories are for; searched when hits are not given.' },
        hits: {
          type: 'array',
          maxItems: 200,
          items: {
            type: 'object',
            properties: { id: idField, score: { type: 'number' } },
            required: ['id'],
            additionalProperties: true,
          },
          description: 'Hits from memory_search_hybrid, to use instead of a new search.',
        },
        budget: { type: 'integer', minimum: 1, maximum: 100000, description: 'Token budget (default: the store setting, 1200).' },
      },
      required: ['task'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        context: { type: 'string' },
        used_tokens: { type: 'integer' },
        budget: { type: 'integer' },
        sources: { type: 'array', items: { type: 'string' } },
        included: { type: 'integer' },
        omitted: { type: 'integer', description: 'Hits that did not fit the budget.' },
        lowConfidence: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            path: { type: 'string' },
            score: { type: 'number' },
            shared: { type: 'array', items: { type: 'string' }, description: 'The single characters it shares with the task.' },
          },
          required: ['id', 'path', 'score', 'shared'],
          additionalProperties: false,
          description: 'No memory matched the task: the closest one, given in the context framed as [memory data ...] and labelled as not a match. Check it before relying on it.',
        },
      },
      required: ['context', 'used_tokens', 'budget', 'sources', 'included', 'omitted'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'task' },
  },
  (backend, input) => assembleForTask(backend, input),
)

export const assembleHandler = memoryAssembleTool.handler
