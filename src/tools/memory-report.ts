/** memory_report: grade a recall; SM-2 schedules the next review and adjusts importance. */

import { invalidInput } from '../errors.js'
import { reportRecall } from '../memory/organisation/review.js'
import { reviewStateShape } from './declare/review-shapes.js'
import { idField } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryReportTool = defineTool(
  {
    name: 'memory_report',
    title: 'Grade a recall',
    group: 'review',
    description:
      'Retrieval practice: say how well you recalled a memory, as grade 0-5 (5 perfect, 4 after a pause, 3 hard, below 3 forgotten) or outcome success / failure (grades 4 and 1). ' +
      'SM-2 schedules the next review (1, then 6, then the previous interval times the ease in days; a failure starts over at 1 day; ease at least 1.3) and importance moves (+0.05 recalled, -0.1 forgotten). ' +
      'A graded memory is exempt from decay: its schedule decides its fate.',
    input: {
      type: 'object',
      properties: {
        id: idField,
        grade: { type: 'integer', minimum: 0, maximum: 5, description: 'How well you recalled it, 0-5. Give this or outcome.' },
        outcome: { type: 'string', enum: ['success', 'failure'], description: 'Recalled or not, instead of a grade.' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        grade: { type: 'integer', minimum: 0, maximum: 5 },
        recalled: { type: 'boolean', description: 'Grade 3 or more.' },
        previous: reviewStateShape,
        next: reviewStateShape,
      },
      required: ['id', 'grade', 'recalled', 'previous', 'next'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: false, idempotent: false },
    cli: { argument: 'id' },
  },
  (backend, input) => {
    if ((input.grade === undefined) === (input.outcome === undefined)) throw invalidInput('grade', 'either grade (0-5) or outcome (success / failure), not both')
    return reportRecall(backend, input.id, input.grade ?? input.outcome ?? 'failure')
  },
)
