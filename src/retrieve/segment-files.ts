/**
 * The search index on disk: `.cache/search/`, one file per immutable segment (segment.ts) and a
 * manifest listing them with their tombstones, the format and tokenizer versions, and the state
 * of index.jsonl the index was saved from.
 *
 * Crash safety: a segment is written aside under a unique temporary name, flushed and renamed
 * (the backend's writeBytesAtomic),
 * the folder flushed; only then is the manifest replaced (atomically, flushed), and only after
 * that are the files it no longer lists removed. A reader therefore finds either the old manifest
 * with all its files or the new one with all of its. A missing, stale or corrupt manifest or
 * segment (a bad header, size or checksum, another version) opens as null: the caller builds the
 * index again from the entries, never answers from a damaged one. Files left by a process killed
 * mid-save are swept by a later save once they are old enough not to be another writer's.
 * The manifest carries the crc32 of its own text: a changed digit (a tombstone, a file name, the
 * state it claims) opens as null like a damaged segment, and is counted (`savedIndexDamage`)
 * and said once, never trusted.
 *
 * It reads and writes only below `<root>/.cache/search/` (and removes the JSON index of earlier
 * versions); it holds nothing that cannot be rebuilt from the store.
 */

import { open, readdir, readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { crc32 } from 'node:zlib'
import type { MemoryBackend } from '../store/backend.js'
import { makeDirs } from '../store/fs-io.js'
import { warnOnce } from '../store/warn-once.js'
import { TOKENIZER_VERSION } from '../language/tokenizer.js'
import { SEARCH_INDEX_FORMAT, SearchIndex, type SavedSegment } from './search-index.js'
import { SEGMENT_LAYOUT } from './segment.js'

export const SEARCH_DIR = '.cache/search'
export const SEARCH_MANIFEST = `${SEARCH_DIR}/manifest.json`
/** The single JSON file earlier versions kept the index in, and its marker: removed at the first save. */
const LEGACY_FILES = ['.cache/search-index.json', '.cache/search-index.meta.json']
const SEGMENT_FILE = /^seg-[0-9a-z]+-[0-9a-f]{12}\.bin$/
/** A file in the folder that no manifest lists is another writer's until it is this old. */
const STRAY_AGE_MS = 10 * 60_000

interface Manifest {
  layout: number
  format: number
  tokenizer: number
  /** Which state of index.jsonl (size:mtime) the index was saved from; null when not known. */
  index: string | null
  segments: SavedSegment[]
}

/** The manifest as written: its fields, then the crc32 of their JSON text. */
function manifestText(manifest: Manifest): string {
  return JSON.stringify({ ...manifest, checksum: crc32(JSON.stringify(manifest)) })
}

/** The manifest's fields when its checksum holds, else null (damaged, or written before it had one). */
function verified(text: string): Partial<Manifest> | null {
  const { checksum, ...fields } = JSON.parse(text) as Partial<Manifest> & { checksum?: unknown }
  return typeof checksum === 'number' && checksum === crc32(JSON.stringify(fields)) ? fields : null
}

/** Damaged saved-index files (by name and content) noticed per store in this process. */
const damage = new WeakMap<MemoryBackend, Set<string>>()

function noteDamage(backend: MemoryBackend, file: string, bytes: string | Uint8Array): void {
  let seen = damage.get(backend)
  if (seen === undefined) damage.set(backend, (seen = new Set()))
  seen.add(`${file}:${crc32(bytes)}`)
  warnOnce(backend, 'damaged search index', new Error(`${file} does not match its checksum`), 'it is built again from index.jsonl, never read')
}

function parseManifest(text: string): Manifest | null {
  try {
    const m = verified(text)
    if (m === null) return null
    if (m.layout !== SEGMENT_LAYOUT || m.format !== SEARCH_INDEX_FORMAT || m.tokenizer !== TOKENIZER_VERSION) return null
    if (!(typeof m.index === 'string' || m.index === null) || !Array.isArray(m.segments)) return null
    const ok = m.segments.every((s) => typeof s === 'object' && s !== null && typeof s.file === 'string' && SEGMENT_FILE.test(s.file) && Array.isArray(s.deleted))
    return ok ? (m as Manifest) : null
  } catch {
    return null
  }
}

async function readManifest(backend: MemoryBackend): Promise<Manifest | null> {
  const text = await backend.readFile(SEARCH_MANIFEST).catch(() => null)
  if (text === null) return null
  const manifest = parseManifest(text)
  if (manifest === null && isDamaged(text)) noteDamage(backend, SEARCH_MANIFEST, text)
  return manifest
}

/** True for a manifest whose text is not what its writer wrote (not: one of another version, which is simply rebuilt). */
function isDamaged(text: string): boolean {
  try {
    return verified(text) === null
  } catch {
    return true
  }
}

/**
 * The damaged files of the saved search index this process has found (the manifest checked
 * now, and what loads found before): each was, or will be, built again from index.jsonl.
 */
export async function savedIndexDamage(backend: MemoryBackend): Promise<number> {
  await readManifest(backend)
  return damage.get(backend)?.size ?? 0
}

const dirOf = (backend: MemoryBackend): string => path.join(backend.root, SEARCH_DIR)

/** The saved index, or null when there is none or it cannot be trusted (then: build again). */
export async function loadSearchIndex(backend: MemoryBackend): Promise<SearchIndex | null> {
  return (await loadSavedIndex(backend))?.index ?? null
}

/** The saved index with the state of index.jsonl its manifest says it was saved from (null: not known). */
export async function loadSavedIndex(backend: MemoryBackend): Promise<{ index: SearchIndex; state: string | null } | null> {
  const manifest = await readManifest(backend)
  if (manifest === null) return null
  const dir = dirOf(backend)
  try {
    const saved = await Promise.all(manifest.segments.map(async (s) => ({ file: s.file, deleted: s.deleted, bytes: await readFile(path.join(dir, s.file)) })))
    const index = SearchIndex.open(saved)
    if (index === null) {
      for (const s of saved) if (SearchIndex.open([{ ...s, deleted: [] }]) === null) noteDamage(backend, `${SEARCH_DIR}/${s.file}`, s.bytes)
      return null
    }
    return { index, state: manifest.index }
  } catch {
    return null
  }
}

/** The state of index.jsonl the saved index claims to reflect; null when there is no usable save. */
export async function savedIndexState(backend: MemoryBackend): Promise<string | null> {
  return (await readManifest(backend))?.index ?? null
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Removes what a killed save left (temporary files, segments no manifest lists) once old enough. */
async function sweepStrays(dir: string, listed: ReadonlySet<string>): Promise<void> {
  const now = Date.now()
  for (const name of await readdir(dir)) {
    if (name === 'manifest.json' || listed.has(name)) continue
    const st = await stat(path.join(dir, name)).catch(() => null)
    if (st !== null && now - st.mtimeMs > STRAY_AGE_MS) await rm(path.join(dir, name), { force: true })
  }
}

/**
 * Saves the index: seals and merges (index.prepareSave), writes the new segments aside, then the
 * manifest that lists them (claiming `state` of index.jsonl), then removes what it replaced.
 */
export async function saveSearchIndex(backend: MemoryBackend, index: SearchIndex, state: string | null): Promise<void> {
  // A backend that cannot write bytes keeps no saved index: the next process builds it again.
  if (backend.writeBytesAtomic === undefined) return
  const dir = dirOf(backend)
  makeDirs(dir)
  const plan = index.prepareSave()
  for (const w of plan.write) await backend.writeBytesAtomic(`${SEARCH_DIR}/${w.file}`, w.bytes)
  if (plan.write.length > 0) await syncDir(dir)
  const manifest: Manifest = { layout: SEGMENT_LAYOUT, format: SEARCH_INDEX_FORMAT, tokenizer: TOKENIZER_VERSION, index: state, segments: plan.segments }
  await backend.writeFileAtomic(SEARCH_MANIFEST, manifestText(manifest))
  index.saved(plan)
  for (const file of plan.drop) await rm(path.join(dir, file), { force: true })
  for (const legacy of LEGACY_FILES) await backend.removeFile(legacy)
  await sweepStrays(dir, new Set(plan.segments.map((s) => s.file)))
}

/** Removes the saved index whole (its manifest first, so no reader opens half of it). */
export async function removeSearchIndex(backend: MemoryBackend): Promise<void> {
  await backend.removeFile(SEARCH_MANIFEST)
  await rm(dirOf(backend), { recursive: true, force: true })
  for (const legacy of LEGACY_FILES) await backend.removeFile(legacy)
}
