/**
 * Context from neighbouring turns: an episode is indexed with the summaries of the episodes just
 * before and after it in its session (at a low field weight), because a turn often answers what
 * the turn before it asked, in other words. A memory consolidation made from a session's turns (an
 * exchange: `derived_from` and the session's id) stands in their place among them. The window
 * counts turns, not memories: a neighbour made of turns lends only its turns nearest to the
 * memory (their own text, from the index), and such a memory takes the turns just before its
 * first and after its last; so folding a session changes no turn's context. Pure over the index
 * view.
 */

import { pushAll } from '../arrays.js'
import type { IndexLookup } from '../store/index-view.js'
import type { IndexEntry } from '../types.js'
import { RANKING, isSearchable, type ContextualEntry } from './search-index.js'

function inTurnOrder(episodes: IndexEntry[]): IndexEntry[] {
  return episodes.sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
}

/** A searchable turn of a session, or a searchable memory made of some of them. */
function inTurns(e: IndexEntry): boolean {
  return e.session_id !== null && (e.type === 'episode' || (e.type === 'topic' && e.derived_from !== undefined)) && isSearchable(e)
}

/** The searchable turns of a session, in time order. */
function sessionEpisodes(view: IndexLookup, sessionId: string): IndexEntry[] {
  return inTurnOrder(view.fromSession(sessionId).filter((e) => e.session_id === sessionId && inTurns(e)))
}

/**
 * The texts of the turns a memory holds, in order: for a topic made of turns that are all still
 * known, theirs; otherwise its own text, as one turn (an episode; a session summary, which quotes
 * turns from all over its session and so stands in no place of theirs).
 */
function turnTexts(view: Pick<IndexLookup, 'get'>, e: IndexEntry): string[] {
  const sources = e.type === 'topic' ? e.derived_from?.map((id) => view.get(id)) : undefined
  return sources !== undefined && sources.length > 0 && sources.every((s) => s !== undefined) ? sources.map((s) => (s as IndexEntry).summary) : [e.summary]
}

function withNeighbours(view: Pick<IndexLookup, 'get'>, turns: IndexEntry[]): ContextualEntry[] {
  const w = RANKING.contextWindow
  const texts = turns.map((e) => turnTexts(view, e))
  return turns.map((entry, i) => {
    const before: string[] = []
    for (let j = i - 1; j >= 0 && before.length < w; j--) pushAll(before, (texts[j] as string[]).slice(-(w - before.length)).reverse())
    const after: string[] = []
    for (let j = i + 1; j < turns.length && after.length < w; j++) pushAll(after, (texts[j] as string[]).slice(0, w - after.length))
    return { entry, context: [...before.reverse(), ...after].join('\n') }
  })
}

/** Every entry with its context, grouping each session once. */
export function allWithContext(view: IndexLookup): ContextualEntry[] {
  const sessions = new Map<string, IndexEntry[]>()
  const out: ContextualEntry[] = []
  for (const e of view.values()) {
    if (e.session_id !== null && inTurns(e)) {
      const turns = sessions.get(e.session_id) ?? []
      turns.push(e)
      sessions.set(e.session_id, turns)
    } else out.push({ entry: e, context: '' })
  }
  for (const turns of sessions.values()) pushAll(out, withNeighbours(view, inTurnOrder(turns)))
  return out
}

/**
 * The entries to re-index after the given entries changed: each one, plus every episode of the
 * sessions they belong (or belonged) to, whose neighbours may have changed.
 */
export function affectedWithContext(view: IndexLookup, changed: readonly IndexEntry[], sessions: ReadonlySet<string>): ContextualEntry[] {
  const out = new Map<string, ContextualEntry>()
  for (const entry of changed) out.set(entry.id, { entry, context: '' })
  for (const sessionId of sessions) for (const item of withNeighbours(view, sessionEpisodes(view, sessionId))) out.set(item.entry.id, item)
  return [...out.values()]
}
