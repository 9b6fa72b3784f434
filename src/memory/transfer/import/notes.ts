/**
 * Notes to memories: one markdown (or, from a Claude `/memories` folder, any text) file becomes
 * one draft for the write path. Pure: takes a file's text, returns a draft or a reason to skip;
 * it never reads the disk and never decides duplicates (the write path does).
 *
 * The mapping: the title is the front-matter `title`, else the first heading, else the file
 * name; the summary is the first paragraph when it is plain prose of at most 2000 characters,
 * and everything after it stays below as details, verbatim. A note that opens with a list, a
 * table, code or a longer paragraph keeps its whole text as details under a short lead, so no
 * formatting is flattened. Front-matter fields of this program (and plain `title`, `tags`,
 * `date`) are honoured; any other field is kept in the new file's front-matter.
 */

import { MAX_SUMMARY_CHARS, describeUnreadable, parseFile } from '../../../store/frontmatter.js'
import { collapseWhitespace, normalizeSlot, truncate } from '../../../text.js'
import { SOURCE_KINDS, type AnchorKind, type SourceKind } from '../../../types.js'
import { OWN_FRONT_MATTER, type WriteRequest } from '../../writing/write.js'
import type { Draft, ImportFormat, Parsed } from './types.js'

/** Files of a Claude memory folder kept as a fenced block under their language, not read as markdown. */
const FENCED: Readonly<Record<string, string>> = {
  xml: 'xml',
  json: 'json',
  jsonl: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  csv: 'csv',
  html: 'html',
  htm: 'html',
}
/** Characters of the lead written above a note whose opening block cannot be the summary. */
const LEAD_CHARS = 300
/** What the write tool allows for titles, tags and entities; imports keep to the same. */
const TITLE_CHARS = 200
const LIST_ITEMS = 32
const LIST_ITEM_CHARS = 64

export const MARKDOWN_NOTE = /\.(md|markdown)$/i

/** Fields that link to other memories by id: the ids of another store mean nothing here. */
const LINKS = new Set(['retracts', 'retracted_by'])

const HEADING = /^#{1,6}[ \t]+(.+?)[ \t#]*$/
/** Lines that make a block something other than a prose paragraph. */
const NOT_PROSE = /^(?:\s{0,3}(?:#{1,6}\s|>|[-*+]\s|\d+[.)]\s|\||<|```|~~~|---|\*\*\*|___)|\s{4}|\t)/

function extension(relPath: string): string {
  const name = relPath.split('/').pop() ?? relPath
  const dot = name.lastIndexOf('.')
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : ''
}

function withoutExtension(relPath: string): string {
  return extension(relPath) === '' ? relPath : relPath.slice(0, relPath.lastIndexOf('.'))
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return collapseWhitespace(value) || null
  if (typeof value === 'number') return String(value)
  return null
}

function time(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  const s = text(value)
  if (s === null) return null
  const ms = Date.parse(s)
  return Number.isNaN(ms) ? null : new Date(ms).toISOString()
}

/** A front-matter list (or comma-separated text) as the write tool would take it. */
function list(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : []
  const out: string[] = []
  for (const item of items) {
    const s = text(item)?.replace(/^#/, '')
    if (s && !out.includes(s)) out.push(truncate(s, LIST_ITEM_CHARS))
  }
  return out.slice(0, LIST_ITEMS)
}

/** A YAML date (`date: 2025-03-04`, read as a Date) back as the date it was, not a timestamp. */
function asWritten(value: unknown): unknown {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) return value
  const iso = value.toISOString()
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso
}

/** Markdown markers and tags taken off, for a one-line lead. */
function plain(block: string): string {
  return collapseWhitespace(
    block
      .split('\n')
      .filter((line) => !/^\s*(```|~~~)/.test(line))
      .map((line) => line.replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/, ''))
      .join(' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/[|`]/g, ' '),
  )
}

function lead(content: string, fallback: string): string {
  const first = plain(content.split(/\n[ \t]*\n/)[0] ?? '')
  return truncate(first || plain(content) || fallback, LEAD_CHARS)
}

/** A fence longer than any backtick run in the text, so the text cannot close it. */
function fenced(content: string, language: string): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = '`'.repeat(longest + 1)
  return `${fence}${language}\n${content}\n${fence}`
}

interface Split {
  heading: string | null
  summary: string
  details: string
}

/**
 * The heading (taken as the title only when there is no other, or it says the same), the summary
 * and the details of a markdown body.
 */
export function splitNote(body: string, title: string | null): Split {
  const lines = body.split('\n')
  let i = 0
  while (i < lines.length && (lines[i] ?? '').trim() === '') i++
  let heading: string | null = null
  const match = HEADING.exec((lines[i] ?? '').trim())
  if (match && (title === null || normalizeSlot(match[1] ?? '') === normalizeSlot(title))) {
    heading = collapseWhitespace(match[1] ?? '')
    i++
  }
  const content = lines.slice(i).join('\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd()
  if (content.trim() === '') return { heading, summary: '', details: '' }
  const end = content.search(/\n[ \t]*\n/)
  const first = end < 0 ? content : content.slice(0, end)
  const summary = collapseWhitespace(first)
  if (first.split('\n').every((line) => !NOT_PROSE.test(line)) && Array.from(summary).length <= MAX_SUMMARY_CHARS) {
    return { heading, summary, details: end < 0 ? '' : content.slice(end) }
  }
  return { heading, summary: lead(content, ''), details: content }
}

/** The session and source a note names: `session_id`, else the first of its `sources`. */
function origin(data: Record<string, unknown>): { session_id?: string; source?: SourceKind } {
  const session = text(data.session_id)
  if (session !== null) return { session_id: session }
  if (!Array.isArray(data.sources)) return {}
  const first: unknown = data.sources[0]
  if (typeof first !== 'object' || first === null) return {}
  const rec = first as Record<string, unknown>
  const id = text(rec.session_id)
  const kind = SOURCE_KINDS.includes(rec.kind as SourceKind) ? (rec.kind as SourceKind) : undefined
  return { ...(id !== null ? { session_id: id } : {}), ...(kind !== undefined ? { source: kind } : {}) }
}

/**
 * One note as a draft. `relPath` is the note's path inside the imported folder; `mtimeMs` its
 * modification time (the memory's time when the front-matter names none). `warn` hears about
 * what was read other than intended (front-matter that does not parse).
 */
export function noteDraft(format: Extract<ImportFormat, 'markdown' | 'claude-memories'>, relPath: string, raw: string, mtimeMs: number, warn: (message: string) => void): Parsed {
  const item = { source: relPath, outcome: 'added' as const }
  const source = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
  if (source.trim() === '') return { skipped: { ...item, outcome: 'skipped', reason: 'empty file' } }
  const language = format === 'claude-memories' ? FENCED[extension(relPath)] : undefined
  const name = format === 'claude-memories' ? withoutExtension(relPath) : withoutExtension(relPath.split('/').pop() ?? relPath)

  let data: Record<string, unknown> = {}
  let split: Split
  if (language !== undefined) {
    const content = source.trimEnd()
    split = { heading: null, summary: lead(content, name), details: fenced(content, language) }
  } else {
    const parsed = parseFile(source)
    if (parsed.error !== undefined) warn(`${describeUnreadable(relPath, parsed.error)}; the note was read as text`)
    data = parsed.data
    if (data.type === 'raw') return { skipped: { ...item, outcome: 'skipped', reason: 'raw text of an episode (import its store as a bundle to keep it with the episode)' } }
    if (data.status === 'deleted_pending') return { skipped: { ...item, outcome: 'skipped', reason: 'forgotten in its store (status deleted_pending)' } }
    split = splitNote(parsed.body, text(data.title))
  }

  const title = truncate(text(data.title) ?? split.heading ?? name, TITLE_CHARS)
  const { session_id, source: kind } = origin(data)
  const request: WriteRequest = {
    summary: split.summary || title,
    title,
    type: data.type === 'episode' && session_id !== undefined ? 'episode' : 'topic',
    tags: list(data.tags),
    entities: list(data.entities),
    time: time(data.time) ?? time(data.date) ?? time(data.created) ?? new Date(mtimeMs).toISOString(),
    ...(text(data.key) !== null ? { key: truncate(text(data.key) as string, TITLE_CHARS) } : {}),
    ...(session_id !== undefined ? { session_id } : {}),
    ...(kind !== undefined ? { source: kind } : {}),
    ...(typeof data.confidence === 'number' && data.confidence >= 0 && data.confidence <= 1 ? { confidence: data.confidence } : {}),
    ...(data.status === 'suggested' ? { requireConfirmation: true } : {}),
    ...(data.status === 'conflict' ? { expectConflict: true } : {}),
    ...(Array.isArray(data.anchors) ? { anchors: data.anchors as Array<{ kind: AnchorKind }> } : {}),
  }
  const extra = Object.fromEntries(Object.entries(data).filter(([field]) => !OWN_FRONT_MATTER.has(field) && !LINKS.has(field)).map(([field, value]) => [field, asWritten(value)]))
  const draft: Draft = {
    request,
    // A note's title names it; only a key it states makes versions.
    options: { details: split.details, titleIsSlot: false, nearDuplicates: false, frontMatter: { ...extra, imported_from: `${format}:${relPath}` } },
    item,
  }
  return { draft }
}
