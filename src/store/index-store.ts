/**
 * index.jsonl: the summary layer of every memory, one JSON line per change. A projection of the
 * memory files, never the truth: `rebuildIndex` recreates it from the files. Between compactions
 * it is append-only: the latest line for an id wins, and `{"id": ..., "removed": true}` drops
 * one. A line that does not parse is skipped and counted, never fatal.
 */

import { cleanAnchors } from './frontmatter.js'
import { claimFieldsFromIndexLine } from './claim-fields.js'
import { identityFieldsFromIndexLine } from './identity.js'
import { placeFieldsFromIndexLine } from './place-fields.js'
import { reviewFieldsFromIndexLine } from './review-fields.js'
import {
  MEMORY_STATUSES,
  MEMORY_TYPES,
  type IndexEntry,
  type MemoryStatus,
  type MemoryType,
} from '../types.js'

function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback
}
function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

/** One index line to an entry, or null when it is not a usable entry. Old lines (no version) are version 1. */
export function parseIndexLine(line: string): IndexEntry | null {
  let raw: unknown
  try {
    raw = JSON.parse(line)
  } catch {
    return null
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null
  const r = raw as Record<string, unknown>
  if (typeof r.id !== 'string' || typeof r.path !== 'string') return null
  if (!MEMORY_TYPES.includes(r.type as MemoryType) || !MEMORY_STATUSES.includes(r.status as MemoryStatus)) return null
  return {
    schema_version: typeof r.schema_version === 'number' ? r.schema_version : 1,
    id: r.id,
    path: r.path,
    type: r.type as MemoryType,
    title: stringOr(r.title, ''),
    summary: stringOr(r.summary, ''),
    tags: stringList(r.tags),
    entities: stringList(r.entities),
    time: stringOr(r.time, ''),
    sources: Array.isArray(r.sources)
      ? r.sources.filter((s): s is IndexEntry['sources'][number] => typeof s === 'object' && s !== null && 'kind' in s)
      : [],
    session_id: stringOr(r.session_id, null),
    confidence: typeof r.confidence === 'number' ? r.confidence : 0.6,
    raw_ref: stringOr(r.raw_ref, null),
    vector_id: typeof r.vector_id === 'string' && /^[0-9a-f]{40}$/.test(r.vector_id) ? r.vector_id : null,
    status: r.status as MemoryStatus,
    key: stringOr(r.key, null),
    ...(r.key_derived === true && typeof r.key === 'string' ? { key_derived: true as const } : {}),
    supersedes: stringOr(r.supersedes, null),
    superseded_by: stringOr(r.superseded_by, null),
    variants: stringList(r.variants),
    episode: stringOr(r.episode, null),
    anchors: cleanAnchors(r.anchors),
    content_hash: stringOr(r.content_hash, ''),
    checksum: stringOr(r.checksum, ''),
    ...claimFieldsFromIndexLine(r),
    ...placeFieldsFromIndexLine(r),
    ...reviewFieldsFromIndexLine(r),
    ...identityFieldsFromIndexLine(r),
  }
}

/** A line of index.jsonl: an entry, a removal, or nothing usable. */
export type IndexRecord = { entry: IndexEntry } | { removed: string } | null

export function parseIndexRecord(line: string): IndexRecord {
  const entry = parseIndexLine(line)
  if (entry !== null) return { entry }
  try {
    const raw: unknown = JSON.parse(line)
    if (typeof raw === 'object' && raw !== null && (raw as { removed?: unknown }).removed === true) {
      const id = (raw as { id?: unknown }).id
      if (typeof id === 'string') return { removed: id }
    }
  } catch {
    // not JSON: an unusable line
  }
  return null
}

export function removalLine(id: string): string {
  return JSON.stringify({ id, removed: true })
}

export function serializeIndex(entries: Iterable<IndexEntry>): string {
  const lines: string[] = []
  for (const e of entries) lines.push(JSON.stringify(e))
  return lines.length > 0 ? `${lines.join('\n')}\n` : ''
}
