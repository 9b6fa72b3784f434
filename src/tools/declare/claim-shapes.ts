/**
 * Schema fragments for the claim fields (premises, evidence, retraction, guard): write_memory's
 * input fields and the markers search and verify report per memory. Declared once here so the
 * tools cannot drift apart.
 */

import { EVIDENCE_TTL_DAYS } from '../../memory/truth/evidence.js'

export const scopeField = {
  type: 'string',
  maxLength: 2000,
  description:
    'Premises: the conditions under which this holds, "key=value; key=value" (such as "env=prod; population=all records"). Premises that disagree on a shared key keep memories apart.',
} as const

export const claimInputFields = {
  scope: scopeField,
  verify_cmd: { type: 'string', maxLength: 1000, description: 'Evidence: the command that re-checks this memory (stored, never run by the memory).' },
  verify_expect: { type: 'string', maxLength: 1000, description: 'Evidence: the output verify_cmd is expected to give.' },
  verify_result: {
    type: 'string',
    enum: ['pass', 'fail'],
    description: `Evidence: what the last run gave. A pass is [VERIFIED] for ${EVIDENCE_TTL_DAYS} days after verified_at, then [ASSERTED] until re-run (write it again with a new result).`,
  },
  verified_at: { type: 'string', minLength: 1, maxLength: 64, description: 'When verify_cmd last ran (ISO-8601); a pass without it counts as run now.' },
  retracts: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'Makes this memory a retraction of the memory with this id (say why in the summary); the retracted one is shown [retracted] and no longer supports claims.',
  },
  guard_trigger: { type: 'string', minLength: 1, maxLength: 500, description: 'Makes this a guard: the situation to watch for (words a future task or query will contain). Needs guard_action.' },
  guard_action: { type: 'string', minLength: 1, maxLength: 1000, description: 'What to do when guard_trigger matches; shown as a [GUARD] line.' },
} as const

/** How a memory's evidence stands: verified (passing and fresh) or asserted (anything else). */
export const evidenceField = { type: 'string', enum: ['verified', 'asserted'] } as const

/** A guard a task or query matched. */
export const guardShape = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    trigger: { type: 'string' },
    action: { type: 'string' },
  },
  required: ['id', 'trigger', 'action'],
  additionalProperties: false,
} as const
