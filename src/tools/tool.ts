/**
 * What a tool is: a name, a description for the model, input and output schemas, hints for the
 * host, and a pure handler `async (backend, input) => output`. Declared once per tool; every
 * adapter (DSH, MCP, CLI, HTTP) walks `tools/index.ts` and derives its own form from this.
 */

import type { MemoryBackend } from '../store/backend.js'
import { parseInput, type Infer, type ObjectSchema } from './schema.js'

export interface ToolAnnotations {
  /** Reads only; never changes the store. */
  readOnly: boolean
  /** May remove or hide memories. */
  destructive: boolean
  /** Calling it twice with the same input has the effect of calling it once. */
  idempotent: boolean
}

export interface ToolMeta<I extends ObjectSchema = ObjectSchema, O extends ObjectSchema = ObjectSchema> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: I
  readonly output: O
  readonly annotations: ToolAnnotations
}

export interface ToolDeclaration<I extends ObjectSchema = ObjectSchema, O extends ObjectSchema = ObjectSchema> extends ToolMeta<I, O> {
  /** Validates the input (INVALID_INPUT naming the field) and runs the tool. */
  handler(backend: MemoryBackend, input: Infer<I, 'input'>): Promise<Infer<O>>
}

/** A tool from its declaration and its implementation, which receives validated input with defaults. */
export function defineTool<const I extends ObjectSchema, const O extends ObjectSchema>(
  meta: ToolMeta<I, O>,
  run: (backend: MemoryBackend, input: Infer<I>) => Promise<Infer<O>>,
): ToolDeclaration<I, O> {
  const execute = run as unknown as (backend: MemoryBackend, input: unknown) => Promise<unknown>
  // async: invalid input rejects the returned promise instead of throwing before there is one.
  const handler = async (backend: MemoryBackend, input: unknown) => execute(backend, parseInput(meta.input, input, meta.name))
  return { ...meta, handler } as unknown as ToolDeclaration<I, O>
}
