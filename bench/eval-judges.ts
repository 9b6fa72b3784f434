/**
 * The judges of seed 003's evaluation protocol (bench/eval.ts): several judges score every
 * answer, so a score never rests on one judge's configuration.
 *
 * - `match`: the extractive-match judge. An answer is right when every gold part appears in it
 *   after normalisation (lower case, NFKC, punctuation and English articles out); a question
 *   whose right answer is an abstention is right only when the answer abstained.
 * - `f1`: the token-F1 judge (SQuAD / LoCoMo style): F1 of the answer's tokens against the
 *   gold's (English words, Chinese characters), 1 for a right abstention and 0 for a wrong one.
 * - `model`: a chat model judges the answer against the gold (given `--model`), JSON yes/no.
 *
 * Pure, but for the model judge, which calls the endpoint it is given.
 */

import type { ConsolidationModel } from '../lib/api.js'

export interface Judged {
  /** The gold answer's parts; null: the right answer is to abstain. */
  gold: string[] | null
  /** The answer; null: it abstained. */
  answer: string | null
}

const ARTICLES = /\b(?:a|an|the)\b/gu

/** Text as the judges compare it. */
export function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(ARTICLES, ' ')
    .replace(/\s+/gu, ' ')
    .trim()
}

/** Tokens for F1: English words and digit runs, and every Han character on its own. */
export function answerTokens(text: string): string[] {
  return normalise(text).match(/\p{Script=Han}|[\p{L}\p{N}]+/gu) ?? []
}

export function matchJudge(j: Judged): boolean {
  if (j.gold === null) return j.answer === null
  if (j.answer === null) return false
  const said = normalise(j.answer)
  return j.gold.every((part) => said.includes(normalise(part)))
}

export function tokenF1(answer: string, gold: string): number {
  const a = answerTokens(answer)
  const g = answerTokens(gold)
  if (a.length === 0 || g.length === 0) return a.length === g.length ? 1 : 0
  const counts = new Map<string, number>()
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1)
  let same = 0
  for (const t of a) {
    const n = counts.get(t) ?? 0
    if (n > 0) {
      same++
      counts.set(t, n - 1)
    }
  }
  if (same === 0) return 0
  const precision = same / a.length
  const recall = same / g.length
  return (2 * precision * recall) / (precision + recall)
}

export function f1Judge(j: Judged): number {
  if (j.gold === null) return j.answer === null ? 1 : 0
  if (j.answer === null) return 0
  return tokenF1(j.answer, j.gold.join(' '))
}

export const MODEL_JUDGE_PROMPT = { id: 'eval-judge', version: 1, maxTokens: 60 } as const

/** The model judge's prompt: the question, the gold and the answer, as data. Pure. */
export function modelJudgePrompt(question: string, j: Judged): string {
  return [
    'You grade an answer against the gold answer. The answer is right when it states the gold answer (other words are fine); an abstention is right only when the gold says to abstain.',
    'Answer with JSON only: {"correct": true} or {"correct": false}.',
    `Question: ${JSON.stringify(question)}`,
    `Gold: ${j.gold === null ? 'ABSTAIN (the memories do not say)' : JSON.stringify(j.gold.join('; '))}`,
    `Answer: ${j.answer === null ? 'ABSTAIN' : JSON.stringify(j.answer)}`,
  ].join('\n')
}

/** The model's verdict; null when it gave none that can be read (the question is left out of its score). */
export async function modelJudge(model: ConsolidationModel, question: string, j: Judged): Promise<boolean | null> {
  try {
    const { text } = await model.complete(modelJudgePrompt(question, j), { maxTokens: MODEL_JUDGE_PROMPT.maxTokens, signal: AbortSignal.timeout(60_000) })
    const value = JSON.parse(text.trim().replace(/^```(?:json)?\s*|\s*```$/gu, '')) as { correct?: unknown }
    return typeof value.correct === 'boolean' ? value.correct : null
  } catch {
    return null
  }
}

/** One answer's scores. */
export interface Scores {
  match: boolean
  f1: number
  model?: boolean | null
}

export async function judgeAll(question: string, j: Judged, model: ConsolidationModel | null): Promise<Scores> {
  const scores: Scores = { match: matchJudge(j), f1: f1Judge(j) }
  if (model !== null) scores.model = await modelJudge(model, question, j)
  return scores
}

/** Per group of answers: how many, match right, mean F1, the model's right of those it judged, and how often match and F1 >= 0.5 agree. */
export interface Tally {
  n: number
  match: number
  f1: number
  model: { right: number; judged: number } | null
  agreement: number
}

export function tally(scores: readonly Scores[]): Tally {
  const judged = scores.filter((s) => s.model !== undefined && s.model !== null)
  const anyModel = scores.some((s) => s.model !== undefined)
  return {
    n: scores.length,
    match: scores.filter((s) => s.match).length,
    f1: scores.length === 0 ? 0 : scores.reduce((n, s) => n + s.f1, 0) / scores.length,
    model: anyModel ? { right: judged.filter((s) => s.model === true).length, judged: judged.length } : null,
    agreement: scores.length === 0 ? 1 : scores.filter((s) => s.match === s.f1 >= 0.5).length / scores.length,
  }
}
