/**
 * Tool declarations as DSH tool definitions. Each declaration's schemas are projected once into
 * the dsh-tools author DSL (bounds the DSL cannot express move into descriptions, output objects
 * stay closed), and the DSL becomes a definition either through `defineTool` from the host's
 * `@deepseek-ai/dsh-tools` or, when that package cannot be resolved (it lives in the host's own
 * node_modules), through the built-in compiler below, which produces the same raw definition.
 *
 * Input validation stays the handler's (MemoryError INVALID_INPUT naming the field); a
 * MemoryError leaves here as the host's HarnessError with our code, so the tool result carries
 * `error.info.code`. Owns no state but the one-time import of dsh-tools.
 */

import { asMemoryError, isMemoryError, type ErrorCode } from '../errors.js'
import type { MemoryBackend } from '../store/backend.js'
import type { ObjectSchema, Schema } from '../tools/declare/schema.js'
import type { ToolDeclaration } from '../tools/declare/tool.js'
import type { DshToolDefinition, JsonSchemaNode, TextBlock } from './host-types.js'
import { renderValue } from '../tools/render/text.js'

/** A node of the dsh-tools author DSL (`ValueSchemaSpec`, plus `required` on properties). */
export interface DslNode {
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object' | 'json'
  oneOf?: DslNode[]
  enum?: string[]
  items?: DslNode
  properties?: DslProperties
  additionalProperties?: boolean
  description?: string
  default?: string | number | boolean
  required?: true
}
export type DslProperties = Record<string, DslNode>

/** What the plugin takes from `@deepseek-ai/dsh-tools` when it resolves. */
export interface DshTools {
  defineTool(options: {
    name: string
    description: string
    parameters: DslProperties
    output: { schema: DslNode; render(args: unknown, value: unknown): TextBlock[] }
    execute(args: unknown, exec: unknown): Promise<unknown>
  }): DshToolDefinition
  /** The host's HarnessError: the registry reports `info: { name, code }` only for its instances. */
  HarnessError: (new (message: string, code: string) => Error) | null
}

// ---------------------------------------------------------------------------------------------
// Our Schema -> the DSL

/** The bounds the DSL has no keyword for, in words. */
function bounds(schema: Schema): string | null {
  if ('oneOf' in schema) return null
  if (schema.type === 'string') {
    const { minLength: min, maxLength: max } = schema
    if (min !== undefined && max !== undefined) return `${min}-${max} characters`
    if (max !== undefined) return `at most ${max} characters`
    if (min !== undefined) return `at least ${min} characters`
  } else if (schema.type === 'number' || schema.type === 'integer') {
    const { minimum: min, maximum: max } = schema
    if (min !== undefined && max !== undefined) return `${min} to ${max}`
    if (max !== undefined) return `at most ${max}`
    if (min !== undefined) return `at least ${min}`
  } else if (schema.type === 'array' && schema.maxItems !== undefined) {
    return `at most ${schema.maxItems} items`
  }
  return null
}

function described(schema: Schema): { description?: string } {
  const limit = bounds(schema)
  const text = [schema.description, limit === null ? undefined : `(${limit})`].filter((s) => s !== undefined && s !== '').join(' ')
  return text === '' ? {} : { description: text }
}

function withDefault(schema: Schema): { default?: string | number | boolean } {
  return 'default' in schema && schema.default !== undefined ? { default: schema.default } : {}
}

export function toDsl(schema: Schema): DslNode {
  if ('oneOf' in schema) return { oneOf: schema.oneOf.map(toDsl), ...described(schema) }
  switch (schema.type) {
    case 'string':
      return { type: 'string', ...(schema.enum ? { enum: [...schema.enum] } : {}), ...described(schema), ...withDefault(schema) }
    case 'number':
    case 'integer':
    case 'boolean':
      return { type: schema.type, ...described(schema), ...withDefault(schema) }
    case 'null':
    case 'json':
      return { type: schema.type, ...described(schema) }
    case 'array':
      return { type: 'array', items: toDsl(schema.items), ...described(schema) }
    case 'object':
      // Our objects are closed unless they say otherwise; the DSL wants openness spelled out.
      return { type: 'object', properties: toDslProperties(schema), additionalProperties: schema.additionalProperties ?? false, ...described(schema) }
  }
}

function toDslProperties(schema: ObjectSchema): DslProperties {
  const required = new Set(schema.required ?? [])
  const out: DslProperties = {}
  for (const [key, prop] of Object.entries(schema.properties)) out[key] = required.has(key) ? { ...toDsl(prop), required: true } : toDsl(prop)
  return out
}

// ---------------------------------------------------------------------------------------------
// The built-in compiler: the DSL -> raw JSON Schema, as dsh-tools compiles it (`json` becomes an
// annotation-only node, `required` collects into the parent, object openness is kept).

function annotations(node: DslNode): Pick<JsonSchemaNode, 'description' | 'default'> {
  return {
    ...(node.description !== undefined ? { description: node.description } : {}),
    ...(node.default !== undefined ? { default: node.default } : {}),
  }
}

function compileProperties(map: DslProperties): { properties: Record<string, JsonSchemaNode>; required?: string[] } {
  const properties: Record<string, JsonSchemaNode> = {}
  const required: string[] = []
  for (const [key, node] of Object.entries(map)) {
    properties[key] = compileDsl(node)
    if (node.required === true) required.push(key)
  }
  return required.length > 0 ? { properties, required } : { properties }
}

export function compileDsl(node: DslNode): JsonSchemaNode {
  if (node.oneOf !== undefined) return { oneOf: node.oneOf.map(compileDsl), ...annotations(node) }
  switch (node.type) {
    case undefined:
    case 'json':
      return annotations(node)
    case 'object':
      return {
        type: 'object',
        ...annotations(node),
        additionalProperties: node.additionalProperties ?? false,
        ...(node.properties !== undefined ? compileProperties(node.properties) : {}),
      }
    case 'array':
      return { type: 'array', ...annotations(node), ...(node.items !== undefined ? { items: compileDsl(node.items) } : {}) }
    default:
      return { type: node.type, ...annotations(node), ...(node.enum !== undefined ? { enum: [...node.enum] } : {}) }
  }
}

/** The implicit open parameter root, as `parameterSchemaSpecToJsonSchema` builds it. */
export function compileParameters(map: DslProperties): JsonSchemaNode {
  return { type: 'object', ...compileProperties(map) }
}

// ---------------------------------------------------------------------------------------------
// Loading dsh-tools

let loading: Promise<DshTools | null> | undefined

function narrow(mod: unknown): DshTools | null {
  if (typeof mod !== 'object' || mod === null) return null
  const { defineTool, ToolArgsError } = mod as { defineTool?: unknown; ToolArgsError?: unknown }
  if (typeof defineTool !== 'function') return null
  // dsh-tools exports no HarnessError of its own; its ToolArgsError extends the one the registry
  // tests with instanceof, so that class is reached through it, from the same copy of the package.
  const base: unknown = typeof ToolArgsError === 'function' ? Object.getPrototypeOf(ToolArgsError) : null
  const HarnessError = typeof base === 'function' && base.prototype instanceof Error ? (base as new (message: string, code: string) => Error) : null
  return { defineTool: defineTool as DshTools['defineTool'], HarnessError }
}

/** `@deepseek-ai/dsh-tools`, imported once; null (and one warning) when it cannot be resolved. */
export function loadDshTools(): Promise<DshTools | null> {
  loading ??= import('@deepseek-ai/dsh-tools').then(
    (mod: unknown) => narrow(mod),
    (err: unknown) => {
      console.warn(
        `dsh-memory-agent: @deepseek-ai/dsh-tools could not be loaded (${err instanceof Error ? err.message : String(err)}); ` +
          'tools are compiled by the built-in compiler to the same definitions, and error codes are given in the message only',
      )
      return null
    },
  )
  return loading
}

// ---------------------------------------------------------------------------------------------
// Definitions

/** The host's form of a MemoryError: the code leads the message and, where possible, is the HarnessError code. */
function hostError(thrown: unknown, dsh: DshTools | null): unknown {
  const err = asMemoryError(thrown)
  if (!isMemoryError(err)) return err
  const message = `${err.code}: ${err.message}`
  if (dsh?.HarnessError) return new dsh.HarnessError(message, err.code)
  return Object.assign(new Error(message), { code: err.code satisfies ErrorCode })
}

/**
 * The canonical value as JSON: handlers may leave an optional field undefined, which JSON (and
 * the registry's output validation) knows only as absent.
 */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown)
}

/** The id of the session a tool call runs in (`exec.agent.session.id`), when the host says. */
function callSession(exec: unknown): string | undefined {
  const id = (exec as { agent?: { session?: { id?: unknown } } } | undefined)?.agent?.session?.id
  return typeof id === 'string' && id !== '' ? id : undefined
}

/**
 * A tool's input as offered by a host that knows the current session: session_id of a tool with
 * `sessionDefault` is optional and says it defaults to the current session, so a model never
 * copies it.
 */
function hostInput(tool: ToolDeclaration): ObjectSchema {
  const field = tool.input.properties['session_id']
  if (tool.sessionDefault !== true || field === undefined) return tool.input
  const description = `${field.description ?? 'The session.'} Default: the current session.`
  const required = (tool.input.required ?? []).filter((name) => name !== 'session_id')
  return { ...tool.input, properties: { ...tool.input.properties, session_id: { ...field, description } }, required }
}

/** The arguments with session_id filled in from the call's session, where the tool takes that default and none was given. */
function withSession(tool: ToolDeclaration, args: unknown, exec: unknown): unknown {
  if (tool.sessionDefault !== true || typeof args !== 'object' || args === null || Array.isArray(args) || 'session_id' in args) return args
  const session = callSession(exec)
  return session === undefined ? args : { ...args, session_id: session }
}

/**
 * One declaration as a DSH tool definition over a backend, or over the backend each call picks
 * (by its session's folder); through defineTool when dsh is given.
 */
export function dshTool(tool: ToolDeclaration, backend: MemoryBackend | ((exec: unknown) => MemoryBackend), dsh: DshTools | null): DshToolDefinition {
  const backendOf = typeof backend === 'function' ? backend : () => backend
  const parameters = toDslProperties(hostInput(tool))
  const output = toDsl(tool.output)
  const render = (_args: unknown, value: unknown): TextBlock[] => [{ type: 'text', text: renderValue(tool.name, value) }]
  // The handler validates what the model sent (INVALID_INPUT naming the field), so it takes it as is.
  const untyped = tool as unknown as { handler(backend: MemoryBackend, input: unknown): Promise<unknown> }
  const execute = async (args: unknown, exec?: unknown): Promise<unknown> => {
    try {
      return asJson(await untyped.handler(backendOf(exec), withSession(tool, args, exec)))
    } catch (err) {
      throw hostError(err, dsh)
    }
  }
  if (dsh !== null) return dsh.defineTool({ name: tool.name, description: tool.description, parameters, output: { schema: output, render }, execute })
  return { name: tool.name, description: tool.description, parameters: compileParameters(parameters), output: { schema: compileDsl(output), render }, execute }
}
