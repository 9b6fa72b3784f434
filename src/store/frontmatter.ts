/**
 * Memory files: YAML front-matter (gray-matter) plus a markdown body, both ways.
 *
 * `entryFromFile` is the single derivation of an index entry from a file's text; the write path
 * and `rebuildIndex` both use it, so a rebuilt index equals the written one by construction.
 * Hand-written files without front-matter are tolerated. Only YAML front-matter is parsed:
 * gray-matter would `eval` a `---js` block, and a memory file may come from anywhere. A closed
 * front-matter block that does not parse is never taken for text: the file keeps the id its name
 * carries and the fields that place it among versions which parse one by one (its slot, its
 * status), its entry says where the YAML breaks, and it stays out of search until it is fixed;
 * a write into the slot it holds is refused with that file named (issue 28).
 */

import type grayMatter from 'gray-matter'
import {
  ANCHOR_KINDS,
  MEMORY_STATUSES,
  MEMORY_TYPES,
  SCHEMA_VERSION,
  SOURCE_KINDS,
  type Anchor,
  type AnchorKind,
  type FrontMatterError,
  type IndexEntry,
  type MemoryStatus,
  type MemoryType,
  type Source,
  type SourceKind,
} from '../types.js'
import { collapseWhitespace, normalizeForHash, sha1, truncate } from '../text.js'
import { lazyRequire } from './fs-io.js'
import { typeOfFolder } from './layout.js'
import { baseName, nameId } from './identity.js'
import { claimFieldsFromFrontMatter } from './claim-fields.js'
import { placeFieldsFromFile } from './place-fields.js'
import { reviewFieldsFromFrontMatter } from './review-fields.js'

const matter = lazyRequire<typeof grayMatter>('gray-matter')

/** Longest summary kept in the summary layer, in characters. */
export const MAX_SUMMARY_CHARS = 2000
/** Longest excerpt of a raw file used as its summary. */
const RAW_SUMMARY_CHARS = 200
const DEFAULT_CONFIDENCE = 0.6

function refuseEngine(): never {
  throw new Error('only YAML front-matter is read')
}
const MATTER_OPTIONS = {
  language: 'yaml',
  engines: {
    js: { parse: refuseEngine, stringify: refuseEngine },
    javascript: { parse: refuseEngine, stringify: refuseEngine },
    coffee: { parse: refuseEngine, stringify: refuseEngine },
    coffeescript: { parse: refuseEngine, stringify: refuseEngine },
    cson: { parse: refuseEngine, stringify: refuseEngine },
    toml: { parse: refuseEngine, stringify: refuseEngine },
  },
}

export interface ParsedFile {
  /** Front-matter fields, including ones this program does not know (kept on rewrite). */
  data: Record<string, unknown>
  /** The text below the front-matter; the whole text when there is none or it does not parse. */
  body: string
  /** False when the file has no front-matter block, or one that does not parse. */
  hasFrontMatter: boolean
  /** A closed front-matter block is there but is not YAML fields: where it breaks, and why. */
  error?: FrontMatterError
  /**
   * With `error`: the fields of the block that place it among versions (slot, status, links)
   * and parse on their own (each top-level `name: value` line with the lines indented below it),
   * so the store still knows the slot and status a broken file holds. Never written back: the
   * file is not rewritten until a person fixes it.
   */
  salvaged?: Record<string, unknown>
}

/** Where a front-matter block closes (gray-matter's rule: the next line that starts with `---`), or -1. */
function closingFence(normalized: string): number {
  return normalized.indexOf('\n---', 3)
}

/** The text below a closed front-matter block, as gray-matter would give it. */
function textBelowBlock(normalized: string): string {
  return normalized.slice(closingFence(normalized) + 4).replace(/^\n/, '')
}

/** The line (in the file) and reason of a gray-matter / js-yaml error; its mark counts lines from the opening fence. */
function errorAt(err: unknown): FrontMatterError {
  const { reason, mark } = err as { reason?: unknown; mark?: { line?: unknown } }
  const line = typeof mark?.line === 'number' ? mark.line + 1 : 1
  return { line, reason: typeof reason === 'string' ? reason : err instanceof Error ? err.message : String(err) }
}

export function parseFile(text: string): ParsedFile {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n')
  const plain: ParsedFile = { data: {}, body: normalized, hasFrontMatter: false }
  if (!normalized.startsWith('---')) return plain
  let error: FrontMatterError
  try {
    // Passing options also keeps gray-matter from caching and sharing the parsed object.
    const parsed = matter()(normalized, MATTER_OPTIONS)
    const data = parsed.data as unknown
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) return { data: { ...(data as Record<string, unknown>) }, body: parsed.content, hasFrontMatter: true }
    error = { line: 2, reason: `the front-matter is ${Array.isArray(data) ? 'a list' : 'a single value'}, not \`name: value\` fields` }
  } catch (err) {
    error = errorAt(err)
  }
  // Without a closing fence the opening `---` is a rule above prose, not front-matter.
  const close = closingFence(normalized)
  if (close === -1) return plain
  // A parser that ran off the end of the block marks the closing fence: the block's last line is meant.
  const lastLine = normalized.slice(0, close).split('\n').length
  const opening = normalized.slice(0, normalized.indexOf('\n')).trim()
  return { ...plain, error: { ...error, line: Math.min(error.line, lastLine) }, salvaged: opening === '---' ? salvageFields(normalized.slice(4, close)) : {} }
}

const FIELD_START = /^[A-Za-z_][\w-]*[ \t]*:/
/**
 * The fields salvaged from a broken block: what places the memory among its versions (its slot,
 * status, type, links to other versions, sources). Not its id (the name's, so a broken file is
 * found where its name says) nor its title (the heading below the block says it).
 */
const SALVAGED = new Set(['key', 'slot', 'status', 'type', 'supersedes', 'superseded_by', 'variants', 'episode', 'session_id', 'sources'])

/**
 * The SALVAGED fields of a YAML block that parse one by one: a top-level `name:` line and the
 * indented (or list) lines below it make one field; a field that does not parse alone, one
 * followed by a stray top-level line, and a name seen before are left out. Pure.
 */
function salvageFields(block: string): Record<string, unknown> {
  const fields: Array<string | null> = []
  for (const line of block.split('\n')) {
    if (FIELD_START.test(line)) fields.push(line)
    else if (/^([ \t]|- |-$)/.test(line) || line.trim() === '') {
      const last = fields.length - 1
      if (last >= 0 && fields[last] !== null) fields[last] = `${fields[last]}\n${line}`
    } else if (fields.length > 0) fields[fields.length - 1] = null
  }
  const out: Record<string, unknown> = {}
  const seen = new Set<string>()
  for (const field of fields) {
    if (field === null) continue
    const name = (FIELD_START.exec(field)?.[0] ?? '').replace(/[ \t]*:$/, '')
    if (seen.has(name) || !SALVAGED.has(name)) continue
    seen.add(name)
    try {
      const data = matter()(`---\n${field}\n---\n`, MATTER_OPTIONS).data as Record<string, unknown>
      if (Object.keys(data).length === 1 && name in data) out[name] = data[name]
    } catch {
      // this field is what breaks the block
    }
  }
  return out
}

/** `path:line: the front-matter does not parse (reason)`: how every report names a broken block. */
export function describeUnreadable(relPath: string, error: FrontMatterError): string {
  return `${relPath}:${error.line}: the front-matter does not parse (${error.reason})`
}

/** A file whose front-matter does not parse, as rebuild, memory_sweep and the panel report it. */
export interface UnreadableFile {
  id: string
  path: string
  line: number
  reason: string
}

/** The entries whose front-matter does not parse, in path order. */
export function unreadableFiles(entries: Iterable<IndexEntry>): UnreadableFile[] {
  const out: UnreadableFile[] = []
  for (const e of entries) if (e.front_matter_error !== undefined) out.push({ id: e.id, path: e.path, ...e.front_matter_error })
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** Renders front-matter and body. Fields that are null, undefined or empty lists are left out. */
export function renderFile(data: Record<string, unknown>, body: string): string {
  const clean: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data)) {
    if (value === null || value === undefined) continue
    if (Array.isArray(value) && value.length === 0 && key !== 'sources') continue
    clean[key] = value
  }
  const text = matter().stringify(body.endsWith('\n') ? body : `${body}\n`, clean, MATTER_OPTIONS)
  return text
}

/**
 * The body of a topic or episode file: a heading and the summary paragraph, then any details
 * (markdown kept as given, below a blank line).
 */
export function memoryBody(title: string, summary: string, details = ''): string {
  const head = `# ${collapseWhitespace(title)}\n\n${summary}\n`
  const rest = trimBlankLines(details)
  return rest === '' ? head : `${head}\n${rest}\n`
}

/** Blank lines at the start and whitespace at the end removed; the first line's indent is kept. */
function trimBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\n)+/, '').trimEnd()
}

function asString(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString()
  return null
}

function asStringList(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : []
  const out: string[] = []
  for (const item of items) {
    const s = asString(item)?.trim()
    if (s && !out.includes(s)) out.push(s)
  }
  return out
}

function asTime(value: unknown): string | null {
  const s = asString(value)
  if (s === null) return null
  const ms = Date.parse(s)
  return Number.isNaN(ms) ? null : new Date(ms).toISOString()
}

function asSources(value: unknown): Source[] | null {
  if (!Array.isArray(value)) return null
  const out: Source[] = []
  for (const item of value) {
    if (typeof item === 'object' && item !== null) {
      const rec = item as Record<string, unknown>
      const kind = SOURCE_KINDS.includes(rec.kind as SourceKind) ? (rec.kind as SourceKind) : 'session'
      out.push({ session_id: asString(rec.session_id), kind })
    } else {
      // Compact form `session:kind`, as people tend to write it by hand.
      const s = asString(item)
      if (s === null) continue
      const at = s.lastIndexOf(':')
      const kind = at >= 0 ? s.slice(at + 1) : ''
      if (SOURCE_KINDS.includes(kind as SourceKind)) out.push({ session_id: s.slice(0, at) || null, kind: kind as SourceKind })
      else out.push({ session_id: s, kind: 'session' })
    }
  }
  return out
}

/** At most this many anchors per memory; name and value at most 200 characters each. */
export const MAX_ANCHORS = 8
const ANCHOR_TEXT = 200

/** Anchors as stored: known kinds only, trimmed, cut, de-duplicated, at most eight. Pure. */
/**
 * What cleanAnchors cuts from anchors a caller gives: one warning per name or value longer than
 * ANCHOR_TEXT characters (after trimming), naming the field. Pure.
 */
export function anchorCuts(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  const out: string[] = []
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'object' || item === null) return
    for (const field of ['name', 'value'] as const) {
      const text = asString((item as Record<string, unknown>)[field])?.trim()
      if (text !== undefined && text.length > ANCHOR_TEXT) out.push(`anchors[${i}].${field}: ${text.length} characters cut to the first ${ANCHOR_TEXT}`)
    }
  })
  return out
}

export function cleanAnchors(value: unknown): Anchor[] {
  const out: Anchor[] = []
  if (!Array.isArray(value)) return out
  for (const item of value) {
    if (typeof item !== 'object' || item === null) continue
    const rec = item as Record<string, unknown>
    if (!ANCHOR_KINDS.includes(rec.kind as AnchorKind)) continue
    const name = asString(rec.name)?.trim().slice(0, ANCHOR_TEXT) || null
    const text = (asString(rec.value) ?? '').trim().slice(0, ANCHOR_TEXT)
    // An env anchor may check presence only (empty value); every other kind needs a value.
    if (rec.kind === 'env' ? name === null : text === '') continue
    const anchor: Anchor = { kind: rec.kind as AnchorKind, name, value: text }
    if (out.some((a) => a.kind === anchor.kind && a.name === anchor.name && a.value === anchor.value)) continue
    out.push(anchor)
    if (out.length === MAX_ANCHORS) break
  }
  return out
}

const HEADING = /^#{1,6}[ \t]+(.+?)[ \t#]*$/

/** Title (first heading), the first paragraph after it, and what follows that paragraph. */
function headingAndParagraph(body: string): { heading: string | null; paragraph: string; rest: string } {
  const lines = body.split('\n')
  let i = 0
  while (i < lines.length && (lines[i] ?? '').trim() === '') i++
  let heading: string | null = null
  const match = HEADING.exec((lines[i] ?? '').trim())
  if (match) {
    heading = (match[1] ?? '').trim()
    i++
  }
  while (i < lines.length && (lines[i] ?? '').trim() === '') i++
  const para: string[] = []
  while (i < lines.length && (lines[i] ?? '').trim() !== '') para.push(lines[i++] ?? '')
  return { heading, paragraph: collapseWhitespace(para.join(' ')), rest: trimBlankLines(lines.slice(i).join('\n')) }
}

/** What a memory body holds below its heading and summary paragraph: details a person or an import added. */
export function detailsOf(body: string): string {
  return headingAndParagraph(body.replace(/\r\n/g, '\n')).rest
}

/** True for a path that may hold a memory: a .md file in a memory folder, not a folder note. */
export function isMemoryPath(relPath: string): boolean {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1)
  return typeOfFolder(relPath) !== null && name.toLowerCase().endsWith('.md') && name !== '_index.md' && !name.startsWith('.')
}

export function contentHash(type: MemoryType, summary: string): string {
  return sha1(`${type}\n${normalizeForHash(summary)}`)
}

/** The slot key: a caller's `key` wins over a derived `slot` (memory/truth/claim-extract.ts), which a person may correct. */
function slotFields(data: Record<string, unknown>): Pick<IndexEntry, 'key' | 'key_derived'> {
  const key = asString(data.key)?.trim() || null
  if (key !== null) return { key }
  const slot = asString(data.slot)?.trim() || null
  return slot === null ? { key: null } : { key: slot, key_derived: true }
}

/**
 * The index entry for a memory file, derived from its text alone (and its modification time
 * when the front-matter gives none). Never throws on odd content: it falls back field by field.
 * The id is the one the front-matter states, else the one the file name carries. The id a
 * store indexes the file under may still differ, when another file keeps it (identity.ts).
 */
export function entryFromFile(relPath: string, text: string, mtimeMs: number): IndexEntry {
  const parsed = parseFile(text)
  const { error } = parsed
  // A broken block's fields are known as far as they parse one by one (parseFile).
  const data = parsed.salvaged ?? parsed.data
  // The fields of a broken block are unknown; its text is not the memory's text.
  const body = error === undefined ? parsed.body : textBelowBlock(parsed.body)
  const folderType = typeOfFolder(relPath) ?? 'topic'
  const type = MEMORY_TYPES.includes(data.type as MemoryType) ? (data.type as MemoryType) : folderType
  const { heading, paragraph } = headingAndParagraph(body)
  const title = collapseWhitespace(asString(data.title) ?? heading ?? baseName(relPath)) || baseName(relPath)
  const summary =
    type === 'raw' ? truncate(collapseWhitespace(body), RAW_SUMMARY_CHARS) : truncate(paragraph, MAX_SUMMARY_CHARS)
  const sessionId = asString(data.session_id)
  const sources = asSources(data.sources) ?? (sessionId !== null ? [{ session_id: sessionId, kind: 'session' as const }] : [])
  const confidence = typeof data.confidence === 'number' && data.confidence >= 0 && data.confidence <= 1 ? data.confidence : DEFAULT_CONFIDENCE
  const id = asString(data.id)?.trim()
  return {
    schema_version: SCHEMA_VERSION,
    id: id && !/[/\\\0]/.test(id) ? id : nameId(relPath),
    path: relPath,
    type,
    title,
    summary,
    tags: asStringList(data.tags),
    entities: asStringList(data.entities),
    time: asTime(data.time) ?? new Date(mtimeMs).toISOString(),
    sources,
    session_id: sessionId ?? sources.find((s) => s.session_id !== null)?.session_id ?? null,
    confidence,
    raw_ref: asString(data.raw_ref),
    vector_id: null,
    status: MEMORY_STATUSES.includes(data.status as MemoryStatus) ? (data.status as MemoryStatus) : 'active',
    ...slotFields(data),
    supersedes: asString(data.supersedes),
    superseded_by: asString(data.superseded_by),
    variants: asStringList(data.variants),
    episode: asString(data.episode),
    anchors: cleanAnchors(data.anchors),
    content_hash: contentHash(type, summary),
    checksum: sha1(text),
    ...claimFieldsFromFrontMatter(data),
    ...placeFieldsFromFile(data, type === 'raw' ? '' : body),
    ...reviewFieldsFromFrontMatter(data),
    ...(error !== undefined ? { front_matter_error: error } : {}),
  }
}
