/**
 * Our Schema as zod, the form `McpServer.registerTool` takes. Written once: `toZod` is the exact
 * translation (closed objects stay closed, bounds and enums kept), used as the output schema, so
 * the SDK checks `structuredContent` on the way out and the client checks it on the way in.
 *
 * Input is the handler's to validate (INVALID_INPUT naming the field, unknown fields refused), so
 * the input shape accepts any value per field while still advertising the exact JSON Schema of
 * each field, taken from `toZod`, to clients. Pure; knows nothing of tools or the store.
 */

import { z } from 'zod'
import type { ObjectSchema, Schema } from '../tools/declare/schema.js'

function described<T extends z.ZodType>(zod: T, schema: Schema): T {
  return schema.description !== undefined ? zod.describe(schema.description) : zod
}

function bounded(zod: z.ZodNumber, min: number | undefined, max: number | undefined): z.ZodNumber {
  const low = min === undefined ? zod : zod.min(min)
  return max === undefined ? low : low.max(max)
}

function stringOf(schema: Extract<Schema, { type: 'string' }>): z.ZodType {
  if (schema.enum !== undefined) return z.enum(schema.enum as [string, ...string[]])
  let zod = z.string()
  if (schema.minLength !== undefined) zod = zod.min(schema.minLength)
  if (schema.maxLength !== undefined) zod = zod.max(schema.maxLength)
  return zod
}

function objectOf(schema: ObjectSchema): z.ZodType {
  const required = new Set(schema.required ?? [])
  const shape: Record<string, z.ZodType> = {}
  for (const [key, prop] of Object.entries(schema.properties)) shape[key] = required.has(key) ? toZod(prop) : toZod(prop).optional()
  // Closed unless the declaration says otherwise, as our own validation treats it.
  return schema.additionalProperties === true ? z.looseObject(shape) : z.strictObject(shape)
}

/** The exact zod form of a schema. */
export function toZod(schema: Schema): z.ZodType {
  if ('oneOf' in schema) {
    const [first, second, ...rest] = schema.oneOf.map(toZod)
    if (first === undefined) return described(z.never(), schema)
    return described(second === undefined ? first : z.union([first, second, ...rest]), schema)
  }
  switch (schema.type) {
    case 'string':
      return described(stringOf(schema), schema)
    case 'number':
      return described(bounded(z.number(), schema.minimum, schema.maximum), schema)
    case 'integer':
      return described(bounded(z.number().int(), schema.minimum, schema.maximum), schema)
    case 'boolean':
      return described(z.boolean(), schema)
    case 'null':
      return described(z.null(), schema)
    case 'json':
      return described(z.json(), schema)
    case 'array': {
      const items = z.array(toZod(schema.items))
      return described(schema.maxItems === undefined ? items : items.max(schema.maxItems), schema)
    }
    case 'object':
      return described(objectOf(schema), schema)
  }
}

/** The JSON Schema a client is shown for one field: the exact one, without the document keyword. */
function advertised(schema: Schema): Record<string, unknown> {
  const { $schema: _document, ...json } = z.toJSONSchema(toZod(schema), { target: 'draft-7', io: 'input' }) as Record<string, unknown>
  // zod has no place for a default a handler applies; the client still wants to see it.
  return 'default' in schema && schema.default !== undefined ? { ...json, default: schema.default } : json
}

/**
 * An input object that lets every value through to the handler (missing and unknown fields
 * included, so the handler can name them) and shows each field with its exact JSON Schema, and
 * which are required, to the client.
 */
export function permissiveInput(schema: ObjectSchema): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {}
  for (const [key, prop] of Object.entries(schema.properties)) shape[key] = z.unknown().meta(advertised(prop)).optional()
  return z.looseObject(shape).meta({
    ...(schema.required !== undefined && schema.required.length > 0 ? { required: [...schema.required] } : {}),
    ...(schema.additionalProperties === true ? {} : { additionalProperties: false }),
    ...(schema.description !== undefined ? { description: schema.description } : {}),
  })
}
