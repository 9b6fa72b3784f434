/**
 * What the claim readers (claim-extract.ts and its parts) share: the raw match a form gives, the
 * hedges a statement may open with, and small text tests. Pure.
 */

export type ClaimForm = 'arrow' | 'change' | 'colon' | 'relation' | 'category'

export interface DerivedClaim {
  /** The subject, as a person reads it; its normalised form is the slot. */
  subject: string
  /** What the text says the subject is. */
  value: string
  form: ClaimForm
  /** The statement denies the value ("does not use TLS", "不是素食"). */
  negated: boolean
  /** Change cues found in the text, lower-case ("now", "migrated", "不再"). */
  cues: string[]
  /** Values the text says no longer hold: "no longer X", "不再是 X", the A of "from A to B". */
  retired: string[]
  /** Its clause adds the value beside the others ("also", "too", "也", "还有"): it replaces none. */
  additive?: true
}

/** A form's match before its subject is cleaned and its value trimmed (claim-subject.ts `finish`). */
export interface Raw {
  subject: string
  value: string
  relation: string
  form: ClaimForm
  negated: boolean
  from?: string
}

export const HEDGES = /^(?:i think|i believe|i guess|it seems(?: that)?|apparently|we decided(?: that)?|we agreed(?: that)?|i decided(?: that)?|我觉得|我认为|我想|好像|据说|听说|我们决定|决定)\s*[,，]?\s*/iu

export const hasHan = (s: string) => /\p{Script=Han}/u.test(s)
export const hasContent = (s: string) => /[\p{L}\p{N}]/u.test(s)
export const words = (s: string) => s.split(/\s+/).filter((w) => w !== '')

export function unique<T>(items: T[]): T[] {
  return [...new Set(items)]
}
