/**
 * The MCP reference memory server's knowledge graph (JSONL: entity and relation lines) to
 * drafts for the write path. Pure: text in, drafts and per-line reports out.
 *
 * The mapping (docs/decisions.md): one topic per entity. Its title is the entity's name, its
 * slot key `entity:<name>` (so a re-import of a changed entity is a new version that supersedes
 * the old one), its tag the entity type, and its entities the name plus every entity it points
 * to. The summary is the observations joined by "; "; the relations that start at the entity are
 * lines below it (`- works_at: Acme`). A relation from a name that has no entity line still
 * gives that name a memory; a line that is not an entity or a relation is reported by number.
 */

import { invalidInput } from '../../../errors.js'
import { MAX_SUMMARY_CHARS } from '../../../store/frontmatter.js'
import { collapseWhitespace, truncate } from '../../../text.js'
import type { Draft, ImportItem } from './types.js'

const LEAD_CHARS = 300
const TITLE_CHARS = 200
const TAG_CHARS = 64
const ENTITIES = 32

interface Entity {
  name: string
  line: number
  entityType: string
  observations: string[]
  relations: Array<{ relationType: string; to: string }>
}

export interface McpParse {
  drafts: Draft[]
  /** Lines that could not be used, each with its number and why. */
  skipped: ImportItem[]
  warnings: string[]
}

function field(rec: Record<string, unknown>, name: string): string | null {
  const value = rec[name]
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
}

function summaryOf(e: Entity): { summary: string; cut: boolean } {
  const joined = e.observations.join('; ')
  if (joined === '') return { summary: `${e.entityType || 'entity'} ${e.name}`, cut: false }
  if (Array.from(joined).length <= MAX_SUMMARY_CHARS) return { summary: joined, cut: false }
  return { summary: truncate(joined, LEAD_CHARS), cut: true }
}

function draftOf(e: Entity, name: string): Draft {
  const { summary, cut } = summaryOf(e)
  const details: string[] = []
  // A summary cut to a lead keeps every observation below it.
  if (cut) details.push('Observations:', ...e.observations.map((o) => `- ${o}`))
  if (e.relations.length > 0) {
    if (details.length > 0) details.push('')
    details.push('Relations:', ...e.relations.map((r) => `- ${r.relationType}: ${r.to}`))
  }
  const entities = [...new Set([e.name, ...e.relations.map((r) => r.to)])].slice(0, ENTITIES).map((n) => truncate(n, TAG_CHARS))
  return {
    request: {
      summary,
      title: truncate(e.name, TITLE_CHARS),
      key: truncate(`entity:${e.name}`, TITLE_CHARS),
      tags: e.entityType === '' ? [] : [truncate(e.entityType, TAG_CHARS)],
      entities,
    },
    options: { details: details.join('\n'), nearDuplicates: false, frontMatter: { imported_from: `mcp-jsonl:${name}:${e.line}` } },
    item: { source: name, line: e.line, outcome: 'added' },
  }
}

/**
 * Reads the graph. Refuses (INVALID_INPUT naming the file) input with no entity or relation
 * line at all: that is not this format, and nothing is written.
 */
export function parseMcpJsonl(text: string, name: string): McpParse {
  const entities = new Map<string, Entity>()
  const seenRelations = new Map<string, number>()
  /** Names that have an entity line (a relation alone also makes an entity). */
  const declared = new Set<string>()
  const skipped: ImportItem[] = []
  const warnings: string[] = []
  let usable = 0
  let firstProblem: string | null = null
  const skip = (line: number, reason: string) => {
    skipped.push({ source: name, line, outcome: 'skipped', reason })
    firstProblem ??= `line ${line}: ${reason}`
  }
  const entity = (entityName: string, line: number): Entity => {
    let e = entities.get(entityName)
    if (e === undefined) entities.set(entityName, (e = { name: entityName, line, entityType: '', observations: [], relations: [] }))
    return e
  }

  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  for (const [i, raw] of lines.entries()) {
    const line = i + 1
    if (raw.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (err) {
      skip(line, `not JSON (${err instanceof Error ? err.message : String(err)})`)
      continue
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      skip(line, 'not a JSON object')
      continue
    }
    const rec = value as Record<string, unknown>
    if (rec.type === 'entity') {
      const entityName = field(rec, 'name')
      if (entityName === null) {
        skip(line, 'an entity without a name')
        continue
      }
      usable++
      const e = entity(entityName, line)
      if (declared.has(entityName)) warnings.push(`${name}: line ${line}: entity ${JSON.stringify(entityName)} again; its observations were added to the first`)
      else e.line = line // a relation may have named it first
      declared.add(entityName)
      e.entityType ||= field(rec, 'entityType') ?? ''
      const observations = Array.isArray(rec.observations) ? rec.observations : []
      for (const o of observations) {
        const s = typeof o === 'string' ? collapseWhitespace(o) : ''
        if (s === '') warnings.push(`${name}: line ${line}: an observation that is not text was left out`)
        else if (!e.observations.includes(s)) e.observations.push(s)
      }
    } else if (rec.type === 'relation') {
      const from = field(rec, 'from')
      const to = field(rec, 'to')
      const relationType = field(rec, 'relationType')
      if (from === null || to === null || relationType === null) {
        skip(line, 'a relation needs from, to and relationType')
        continue
      }
      usable++
      const key = JSON.stringify([from, relationType, to])
      const earlier = seenRelations.get(key)
      if (earlier !== undefined) {
        warnings.push(`${name}: line ${line}: repeats the relation of line ${earlier}`)
        continue
      }
      seenRelations.set(key, line)
      entity(from, line).relations.push({ relationType, to })
    } else {
      skip(line, `type ${JSON.stringify(rec.type ?? null)} is neither "entity" nor "relation"`)
    }
  }
  if (usable === 0) {
    throw invalidInput('path', `MCP memory JSONL (lines {"type":"entity",...} or {"type":"relation",...}); ${name} has none${firstProblem !== null ? ` (${firstProblem})` : ''}`)
  }
  for (const e of entities.values()) {
    if (!declared.has(e.name)) {
      warnings.push(`${name}: line ${e.line}: ${JSON.stringify(e.name)} has relations but no entity line; it gets a memory of its own`)
    }
  }
  return { drafts: [...entities.values()].map((e) => draftOf(e, name)), skipped, warnings }
}
