/**
 * The prompts consolidation sends a model, each with an id and a version (a changed prompt is a
 * new version: cached answers of the old one are not reused), and what is done with an answer:
 * parsed, then held to its sources. An answer is taken only when it is grounded: every number and
 * every name in it is in the source episodes, and most of its words are. Anything else is a
 * reason string and the engine keeps its deterministic result for that item. Pure.
 */

import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import { deriveClaim } from '../truth/claim-extract.js'
import { atomsWithin, compareValues, valueAtoms } from '../truth/claim-value.js'
import { sameSubject } from '../truth/verify.js'

export interface PromptSpec {
  id: string
  version: number
  /** Tokens the answer may take. */
  maxTokens: number
}

export const REFLECT_PROMPT: PromptSpec = { id: 'reflect-summary', version: 1, maxTokens: 200 }
export const PROMOTE_PROMPT: PromptSpec = { id: 'promote-judge', version: 1, maxTokens: 200 }

/** Characters an answer (a summary, a fact) may have. */
export const ANSWER_CHARS = 400
/** Share of an answer's strong terms that must be in its sources. */
export const GROUNDED_SHARE = 0.5

const numbered = (texts: readonly string[]) => texts.map((t, i) => `${i + 1}. ${t}`).join('\n')

/** The reflect prompt for one session's episodes, in session order. */
export function reflectPrompt(episodes: readonly string[]): string {
  return [
    'Summarise this work session in one or two sentences: what was done, what was decided, what was learnt.',
    'Write in the language of the notes. Use only what the notes say: no name, number or fact that is not in them.',
    'Answer with the summary text only.',
    '',
    'Notes, in order:',
    numbered(episodes),
  ].join('\n')
}

/** The promotion prompt for statements from different sessions that the deterministic rules grouped as one fact. */
export function promotePrompt(statements: readonly string[]): string {
  return [
    'These notes were written in different sessions. Do they state one and the same fact?',
    'If they do, give that fact as one standalone sentence in the language of the notes, using only what the notes say; where they differ in time, the latest note wins.',
    'Answer with JSON only: {"same": true, "fact": "..."} or {"same": false}.',
    '',
    'Notes, oldest first:',
    numbered(statements),
  ].join('\n')
}

/** The model's text without surrounding quotes, fences or whitespace. */
function cleaned(text: string): string {
  return text
    .trim()
    .replace(/^```[a-z]*\s*|\s*```$/giu, '')
    .trim()
    .replace(/^["'“「](.*)["'”」]$/su, '$1')
    .trim()
}

/** Why text is not grounded in the sources, or null when it is. */
export function ungrounded(text: string, sources: readonly string[]): string | null {
  const all = sources.join('\n')
  const atoms = valueAtoms(text)
  if (!atomsWithin({ numbers: atoms.numbers, words: [] }, { numbers: valueAtoms(all).numbers, words: [] })) return 'a number not in the sources'
  const lower = all.toLowerCase()
  for (const m of text.matchAll(/[\p{L}\d][\p{L}\d.+#_/-]*/gu)) {
    const word = m[0].replace(/[.-]+$/u, '')
    const before = text.slice(0, m.index)
    const initial = /(?:^|[.!?。！？:：]\s*)$/u.test(before)
    const name = /\d/.test(word) || /\p{Ll}\p{Lu}/u.test(word) || /[_#/]/.test(word) || (/^\p{Lu}/u.test(word) && !initial && /^\p{Script=Latin}/u.test(word))
    if (name && !lower.includes(word.toLowerCase())) return `the name "${word}" is not in the sources`
  }
  const terms = new Set(tokenize(text).filter(isStrongTerm))
  if (terms.size === 0) return 'no content words'
  const known = new Set(tokenize(all).filter(isStrongTerm))
  const share = [...terms].filter((t) => known.has(t)).length / terms.size
  return share >= GROUNDED_SHARE ? null : `only ${Math.round(share * 100)}% of its words are in the sources`
}

/** A session summary from the model's answer, or why it is not taken. */
export function readSummary(answer: string, episodes: readonly string[]): { summary: string } | { reason: string } {
  const text = cleaned(answer)
  if (text === '') return { reason: 'empty answer' }
  if (text.length > ANSWER_CHARS) return { reason: `longer than ${ANSWER_CHARS} characters` }
  const why = ungrounded(text, episodes)
  return why === null ? { summary: text } : { reason: `not grounded: ${why}` }
}

/**
 * The model's judgement on a promotion group: one fact (its sentence), not one fact, or why the
 * answer is not taken. The fact must be grounded and must not give its subject another value
 * than the newest statement (the one a topic would take).
 */
export function readJudgement(answer: string, statements: readonly string[], newest: string): { fact: string } | { declined: true } | { reason: string } {
  const body = /\{[\s\S]*\}/u.exec(cleaned(answer))?.[0]
  if (body === undefined) return { reason: 'no JSON object in the answer' }
  let value: { same?: unknown; fact?: unknown }
  try {
    value = JSON.parse(body) as typeof value
  } catch {
    return { reason: 'the answer is not valid JSON' }
  }
  if (value.same === false) return { declined: true }
  if (value.same !== true) return { reason: '"same" is not true or false' }
  if (typeof value.fact !== 'string' || cleaned(value.fact) === '') return { reason: '"fact" is not a non-empty string' }
  const fact = cleaned(value.fact)
  if (fact.length > ANSWER_CHARS) return { reason: `the fact is longer than ${ANSWER_CHARS} characters` }
  const why = ungrounded(fact, statements)
  if (why !== null) return { reason: `not grounded: ${why}` }
  const said = deriveClaim(fact)
  const latest = deriveClaim(newest)
  if (said !== null && latest !== null && sameSubject(said.subject, latest.subject) && compareValues(valueAtoms(said.value), valueAtoms(latest.value)) === 'different') {
    return { reason: 'the fact gives its subject another value than the newest statement' }
  }
  return { fact }
}
