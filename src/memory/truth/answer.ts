/**
 * Answer a question from memory, citing the memories used, or abstain saying why (seed 003's
 * `answer()`). Extractive: the answer is sentences taken word for word from the cited memories'
 * summaries, never a claim of its own. The store is read as it is now, or as of a time (`asOf`):
 * what was current then answers; a replaced (superseded) version never does.
 *
 * How a question is answered:
 * - its words are the question's terms with the question words out (language/question-words.ts),
 *   CJK 2-grams and words of two characters or more;
 * - a retrieved memory answers when it states at least half of them (its title, summary and the
 *   subject it is filed under count, and the words the store's synonym groups give a term; "I"
 *   and 我 state "the user", 用户);
 * - the best such memory gives its best sentence; another retrieved memory adds its own when it
 *   states a term the answer does not yet hold (at most MAX_CITED memories); two memories that
 *   share an entity and together state half of the terms answer a question that needs both
 *   (who the brother is, then his birthday);
 * - abstentions: `nothing-stored`, `nothing-relevant`, `conflicting` (the memory that answers is
 *   in an unresolved conflict: both sides are listed), `only-superseded` (only replaced versions
 *   state it: they are listed with what replaced them).
 * Read-only.
 */

import { invalidInput } from '../../errors.js'
import { searchRanked } from '../../retrieve/fusion.js'
import { retrievalState, type RetrievalState } from '../../retrieve/retriever.js'
import { readQuestion } from '../../language/question-words.js'
import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import type { MemoryBackend } from '../../store/backend.js'
import { collapseWhitespace } from '../../text.js'
import { isSearchable } from '../../retrieve/search-index.js'
import { briefOf, type IndexEntry, type MemoryBrief } from '../../types.js'
import { parseAsOf, retrievalAsOf } from '../time/as-of.js'

export const ABSTAIN_REASONS = ['nothing-stored', 'nothing-relevant', 'conflicting', 'only-superseded'] as const
export type AbstainReason = (typeof ABSTAIN_REASONS)[number]

/** Memories an answer cites at most. */
export const MAX_CITED = 3
/** Memories retrieved for a question. */
export const RETRIEVED = 8
/** Share of the question's terms a memory must state to answer it. */
const RELEVANT_SHARE = 0.5

export interface AnswerRequest {
  question: string
  asOf?: string
  /** Let the store's model write the answer from the cited memories (answer-model.ts). */
  model?: boolean
}

export interface Citation extends MemoryBrief {
  /** The sentences of this memory the answer uses, word for word. */
  quote: string
}

export interface SupersededMatch extends MemoryBrief {
  /** The memory that replaced it, when the store knows it. */
  superseded_by?: string
}

export interface AnswerResult {
  question: string
  /** Null when abstaining. */
  answer: string | null
  abstained: boolean
  reason?: AbstainReason
  mode: 'extractive' | 'generative'
  citations: Citation[]
  /** Every memory retrieved for the question, best first: the only ones an answer may cite. */
  retrieved: string[]
  /** With `conflicting`: the sides of the unresolved conflict. */
  conflicting?: MemoryBrief[]
  /** With `only-superseded`: the replaced versions that state it. */
  superseded?: SupersededMatch[]
  /** The time the store was read as of, when one was given. */
  asOf?: string
  /** A paragraph to quote: the answer with its ids, or why there is none. */
  note: string
}

/** The terms a question asks about: its question words out, strong terms only (all terms when it has none). Pure. */
export function questionTerms(question: string): Set<string> {
  const read = readQuestion(question)
  const tokens = tokenize(read.text)
  const strong = tokens.filter(isStrongTerm)
  return new Set(strong.length > 0 ? strong : tokens)
}

/** The sentences of a text, with their end marks: Chinese and English stops, semicolons, line breaks. Pure. */
export function sentencesOf(text: string): string[] {
  const parts = text.match(/[^。！？!?；;\n]+[。！？!?；;]*|[。！？!?；;]+/gu) ?? []
  const out: string[] = []
  for (const p of parts) {
    // An English full stop ends a sentence only before a space (not in 3.5 or example.com).
    for (const s of p.split(/(?<=[a-z0-9)\]"'][.])\s+(?=\S)/iu)) if (s.trim() !== '') out.push(s.trim())
  }
  return out.length > 0 ? out : [text.trim()]
}

/**
 * A question asks about "the user" (用户) where the memory the user stated says "I" (我): the
 * first person states that term. The tokenizer drops 我 as grammar, so the text is read as is.
 */
const USER_TERMS: ReadonlySet<string> = new Set(['用户', 'user'])
const FIRST_PERSON = /我|\b(?:i|i'm|me|my|mine)\b/iu

/** Which question terms a text states, directly or through the store's synonyms (and the first person for the user). */
class Coverage {
  private readonly synonyms = new Map<string, string[]>()

  constructor(
    readonly terms: ReadonlySet<string>,
    state: RetrievalState,
  ) {
    for (const t of terms) this.synonyms.set(t, state.aliases.expand([t]))
  }

  covered(text: string): Set<string> {
    const words = new Set(tokenize(text))
    const firstPerson = FIRST_PERSON.test(text)
    const out = new Set<string>()
    for (const t of this.terms) if (words.has(t) || (this.synonyms.get(t) ?? []).some((a) => words.has(a)) || (firstPerson && USER_TERMS.has(t))) out.add(t)
    return out
  }

  /** The terms a memory states: its title, summary and the subject it is filed under. */
  ofEntry(e: IndexEntry): Set<string> {
    return this.covered(`${e.title}\n${e.summary}\n${e.key ?? ''}`)
  }

  share(found: ReadonlySet<string>): number {
    return this.terms.size === 0 ? 0 : found.size / this.terms.size
  }
}

interface Candidate {
  entry: IndexEntry
  covers: Set<string>
}

/**
 * The sentence of a memory that states most of the question's terms still missing (the first on a
 * tie); null when no sentence states a term itself (they are in its title or subject only).
 */
function bestSentence(e: IndexEntry, coverage: Coverage, missing: ReadonlySet<string>): { text: string; adds: Set<string> } | null {
  let best: { text: string; adds: Set<string>; all: number } | null = null
  for (const s of sentencesOf(e.summary)) {
    const found = coverage.covered(s)
    if (found.size === 0) continue
    const adds = new Set([...found].filter((t) => missing.has(t)))
    if (best === null || adds.size > best.adds.size || (adds.size === best.adds.size && found.size > best.all)) best = { text: s, adds, all: found.size }
  }
  return best
}

const citation = (e: IndexEntry, quote: string): Citation => ({ ...briefOf(e), quote })

/**
 * The cited memories: the lead (its best sentence, or its whole summary when the terms are in its
 * title or subject), then those whose own sentences add a term the lead does not state, at most MAX_CITED.
 */
function compose(lead: Candidate, rest: readonly Candidate[], coverage: Coverage): Citation[] {
  const missing = new Set([...coverage.terms].filter((t) => !lead.covers.has(t)))
  const cited = [citation(lead.entry, bestSentence(lead.entry, coverage, coverage.terms)?.text ?? collapseWhitespace(lead.entry.summary))]
  for (const c of rest) {
    if (cited.length >= MAX_CITED || missing.size === 0) break
    const s = bestSentence(c.entry, coverage, missing)
    if (s === null || s.adds.size === 0) continue
    for (const t of s.adds) missing.delete(t)
    cited.push(citation(c.entry, s.text))
  }
  return cited
}

/** Two memories sharing an entity that together state enough of the question (one hop). */
function bridged(candidates: readonly Candidate[], coverage: Coverage): [Candidate, Candidate] | null {
  for (const [i, a] of candidates.entries()) {
    for (const b of candidates.slice(i + 1)) {
      if (a.covers.size === 0 || b.covers.size === 0 || !a.entry.entities.some((x) => b.entry.entities.includes(x))) continue
      const union = new Set([...a.covers, ...b.covers])
      if (union.size > Math.max(a.covers.size, b.covers.size) && coverage.share(union) >= RELEVANT_SHARE) return [a, b]
    }
  }
  return null
}

/** Replaced versions that state the question, with what replaced each (as the view knows it). */
function supersededMatches(state: RetrievalState, coverage: Coverage): SupersededMatch[] {
  const out: SupersededMatch[] = []
  for (const e of state.entries.values()) {
    if (e.status !== 'superseded' || e.type === 'raw' || coverage.share(coverage.ofEntry(e)) < RELEVANT_SHARE) continue
    out.push({ ...briefOf(e), ...(e.superseded_by !== null ? { superseded_by: e.superseded_by } : {}) })
    if (out.length >= MAX_CITED) break
  }
  return out
}

/** The note of an answer: what it says and whose words those are. */
export function answerNote(answer: string, citations: readonly Citation[], how: string): string {
  return `ANSWER (${how}, from ${citations.map((c) => c.id).join(', ')}): ${answer}`
}

const ABSTAIN_NOTES: Record<AbstainReason, string> = {
  'nothing-stored': 'nothing stored yet: no memory has been written, so memory cannot answer.',
  'nothing-relevant': 'no stored memory states what the question asks. Say you do not know; do not guess.',
  conflicting: 'the memories that answer disagree and the conflict is unresolved (memory_resolve settles it). Name both values, or ask.',
  'only-superseded': 'only replaced versions state it: what was true once is not the current answer. Read what replaced them before answering.',
}

/** An abstention; `why` replaces the reason's own sentence. */
export function abstention(question: string, reason: AbstainReason, retrieved: string[], extra: Partial<AnswerResult> = {}, why = ABSTAIN_NOTES[reason]): AnswerResult {
  return { question, answer: null, abstained: true, reason, mode: 'extractive', citations: [], retrieved, ...extra, note: `ABSTAIN (${reason}): ${why}` }
}

/** The retrieval an answer rests on: the store now or as of a time, the question's candidates, best first. */
export interface AnswerContext {
  question: string
  asOf: string | undefined
  state: RetrievalState
  coverage: Coverage
  candidates: Candidate[]
}

export async function answerContext(backend: MemoryBackend, req: AnswerRequest): Promise<AnswerContext> {
  const question = collapseWhitespace(req.question)
  if (question === '') throw invalidInput('question', 'a non-empty question')
  const asOf = req.asOf === undefined ? undefined : new Date(parseAsOf(req.asOf)).toISOString()
  const state = asOf === undefined ? await retrievalState(backend) : await retrievalAsOf(backend, Date.parse(asOf))
  const coverage = new Coverage(questionTerms(question), state)
  const hits = (await searchRanked(backend, state, { query: question, top_k: RETRIEVED })).hits
  const candidates: Candidate[] = []
  for (const h of hits) {
    const entry = state.entries.get(h.id)
    if (entry !== undefined && isSearchable(entry) && entry.guard === undefined && entry.retracts === undefined) candidates.push({ entry, covers: coverage.ofEntry(entry) })
  }
  return { question, asOf, state, coverage, candidates }
}

/** The extractive answer over a retrieval. Pure over the context. */
export function extractiveAnswer(ctx: AnswerContext): AnswerResult {
  const { question, coverage, candidates } = ctx
  const retrieved = candidates.map((c) => c.entry.id)
  const when = ctx.asOf !== undefined ? { asOf: ctx.asOf } : {}
  const relevant = candidates.filter((c) => coverage.share(c.covers) >= RELEVANT_SHARE)
  const first = relevant[0]
  if (first !== undefined && first.entry.status === 'conflict') {
    const sides = [first.entry, ...first.entry.variants.map((id) => ctx.state.entries.get(id)).filter((e): e is IndexEntry => e !== undefined && e.status === 'conflict')]
    return abstention(question, 'conflicting', retrieved, { ...when, conflicting: sides.map(briefOf) })
  }
  const pair = first === undefined ? bridged(candidates, coverage) : null
  if (first === undefined && pair === null) {
    const superseded = supersededMatches(ctx.state, coverage)
    return superseded.length > 0 ? abstention(question, 'only-superseded', retrieved, { ...when, superseded }) : abstention(question, 'nothing-relevant', retrieved, when)
  }
  const lead = first ?? (pair as [Candidate, Candidate])[0]
  const others = first !== undefined ? candidates.filter((c) => c !== first && c.covers.size > 0 && c.entry.status !== 'conflict') : [(pair as [Candidate, Candidate])[1]]
  const citations = compose(lead, others, coverage)
  const answer = citations.map((c) => c.quote).join(' ')
  return { question, answer, abstained: false, mode: 'extractive', citations, retrieved, ...when, note: answerNote(answer, citations, 'extracted word for word') }
}

/** The answer from memory, extractive (answer-model.ts adds the model's). */
export async function answerQuestion(backend: MemoryBackend, req: AnswerRequest): Promise<AnswerResult> {
  return extractiveAnswer(await answerContext(backend, req))
}
