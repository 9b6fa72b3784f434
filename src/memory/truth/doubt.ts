/**
 * What never supports a claim on rules alone (issue 27): a memory that names the claim's value only
 * after a negation ("no longer drinks coffee", "不再用禅道"), and one that announces a change yet to
 * come ("starting next week", 下周起): until then the old value holds and the new one is not yet
 * true. Verify also reads such a change as a reason to doubt the value it replaces. Pure.
 */

import { isStrongTerm, tokenize } from '../../language/tokenizer.js'

/** A negation word: a value said after one is taken back, not stated. */
const NEGATION = /\b(?:not|no|never|none|without|no longer|anymore)\b|n't\b|不再|已经不|不|没|未|无/iu

/** A change that takes effect later: until then the old value holds, and the new one is not yet true. */
const FUTURE = /\b(?:starting|from|as of|beginning|effective|come)\s+(?:next|tomorrow|the\s+(?:first|start|end)\s+of\s+next)\b|\bnext\s+(?:week|month|year|monday|tuesday|wednesday|thursday|friday|sprint|quarter)\s*(?:on|onwards?)?\s*,|\bwill\s+(?:be|move|switch|change|become)\b|(?:下周|下个?月|下星期|明天|明年|下季度|下周[一二三四五六日天])(?:一)?起|(?:下周|下个?月|明年)(?:开始|以后)|将(?:改|换|迁|调整)/iu

/** The text announces a change yet to come. */
export function futureChange(text: string): boolean {
  return FUTURE.test(text.normalize('NFKC'))
}

/** The text names the value only after a negation ("no longer drinks coffee", "不再用禅道"). */
export function negatesValue(text: string, value: string): boolean {
  const lower = text.normalize('NFKC').toLowerCase()
  const first = tokenize(value)
    .filter(isStrongTerm)
    .map((w) => lower.indexOf(w))
    .filter((i) => i >= 0)
  if (first.length === 0) return false
  const neg = NEGATION.exec(lower)
  return neg !== null && first.every((i) => neg.index < i)
}
