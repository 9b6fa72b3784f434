/**
 * Reflect: one short summary per finished session, extractive (no model): what was done, what
 * was decided, what was learnt, each the first episode of the session that says so, in the
 * session's order. The summary is derived from the episodes it quotes (`derived_from` names those,
 * not the whole session: a hit on it stands for what it says). A session is finished when nothing was written to it for REFLECT_AFTER_MS; a
 * session of one episode needs no summary. Pure: the engine (consolidate.ts) writes it.
 */

import { truncateUnits } from '../../text.js'
import type { IndexEntry } from '../../types.js'

/** A session is finished after this long without a new episode. */
export const REFLECT_AFTER_MS = 2 * 3600_000
/** The tag of a session summary (and what tells it from the episodes it summarises). */
export const SESSION_SUMMARY_TAG = 'session-summary'
/** Characters per part of a summary. */
const PART_CHARS = 200

const KINDS = [
  { label: 'Decided', zh: '决定', cue: /\b(?:decided|decide|agreed|chose|will use|we'll|going with|settled on|plan is)\b|决定|商定|选定|约定|定了|打算/iu },
  { label: 'Learnt', zh: '得知', cue: /\b(?:learn(?:ed|t)|found out|turns out|root cause|because|realised|realized|discovered|note that)\b|发现|原来|原因|得知|学到|注意到/iu },
  { label: 'Done', zh: '完成', cue: /\b(?:fixed|implemented|added|removed|upgraded|migrated|deployed|wrote|reviewed|merged|refactored|set up|configured|updated|created|shipped)\b|修复|实现|完成|添加|删除|升级|迁移|部署|上线|重构|配置|更新|创建/iu },
] as const

export interface SessionSummary {
  session: string
  summary: string
  /** What the summary begins with (session, day, episodes), before its colon: a model's summary keeps it. */
  head: string
  /** The episodes summarised, in session order. */
  members: IndexEntry[]
  /** The episodes whose words it quotes, in session order: what it is derived from. */
  quoted: IndexEntry[]
  /** The time of the session's last episode. */
  time: string
}

const hasHan = (s: string) => /\p{Script=Han}/u.test(s)

/**
 * Summaries of the finished sessions among `episodes` (active episodes of the store, session
 * summaries excluded) that have none yet (`summarised` names those that do). Oldest first.
 */
export function sessionSummaries(episodes: readonly IndexEntry[], summarised: ReadonlySet<string>, nowMs: number): SessionSummary[] {
  const bySession = new Map<string, IndexEntry[]>()
  for (const e of episodes) if (e.session_id !== null) (bySession.get(e.session_id) ?? bySession.set(e.session_id, []).get(e.session_id) as IndexEntry[]).push(e)
  const out: SessionSummary[] = []
  for (const [session, members] of bySession) {
    if (summarised.has(session) || members.length < 2) continue
    members.sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
    const last = members.at(-1) as IndexEntry
    if (nowMs - Date.parse(last.time) < REFLECT_AFTER_MS) continue
    const zh = members.filter((m) => hasHan(m.summary)).length * 2 > members.length
    const parts: string[] = []
    const used = new Set<string>()
    for (const kind of KINDS) {
      const hit = members.find((m) => !used.has(m.id) && kind.cue.test(m.summary))
      if (hit === undefined) continue
      used.add(hit.id)
      parts.push(`${zh ? kind.zh : kind.label}: ${truncateUnits(hit.summary, PART_CHARS)}`)
    }
    // Nothing marked: what the session began and ended with.
    if (parts.length === 0) {
      for (const m of new Set([members[0] as IndexEntry, last])) {
        used.add(m.id)
        parts.push(truncateUnits(m.summary, PART_CHARS))
      }
    }
    const day = last.time.slice(0, 10)
    const head = zh ? `会话 ${session}（${day}，${members.length} 条）` : `Session ${session} (${day}, ${members.length} episodes)`
    out.push({ session, summary: `${head}: ${parts.join(zh ? '；' : '; ')}`, head, members, quoted: members.filter((m) => used.has(m.id)), time: last.time })
  }
  return out.sort((a, b) => a.time.localeCompare(b.time) || a.session.localeCompare(b.session))
}
