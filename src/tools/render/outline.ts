/**
 * A readable text of any tool result, from its output schema, for a person at a terminal where a
 * tool has no rendering of its own (text.ts): one `label: value` line per field in the schema's
 * order, lists as `- ` items, nested values indented. Pure.
 */

import type { Schema } from '../declare/schema.js'

/** `supersededBacklog` and `long_unused` read as "superseded backlog" and "long unused". */
const label = (field: string) => field.replace(/_/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()

/** The schema of a field, or of an array's items; undefined where the schema does not say. */
function fieldSchema(schema: Schema | undefined, field: string): Schema | undefined {
  if (schema === undefined) return undefined
  if ('oneOf' in schema) return schema.oneOf.map((s) => fieldSchema(s, field)).find((s) => s !== undefined)
  return schema.type === 'object' ? schema.properties[field] : undefined
}

function itemSchema(schema: Schema | undefined): Schema | undefined {
  if (schema === undefined) return undefined
  if ('oneOf' in schema) return schema.oneOf.map(itemSchema).find((s) => s !== undefined)
  return schema.type === 'array' ? schema.items : undefined
}

/** The fields of an object value: the schema's first, in its order, then any others. */
function orderedKeys(value: object, schema: Schema | undefined): string[] {
  const declared = schema !== undefined && !('oneOf' in schema) && schema.type === 'object' ? Object.keys(schema.properties) : []
  const own = Object.keys(value)
  return [...declared.filter((k) => own.includes(k)), ...own.filter((k) => !declared.includes(k))]
}

const isPlain = (v: unknown): boolean => v === null || typeof v !== 'object'
const scalar = (v: unknown): string => (v === null || v === undefined ? 'none' : typeof v === 'string' ? v : JSON.stringify(v))

/** The lines of a value under a field (`head` is `label:`), indented by `indent`. */
function lines(head: string, value: unknown, schema: Schema | undefined, indent: string): string[] {
  if (isPlain(value)) {
    const text = scalar(value)
    if (!text.includes('\n')) return [`${indent}${head}${head !== '' ? ' ' : ''}${text}`]
    return [`${indent}${head}`, ...text.split('\n').map((l) => `${indent}  ${l}`)]
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}${head}${head !== '' ? ' ' : ''}none`]
    if (value.every(isPlain)) {
      const joined = value.map(scalar).join(', ')
      if (joined.length <= 100 && !joined.includes('\n')) return [`${indent}${head}${head !== '' ? ' ' : ''}${joined}`]
    }
    const items = itemSchema(schema)
    const nested = head !== '' ? `${indent}  ` : indent
    return [...(head !== '' ? [`${indent}${head}`] : []), ...value.flatMap((item) => bullet(lines('', item, items, `${nested}  `), nested))]
  }
  // Neither plain nor an array: an object.
  const record = value as Record<string, unknown>
  const fields = orderedKeys(record, schema)
    .filter((k) => record[k] !== undefined && k !== 'injectionWarnings')
    .flatMap((k) => lines(`${label(k)}:`, record[k], fieldSchema(schema, k), head !== '' ? `${indent}  ` : indent))
  return [...(head !== '' ? [`${indent}${head}`] : []), ...fields]
}

/** An item's lines as a list entry: its first line marked `- ` at `indent`, the rest as they are. */
function bullet(itemLines: string[], indent: string): string[] {
  const [first, ...rest] = itemLines
  return first === undefined ? [] : [`${indent}- ${first.trimStart()}`, ...rest]
}

/** A tool result as readable text, from its output schema. */
export function renderOutline(schema: Schema, value: unknown): string {
  return lines('', value, schema, '').join('\n')
}
