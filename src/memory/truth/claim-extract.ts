/**
 * What a free-text memory asserts, without a model: a subject (the slot a person would name:
 * "API server port", "用户 饮食") and the value it gives that subject ("9090", "素食者"), in
 * Chinese and English. Plus what a reviser needs: whether the statement is negated, the words
 * that signal a change ("now", "no longer", "migrated", "现在", "不再", "改成"...), and values
 * the text says no longer hold ("no longer vegetarian", "不再是素食", the A of "from A to B").
 *
 * Forms recognised, first match wins, clause by clause:
 *   `X -> Y` (also => →)                           arrow
 *   `X changed/moved/migrated/switched (from A) to Y`, `X (从A)改成/换成/迁移到 Y`   change
 *   `X: Y`, `X：Y`, `X = Y` (X at most 6 words / 16 characters)                 colon
 *   `X is/are/uses/runs on/listens on/... Y`, `X 是/为/用/使用/采用/跑在/部署在/监听 Y` relation
 *   a person (I, the user, 用户, 我) and a word of a personal category (diet, home, job...) category
 * Subjects are cleaned (articles, possessives, "Y of X" -> "X Y", adverbs, 的) so that two
 * phrasings of one subject give one slot. A value of the form `port 9090` / `9090 端口` moves its
 * noun into the subject. A relation verb whose value names a known kind of thing (MySQL is a
 * database) becomes that kind ("uses MySQL" -> "... database"); a person's statement needs a
 * personal category, else it asserts nothing slot-like. Questions, chatter and narration
 * assert nothing: `deriveClaim` returns null for them. Pure and deterministic.
 *
 * Its parts, by concern: claim-sentences.ts (frames, sentences, clauses), claim-forms.ts (the
 * forms), claim-subject.ts (subject reading), claim-kinds.ts (value typing), claim-cues.ts (cue
 * words), claim-text.ts (what they share).
 */

import { hasHan, HEDGES, unique, type DerivedClaim } from './claim-text.js'
import { stripValueEdges } from './claim-kinds.js'
import { changeCues, retiredIn } from './claim-cues.js'
import { finish } from './claim-subject.js'
import { arrowForm, categoryForm, changeForm, colonForm, enRelationForm, measuredForm, shapedForm, zhRelationForm } from './claim-forms.js'
import { carryTopic, CONDITION_EN, CONDITION_EN_TAIL, CONDITION_ZH, CONDITION_ZH_INLINE, QUESTION_WORDS, splitClauses, splitSentences, unframe, ZH_QUESTION } from './claim-sentences.js'

export type { ClaimForm, DerivedClaim } from './claim-text.js'
export { changeCues } from './claim-cues.js'
export { holdsSeveral, kindMentions, kindOfValue } from './claim-kinds.js'
export { isStatement, STATEMENT_CHARS, STATEMENT_SENTENCES } from './claim-sentences.js'

/**
 * What a text asserts, or null when it asserts nothing slot-like (a question, narration,
 * chatter, a person's statement outside every personal category). Frozen, and shared by every
 * caller that reads the same text (a write reads its summary, then its new memory's).
 */
export function deriveClaim(input: string): DerivedClaim | null {
  const known = derivedBefore.get(input)
  if (known !== undefined) return known
  const claim = deriveClaimAnew(input)
  if (claim !== null) Object.freeze(Object.assign(claim, { cues: Object.freeze(claim.cues), retired: Object.freeze(claim.retired) }))
  if (derivedBefore.size >= DERIVED_CACHE_LIMIT) derivedBefore.clear()
  derivedBefore.set(input, claim)
  return claim
}

/** Claims by text, for the texts read last; emptied when it reaches its bound. */
const derivedBefore = new Map<string, DerivedClaim | null>()
const DERIVED_CACHE_LIMIT = 1024

function deriveClaimAnew(input: string): DerivedClaim | null {
  const { text, cue, speaker } = unframe(input)
  if (text === '' || /[?？]\s*$/u.test(text)) return null
  // A trailing parenthesis is a remark ("(we migrated last week)"): its cues count, its words are no value.
  const remark = /\s*[（(]([^()（）]*)[)）]\s*[.。]?$/u.exec(text)
  const body = remark === null ? text : text.slice(0, remark.index)
  const cues = unique([...(cue !== null ? [cue] : []), ...changeCues(text)])
  let condition: string | null = null
  let rest = body
  const lead = CONDITION_EN.exec(rest) ?? CONDITION_ZH.exec(rest)
  if (lead !== null) {
    condition = (lead[1] as string).trim()
    rest = lead[2] as string
  }
  // A memory states its fact first; later sentences of a message are talk around it ("I feel the
  // same way! Art is so cool...") and would make subjects of every remark.
  const sentences = splitSentences(rest)
  const clauses = carryTopic(splitClauses(sentences[0] ?? ''))
  const retired = unique([...clauses, ...splitClauses(sentences[1] ?? '')].flatMap(retiredIn))
  for (let ci = 0; ci < clauses.length; ci++) {
    let clause = (clauses[ci] as string).replace(HEDGES, '')
    if (QUESTION_WORDS.test(clause) && !/->|:|：/.test(clause)) continue
    if (hasHan(clause) && ZH_QUESTION.test(clause)) continue
    let cond = condition
    const inline = hasHan(clause) ? CONDITION_ZH_INLINE.exec(clause) : null
    if (inline !== null) {
      cond = cond ?? (inline[1] as string)
      clause = clause.replace(inline[0], '')
    }
    const tail = hasHan(clause) ? null : CONDITION_EN_TAIL.exec(clause)
    if (tail !== null) {
      cond = cond ?? (tail[1] as string).replace(/^the\s+/iu, '')
      clause = clause.slice(0, tail.index)
    }
    // Advice and possibility ("You can use coconut oil instead") state no fact.
    if (/^(?:you|we|i|they|one)\s+(?:can|could|should|might|may|must|need to|have to|ought to)\b|^(?:maybe|perhaps|try|consider|let's)\b/iu.test(clause)) continue
    // A clause that only retires a value ("不再是素食") asserts nothing of its own.
    if (/^(?:不再|no longer|not any ?more)/iu.test(clause)) continue
    const raw =
      arrowForm(clause) ??
      changeForm(clause) ??
      colonForm(clause) ??
      shapedForm(clause) ??
      (hasHan(clause) ? zhRelationForm(clause) ?? enRelationForm(clause) : enRelationForm(clause)) ??
      measuredForm(clause) ??
      categoryForm(clause)
    if (raw === null) continue
    const done = finish(raw, body, speaker)
    if (done === null) continue
    const from = raw.from === undefined ? [] : [stripValueEdges(raw.from)]
    const subject = cond === null ? done.subject : `${done.subject} [${cond}]`
    return {
      ...done,
      subject,
      cues: raw.form === 'change' && cues.length === 0 ? ['changed'] : cues,
      retired: unique([...from, ...retired]).filter((v) => v !== ''),
    }
  }
  return null
}
