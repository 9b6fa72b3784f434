/**
 * Fold: in a finished, idle session, adjacent episodes that belong together become one topic (an
 * exchange) that holds their statements word for word, in order (extractive, no model), so each of
 * them is fully covered and may leave search. Two adjacent episodes belong together, with a
 * strength, when
 *
 * - the first asks something ("…?", "…吗"): the second is its answer (ANSWER_LINK);
 * - either carries nothing (thanks, greetings, fewer than two words of its own): chit-chat (CHATTER_LINK);
 * - they share words that name something in particular: a follow-up on the same subject (the
 *   shared words' weight over the lighter episode's, IDF over the sessions).
 *
 * A session is cut into exchanges of at most FOLD_MAX_EPISODES episodes and FOLD_MAX_CHARS
 * characters, always between episodes that do not belong together, otherwise where the links cut
 * are weakest. An episode that carries content of its own (FOLD_FULL_TERMS words of its own:
 * names, numbers, a long statement) joins at most FOLD_FULL_EPISODES: a hit on it then spends
 * fewer slots on turns that do not answer; short replies still fold into their neighbours. An
 * episode alone stays as it is. Words most sessions use (the speakers' names, "really", "great")
 * tie nothing, as in promote.ts. Pure: the engine (consolidate.ts) writes.
 */

import { isStrongTerm, tokenize, wordCount } from '../../language/tokenizer.js'
import type { IndexEntry } from '../../types.js'
import { COMMON_FLOOR, COMMON_SHARE, isChatter } from './promote.js'

/** The tag of a folded exchange (and what tells it from a promoted fact). */
export const EXCHANGE_TAG = 'exchange'
/** At most this many episodes in one exchange: a hit on it is read as that many turns in a row. */
export const FOLD_MAX_EPISODES = 3
/** An episode with at least this many words of its own (strong, not common; wordCount) carries content of its own. */
export const FOLD_FULL_TERMS = 10
/** At most this many episodes in an exchange holding one that carries content of its own (issue 17, docs/decisions.md). */
export const FOLD_FULL_EPISODES = 2
/** At most this many characters of joined text: the write path's summary limit. */
export const FOLD_MAX_CHARS = 2000
/** What a question adds to the link with the episode after it (its answer). */
export const ANSWER_LINK = 0.5
/** What chit-chat on either side adds to a link: just enough to join, so a cut falls beside it before it splits a subject (any shared word weighs more). */
export const CHATTER_LINK = 0.05
/** Between two statements of an exchange. */
export const FOLD_JOINER = ' \u2016 '

export interface Exchange {
  session: string
  /** Oldest first. */
  members: IndexEntry[]
  /** The members' summaries, in order, joined by FOLD_JOINER. */
  summary: string
}

/** Ends with a question: "...what did you do?", "……吗？", a shared picture's caption aside. */
export function asks(summary: string): boolean {
  const s = summary.replace(/\s*\[[^\]]*\]\s*$/u, '').trim()
  return /[?？]$/u.test(s) || /[吗呢么嘛][。.!！]?$/u.test(s)
}

/**
 * The exchanges among `episodes` (active, not derived, of sessions `ready` accepts), session by
 * session, oldest first. Only exchanges of two or more episodes are returned.
 */
export function exchanges(episodes: readonly IndexEntry[], ready: (session: string, members: readonly IndexEntry[]) => boolean): Exchange[] {
  const bySession = new Map<string, IndexEntry[]>()
  for (const e of episodes) if (e.session_id !== null) (bySession.get(e.session_id) ?? bySession.set(e.session_id, []).get(e.session_id) as IndexEntry[]).push(e)
  // Document frequency by session over every episode given: a word most sessions use names nothing in particular.
  const termsOf = new Map(episodes.map((e) => [e.id, new Set(tokenize(e.summary).filter(isStrongTerm))]))
  const df = new Map<string, number>()
  for (const members of bySession.values()) for (const t of new Set(members.flatMap((m) => [...(termsOf.get(m.id) as Set<string>)]))) df.set(t, (df.get(t) ?? 0) + 1)
  const common = (t: string) => (df.get(t) ?? 0) > Math.max(COMMON_FLOOR, COMMON_SHARE * bySession.size)
  const own = new Map([...termsOf].map(([id, terms]) => [id, new Set([...terms].filter((t) => !common(t)))]))
  const nothing = (e: IndexEntry) => isChatter(e.summary, own.get(e.id) as Set<string>)
  const idf = (t: string) => Math.log(1 + bySession.size / (df.get(t) ?? 1))
  const mass = (e: IndexEntry) => [...(own.get(e.id) as Set<string>)].reduce((sum, t) => sum + idf(t), 0)
  /** How strongly next belongs with prev: 0 when it does not. */
  const link = (prev: IndexEntry, next: IndexEntry): number => {
    const mine = own.get(prev.id) as Set<string>
    const shared = [...(own.get(next.id) as Set<string>)].filter((t) => mine.has(t))
    const lighter = Math.min(mass(prev), mass(next))
    const words = lighter === 0 ? 0 : shared.reduce((sum, t) => sum + idf(t), 0) / lighter
    return words + (asks(prev.summary) ? ANSWER_LINK : 0) + (nothing(prev) || nothing(next) ? CHATTER_LINK : 0)
  }

  const full = (e: IndexEntry) => wordCount(own.get(e.id) as Set<string>) >= FOLD_FULL_TERMS
  const out: Exchange[] = []
  for (const [session, members] of bySession) {
    members.sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
    if (members.length < 2 || !ready(session, members)) continue
    for (const run of cut(members, link, full)) if (run.length >= 2) out.push({ session, members: run, summary: run.map((m) => m.summary).join(FOLD_JOINER) })
  }
  return out
}

/**
 * Cuts a session into runs of at most FOLD_MAX_EPISODES episodes (FOLD_FULL_EPISODES when one is
 * `full`) and FOLD_MAX_CHARS characters, always where two episodes do not belong together (link 0),
 * and otherwise where the links cut are weakest in sum (dynamic programming over cut positions):
 * the fewest, loosest cuts.
 */
function cut(members: readonly IndexEntry[], link: (prev: IndexEntry, next: IndexEntry) => number, full: (e: IndexEntry) => boolean): IndexEntry[][] {
  const n = members.length
  const holds = members.map(full)
  const strength = members.map((m, i) => (i === 0 ? 0 : link(members[i - 1] as IndexEntry, m)))
  // best[j]: the least cut strength for the first j members, the last run ending at j - 1; from[j]: where that run starts.
  const best: number[] = [0]
  const from: number[] = [0]
  for (let j = 1; j <= n; j++) {
    best[j] = Infinity
    let chars = -FOLD_JOINER.length
    let cap = FOLD_MAX_EPISODES
    for (let i = j - 1; i >= 0 && j - i <= cap; i--) {
      chars += FOLD_JOINER.length + (members[i] as IndexEntry).summary.length
      if (holds[i]) cap = FOLD_FULL_EPISODES
      if (i < j - 1 && (chars > FOLD_MAX_CHARS || strength[i + 1] === 0 || j - i > cap)) break
      const cost = (best[i] as number) + (i === 0 ? 0 : (strength[i] as number))
      if (cost < (best[j] as number) || (cost === best[j] && i < (from[j] as number))) {
        best[j] = cost
        from[j] = i
      }
    }
  }
  const runs: IndexEntry[][] = []
  for (let j = n; j > 0; j = from[j] as number) runs.unshift(members.slice(from[j], j))
  return runs
}
