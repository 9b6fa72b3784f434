/** memory_assess: the evidence gate, asked before answering from memory. */

import { assessEvidence, MAX_EVIDENCE_REFS, NEXT_STRATEGIES } from '../memory/truth/evidence-gate.js'
import { sessionIdField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

const refField = { type: 'string', minLength: 1, maxLength: 64 } as const

export const memoryAssessTool = defineTool(
  {
    name: 'memory_assess',
    title: 'Is the evidence enough to answer?',
    group: 'review',
    description:
      'The evidence gate: before answering from memory, name the search batch (batch_id of a memory_search_hybrid answer), the refs of its hits that support your answer (at most 8, only from that batch), what is still missing, and your next strategy. ' +
      'The verdict is sufficient only when you say so, at least one ref belongs to that batch, and nextStrategy is answer; otherwise it is insufficient and says what to search next. Refs of other batches, and refs to memories forgotten since the search, are refused and listed. Pass the session_id you gave the search. Every verdict is recorded in the ledger.',
    input: {
      type: 'object',
      properties: {
        batchId: { type: 'string', minLength: 1, maxLength: 64, description: 'batch_id of the search answer you rely on.' },
        evidenceRefs: { type: 'array', items: refField, maxItems: MAX_EVIDENCE_REFS, description: 'ref of each hit of that batch that supports your answer.' },
        missing: { type: 'string', maxLength: 2000, default: '', description: 'What the hits do not say that the answer needs; empty when nothing.' },
        nextStrategy: { type: 'string', enum: NEXT_STRATEGIES, description: 'answer, search again, browse (memory_nav) or ask the user.' },
        sufficient: { type: 'boolean', description: 'Whether you judge the evidence enough to answer.' },
        nextQuery: { type: 'string', maxLength: 2000, description: 'What you would search next, if not answering.' },
        session_id: { ...sessionIdField, description: 'The session the search was made in (the session_id given to memory_search_hybrid).' },
      },
      required: ['batchId', 'evidenceRefs', 'nextStrategy', 'sufficient'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        verdict: { type: 'string', enum: ['sufficient', 'insufficient'] },
        batchId: { type: 'string' },
        batchKnown: { type: 'boolean', description: "False when the batch is not one of the session's latest 20 searches." },
        accepted: {
          type: 'array',
          items: { type: 'object', properties: { ref: { type: 'string' }, id: { type: 'string' } }, required: ['ref', 'id'], additionalProperties: false },
        },
        refused: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              ref: { type: 'string' },
              reason: { type: 'string', enum: ['other-batch', 'unknown', 'forgotten'], description: 'forgotten: the memory was forgotten or purged since the search.' },
              batchId: { type: 'string', description: 'For other-batch: the batch the ref belongs to.' },
            },
            required: ['ref', 'reason'],
            additionalProperties: false,
          },
        },
        nextStrategy: { type: 'string', enum: NEXT_STRATEGIES, description: 'What to do next: answer only when the verdict is sufficient.' },
        guidance: { type: 'string' },
      },
      required: ['verdict', 'batchId', 'batchKnown', 'accepted', 'refused', 'nextStrategy', 'guidance'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: false },
    cli: { argument: 'batchId' },
  },
  (backend, input) => assessEvidence(backend, input),
)
