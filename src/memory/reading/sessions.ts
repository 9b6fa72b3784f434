/**
 * The sessions a store has memories from, with what forgetting each would touch: its episodes and
 * raw text not yet forgotten, and the shared topics it is a source of. Decided by the `sources`
 * array alone, like `forget_memories_by_session`. Read-only.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'

export interface SessionSummary {
  session_id: string
  /** Episodes (and other non-topic memories) not yet deleted_pending. */
  episodes: number
  /** Raw text not yet deleted_pending. */
  raw: number
  /** Shared topics that name the session as a source. */
  topics: number
  /** Time of the session's newest memory. */
  latest: string
}

/** Sessions newest first; a session whose memories are all forgotten is left out. */
export async function listSessions(backend: MemoryBackend): Promise<SessionSummary[]> {
  await ensureFresh(backend)
  const sessions = new Map<string, SessionSummary>()
  for (const e of (await backend.indexView()).values()) {
    if (e.type !== 'topic' && e.status === 'deleted_pending') continue
    for (const id of new Set(e.sources.map((s) => s.session_id))) {
      if (id === null) continue
      let s = sessions.get(id)
      if (s === undefined) sessions.set(id, (s = { session_id: id, episodes: 0, raw: 0, topics: 0, latest: e.time }))
      if (e.type === 'topic') s.topics++
      else if (e.type === 'raw') s.raw++
      else s.episodes++
      if (e.time > s.latest) s.latest = e.time
    }
  }
  return [...sessions.values()].sort((a, b) => b.latest.localeCompare(a.latest) || a.session_id.localeCompare(b.session_id))
}
