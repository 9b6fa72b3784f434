/** memory_review: reveal the memory behind a review cue, with its schedule. */

import { revealMemory } from '../memory/organisation/review.js'
import { placeProperties, reviewStateShape } from './declare/review-shapes.js'
import { idInput } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryReviewTool = defineTool(
  {
    name: 'memory_review',
    title: 'Reveal a memory under review',
    group: 'review',
    description:
      'Retrieval practice: reveal the memory behind a cue of memory_review_queue (title, summary, details) with its SM-2 schedule. Recall first, then reveal, then grade it with memory_report. Reads only.',
    input: idInput,
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        title: { type: 'string' },
        summary: { type: 'string' },
        details: { type: 'string', description: 'What the file holds below its summary, cut at 2000 characters.' },
        path: { type: 'string' },
        ...placeProperties,
        review: {
          ...reviewStateShape,
          properties: { ...reviewStateShape.properties, in_practice: { type: 'boolean', description: 'False for a memory kept out of practice or not active.' } },
          required: [...reviewStateShape.required, 'in_practice'],
        },
        guidance: { type: 'string' },
      },
      required: ['id', 'title', 'summary', 'details', 'path', 'location', 'placard', 'review', 'guidance'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'id' },
  },
  (backend, input) => revealMemory(backend, input.id),
)
