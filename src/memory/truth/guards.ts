/**
 * Guards: prospective memory. A guard memory names a future situation (`guard_trigger`) and what
 * to do then (`guard_action`); when a task, a query or a turn's text matches the trigger, its
 * `[GUARD]` line is put in front of the agent. Owns the match rule and the line. Pure over the
 * index view; the list of guards is cached per view and recomputed only when the view changed.
 *
 * Match rule: the trigger is one or more alternatives separated by `|`, `;`, `,` or a line
 * break; an alternative matches when every one of its strong terms (tokenizer 2-grams and words)
 * occurs in the text. No alias expansion: a guard should fire on what was said, not a guess.
 */

import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import { isSearchable } from '../../retrieve/search-index.js'
import type { IndexView } from '../../store/index-view.js'
import { truncateUnits } from '../../text.js'
import type { IndexEntry } from '../../types.js'

/** At most this many guard lines per task or query (newest guards first). */
export const MAX_GUARDS = 5
const LINE_TRIGGER_CHARS = 80
const LINE_ACTION_CHARS = 200

export interface MatchedGuard {
  id: string
  trigger: string
  action: string
}

const ALTERNATIVES = /[|;,\n；，、]/

function alternatives(trigger: string): string[][] {
  const out: string[][] = []
  for (const part of trigger.split(ALTERNATIVES)) {
    const terms = tokenize(part)
    const strong = terms.filter(isStrongTerm)
    const use = strong.length > 0 ? strong : terms
    if (use.length > 0) out.push([...new Set(use)])
  }
  return out
}

/** True when some alternative of the trigger has all its terms in the text. */
export function triggerMatches(trigger: string, text: string): boolean {
  const have = new Set(tokenize(text))
  return alternatives(trigger).some((alt) => alt.every((t) => have.has(t)))
}

const cache = new WeakMap<IndexView, { generation: number; version: number; guards: IndexEntry[] }>()

/** The live guards of a view, newest first (cached until the view changes). */
function guardsOf(view: IndexView): IndexEntry[] {
  const c = cache.get(view)
  if (c !== undefined && c.generation === view.generation && c.version === view.currentVersion) return c.guards
  const guards: IndexEntry[] = []
  for (const e of view.withGuard()) if (isSearchable(e) && e.retracted_by === undefined) guards.push(e)
  guards.sort((a, b) => b.time.localeCompare(a.time) || a.id.localeCompare(b.id))
  cache.set(view, { generation: view.generation, version: view.currentVersion, guards })
  return guards
}

/** The guards whose trigger the text matches, newest first, at most MAX_GUARDS. */
export function matchingGuards(view: IndexView, text: string): MatchedGuard[] {
  if (text.trim() === '') return []
  const out: MatchedGuard[] = []
  for (const e of guardsOf(view)) {
    const g = e.guard
    if (g === undefined || !triggerMatches(g.trigger, text)) continue
    out.push({ id: e.id, trigger: g.trigger, action: g.action })
    if (out.length === MAX_GUARDS) break
  }
  return out
}

/** The line a rendering shows for a matched guard. */
export function guardLine(g: MatchedGuard): string {
  const one = (s: string, n: number) => truncateUnits(s.replace(/\s+/g, ' ').trim(), n)
  return `[GUARD] when ${one(g.trigger, LINE_TRIGGER_CHARS)}: ${one(g.action, LINE_ACTION_CHARS)} (${g.id})`
}
