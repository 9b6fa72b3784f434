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

import { normalizeSlot } from '../../text.js'
import { hasHan, HEDGES, unique, type DerivedClaim, type Raw } from './claim-text.js'
import { stripValueEdges } from './claim-kinds.js'
import { ADDITIVE, changeCues, retiredIn } from './claim-cues.js'
import { finish } from './claim-subject.js'
import { arrowForm, categoryForm, changeForm, colonForm, enRelationForm, measuredForm, shapedForm, zhAtTimeForm, zhHabitForm, zhRelationForm } from './claim-forms.js'
import { carryTopic, CONDITION_EN, CONDITION_EN_TAIL, CONDITION_ZH, CONDITION_ZH_INLINE, firstSentenceClauses, QUESTION_WORDS, splitClauses, splitFacts, splitSentences, unframe, ZH_QUESTION } from './claim-sentences.js'

export type { ClaimForm, DerivedClaim } from './claim-text.js'
export { ADDITIVE, changeCues } from './claim-cues.js'
export { holdsSeveral, kindMentions, kindOfValue } from './claim-kinds.js'
export { isStatement, STATEMENT_CHARS, STATEMENT_SENTENCES } from './claim-sentences.js'

/**
 * What a text asserts, or null when it asserts nothing slot-like (a question, narration,
 * chatter, a person's statement outside every personal category): its first fact
 * (`deriveClaims`). Frozen, and shared by every caller that reads the same text (a write reads
 * its summary, then its new memory's).
 */
export function deriveClaim(input: string): DerivedClaim | null {
  return deriveClaims(input)[0] ?? null
}

/**
 * Every fact a text states, one claim each, in the order they stand ("The API moved to port
 * 9090 and the database is Postgres 16" states two): the first is the memory's slot, each other
 * revises its own (revise.ts). One claim per subject; empty when the text asserts nothing
 * slot-like. Frozen and shared, as `deriveClaim`.
 */
export function deriveClaims(input: string): readonly DerivedClaim[] {
  const known = derivedBefore.get(input)
  if (known !== undefined) return known
  const claims = Object.freeze(deriveClaimsAnew(input).map((c) => Object.freeze(Object.assign(c, { cues: Object.freeze(c.cues), retired: Object.freeze(c.retired) }))))
  if (derivedBefore.size >= DERIVED_CACHE_LIMIT) derivedBefore.clear()
  derivedBefore.set(input, claims)
  return claims
}

/** Claims by text, for the texts read last; emptied when it reaches its bound. */
const derivedBefore = new Map<string, readonly DerivedClaim[]>()
const DERIVED_CACHE_LIMIT = 1024

/** The raw match of the first form a clause is stated in, or null. */
function formOf(clause: string): Raw | null {
  return (
    arrowForm(clause) ??
    changeForm(clause) ??
    colonForm(clause) ??
    shapedForm(clause) ??
    (hasHan(clause) ? zhRelationForm(clause) ?? enRelationForm(clause) : enRelationForm(clause)) ??
    measuredForm(clause) ??
    categoryForm(clause) ??
    (hasHan(clause) ? zhHabitForm(clause) ?? zhAtTimeForm(clause) : null)
  )
}

/**
 * The facts of one clause: its parts joined by "and" / 并且 when each part is a fact of its own
 * ("The API listens on 9090 and uses Postgres": the second part has the first's subject), else
 * the clause whole ("The user likes salt and pepper" is one fact).
 */
function factsOf(clause: string): Raw[] {
  const whole = formOf(clause)
  const parts = splitFacts(clause)
  if (parts.length < 2 || whole === null) return whole === null ? [] : [whole]
  const out: Raw[] = []
  for (const [i, part] of parts.entries()) {
    const first = out[0]
    if (i === 0 || first === undefined) {
      const raw = formOf(part)
      if (raw === null) return [whole]
      out.push(raw)
      continue
    }
    // "We moved the API to 9090 and the database to Postgres": the second part has the first's verb.
    const at = (parts[0] as string).indexOf(first.subject)
    const lead = at > 0 ? (parts[0] as string).slice(0, at) : ''
    const predicate = STARTS_WITH_PREDICATE.test(part)
    const raw = formOf(part) ?? (predicate ? formOf(`${first.subject} ${part}`) : lead !== '' ? formOf(`${lead}${part}`) : null)
    if (raw !== null) out.push(raw)
    // "Maple eats Purina and sleeps on the sofa": a second statement no form reads is still no part of the value.
    else if (!predicate) return [whole]
  }
  return out
}

/** A part that opens with its verb or adverb, not its subject: "uses Postgres", "now runs on GCP", "sleeps on the sofa", "改用 Kafka". */
const STARTS_WITH_PREDICATE = /^(?:(?!(?:its|this|his|hers|was|has|is|does)\b)[a-z]+(?:s|ed)\b|(?:now|also|still|currently|is|are|was|were|has|have|had|got|runs?|use|live|work|eat|speak|prefer)\b|(?:现在|也|还|已经|改|换|用|使用|是|在|迁|搬|升级|调))/u

function deriveClaimsAnew(input: string): DerivedClaim[] {
  const { text, cue, speaker } = unframe(input)
  if (text === '' || /[?？]\s*$/u.test(text)) return []
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
  // A memory states its facts first; later sentences of a message are talk around it ("I feel
  // the same way! Art is so cool...") and would make subjects of every remark.
  const sentences = splitSentences(rest)
  const clauses = carryTopic(firstSentenceClauses(rest))
  const retired = unique([...clauses, ...splitClauses(sentences[1] ?? '')].flatMap(retiredIn))
  const out: DerivedClaim[] = []
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
    const additive = ADDITIVE.test(clause) ? { additive: true as const } : {}
    for (const raw of factsOf(clause)) {
      const done = finish(raw, body, speaker)
      if (done === null) continue
      const from = raw.from === undefined ? [] : [stripValueEdges(raw.from)]
      const subject = cond === null ? done.subject : `${done.subject} [${cond}]`
      if (out.some((c) => normalizeSlot(c.subject) === normalizeSlot(subject))) continue
      out.push({
        ...done,
        subject,
        cues: raw.form === 'change' && cues.length === 0 ? ['changed'] : cues,
        retired: unique([...from, ...retired]).filter((v) => v !== ''),
        ...additive,
      })
    }
  }
  return out
}
