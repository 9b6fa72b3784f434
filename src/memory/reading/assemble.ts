/**
 * Assembling memory into a context block for a task, under a hard token budget:
 * `used_tokens <= budget` always (tokens = ceil(chars / 1.6)). Each hit, best first, gets its
 * summary plus an excerpt of its raw text or details (at most 600 characters); if that does not
 * fit, the summary alone; if that does not fit, the summary cut to the space left. Below 60
 * characters of space it stops. What did not fit is counted and said, never silently dropped.
 * A hit whose slot has a fresh digest is told by that digest, once for the whole slot.
 * Text that tries to instruct the reader is sanitised before anything is measured.
 * The labels (source, excerpt, current understanding, the omission line) are in the task's
 * language: Chinese when the task has CJK characters (the seed's 来源/原文片段), English otherwise.
 * When a search for the task finds no match, only memories sharing single characters with it,
 * the closest one is given inside a `[memory data ...]` / `[/memory data]` frame that says it is
 * not a match (seed 000), and named in `lowConfidence`.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { parseFile } from '../../store/frontmatter.js'
import { collapseWhitespace, isDerivedTitle, truncate, truncateUnits } from '../../text.js'
import { charsForBudget, estimateTokens, type IndexEntry } from '../../types.js'
import type { IndexLookup } from '../../store/index-view.js'
import { retrievalState } from '../../retrieve/retriever.js'
import { isSearchable } from '../../retrieve/search-index.js'
import { searchRanked } from '../../retrieve/fusion.js'
import { importanceLookup } from '../organisation/strength-fold.js'
import { findSlot, isStale, readDigest } from '../organisation/digest.js'
import { recordSearch } from '../organisation/signals.js'
import { loadConfig } from '../settings/config.js'
import { markers } from '../truth/evidence.js'
import { guardLine, matchingGuards } from '../truth/guards.js'
import { sanitized } from '../truth/injection-guard.js'

export const EXCERPT_CHARS = 600
export const MIN_BLOCK_CHARS = 60

export interface AssembleResult {
  context: string
  used_tokens: number
  budget: number
  sources: string[]
  included: number
  omitted: number
  /** With no match for the task: the closest memory, given framed and labelled as a guess (not counted in included). */
  lowConfidence?: { id: string; path: string; score: number; shared: string[] }
}

export interface AssembleLabels {
  /** The opening line of the frame around a guess: the closest memory, sharing only `shared` with the task. */
  guess(shared: readonly string[]): string
  source: string
  excerpt: string
  /** After a slot's key, heading its digest. */
  current: string
  omitted(n: number): string
}

const ZH: AssembleLabels = {
  guess: (shared) => `[memory data — 最接近的一条记录，低于匹配门槛（只共享「${shared.join('」「')}」）：不是匹配，依赖前先核对]`,
  source: '来源', excerpt: '原文片段', current: '（当前认知）', omitted: (n) => `（未放入 ${n} 条（预算不够））` }
const EN: AssembleLabels = {
  guess: (shared) => `[memory data — the closest record, below the match threshold (it shares only ${shared.map((t) => JSON.stringify(t)).join(', ')}): not a match; check before relying on it]`,
  source: 'Source', excerpt: 'Excerpt', current: ' (current understanding)', omitted: (n) => `(${n} more did not fit the budget)` }
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u

/** The labels for a task: Chinese when it has a CJK character, English otherwise. */
export function labelsFor(task: string): AssembleLabels {
  return CJK.test(task) ? ZH : EN
}

/** The longest omission line this budget could need: reserved up front so it always fits. */
function reserveFor(candidates: number, labels: AssembleLabels): number {
  return candidates > 0 ? labels.omitted(candidates).length + 2 : 0
}

/** Raw text of an episode, or the body beyond the summary paragraph of any other memory. */
async function excerptOf(backend: MemoryBackend, entry: IndexEntry): Promise<string> {
  const path = entry.raw_ref ?? entry.path
  // A raw_ref is whatever a (possibly pushed) front-matter says: read only if it is a memory file.
  const text = await backend.readMemoryFile(path).catch(() => null)
  if (text === null) return ''
  const body = parseFile(text).body
  // Sanitised before it is cut and measured, so a marker never breaks the budget.
  if (entry.raw_ref !== null) return truncate(collapseWhitespace(sanitized(body)), EXCERPT_CHARS)
  const paragraphs = body.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p !== '')
  // Drop the heading and the summary paragraph; what is left are details a person added.
  const rest = paragraphs.filter((p) => !/^#{1,6}\s/.test(p) && collapseWhitespace(p) !== entry.summary)
  return truncate(collapseWhitespace(sanitized(rest.join('\n'))), EXCERPT_CHARS)
}

function block(labels: AssembleLabels, entry: IndexEntry, summary: string, excerpt: string, marks = ''): string {
  // A title derived from the summary (a memory written without one) would say it twice: the
  // summary is the heading then.
  const derivedTitle = summary !== '' && isDerivedTitle(entry.title, entry.summary)
  const lines = derivedTitle ? [`### ${summary}${marks}`] : [`### ${sanitized(entry.title)}${marks}`, summary]
  if (excerpt !== '') lines.push(`${labels.excerpt}: ${excerpt}`)
  lines.push(`${labels.source}: ${entry.path}`)
  return lines.join('\n')
}

/**
 * The block of a hit in a slot whose digest is fresh: the digest stands for the whole slot.
 * Missing or stale digests fall back to the memory itself (the digest tool rebuilds them).
 */
async function digestBlock(backend: MemoryBackend, view: IndexLookup, entry: IndexEntry, labels: AssembleLabels): Promise<{ slot: string; text: string; path: string } | null> {
  if (entry.key === null) return null
  const state = findSlot(view, entry.key)
  if (state === null) return null
  const digest = await readDigest(backend, state.slot)
  if (digest === null || isStale(digest, state)) return null
  return { slot: state.slot, path: digest.path, text: sanitized(`### ${state.key}${labels.current}\n${digest.text.replace(/^# .*\n+/, '')}\n${labels.source}: ${digest.path}`) }
}

/**
 * `guardLines` ([GUARD] lines of guards the task matched, guards.ts) go first while they fit;
 * they are not hits, so they are not counted in `included` or `sources`.
 */
export async function assembleContext(
  backend: MemoryBackend,
  hits: IndexEntry[],
  budget: number,
  view: IndexLookup,
  guardLines: readonly string[],
  labels: AssembleLabels,
): Promise<AssembleResult> {
  // The same memory twice would spend the budget twice on the same text.
  const ranked = [...new Map(hits.map((e) => [e.id, e])).values()]
  const limit = charsForBudget(budget)
  const parts: string[] = []
  const sources: string[] = []
  let used = 0
  let omitted = 0
  const reserve = reserveFor(ranked.length, labels)
  /** Slots already told by their digest: their other memories add nothing. */
  const slotsUsed = new Set<string>()
  const room = () => limit - reserve - used - (parts.length > 0 ? 2 : 0)
  const nowMs = Date.parse(backend.now())
  for (const line of guardLines.map(sanitized)) {
    if (line.length > room()) break
    parts.push(line)
    used += line.length + (parts.length > 1 ? 2 : 0)
  }

  for (let i = 0; i < ranked.length; i++) {
    const entry = ranked[i] as IndexEntry
    const space = room()
    if (space < MIN_BLOCK_CHARS) {
      omitted += ranked.length - i
      break
    }
    const digest = await digestBlock(backend, view, entry, labels)
    if (digest !== null) {
      if (slotsUsed.has(digest.slot)) continue
      if (digest.text.length <= space) {
        slotsUsed.add(digest.slot)
        parts.push(digest.text)
        sources.push(digest.path)
        used += digest.text.length + (parts.length > 1 ? 2 : 0)
        continue
      }
    }
    const excerpt = await excerptOf(backend, entry)
    const summary = sanitized(entry.summary)
    const marks = markers(entry, nowMs, view).map((m) => ` ${m}`).join('')
    let text = block(labels, entry, summary, excerpt, marks)
    if (text.length > space) text = block(labels, entry, summary, '', marks)
    if (text.length > space) {
      const frame = block(labels, entry, '', '', marks).length
      const fit = space - frame
      if (fit < 10) {
        omitted++
        continue
      }
      text = block(labels, entry, truncateUnits(summary, fit), '', marks)
    }
    if (text.length > space) {
      omitted++
      continue
    }
    parts.push(text)
    sources.push(entry.path)
    used += text.length + (parts.length > 1 ? 2 : 0)
  }
  // With a budget too small even for this line, the count still travels in `omitted`.
  const omittedText = labels.omitted(omitted)
  if (omitted > 0 && used + (parts.length > 0 ? 2 : 0) + omittedText.length <= limit) parts.push(omittedText)
  const context = parts.join('\n\n')
  return { context, used_tokens: estimateTokens(context), budget, sources, included: sources.length, omitted }
}

/** The closing line of a guess's frame. */
export const FRAME_END = '[/memory data]'

/**
 * The closest memory for a task nothing matched, framed as quoted data and labelled as a guess,
 * within the budget (its summary cut to fit), or null when even a cut one does not fit. It
 * carries no evidence marker: a guess borrows no [VERIFIED].
 */
export function guessBlock(entry: IndexEntry, shared: readonly string[], budget: number, labels: AssembleLabels): string | null {
  const limit = charsForBudget(budget)
  const framed = (summary: string) => [labels.guess(shared), block(labels, entry, summary, ''), FRAME_END].join('\n')
  const summary = sanitized(entry.summary)
  const whole = framed(summary)
  if (whole.length <= limit) return whole
  const fit = limit - framed('').length
  return fit >= 10 ? framed(truncateUnits(summary, fit)) : null
}

/** Hits searched for the task when none are given. */
export const ASSEMBLE_SEARCH_K = 20

export interface AssembleInput {
  task: string
  /** Hits of an earlier search, best first by score; searched for the task when absent. */
  hits?: { id: string; score?: number }[]
  budget?: number
}

/**
 * memory_assemble as one operation: the given hits (searchable ones, by score) or a search for
 * the task (recorded as use), the guards the task matches, within the budget (the store's
 * default when none is given), labelled in the task's language.
 */
export async function assembleForTask(backend: MemoryBackend, input: AssembleInput): Promise<AssembleResult> {
  const [config, state] = await Promise.all([loadConfig(backend), retrievalState(backend)])
  const budget = input.budget ?? config.defaultBudget
  let ranked: IndexEntry[]
  if (input.hits !== undefined) {
    ranked = [...input.hits]
      .map((h, i) => ({ h, i }))
      .sort((a, b) => (b.h.score ?? 0) - (a.h.score ?? 0) || a.i - b.i)
      .map(({ h }) => state.entries.get(h.id))
      .filter((e): e is IndexEntry => e !== undefined && isSearchable(e))
  } else {
    const found = await searchRanked(backend, state, { query: input.task, top_k: ASSEMBLE_SEARCH_K, importance: await importanceLookup(backend), now: Date.parse(backend.now()) })
    recordSearch(backend, { learn: config.learnFromSearches, query: input.task, hitIds: found.hits.map((h) => h.id) })
    ranked = found.hits.map((h) => state.entries.get(h.id)).filter((e): e is IndexEntry => e !== undefined)
    const closest = found.reason === 'below-threshold' ? found.nearMisses[0] : undefined
    const entry = closest !== undefined ? state.entries.get(closest.id) : undefined
    if (closest !== undefined && entry !== undefined) {
      // Below the threshold the block is not empty: the closest memory, said to be a guess.
      const text = guessBlock(entry, closest.shared, budget, labelsFor(input.task))
      const lowConfidence = { id: entry.id, path: entry.path, score: closest.score, shared: closest.shared }
      const context = text ?? ''
      return { context, used_tokens: estimateTokens(context), budget, sources: [], included: 0, omitted: text === null ? 1 : 0, lowConfidence }
    }
  }
  return assembleContext(backend, ranked, budget, state.entries, matchingGuards(state.entries, input.task).map(guardLine), labelsFor(input.task))
}
