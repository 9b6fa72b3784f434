/**
 * Folder memory/transfer/, whose main file this is, owns moving memory between stores and tools:
 * the export bundle and imports of bundles, notes folders and the MCP reference server's JSONL.
 * Imports from the other capability folders: organisation, settings, writing; below memory/
 * anything (retrieve, store, language, ground); nothing above (tools, stores, adapters).
 *
 * Importing memories from outside: an export bundle (lossless), a folder of markdown notes, the
 * MCP reference memory server's JSONL graph, and a Claude-style `/memories` folder. Owns format
 * detection, reading the input (files outside the store, read-only) and the write loop; the
 * formats themselves are in `import/`.
 *
 * Everything but a bundle goes through the normal write path (`writeMemory`): redaction,
 * duplicate detection (exact only: an import never drops an edited version as "near"),
 * versions by key and indexing are the same as for any write. So re-running an import adds
 * nothing. Every import that writes ends with one `import` ledger event (format, counts, ids);
 * a dry run writes nothing at all. An input that is not the format asked for is refused with
 * INVALID_INPUT before anything is written; a bad item inside it is reported by name (and line)
 * and passed over. Library code: no console, no process.
 */

import { pushAll } from '../../arrays.js'
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { MemoryError, asMemoryError, invalidInput, isMemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { contentHash, memoryBody } from '../../store/frontmatter.js'
import { ensureFresh } from '../../store/freshness.js'
import { SCHEMA_VERSION, type IndexEntry } from '../../types.js'
import { loadConfig } from '../settings/config.js'
import type { Bundle } from './export.js'
import { checkBundle, importCheckedBundle, parseBundle, type BundleImportOptions } from './import/bundle.js'
import { parseMcpJsonl } from './import/mcp-jsonl.js'
import { MARKDOWN_NOTE, noteDraft } from './import/notes.js'
import { emptyResult, tally, type Draft, type ImportFormat, type ImportItem, type ImportResult } from './import/types.js'
import { Overlay } from '../writing/txn.js'
import { findRepeat, prepareWrite, writeMemory } from '../writing/write.js'

export { IMPORT_FORMATS, type ImportFormat, type ImportItem, type ImportResult } from './import/types.js'
export { parseMcpJsonl } from './import/mcp-jsonl.js'

export interface ImportOptions {
  /** The input's format; `auto` (default) tells it from the input. */
  format?: ImportFormat | 'auto'
  /** Reads and checks everything, says what would happen, writes nothing. */
  dryRun?: boolean
  /** Called as items are done, with how many are done and how many there are. */
  onProgress?: (done: number, total: number) => void
}

/** Notes larger than this are skipped (reported): a memory file is not a place for a book. */
export const MAX_NOTE_BYTES = 1024 * 1024
/** What detection reads of a file. */
const HEAD_BYTES = 64 * 1024
/** Folders never walked: dependencies. Dot-folders are passed over too. */
const SKIPPED_DIRS = new Set(['node_modules'])

function notFound(sourcePath: string): MemoryError {
  return new MemoryError('NOT_FOUND', `no such file or folder: ${sourcePath}`, 'path')
}

async function statOf(sourcePath: string): Promise<import('node:fs').Stats> {
  try {
    return await fs.stat(sourcePath)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') throw notFound(sourcePath)
    throw err
  }
}

async function head(file: string): Promise<string> {
  const handle = await fs.open(file, 'r')
  try {
    const buffer = Buffer.alloc(HEAD_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0)
    return buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '')
  } finally {
    await handle.close()
  }
}

async function isDir(p: string): Promise<boolean> {
  return (await fs.stat(p).catch(() => null))?.isDirectory() === true
}

/** The folder Claude's memory tool writes: the input itself, or its `memories` subfolder. */
async function memoriesDir(dir: string): Promise<string> {
  if (path.basename(dir) !== 'memories' && (await isDir(path.join(dir, 'memories')))) return path.join(dir, 'memories')
  return dir
}

/** Tells the format of a file or folder. NOT_FOUND when there is none; INVALID_INPUT when no format fits. */
export async function detectImportFormat(sourcePath: string): Promise<ImportFormat> {
  const st = await statOf(sourcePath)
  if (st.isDirectory()) {
    if ((await fs.stat(path.join(sourcePath, 'index.jsonl')).catch(() => null)) !== null && (await isDir(path.join(sourcePath, 'topics')))) {
      throw invalidInput(
        'path',
        `a file or folder to import; ${sourcePath} is a memory store itself: export it (memory-agent export --root ${sourcePath} --out FILE) and import the bundle`,
      )
    }
    if (path.basename(sourcePath) === 'memories' || (await isDir(path.join(sourcePath, 'memories')))) return 'claude-memories'
    return 'markdown'
  }
  const text = await head(sourcePath)
  const firstLine = text.split('\n').find((l) => l.trim() !== '') ?? ''
  try {
    const first = JSON.parse(firstLine) as unknown
    if (typeof first === 'object' && first !== null) {
      const rec = first as Record<string, unknown>
      if (rec.type === 'entity' || rec.type === 'relation') return 'mcp-jsonl'
      if (typeof rec.format === 'string') return 'bundle'
    }
  } catch {
    // not one JSON value per line: a pretty-printed bundle, or another format
  }
  if (/^\s*\{/.test(text) && text.includes('"format"') && text.includes('dsh-memory-agent/bundle')) return 'bundle'
  if (MARKDOWN_NOTE.test(sourcePath)) return 'markdown'
  throw invalidInput(
    'path',
    `an export bundle, MCP memory JSONL, a markdown note or a folder; cannot tell what ${sourcePath} is (choose with --format: bundle, markdown, mcp-jsonl, claude-memories)`,
  )
}

/** A text file's content, or why it cannot be a note. */
async function readText(file: string, size: number): Promise<{ text: string } | { reason: string }> {
  if (size > MAX_NOTE_BYTES) return { reason: `too large (${size} bytes; a note may have ${MAX_NOTE_BYTES})` }
  const bytes = await fs.readFile(file)
  if (bytes.includes(0)) return { reason: 'not a text file' }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) }
  } catch {
    return { reason: 'not UTF-8 text' }
  }
}

/** Files below dir (relative, '/'-separated, sorted), dot-entries and node_modules passed over; links are reported, not followed. */
async function listNotes(dir: string, accept: (relPath: string) => boolean, skipped: ImportItem[]): Promise<string[]> {
  const out: string[] = []
  const walk = async (rel: string): Promise<void> => {
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`
      if (entry.isSymbolicLink()) skipped.push({ source: child, outcome: 'skipped', reason: 'a symbolic link (not followed)' })
      else if (entry.isDirectory()) await walk(child)
      else if (entry.isFile() && accept(child)) out.push(child)
    }
  }
  await walk('')
  return out
}

interface Drafts {
  drafts: Draft[]
  skipped: ImportItem[]
  warnings: string[]
}

/** Notes of a folder (or one markdown file) as drafts. */
async function noteDrafts(format: 'markdown' | 'claude-memories', sourcePath: string, isFile: boolean): Promise<Drafts> {
  const out: Drafts = { drafts: [], skipped: [], warnings: [] }
  const warn = (message: string) => out.warnings.push(message)
  const dir = isFile ? path.dirname(sourcePath) : format === 'claude-memories' ? await memoriesDir(sourcePath) : sourcePath
  const files = isFile ? [path.basename(sourcePath)] : await listNotes(dir, format === 'markdown' ? (p) => MARKDOWN_NOTE.test(p) : () => true, out.skipped)
  for (const relPath of files) {
    const abs = path.join(dir, relPath)
    const st = await fs.stat(abs)
    const read = await readText(abs, st.size)
    if ('reason' in read) {
      out.skipped.push({ source: relPath, outcome: 'skipped', reason: read.reason })
      continue
    }
    const parsed = noteDraft(format, relPath, read.text, st.mtimeMs, warn)
    if ('draft' in parsed) out.drafts.push(parsed.draft)
    else out.skipped.push(parsed.skipped)
  }
  if (out.drafts.length === 0 && out.skipped.length === 0) {
    throw invalidInput('path', `${format === 'markdown' ? 'markdown notes (.md, .markdown)' : 'memory files'} to import; ${dir} has none`)
  }
  return out
}

/** The entry a dry run pretends a draft became, so later drafts can repeat it. */
function pretend(n: number, w: ReturnType<typeof prepareWrite>): IndexEntry {
  return {
    schema_version: SCHEMA_VERSION,
    id: `(new ${n})`,
    path: `(dry run)/${n}`,
    type: w.type,
    title: w.title,
    summary: w.summary,
    tags: w.tags,
    entities: w.entities,
    time: new Date(w.time ?? 0).toISOString(),
    sources: [w.source],
    session_id: w.sessionId,
    confidence: 0.6,
    raw_ref: null,
    vector_id: null,
    status: w.gated ? 'suggested' : 'active',
    key: w.slotKey,
    supersedes: null,
    superseded_by: null,
    variants: [],
    episode: null,
    anchors: [],
    content_hash: contentHash(w.type, w.summary),
    checksum: '',
  }
}

/** A dry run of the write loop: the write path's own checks against the index and what came before. */
async function predict(backend: MemoryBackend, ordered: Draft[], result: ImportResult, onProgress?: (done: number, total: number) => void): Promise<void> {
  const config = await loadConfig(backend)
  const overlay = new Overlay(await backend.indexView())
  const bodies = new Map<string, string>()
  const sources = new Map<string, string>()
  for (const [i, d] of ordered.entries()) {
    try {
      const w = prepareWrite(config, d.request, d.options)
      const repeat = await findRepeat(overlay, async (p) => bodies.get(p) ?? (await backend.readFile(p)), w)
      if (repeat !== null) {
        const earlier = sources.get(repeat.entry.id)
        Object.assign(d.item, { outcome: 'duplicate', reason: earlier !== undefined ? `same content as ${earlier} in this import` : `same content as ${repeat.entry.id}` })
        if (earlier === undefined) d.item.id = repeat.entry.id
      } else {
        const entry = pretend(i, w)
        if (w.slotKey !== null && !w.gated && d.request.expectConflict !== true) {
          for (const mate of overlay.inSlot(w.slot)) {
            if (mate.type !== w.type || (mate.status !== 'active' && mate.status !== 'conflict')) continue
            overlay.put({ ...mate, status: 'superseded' })
            result.superseded++
          }
        }
        overlay.put(entry)
        bodies.set(entry.path, memoryBody(w.title, w.summary, w.details))
        sources.set(entry.id, d.item.source + (d.item.line !== undefined ? `:${d.item.line}` : ''))
        for (const r of w.redactions) if (!result.redactions.includes(r)) result.redactions.push(r)
      }
    } catch (err) {
      if (!isMemoryError(err) || err.code !== 'INVALID_INPUT') throw err
      Object.assign(d.item, { outcome: 'skipped', reason: err.message })
    }
    onProgress?.(i + 1, ordered.length)
  }
}

/** Writes drafts through the write path, oldest first (so versions supersede in order), then logs the import. */
async function writeDrafts(backend: MemoryBackend, format: ImportFormat, source: string, input: Drafts, options: ImportOptions): Promise<ImportResult> {
  const dryRun = options.dryRun === true
  const result = emptyResult(format, source, 'write', dryRun)
  pushAll(result.warnings, input.warnings)
  const ordered = [...input.drafts].sort((a, b) => (a.request.time ?? '').localeCompare(b.request.time ?? ''))
  if (dryRun) {
    await predict(backend, ordered, result, options.onProgress)
  } else {
    const ids: string[] = []
    let failure: unknown = null
    for (const [i, d] of ordered.entries()) {
      if (failure !== null) {
        Object.assign(d.item, { outcome: 'skipped', reason: 'not imported: the import stopped before it' })
        continue
      }
      try {
        const out = await writeMemory(backend, d.request, d.options)
        d.item.id = out.id
        if (out.dedupe !== undefined) Object.assign(d.item, { outcome: 'duplicate', reason: `same content as ${out.id}` })
        else ids.push(out.id)
        result.superseded += out.superseded.length
        for (const r of out.redactions) if (!result.redactions.includes(r)) result.redactions.push(r)
      } catch (err) {
        if (isMemoryError(err) && err.code === 'INVALID_INPUT') Object.assign(d.item, { outcome: 'skipped', reason: err.message })
        else {
          failure = err
          Object.assign(d.item, { outcome: 'skipped', reason: `not imported: ${err instanceof Error ? err.message : String(err)}` })
        }
      }
      options.onProgress?.(i + 1, ordered.length)
    }
    result.items = [...input.drafts.map((d) => d.item), ...input.skipped]
    tally(result)
    // What was written stays written (each write is whole); the event says how far it got.
    await backend.withLock(() =>
      backend.appendLedger({
        at: backend.now(),
        event: 'import',
        format,
        from: source,
        mode: 'write',
        found: result.found,
        added: result.added,
        duplicates: result.duplicates,
        skipped: result.skipped,
        superseded: result.superseded,
        ids,
        ...(failure !== null ? { error: isMemoryError(failure) ? failure.code : 'IO_ERROR' } : {}),
      }),
    )
    if (failure !== null) throw failure
    return result
  }
  result.items = [...input.drafts.map((d) => d.item), ...input.skipped]
  return tally(result)
}

/**
 * Imports a file or folder into the store. The format is detected unless given. Throws
 * NOT_FOUND when the input does not exist and INVALID_INPUT when it is not the format (or no
 * format fits); then nothing is written. A source it cannot read is an IO_ERROR naming the file.
 */
export async function importMemories(backend: MemoryBackend, sourcePath: string, options: ImportOptions = {}): Promise<ImportResult> {
  try {
    return await importFrom(backend, sourcePath, options)
  } catch (err) {
    throw asMemoryError(err)
  }
}

async function importFrom(backend: MemoryBackend, sourcePath: string, options: ImportOptions): Promise<ImportResult> {
  const st = await statOf(sourcePath)
  const format = options.format === undefined || options.format === 'auto' ? await detectImportFormat(sourcePath) : options.format
  const name = path.basename(sourcePath)
  const isFile = !st.isDirectory()
  if ((format === 'bundle' || format === 'mcp-jsonl') && !isFile) throw invalidInput('path', `a ${format} file; ${sourcePath} is a folder`)
  if (format === 'claude-memories' && isFile) throw invalidInput('path', `a folder (the memories folder, or one that holds it); ${sourcePath} is a file`)
  await ensureFresh(backend)
  switch (format) {
    case 'bundle':
      return importCheckedBundle(backend, parseBundle(await fs.readFile(sourcePath, 'utf8'), name), { ...options, source: name })
    case 'mcp-jsonl':
      return writeDrafts(backend, format, name, parseMcpJsonl(await fs.readFile(sourcePath, 'utf8'), name), options)
    case 'markdown':
    case 'claude-memories':
      return writeDrafts(backend, format, name, await noteDrafts(format, sourcePath, isFile), options)
  }
}

/** Imports a bundle given as an object or its JSON text (see `import/bundle.ts`). */
export async function importBundle(backend: MemoryBackend, bundle: Bundle | string, options: BundleImportOptions = {}): Promise<ImportResult> {
  const name = options.source ?? 'bundle'
  const checked = typeof bundle === 'string' ? parseBundle(bundle, name) : checkBundle(bundle, name)
  await ensureFresh(backend)
  return importCheckedBundle(backend, checked, options)
}
