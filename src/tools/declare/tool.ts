/**
 * What a tool is: a name, a description for the model, input and output schemas, hints for the
 * host, and a pure handler `async (backend, input) => output`. Declared once per tool; every
 * adapter (DSH, MCP, CLI, HTTP) walks `tools/index.ts` and derives its own form from this.
 */

import { guardValue, injectionWarningsField } from '../../memory/truth/injection-guard.js'
import type { MemoryBackend } from '../../store/backend.js'
import { requireStore, storeNotWrittenYet } from '../../store/existing.js'
import { parseInput, type Infer, type ObjectSchema } from './schema.js'

export interface ToolAnnotations {
  /** Reads only; never changes the store. */
  readOnly: boolean
  /** May remove or hide memories. */
  destructive: boolean
  /** Calling it twice with the same input has the effect of calling it once. */
  idempotent: boolean
}

/** The annotations of a tool that only reads: most of them. */
export const READS_ONLY: ToolAnnotations = Object.freeze({ readOnly: true, destructive: false, idempotent: true })

/**
 * The groups an MCP client can ask for (`memory-agent mcp --tools core,time`): core is what a model
 * needs in every session and is served by default; the others are one flag away.
 */
export const TOOL_GROUPS = ['core', 'time', 'review', 'curate', 'browse'] as const
export type ToolGroup = (typeof TOOL_GROUPS)[number]

/**
 * How a command line presents the tool (src/cli/tool-commands.ts): the command's name when it is
 * not the tool's name without `memory_`, and the input field that the command's bare arguments
 * fill (every argument, for an array field).
 */
export interface CommandHints {
  readonly command?: string
  readonly argument?: string
}

export interface ToolMeta<I extends ObjectSchema = ObjectSchema, O extends ObjectSchema = ObjectSchema> {
  readonly name: string
  readonly title: string
  readonly group: ToolGroup
  readonly description: string
  readonly input: I
  readonly output: O
  readonly annotations: ToolAnnotations
  /** The tool may create the store it is given (write_memory); every other tool needs an existing one (NOT_FOUND). */
  readonly createsStore?: true
  /** session_id names the session a write or a forget is about: a host that knows the current session fills it in. */
  readonly sessionDefault?: true
  readonly cli?: CommandHints
  /** A long tool: the label of the progress bar a command line draws while it runs (store/progress.ts). */
  readonly progress?: string
}

/**
 * The answer a tool gives on a default root that holds no store yet (store/existing.ts), for the
 * tools a model calls first (search, verify, nav): "nothing stored yet", not NOT_FOUND.
 */
export type FirstUseAnswer<I extends ObjectSchema, O extends ObjectSchema> = (backend: MemoryBackend, input: Infer<I>) => Infer<O>

export interface ToolDeclaration<I extends ObjectSchema = ObjectSchema, O extends ObjectSchema = ObjectSchema> extends ToolMeta<I, O> {
  /** Validates the input (INVALID_INPUT naming the field) and runs the tool. */
  handler(backend: MemoryBackend, input: Infer<I, 'input'>): Promise<Infer<O>>
}

/** Which store answered, added by the routing layer where a host serves two (src/stores/route.ts). */
const answeredByField = {
  type: 'string',
  enum: ['project', 'user', 'all'],
  description: 'The store that answered: project, user (personal), or all (both, merged).',
} as const

/**
 * The output schema as served: every tool's output may also carry `injectionWarnings`, which the
 * injection guard adds (src/memory/truth/injection-guard.ts), and `store`, which the store routing adds.
 */
function guardedOutput(output: ObjectSchema): ObjectSchema {
  return { ...output, properties: { ...output.properties, injectionWarnings: injectionWarningsField, store: answeredByField } }
}

/**
 * A tool from its declaration and its implementation, which receives validated input with defaults.
 * Every result leaves through the injection guard: memory text that tries to instruct the reader
 * is replaced by a marker and reported in `injectionWarnings`, for every tool and every adapter.
 */
export function defineTool<const I extends ObjectSchema, const O extends ObjectSchema>(
  // The argument must name one of the tool's own input fields.
  meta: ToolMeta<I, O> & { readonly cli?: { readonly argument?: Extract<keyof I['properties'], string> } },
  run: (backend: MemoryBackend, input: Infer<I>) => Promise<Infer<O>>,
  firstUse?: FirstUseAnswer<I, O>,
): ToolDeclaration<I, O> {
  const execute = run as unknown as (backend: MemoryBackend, input: unknown) => Promise<unknown>
  const firstAnswer = firstUse as unknown as ((backend: MemoryBackend, input: unknown) => unknown) | undefined
  // async: invalid input rejects the returned promise instead of throwing before there is one.
  const handler = async (backend: MemoryBackend, input: unknown) => {
    const parsed = parseInput(meta.input, input, meta.name)
    if (firstAnswer !== undefined && (await storeNotWrittenYet(backend))) return firstAnswer(backend, parsed)
    if (meta.createsStore !== true) await requireStore(backend)
    const { value, warnings } = guardValue(await execute(backend, parsed))
    return warnings.length > 0 && typeof value === 'object' && value !== null ? { ...value, injectionWarnings: warnings } : value
  }
  return { ...meta, output: guardedOutput(meta.output), handler } as unknown as ToolDeclaration<I, O>
}
