/**
 * The one schema language for tool inputs and outputs. A tool declares its shapes once with it;
 * TypeScript types are inferred from the declaration, inputs are validated against it (errors name
 * the field and what was expected), and every adapter derives its own form (DSH JSON-Schema subset,
 * MCP, CLI flags, HTTP) from it. It never touches the file system.
 */

import { MemoryError } from '../../errors.js'

interface Annotated {
  readonly description?: string
}

export interface StringSchema extends Annotated {
  readonly type: 'string'
  readonly enum?: readonly string[]
  readonly minLength?: number
  readonly maxLength?: number
  readonly default?: string
}
export interface NumberSchema extends Annotated {
  readonly type: 'number' | 'integer'
  readonly minimum?: number
  readonly maximum?: number
  readonly default?: number
}
export interface BooleanSchema extends Annotated {
  readonly type: 'boolean'
  readonly default?: boolean
}
export interface NullSchema extends Annotated {
  readonly type: 'null'
}
export interface ArraySchema extends Annotated {
  readonly type: 'array'
  readonly items: Schema
  readonly maxItems?: number
}
export interface ObjectSchema extends Annotated {
  readonly type: 'object'
  readonly properties: { readonly [key: string]: Schema }
  readonly required?: readonly string[]
  /** Closed by default: an unknown field is an error that names it. */
  readonly additionalProperties?: boolean
}
/** Any JSON value. */
export interface JsonValueSchema extends Annotated {
  readonly type: 'json'
}
export interface OneOfSchema extends Annotated {
  readonly oneOf: readonly Schema[]
}

export type Schema =
  | StringSchema
  | NumberSchema
  | BooleanSchema
  | NullSchema
  | ArraySchema
  | ObjectSchema
  | JsonValueSchema
  | OneOfSchema

type Simplify<T> = { [K in keyof T]: T[K] } & {}

/** Keys a parsed object always has: required ones and ones with a default. */
type PresentKeys<S> = S extends { properties: infer P }
  ?
      | (S extends { required: readonly (infer R)[] } ? R & keyof P : never)
      | { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P]
  : never
type RequiredKeys<S> = S extends { properties: infer P; required: readonly (infer R)[] } ? R & keyof P : never

type ObjectOf<S, Mode extends 'input' | 'parsed'> = S extends { properties: infer P }
  ? Simplify<
      {
        -readonly [K in keyof P & (Mode extends 'parsed' ? PresentKeys<S> : RequiredKeys<S>)]: Infer<P[K], Mode>
      } & {
        -readonly [K in Exclude<keyof P, Mode extends 'parsed' ? PresentKeys<S> : RequiredKeys<S>>]?: Infer<
          P[K],
          Mode
        >
      }
    >
  : never

/** The TypeScript type of a value that satisfies schema S (`parsed`: after defaults were applied). */
export type Infer<S, Mode extends 'input' | 'parsed' = 'parsed'> = S extends { oneOf: readonly (infer A)[] }
  ? Infer<A, Mode>
  : S extends { type: 'string'; enum: readonly (infer E)[] }
    ? E
    : S extends { type: 'string' }
      ? string
      : S extends { type: 'number' | 'integer' }
        ? number
        : S extends { type: 'boolean' }
          ? boolean
          : S extends { type: 'null' }
            ? null
            : S extends { type: 'array'; items: infer I }
              ? Infer<I, Mode>[]
              : S extends { type: 'object' }
                ? ObjectOf<S, Mode>
                : S extends { type: 'json' }
                  ? unknown
                  : never

function describe(schema: Schema): string {
  if ('oneOf' in schema) return schema.oneOf.map(describe).join(' or ')
  switch (schema.type) {
    case 'string':
      return schema.enum ? `one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}` : 'a string'
    case 'integer':
      return 'an integer'
    case 'number':
      return 'a number'
    case 'boolean':
      return 'true or false'
    case 'null':
      return 'null'
    case 'array':
      return `an array of ${describe(schema.items)}`
    case 'object':
      return 'an object'
    case 'json':
      return 'any JSON value'
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${JSON.stringify(value).slice(0, 40)}`
  return `a ${typeof value}`
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Text as it will be on disk: a lone UTF-16 surrogate cannot be stored in UTF-8, so it becomes U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD')
}

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 64) return false
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1))
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown
    return (proto === Object.prototype || proto === null) && Object.values(value).every((v) => isJsonValue(v, depth + 1))
  }
  return false
}

/** A violation: the dotted path of the offending field and what was expected there. */
export interface Violation {
  field: string
  expected: string
}

/**
 * Checks `value` against `schema` and returns a copy with defaults filled in, or the first
 * violation found. Pure; never throws.
 */
export function check(schema: Schema, value: unknown, field: string, applyDefaults: boolean): { value: unknown } | Violation {
  if ('oneOf' in schema) {
    for (const option of schema.oneOf) {
      const r = check(option, value, field, applyDefaults)
      if ('value' in r) return r
    }
    return { field, expected: `${describe(schema)}, got ${typeName(value)}` }
  }
  const fail = (expected: string): Violation => ({ field, expected })
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return fail(`${describe(schema)}, got ${typeName(value)}`)
      const text = wellFormed(value)
      if (schema.enum && !schema.enum.includes(text)) return fail(`${describe(schema)}, got ${JSON.stringify(text).slice(0, 60)}`)
      if (schema.minLength !== undefined && text.length < schema.minLength)
        return fail(schema.minLength === 1 ? 'a non-empty string' : `a string of at least ${schema.minLength} characters`)
      if (schema.maxLength !== undefined && text.length > schema.maxLength)
        return fail(`a string of at most ${schema.maxLength} characters, got ${text.length}`)
      return { value: text }
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail(`${describe(schema)}, got ${typeName(value)}`)
      if (schema.type === 'integer' && !Number.isInteger(value)) return fail(`an integer, got ${value}`)
      if (schema.minimum !== undefined && value < schema.minimum) return fail(`a number >= ${schema.minimum}, got ${value}`)
      if (schema.maximum !== undefined && value > schema.maximum) return fail(`a number <= ${schema.maximum}, got ${value}`)
      return { value }
    }
    case 'boolean':
      return typeof value === 'boolean' ? { value } : fail(`true or false, got ${typeName(value)}`)
    case 'null':
      return value === null ? { value } : fail(`null, got ${typeName(value)}`)
    case 'json':
      return isJsonValue(value) ? { value } : fail('a JSON value')
    case 'array': {
      if (!Array.isArray(value)) return fail(`${describe(schema)}, got ${typeName(value)}`)
      if (schema.maxItems !== undefined && value.length > schema.maxItems)
        return fail(`at most ${schema.maxItems} items, got ${value.length}`)
      const out: unknown[] = []
      for (let i = 0; i < value.length; i++) {
        const r = check(schema.items, value[i], `${field}[${i}]`, applyDefaults)
        if (!('value' in r)) return r
        out.push(r.value)
      }
      return { value: out }
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return fail(`an object, got ${typeName(value)}`)
      const record = value as Record<string, unknown>
      const prefix = field === '' ? '' : `${field}.`
      const out: Record<string, unknown> = {}
      for (const key of schema.required ?? []) {
        if (record[key] === undefined) return { field: `${prefix}${key}`, expected: `${describe(schema.properties[key] ?? { type: 'json' })} (required)` }
      }
      for (const [key, v] of Object.entries(record)) {
        const prop = Object.prototype.hasOwnProperty.call(schema.properties, key) ? schema.properties[key] : undefined
        if (prop === undefined) {
          if (schema.additionalProperties === true) {
            out[key] = v
            continue
          }
          const known = Object.keys(schema.properties).join(', ')
          return { field: `${prefix}${key}`, expected: `no such field (known fields: ${known})` }
        }
        if (v === undefined) continue
        const r = check(prop, v, `${prefix}${key}`, applyDefaults)
        if (!('value' in r)) return r
        out[key] = r.value
      }
      if (applyDefaults) {
        for (const [key, prop] of Object.entries(schema.properties)) {
          if (out[key] === undefined && 'default' in prop && prop.default !== undefined) out[key] = prop.default
        }
      }
      return { value: out }
    }
  }
}

/** Validates a tool input; throws INVALID_INPUT naming the field. Returns the input with defaults. */
export function parseInput(schema: Schema, value: unknown, toolName: string): unknown {
  const r = check(schema, value ?? {}, '', true)
  if ('value' in r) return r.value
  const where = r.field === '' ? 'input' : r.field
  throw new MemoryError('INVALID_INPUT', `${toolName}: ${where}: expected ${r.expected}`, r.field || undefined)
}

/** Every violation-free check of an output; used by tests and adapters that verify what they send. */
export function outputViolation(schema: Schema, value: unknown): Violation | null {
  const r = check(schema, value, '', false)
  return 'value' in r ? null : r
}
