/** memory_verify: check a claim against memory before asserting it (source monitoring). */

import { asOfField } from '../memory/time/as-of.js'
import { nothingStoredVerdict, verifyClaim } from '../memory/truth/verify.js'
import { verifyWithModel } from '../memory/truth/verify-model.js'
import { nothingStoredYet } from '../store/existing.js'
import { evidenceField, scopeField } from './declare/claim-shapes.js'
import { BRIEF_REQUIRED, briefFields } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

const memoryRef = {
  type: 'object',
  properties: {
    ...briefFields,
    coverage: { type: 'number', minimum: 0, maximum: 1, description: "Share of the claim's words this memory states." },
    evidence: evidenceField,
    scope: { type: 'string' },
    verified_at: { type: 'string' },
    retracted_by: { type: 'string' },
  },
  required: [...BRIEF_REQUIRED, 'coverage', 'evidence'],
  additionalProperties: false,
} as const

const refList = (what: string) => ({ type: 'array', items: memoryRef, description: what }) as const

export const memoryVerifyTool = defineTool(
  {
    name: 'memory_verify',
    title: 'Verify a claim against memory',
    group: 'core',
    description:
      'Check a claim against memory before stating it. Verdict: supported (a current memory says it), contradicted (the current memory says otherwise, or it was withdrawn), unknown (nothing says it: say so, do not guess) or out_of_scope (true only under other conditions). An old, replaced value never supports a claim.',
    input: {
      type: 'object',
      properties: {
        claim: { type: 'string', minLength: 1, maxLength: 2000, description: 'The statement to check, with its subject and value (such as "The billing service database is PostgreSQL").' },
        scope: { ...scopeField, description: 'Your premises, "key=value; key=value": memories under conflicting premises are set aside (scopeExcluded).' },
        asOf: { ...asOfField, description: 'ISO-8601 time or unix seconds: judge the claim by memory as it was then (what was current then supports; what was written later is absent).' },
        model: { type: 'boolean', description: "Also let the store's model (when one is set) judge each retrieved memory; supported still needs the value in the memory's text." },
      },
      required: ['claim'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        verdict: { type: 'string', enum: ['supported', 'contradicted', 'unknown', 'out_of_scope'] },
        claim: { type: 'string' },
        support: { oneOf: [memoryRef, { type: 'null' }], description: 'The current memory that states the claim.' },
        contradicting: refList('Current memories of the same subject that state another value, and retractions.'),
        newer_related: refList('Memories about the same subject written after the support.'),
        superseded_matches: refList('Old versions that state the claim: true once, not now.'),
        stale_support: { type: 'boolean', description: 'Newer related memories exist: read them before relying on the support.' },
        scopeExcluded: { type: 'integer', minimum: 0, description: "Matching memories set aside because their premises conflict with scope." },
        note: { type: 'string', description: 'A paragraph to quote, starting with the verdict.' },
        model: {
          type: 'object',
          description: "With model: true and a model set: its judgements, those the store refused marked.",
          properties: {
            judgements: {
              type: 'array',
              items: {
                type: 'object',
                properties: { id: { type: 'string' }, relation: { type: 'string', enum: ['supports', 'contradicts', 'unrelated'] }, refused: { type: 'string' } },
                required: ['id', 'relation'],
                additionalProperties: false,
              },
            },
            degraded: { type: 'string' },
            prompt: { type: 'string' },
          },
          required: ['judgements', 'prompt'],
          additionalProperties: false,
        },
      },
      required: ['verdict', 'claim', 'support', 'contradicting', 'newer_related', 'superseded_matches', 'stale_support', 'scopeExcluded', 'note'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'claim' },
  },
  (backend, input) => (input.model === true ? verifyWithModel(backend, input) : verifyClaim(backend, input)),
  (backend, input) => nothingStoredVerdict(input.claim, nothingStoredYet(backend)),
)

export const verifyHandler = memoryVerifyTool.handler
