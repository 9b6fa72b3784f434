/** memory_review_queue: the memories due for recall, as cues only (never their text). */

import { reviewQueue } from '../memory/organisation/review.js'
import { placeProperties } from './declare/review-shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryReviewQueueTool = defineTool(
  {
    name: 'memory_review_queue',
    title: 'Memories due for recall',
    group: 'review',
    description:
      'Retrieval practice: the memories due for recall now, most overdue first, as cues only (location and placard when the memory has them, else its title; days overdue), never their text. ' +
      'Recall each from its cue first, then memory_review { id } reveals it and memory_report { id, grade } schedules the next review (SM-2). Memories never graded are due one day after they were written.',
    input: {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'How many cues at most.' } },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        at: { type: 'string', description: 'The time the queue was taken.' },
        due_total: { type: 'integer', minimum: 0, description: 'Memories due now, listed or not.' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              ...placeProperties,
              cue: { type: 'string', description: 'What to recall from.' },
              cue_kind: { type: 'string', enum: ['placard', 'title'] },
              path: { type: 'string' },
              due: { type: 'string' },
              days_overdue: { type: 'integer', minimum: 0 },
              reps: { type: 'integer', minimum: 0 },
            },
            required: ['id', 'location', 'placard', 'cue', 'cue_kind', 'path', 'due', 'days_overdue', 'reps'],
            additionalProperties: false,
          },
        },
        has_more: { type: 'boolean' },
        guidance: { type: 'string' },
      },
      required: ['at', 'due_total', 'items', 'has_more', 'guidance'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
  },
  (backend, input) => reviewQueue(backend, input.limit),
)
