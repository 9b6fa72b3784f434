/**
 * The write path: redaction, exact and near duplicate detection, versioning by slot, declared
 * conflicts and the confirmation gate. One call writes at most two files (an episode and its
 * raw text), rewrites the files of the memories it supersedes, and appends its ledger events.
 */

import { randomBytes } from 'node:crypto'
import { invalidInput } from '../errors.js'
import type { MemoryBackend } from '../store/backend.js'
import { cleanAnchors, contentHash, memoryBody } from '../store/frontmatter.js'
import { bigramJaccard, collapseWhitespace, slugify, truncate } from '../text.js'
import type { AnchorKind, IndexEntry, MemoryStatus, Source, SourceKind } from '../types.js'
import { loadConfig } from './config.js'
import { redactSecrets, type RedactionKind } from './redact.js'
import { slotOf } from '../store/index-view.js'
import { LIVE, rawSibling, slotMates, supersedeSlot } from './slots.js'
import { transact, type Txn } from './txn.js'

export interface WriteRequest {
  summary: string
  raw?: string
  title?: string
  key?: string
  type?: 'episode' | 'topic'
  tags?: string[]
  entities?: string[]
  source?: SourceKind
  session_id?: string
  confidence?: number
  time?: string
  requireConfirmation?: boolean
  expectConflict?: boolean
  anchors?: Array<{ kind: AnchorKind; name?: string; value?: string }>
}

export interface WriteResult {
  id: string
  path: string
  type: 'episode' | 'topic'
  status: MemoryStatus
  title: string
  raw_ref: string | null
  dedupe?: 'exact' | 'near'
  similarity?: number
  superseded: string[]
  variants: string[]
  redactions: RedactionKind[]
}

/** Near duplicates: same slot and character 2-gram Jaccard at least this. */
export const NEAR_DUPLICATE_THRESHOLD = 0.9

export function newMemoryId(): string {
  return `mem_${Date.now().toString(36)}${randomBytes(5).toString('hex')}`
}

function defaultTitle(summary: string): string {
  const first = summary.split(/(?<=[。！？!?；;])|(?<=\.)\s/u)[0] ?? summary
  return truncate(collapseWhitespace(first), 60)
}

function cleanList(items: string[] | undefined, redact: (s: string) => string): string[] {
  const out: string[] = []
  for (const item of items ?? []) {
    const s = redact(collapseWhitespace(item))
    if (s !== '' && !out.includes(s)) out.push(s)
  }
  return out
}

function hasSource(entry: IndexEntry, source: Source): boolean {
  return entry.sources.some((s) => s.session_id === source.session_id && s.kind === source.kind)
}

/** A duplicate write adds its source to the memory it repeats (a shared topic gains a session). */
async function acknowledgeDuplicate(txn: Txn, existing: IndexEntry, source: Source, kind: 'exact' | 'near', similarity: number, redactions: RedactionKind[]): Promise<WriteResult> {
  let entry = existing
  if (source.session_id !== null && !hasSource(existing, source)) {
    entry = (await txn.update(existing, { sources: [...existing.sources, source], session_id: existing.session_id ?? source.session_id })) ?? existing
    // The raw text shares its episode's sources, so forgetting a session treats both alike.
    const raw = rawSibling(txn, existing)
    if (raw !== undefined && !hasSource(raw, source)) await txn.update(raw, { sources: [...raw.sources, source] })
  }
  txn.log({ event: 'dedupe', id: entry.id, dedupe: kind, similarity, session_id: source.session_id, source: source.kind })
  return {
    id: entry.id,
    path: entry.path,
    type: entry.type === 'episode' ? 'episode' : 'topic',
    status: entry.status,
    title: entry.title,
    raw_ref: entry.raw_ref,
    dedupe: kind,
    similarity,
    superseded: [],
    variants: entry.variants,
    redactions,
  }
}

export async function writeMemory(backend: MemoryBackend, req: WriteRequest): Promise<WriteResult> {
  const config = await loadConfig(backend)
  const redactions: RedactionKind[] = []
  const redact = (text: string): string => {
    if (!config.redactSecrets) return text
    const r = redactSecrets(text)
    for (const k of r.kinds) if (!redactions.includes(k)) redactions.push(k)
    return r.text
  }

  const summary = redact(collapseWhitespace(req.summary))
  if (summary === '') throw invalidInput('summary', 'a non-empty string')
  const raw = req.raw === undefined ? undefined : redact(req.raw)
  const type = req.type ?? (raw !== undefined ? 'episode' : 'topic')
  if (type === 'topic' && raw !== undefined) throw invalidInput('type', '"episode" when raw is given (raw text belongs to an episode)')
  const sessionId = req.session_id?.trim() || null
  if (type === 'episode' && sessionId === null) throw invalidInput('session_id', 'a session id (episodes and raw text must name their session)')
  const explicitTitle = req.title === undefined ? null : redact(collapseWhitespace(req.title))
  if (explicitTitle === '') throw invalidInput('title', 'a non-empty string')
  const key = req.key === undefined ? null : redact(collapseWhitespace(req.key))
  if (key === '') throw invalidInput('key', 'a non-empty string')
  const time = req.time === undefined ? null : Date.parse(req.time)
  if (time !== null && Number.isNaN(time)) throw invalidInput('time', 'an ISO-8601 date-time such as 2026-01-02T10:00:00Z')
  const title = explicitTitle ?? defaultTitle(summary)
  const tags = cleanList(req.tags, redact)
  const entities = cleanList(req.entities, redact)
  const source: Source = { session_id: sessionId, kind: req.source ?? (sessionId !== null ? 'session' : 'user') }
  const gated = req.requireConfirmation ?? config.requireConfirmation
  // Versioning needs intent: an explicit key, or an explicit title that then serves as the key.
  const slotKey = key ?? explicitTitle

  return transact(backend, async (txn) => {
    const hash = contentHash(type, summary)
    for (const e of txn.index.withHash(hash)) {
      if (e.type === type && LIVE.has(e.status)) return acknowledgeDuplicate(txn, e, source, 'exact', 1, redactions)
    }
    const slot = slotOf({ key: slotKey, title })
    let best: { entry: IndexEntry; similarity: number } | null = null
    for (const e of txn.index.inSlot(slot)) {
      if (e.type !== type || !LIVE.has(e.status)) continue
      const similarity = bigramJaccard(summary, e.summary)
      if (similarity >= NEAR_DUPLICATE_THRESHOLD && (best === null || similarity > best.similarity)) best = { entry: e, similarity }
    }
    if (best !== null) return acknowledgeDuplicate(txn, best.entry, source, 'near', Math.round(best.similarity * 1000) / 1000, redactions)

    const id = newMemoryId()
    const at = time !== null ? new Date(time).toISOString() : txn.now
    let rawRef: string | null = null
    if (raw !== undefined) {
      rawRef = `raw/${id}.md`
      await txn.create(
        rawRef,
        { id: `${id}-raw`, type: 'raw', title: `raw: ${title}`, time: at, status: gated ? 'suggested' : 'active', session_id: sessionId, sources: [source], episode: id },
        raw,
      )
    }
    const path = type === 'episode' ? `episodes/${at.slice(0, 10)}-${id}.md` : `topics/${slugify(title)}-${id}.md`
    const rivals = slotKey !== null && !gated ? slotMates(txn, { id, type, key: slotKey, title }) : []
    const conflict = req.expectConflict === true && rivals.length > 0
    const status: MemoryStatus = gated ? 'suggested' : conflict ? 'conflict' : 'active'
    let entry = await txn.create(
      path,
      {
        id,
        type,
        title,
        time: at,
        status,
        session_id: sessionId,
        sources: [source],
        confidence: req.confidence ?? 0.6,
        tags,
        entities,
        key: slotKey,
        variants: conflict ? rivals.map((r) => r.id) : [],
        raw_ref: rawRef,
        anchors: cleanAnchors(req.anchors),
      },
      memoryBody(title, summary),
    )
    let superseded: string[] = []
    if (conflict) {
      for (const rival of rivals) {
        await txn.update(rival, { status: 'conflict', variants: [...new Set([...rival.variants, id])] })
      }
      txn.log({ event: 'conflict', id, ids: rivals.map((r) => r.id), slot })
    } else if (status === 'active' && slotKey !== null) {
      ;({ winner: entry, superseded } = await supersedeSlot(txn, entry))
    }
    txn.log({
      event: 'write',
      id,
      type,
      path,
      status,
      session_id: sessionId,
      source: source.kind,
      ...(rawRef !== null ? { raw_id: `${id}-raw` } : {}),
      ...(redactions.length > 0 ? { redactions } : {}),
    })
    return {
      id,
      path,
      type,
      status: entry.status,
      title,
      raw_ref: rawRef,
      superseded,
      variants: entry.variants,
      redactions,
    }
  })
}
