/**
 * The read-only health check: memories long without a hit, superseded versions still on disk,
 * queries that found nothing, anchors that no longer hold, and files whose front-matter does not
 * parse, and settings config.json sets that the store does not take. It lists; it never changes a memory (forgetting and merging are other tools' work).
 */

import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { unreadableFiles, type UnreadableFile } from '../../store/frontmatter.js'
import { isSearchable } from '../../retrieve/search-index.js'
import { savedIndexDamage } from '../../retrieve/segment-files.js'
import { vectorDiagnostics, type VectorDiagnostics } from '../../retrieve/vectors.js'
import { refusedInConfigFile, type RefusedSetting } from '../settings/refused.js'
import { staleAnchor } from '../truth/anchors.js'
import { readQueryLog, readUsage } from './signals.js'

export const DEFAULT_LONG_UNUSED_DAYS = 90
const DAY_MS = 86_400_000

export interface SweepResult {
  at: string
  scanned: number
  thresholds: { longUnusedDays: number; limit: number }
  longUnused: Array<{ id: string; path: string; title: string; idleDays: number; hits: number; last_used_at: string | null }>
  supersededBacklog: Array<{ id: string; path: string; title: string; superseded_by: string | null; time: string }>
  zeroHitQueries: Array<{ at: string; query: string }>
  staleAnchors: Array<{ id: string; path: string; title: string; kind: string; name: string | null; value: string; reason: string }>
  /** Files whose front-matter does not parse, with the line it breaks at: out of search until fixed by hand. */
  unreadable: UnreadableFile[]
  /** Files of the saved search index that fail their checksum (segment-files.ts): rebuilt, never read. */
  damagedSearchIndexFiles: number
  /** Settings config.json sets that this store does not take, with why (settings/refused.ts). */
  refusedSettings: RefusedSetting[]
  /** The vectors, when the store has an embedder: coverage, queue, dimension mismatches (retrieve/vectors.ts). */
  embeddings?: VectorDiagnostics
}

export async function sweep(backend: MemoryBackend, days: number, limit: number): Promise<SweepResult> {
  // A file broken by hand since the last read is reported now, not after the next search.
  await ensureFresh(backend)
  const [view, usage, log] = await Promise.all([backend.indexView(), readUsage(backend), readQueryLog(backend)])
  const at = backend.now()
  const now = Date.parse(at)
  const longUnused: SweepResult['longUnused'] = []
  const supersededBacklog: SweepResult['supersededBacklog'] = []
  const staleAnchors: SweepResult['staleAnchors'] = []
  let scanned = 0
  for (const e of view.values()) {
    if (e.type === 'raw') continue
    scanned++
    if (e.status === 'superseded') supersededBacklog.push({ id: e.id, path: e.path, title: e.title, superseded_by: e.superseded_by, time: e.time })
    if (!isSearchable(e)) continue
    const used = usage.get(e.id)
    const since = Date.parse(used?.lastHitAt ?? e.time)
    const idleDays = Number.isNaN(since) ? 0 : Math.max(0, Math.floor((now - since) / DAY_MS))
    if (idleDays >= days) longUnused.push({ id: e.id, path: e.path, title: e.title, idleDays, hits: used?.hits ?? 0, last_used_at: used?.lastHitAt ?? null })
    const stale = staleAnchor(e, backend.probes)
    if (stale !== null) staleAnchors.push({ id: e.id, path: e.path, title: e.title, kind: stale.anchor.kind, name: stale.anchor.name, value: stale.anchor.value, reason: stale.reason })
  }
  longUnused.sort((a, b) => b.idleDays - a.idleDays || a.id.localeCompare(b.id))
  supersededBacklog.sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
  staleAnchors.sort((a, b) => a.id.localeCompare(b.id))
  const zeroHitQueries = log
    .filter((q) => q.hits === 0)
    .reverse()
    .slice(0, 20)
    .map((q) => ({ at: q.at, query: q.query }))
  const [embeddings, refused] = await Promise.all([vectorDiagnostics(backend), refusedInConfigFile(backend)])
  return {
    at,
    scanned,
    thresholds: { longUnusedDays: days, limit },
    longUnused: longUnused.slice(0, limit),
    supersededBacklog: supersededBacklog.slice(0, limit),
    zeroHitQueries,
    staleAnchors: staleAnchors.slice(0, 20),
    unreadable: unreadableFiles(view.values()).slice(0, limit),
    damagedSearchIndexFiles: await savedIndexDamage(backend),
    refusedSettings: refused,
    ...(embeddings !== null ? { embeddings } : {}),
  }
}
