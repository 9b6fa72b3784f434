/** memory_answer: answer a question from memory, citing the memories used, or abstain saying why (seed 003's answer()). */

import { ABSTAIN_REASONS, abstention, answerQuestion } from '../memory/truth/answer.js'
import { answerWithModel } from '../memory/truth/answer-model.js'
import { asOfField } from '../memory/time/as-of.js'
import { nothingStoredYet } from '../store/existing.js'
import { BRIEF_REQUIRED, briefFields } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

const briefShape = { type: 'object', properties: briefFields, required: BRIEF_REQUIRED, additionalProperties: false } as const

export const memoryAnswerTool = defineTool(
  {
    name: 'memory_answer',
    title: 'Answer from memory, with citations',
    group: 'review',
    description:
      'Answer a question from memory: the answer cites the ids of the memories it comes from, or abstains and says why (nothing-relevant, conflicting: an unresolved conflict, only-superseded: only replaced versions say it). Without a model the answer is sentences taken word for word from the cited memories; with model: true and a model set, the model writes it from the retrieved memories, and the store refuses an answer that cites a memory it did not retrieve or states what no cited memory states. asOf answers as memory stood then.',
    input: {
      type: 'object',
      properties: {
        question: { type: 'string', minLength: 1, maxLength: 2000, description: 'The question, such as "What database does the billing service use?" or "用户现在的饮食是什么？".' },
        asOf: { ...asOfField, description: 'ISO-8601 time or unix seconds: answer from memory as it was then (what was current then answers; what was written later is absent).' },
        model: { type: 'boolean', description: "Let the store's model (when one is set) write the answer within the cited memories; otherwise it is extracted." },
      },
      required: ['question'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        question: { type: 'string' },
        answer: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'The answer; null when abstaining.' },
        abstained: { type: 'boolean' },
        reason: { type: 'string', enum: ABSTAIN_REASONS, description: 'Why there is no answer.' },
        mode: { type: 'string', enum: ['extractive', 'generative'] },
        citations: {
          type: 'array',
          description: 'The memories the answer comes from, with the sentences it uses.',
          items: { type: 'object', properties: { ...briefFields, quote: { type: 'string' } }, required: [...BRIEF_REQUIRED, 'quote'], additionalProperties: false },
        },
        retrieved: { type: 'array', items: { type: 'string' }, description: 'Every memory retrieved for the question, best first: the only ones an answer may cite.' },
        conflicting: { type: 'array', items: briefShape, description: 'With reason conflicting: the sides of the conflict.' },
        superseded: {
          type: 'array',
          description: 'With reason only-superseded: the replaced versions that state it.',
          items: { type: 'object', properties: { ...briefFields, superseded_by: { type: 'string' } }, required: BRIEF_REQUIRED, additionalProperties: false },
        },
        asOf: { type: 'string', description: 'The time memory was read as of.' },
        note: { type: 'string', description: 'A paragraph to quote, starting with ANSWER or ABSTAIN.' },
        model: {
          type: 'object',
          description: 'With model: true and a model set: what it did; refused or degraded when the extracted answer stands instead.',
          properties: { prompt: { type: 'string' }, cited: { type: 'array', items: { type: 'string' } }, refused: { type: 'string' }, degraded: { type: 'string' } },
          required: ['prompt', 'cited'],
          additionalProperties: false,
        },
      },
      required: ['question', 'answer', 'abstained', 'mode', 'citations', 'retrieved', 'note'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'question' },
  },
  (backend, input) => (input.model === true ? answerWithModel(backend, input) : answerQuestion(backend, input)),
  (backend, input) => abstention(input.question, 'nothing-stored', [], {}, nothingStoredYet(backend)),
)

export const answerHandler = memoryAnswerTool.handler
