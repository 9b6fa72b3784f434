/** Schema fragments of the retrieval-practice tools (review queue, review, report), declared once. */

const nullableText = { oneOf: [{ type: 'string' }, { type: 'null' }] } as const

export const reviewStateShape = {
  type: 'object',
  properties: {
    due: { type: 'string', description: 'When the memory is next due for recall.' },
    interval: { type: 'integer', minimum: 0, description: 'Days between the last review and due.' },
    ease: { type: 'number', minimum: 1.3, description: 'SM-2 ease factor.' },
    reps: { type: 'integer', minimum: 0, description: 'Successful recalls in a row.' },
    lapses: { type: 'integer', minimum: 0 },
    reviewed_at: { ...nullableText, description: 'The last review; null when never graded.' },
    importance: { type: 'number', minimum: 0, maximum: 1 },
  },
  required: ['due', 'interval', 'ease', 'reps', 'lapses', 'reviewed_at', 'importance'],
  additionalProperties: false,
} as const

export const placeProperties = {
  location: { ...nullableText, description: 'Its fixed place (room#slot), when it has one.' },
  placard: { ...nullableText, description: 'The memory placard, when it has one.' },
} as const
