/**
 * The vectors of a store: derived data under `.cache/vectors/`, one folder per embedder
 * (embedder.ts `embedderSlug`), each holding immutable segment files (vector-file.ts) written
 * aside and renamed, keyed by the sha1 of the text embedded. Owns the embedding queue (the
 * searchable memories whose text has no vector yet for the store's embedder), draining it in
 * segments (`embedPending`: the heartbeat, the idle MCP server and `memory-agent embed` call it;
 * never the write path), the query side (`vectorSearch`) and the diagnostics.
 *
 * A change of embedder re-embeds once: the new embedder's folder fills, and when nothing is left
 * to embed the marker `.cache/vectors/embedder.json` records it and the old folders go; a second
 * run finds nothing to do. A crash loses at most the segment being embedded: a rerun loads the
 * segments written and embeds the rest. Deleting `.cache/` costs only embedding again.
 * Memory files are never touched.
 */

import { randomBytes } from 'node:crypto'
import { MemoryError } from '../errors.js'
import type { MemoryBackend } from '../store/backend.js'
import { ensureFresh } from '../store/freshness.js'
import type { IndexView } from '../store/index-view.js'
import { warnOnce } from '../store/warn-once.js'
import { redactSecrets } from '../redact.js'
import type { IndexEntry } from '../types.js'
import { embedderDown, memoName, noteEmbedderDown, noteEmbedderUp } from './embedder-memo.js'
import { embedderOf, embedderSlug, embeddingText, vectorKey, type Embedder } from './embedder.js'
import { isSearchable } from './search-index.js'
import { decodeSegment, encodeSegment } from './vector-file.js'
import { VectorIndex } from './vector-index.js'

export const VECTORS_DIR = '.cache/vectors'
export const EMBEDDER_MARKER = `${VECTORS_DIR}/embedder.json`
/** Vectors per segment file: a crash costs at most this many embeddings. */
export const SEGMENT_VECTORS = 64
/** More segment files than this are merged into one after a drain (as is any vector whose text is gone). */
export const MAX_SEGMENTS = 16

interface Loaded {
  embedder: Embedder
  folder: string
  index: VectorIndex
  segments: Set<string>
  /** Vectors in this embedder's folder whose length is not the embedder's dim (left out of search). */
  mismatched: number
  /** Segment files that do not decode or fail their checksum (left out; their texts are embedded again, the file merged away). */
  unreadable: number
  ids: { generation: number; version: number; byKey: Map<string, string[]>; pending?: { vectors: number; count: number } } | null
}

const states = new WeakMap<MemoryBackend, Loaded>()
/** One drain at a time per store in this process. */
const draining = new WeakMap<MemoryBackend, Promise<unknown>>()
/** The key of each entry object's text (entries are replaced, never changed). */
const keys = new WeakMap<IndexEntry, string>()

function keyOf(entry: IndexEntry): string {
  let key = keys.get(entry)
  if (key === undefined) {
    key = vectorKey(embeddingText(entry))
    keys.set(entry, key)
  }
  return key
}

function emptyState(embedder: Embedder): Loaded {
  return { embedder, folder: `${VECTORS_DIR}/${embedderSlug(embedder.id)}`, index: new VectorIndex(embedder.dim), segments: new Set(), mismatched: 0, unreadable: 0, ids: null }
}

async function segmentFiles(backend: MemoryBackend, folder: string): Promise<string[]> {
  return (await backend.listFiles(folder).catch(() => [])).filter((f) => /\/seg-[0-9a-z-]+\.bin$/.test(f)).sort()
}

/** The loaded vectors of the store's embedder, with segments other processes wrote since the last look. */
async function loadedFor(backend: MemoryBackend, embedder: Embedder): Promise<Loaded> {
  let s = states.get(backend)
  if (s === undefined || s.embedder !== embedder) s = emptyState(embedder)
  const files = await segmentFiles(backend, s.folder)
  // A segment gone: another process merged them. Start over from what is there now.
  if ([...s.segments].some((f) => !files.includes(f))) s = emptyState(embedder)
  states.set(backend, s)
  for (const file of files) {
    if (s.segments.has(file)) continue
    const bytes = backend.readBytes === undefined ? null : await backend.readBytes(file)
    if (bytes === null) continue
    s.segments.add(file)
    const segment = decodeSegment(bytes)
    if (segment === null || segment.embedderId !== embedder.id) {
      s.unreadable++
      continue
    }
    if (segment.dim !== embedder.dim) {
      s.mismatched += segment.keys.length
      continue
    }
    segment.keys.forEach((key, i) => s.index.addQuantised(key, segment.codes.subarray(i * segment.dim, (i + 1) * segment.dim), segment.scales[i] as number))
  }
  return s
}

/** Entry ids by the key of their text, for the view as it is now. */
function idsByKey(s: Loaded, view: IndexView): Map<string, string[]> {
  if (s.ids !== null && s.ids.generation === view.generation && s.ids.version === view.currentVersion) return s.ids.byKey
  const byKey = new Map<string, string[]>()
  for (const e of view.values()) {
    if (!isSearchable(e)) continue
    const key = keyOf(e)
    const ids = byKey.get(key)
    if (ids === undefined) byKey.set(key, [e.id])
    else ids.push(e.id)
  }
  s.ids = { generation: view.generation, version: view.currentVersion, byKey }
  return byKey
}

/** Searchable memories without a vector yet, counted again only when the view or the vectors change. */
function pendingOf(s: Loaded, byKey: Map<string, string[]>): number {
  const cached = s.ids?.pending
  if (cached !== undefined && cached.vectors === s.index.size) return cached.count
  let count = 0
  for (const [key, ids] of byKey) if (!s.index.has(key)) count += ids.length
  if (s.ids !== null) s.ids.pending = { vectors: s.index.size, count }
  return count
}

function segmentName(folder: string): string {
  return `${folder}/seg-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}.bin`
}

/** Writes the vectors of these keys as one new segment; false when the store cannot hold bytes. */
async function writeSegment(backend: MemoryBackend, s: Loaded, segmentKeys: readonly string[]): Promise<string | null> {
  if (backend.writeBytesAtomic === undefined || segmentKeys.length === 0) return null
  const dim = s.embedder.dim
  const scales = new Float32Array(segmentKeys.length)
  const codes = new Int8Array(segmentKeys.length * dim)
  segmentKeys.forEach((key, i) => {
    const row = s.index.row(key) as { codes: Int8Array; scale: number }
    scales[i] = row.scale
    codes.set(row.codes, i * dim)
  })
  const file = segmentName(s.folder)
  await backend.writeBytesAtomic(file, encodeSegment({ embedderId: s.embedder.id, dim, keys: [...segmentKeys], scales, codes }))
  s.segments.add(file)
  return file
}

/**
 * Merges the segments into one holding the vectors of texts some entry still has (written first,
 * then the old ones removed), so the vector of a purged or rewritten text does not outlive it.
 * The state is loaded again from the merged segment at the next look.
 */
async function compact(backend: MemoryBackend, s: Loaded, kept: readonly string[]): Promise<void> {
  const old = [...s.segments]
  const merged = await writeSegment(backend, s, kept)
  if (merged === null) return
  for (const file of old) await backend.removeFile(file)
  states.delete(backend)
}

/** The keys held whose text no entry of the view has any more (any status: a restore needs no new vector). */
function deadKeys(s: Loaded, view: IndexView): { kept: string[]; dead: number } {
  const texts = new Set<string>()
  for (const e of view.values()) if (e.type !== 'raw') texts.add(keyOf(e))
  const kept: string[] = []
  let dead = 0
  for (const key of s.index.keys()) {
    if (texts.has(key)) kept.push(key)
    else dead++
  }
  return { kept, dead }
}

interface Marker {
  embedder: string
  dim: number
  at: string
}

async function readMarker(backend: MemoryBackend): Promise<Marker | null> {
  const text = await backend.readFile(EMBEDDER_MARKER).catch(() => null)
  if (text === null) return null
  try {
    const m = JSON.parse(text) as Partial<Marker>
    return typeof m.embedder === 'string' && typeof m.dim === 'number' ? { embedder: m.embedder, dim: m.dim, at: String(m.at ?? '') } : null
  } catch {
    return null
  }
}

/** The queue is empty: the marker says so (once), and the vectors of other embedders go. */
async function completeMigration(backend: MemoryBackend, s: Loaded): Promise<boolean> {
  const marker = await readMarker(backend)
  if (marker !== null && marker.embedder === s.embedder.id && marker.dim === s.embedder.dim) return false
  // Only the current embedder's segments and the marker stay.
  for (const file of await backend.listFiles(VECTORS_DIR).catch(() => [])) {
    if (!file.startsWith(`${s.folder}/`) && file !== EMBEDDER_MARKER) await backend.removeFile(file)
  }
  await backend.writeFileAtomic(EMBEDDER_MARKER, `${JSON.stringify({ embedder: s.embedder.id, dim: s.embedder.dim, at: backend.now() })}\n`)
  return true
}

/**
 * Sets `vector_id` in the index of each searchable entry whose text has a vector and whose
 * vector_id says otherwise (a new memory, one re-read from its file, a change of text): index
 * lines only, under the store lock, for entries unchanged since they were looked at.
 */
async function pointEntries(backend: MemoryBackend, s: Loaded): Promise<void> {
  const stale = (e: IndexEntry) => isSearchable(e) && e.vector_id !== keyOf(e) && s.index.has(keyOf(e))
  const candidates = [...(await backend.indexView()).values()].filter(stale)
  if (candidates.length === 0) return
  await backend.withLock(async () => {
    const view = await backend.indexView()
    const upserts: IndexEntry[] = []
    for (const seen of candidates) {
      const now = view.get(seen.id)
      if (now !== undefined && now.checksum === seen.checksum && stale(now)) upserts.push({ ...now, vector_id: keyOf(now) })
    }
    if (upserts.length > 0) await backend.appendIndex(upserts, [])
  })
}

export interface EmbedOptions {
  /** At most this many texts this call (the rest stay queued). */
  limit?: number
  onProgress?(done: number, total: number): void
}

export interface EmbedReport {
  /** The embedder id, or null: none configured (nothing to do). */
  embedder: string | null
  /** Texts embedded by this call. */
  embedded: number
  /** Texts still waiting. */
  pending: number
  /** True when this call finished a change of embedder (the marker was written, older vectors removed). */
  migrated: boolean
}

/** The searchable texts of the view by key, and those without a vector. */
function queueOf(s: Loaded, view: IndexView): { live: Map<string, string>; pending: string[] } {
  const live = new Map<string, string>()
  for (const e of view.values()) if (isSearchable(e)) live.set(keyOf(e), embeddingText(e))
  return { live, pending: [...live.keys()].filter((k) => !s.index.has(k)) }
}

/** A vector of `dim` finite numbers, or what is wrong with it. */
function vectorFault(v: unknown, dim: number): string | null {
  if (typeof v !== 'object' || v === null || typeof (v as { length?: unknown }).length !== 'number') return 'no vector'
  const vector = v as ArrayLike<unknown>
  if (vector.length !== dim) return `a vector of ${vector.length} dimensions, it declares ${dim}`
  for (let i = 0; i < dim; i++) if (typeof vector[i] !== 'number' || !Number.isFinite(vector[i])) return `a vector with ${String(vector[i])} at ${i}`
  return null
}

/**
 * The texts embedded, secrets redacted first (a hand-typed file or a query may hold one the
 * write path never saw: nothing leaves for an endpoint unredacted), and the answer checked: one
 * vector of `dim` finite numbers per text, else INVALID_STATE naming what is wrong.
 */
async function embedTexts(embedder: Embedder, texts: readonly string[], signal?: AbortSignal): Promise<ArrayLike<number>[]> {
  const vectors: unknown = await embedder.embed(
    texts.map((t) => redactSecrets(t).text),
    signal !== undefined ? { signal } : undefined,
  )
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw new MemoryError('INVALID_STATE', `malformed embeddings answer: embedder ${embedder.id} returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${texts.length} texts`)
  }
  for (let i = 0; i < vectors.length; i++) {
    const fault = vectorFault(vectors[i], embedder.dim)
    if (fault === null) continue
    const mismatch = fault.includes('dimensions')
    throw new MemoryError('INVALID_STATE', `${mismatch ? 'dimension mismatch' : 'malformed embeddings answer'}: embedder ${embedder.id} returned ${fault} for text ${i}`, mismatch ? 'embedder.dim' : undefined)
  }
  return vectors as ArrayLike<number>[]
}

async function drain(backend: MemoryBackend, embedder: Embedder, options: EmbedOptions): Promise<EmbedReport> {
  await ensureFresh(backend)
  const s = await loadedFor(backend, embedder)
  const view = await backend.indexView()
  const { live, pending } = queueOf(s, view)
  const todo = pending.slice(0, options.limit ?? pending.length)
  let done = 0
  options.onProgress?.(0, todo.length)
  for (let i = 0; i < todo.length; i += SEGMENT_VECTORS) {
    const chunk = todo.slice(i, i + SEGMENT_VECTORS)
    const vectors = await embedTexts(embedder, chunk.map((k) => live.get(k) as string))
    const added = chunk.filter((key, j) => s.index.add(key, vectors[j] as ArrayLike<number>))
    try {
      await writeSegment(backend, s, added)
    } catch (err) {
      // A store that cannot be written still searches with what this process embedded.
      warnOnce(backend, 'vectors not saved', err, 'each process embeds again')
    }
    done += chunk.length
    options.onProgress?.(done, todo.length)
  }
  const left = pending.length - done
  try {
    await pointEntries(backend, s)
  } catch (err) {
    warnOnce(backend, 'vector ids not recorded in the index', err, 'search uses the vectors all the same')
  }
  let migrated = false
  if (left === 0 && backend.writeBytesAtomic !== undefined) {
    try {
      const { kept, dead } = deadKeys(s, view)
      // A damaged segment goes with the merge: its texts were embedded again above.
      if (dead > 0 || s.unreadable > 0 || s.segments.size > MAX_SEGMENTS) await compact(backend, s, kept)
      migrated = await completeMigration(backend, s)
    } catch (err) {
      warnOnce(backend, 'vectors not saved', err, 'each process embeds again')
    }
  }
  return { embedder: embedder.id, embedded: done, pending: left, migrated }
}

/**
 * Embeds the queue of the store's embedder (all of it, or `limit` texts), a segment at a time.
 * One drain at a time per store in a process; with no embedder configured it does nothing.
 * An unreachable endpoint or a dimension mismatch is an error; what was embedded before it stays.
 */
export async function embedPending(backend: MemoryBackend, options: EmbedOptions = {}): Promise<EmbedReport> {
  const embedder = await embedderOf(backend)
  if (embedder === null) return { embedder: null, embedded: 0, pending: 0, migrated: false }
  const before = draining.get(backend) ?? Promise.resolve()
  const run = before.catch(() => undefined).then(() => drain(backend, embedder, options))
  draining.set(backend, run)
  try {
    return await run
  } finally {
    if (draining.get(backend) === run) draining.delete(backend)
  }
}

/** A search waits at most this long for its query's vector (all attempts together), unless the embedder sets its own. */
export const QUERY_DEADLINE_MS = 8_000

/** Cosine similarity below this never makes a vector hit (documented with the fusion, fusion.ts). */
export const MIN_SIMILARITY = 0.2

/**
 * The work under a total deadline: its signal aborts at `ms`, and the answer is a TIMEOUT error
 * then even from an embedder that ignores the signal (it is left to finish on its own).
 */
async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(new MemoryError('IO_ERROR', `the embedder gave no query vector within ${ms} ms (all attempts together); searching by keywords`))
    }, ms)
  })
  try {
    return await Promise.race([work(controller.signal), expired])
  } finally {
    clearTimeout(timer)
  }
}

export interface VectorSide {
  /** Memories close in meaning, most similar first, each passing the caller's filters. */
  hits: { id: string; similarity: number }[]
  /** Why there are none when the embedder failed (the search goes on by keywords). */
  error?: string
  /** Searchable memories not embedded yet (written since the last embed): meaning search cannot find them. */
  pending?: number
}

/**
 * The k memories nearest to the query in meaning among those `accept` takes (the filters,
 * scopes, statuses and as-of of the search, applied before any vector is scored); null when the
 * store has no embedder. A failing embedder gives no hits and says why; it never fails the search.
 */
export async function vectorSearch(backend: MemoryBackend, query: string, k: number, accept: (id: string) => boolean): Promise<VectorSide | null> {
  const embedder = await embedderOf(backend)
  if (embedder === null) return null
  if (query.trim() === '') return { hits: [] }
  const s = await loadedFor(backend, embedder)
  const byKey = idsByKey(s, await backend.indexView())
  const pending = pendingOf(s, byKey)
  const waiting = pending > 0 ? { pending } : {}
  if (s.index.size === 0) return { hits: [], ...waiting }
  // A failing embedder is not asked again for a while, by any process: each search would wait for its timeout.
  const down = await embedderDown(backend, memoName(embedder))
  if (down !== null) return { hits: [], error: down, ...waiting }
  let q: ArrayLike<number>
  try {
    ;[q] = (await withDeadline(embedder.queryDeadlineMs ?? QUERY_DEADLINE_MS, (signal) => embedTexts(embedder, [query], signal))) as [ArrayLike<number>]
    await noteEmbedderUp(backend)
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    await noteEmbedderDown(backend, memoName(embedder), message)
    return { hits: [], error: message, ...waiting }
  }
  const acceptKey = (key: string) => (byKey.get(key) ?? []).some(accept)
  const hits: VectorSide['hits'] = []
  for (const hit of s.index.search(q, k, acceptKey)) {
    if (hit.similarity < MIN_SIMILARITY) break
    for (const id of byKey.get(hit.key) ?? []) if (accept(id)) hits.push({ id, similarity: Math.round(hit.similarity * 10_000) / 10_000 })
  }
  return { hits: hits.slice(0, k), ...waiting }
}

export interface VectorDiagnostics {
  kind: string
  embedder: string
  dim: number
  /** Searchable memories with a vector, of `searchable`. */
  embedded: number
  searchable: number
  /** Searchable memories waiting for a vector. */
  pending: number
  /** Vectors kept for this embedder whose length is not its dim (left out of search, embedded again). */
  dimensionMismatches: number
  /** Segment files that could not be read. */
  unreadableSegments: number
  segments: number
  /** Bytes in memory per vector (int8 row, scale, sign code). */
  bytesPerVector: number
  /** The embedder the marker says the store finished embedding with; not the current one while a change is under way. */
  completedEmbedder: string | null
}

/** The state of the vectors, or null when no embedder is configured. Reads only. */
export async function vectorDiagnostics(backend: MemoryBackend): Promise<VectorDiagnostics | null> {
  const embedder = await embedderOf(backend)
  if (embedder === null) return null
  const s = await loadedFor(backend, embedder)
  let searchable = 0
  let embedded = 0
  for (const e of (await backend.indexView()).values()) {
    if (!isSearchable(e)) continue
    searchable++
    if (s.index.has(keyOf(e))) embedded++
  }
  const marker = await readMarker(backend)
  return {
    kind: embedder.kind ?? 'custom',
    embedder: embedder.id,
    dim: embedder.dim,
    embedded,
    searchable,
    pending: searchable - embedded,
    dimensionMismatches: s.mismatched,
    unreadableSegments: s.unreadable,
    segments: s.segments.size,
    bytesPerVector: s.index.bytesPerVector,
    completedEmbedder: marker?.embedder ?? null,
  }
}

/** The diagnostics in one line, for a person (the CLI's stats). Pure. */
export function describeVectors(d: VectorDiagnostics): string {
  const migrating = d.completedEmbedder !== null && d.completedEmbedder !== d.embedder ? `, changing from ${d.completedEmbedder}` : ''
  const unreadable = d.unreadableSegments > 0 ? `, ${d.unreadableSegments} unreadable segments (embedded again by memory-agent embed)` : ''
  return `${'embeddings'.padEnd(15)} ${d.kind} ${d.embedder} (${d.dim} dimensions): ${d.embedded}/${d.searchable} embedded, ${d.pending} pending, ${d.dimensionMismatches} dimension mismatches${unreadable}${migrating}`
}
