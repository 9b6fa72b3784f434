/**
 * CLI commands derived from the tool declarations: which command runs which tool, the flags each
 * command takes (read from the tool's input schema, never written out a second time), their help
 * text, and the parse from argv to a tool input. Pure: it reads no environment and touches no
 * files; `main.ts` runs what it returns. Validation of values stays with the tool's handler.
 */

import { MemoryError, type ErrorCode } from '../errors.js'
import { TOOLS, findTool } from '../tools/index.js'
import { didYouMean } from './suggest.js'
import type { Schema } from '../tools/declare/schema.js'
import type { ToolDeclaration } from '../tools/declare/tool.js'

/** A command, the tool it runs, and the input field its bare arguments fill. */
interface ToolCommand {
  readonly tool: string
  readonly positional?: string
}

/** A tool's command: its declared name, else the tool's name without `memory_`, in kebab case. */
export function commandName(tool: ToolDeclaration): string {
  return tool.cli?.command ?? tool.name.replace(/^memory_/, '').replace(/_/g, '-')
}

/** Every tool of the registry as a command, in the registry's order; nothing is listed by hand. */
export const TOOL_COMMANDS: Readonly<Record<string, ToolCommand>> = Object.fromEntries(
  TOOLS.map((t) => [commandName(t), { tool: t.name, ...(t.cli?.argument !== undefined ? { positional: t.cli.argument } : {}) }]),
)

/** Other names of tool commands: `show ID` (and `get ID`) opens one memory in full, as `nav ID` does. */
export const COMMAND_ALIASES: Readonly<Record<string, string>> = { show: 'nav', get: 'nav' }

/** The commands that are not tools (main.ts runs them): the store as a whole, transports, the demo. */
export const OTHER_COMMANDS = ['rebuild', 'sync', 'export', 'import', 'mcp', 'serve', 'panel-key', 'watch', 'demo', 'help'] as const

/** Flags every store command takes besides the ones derived from its schema. */
export const COMMON_FLAGS = ['--root', '--user', '--user-root', '--no-user-root', '--store', '--json', '--help'] as const

/** The process exit code of an error code, mapped once for the CLI. */
export function exitCode(code: ErrorCode | undefined): number {
  switch (code) {
    case 'INVALID_INPUT':
      return 2
    case 'NOT_FOUND':
      return 3
    case 'INVALID_STATE':
      return 4
    case 'PATH_OUTSIDE_ROOT':
      return 5
    case 'LOCK_TIMEOUT':
      return 6
    default:
      return 1
  }
}

export function usageError(message: string): MemoryError {
  return new MemoryError('INVALID_INPUT', message)
}

/** One schema field as a flag: `top_k` is `--top-k`, `requireConfirmation` is `--require-confirmation`. */
interface FlagSpec {
  readonly field: string
  readonly flag: string
  /** `--tag` for `tags`: the singular, accepted beside the plural when it names nothing else. */
  readonly alias?: string
  readonly schema: Schema
}

const kebab = (name: string) => name.replace(/_/g, '-').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()
const singular = (name: string) => (name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name)

export function flagsOf(tool: ToolDeclaration): FlagSpec[] {
  const names = new Set(Object.keys(tool.input.properties).map(kebab))
  return Object.entries(tool.input.properties).map(([field, schema]) => {
    const flag = kebab(field)
    const one = singular(flag)
    const alias = 'type' in schema && schema.type === 'array' && one !== flag && !names.has(one) ? `--${one}` : undefined
    return { field, flag: `--${flag}`, schema, ...(alias !== undefined ? { alias } : {}) }
  })
}

function kind(schema: Schema): string {
  return 'type' in schema ? schema.type : 'json'
}

function parseJson(flag: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw usageError(`${flag}: expected JSON, got ${JSON.stringify(text).slice(0, 60)}`)
  }
}

/** A flag's text as the value its schema asks for; the tool's handler checks the rest. */
function valueOf(spec: FlagSpec, schema: Schema, text: string): unknown {
  switch (kind(schema)) {
    case 'number':
    case 'integer': {
      const n = Number(text)
      if (text.trim() === '' || !Number.isFinite(n)) throw usageError(`${spec.flag}: expected a number, got ${JSON.stringify(text)}`)
      return n
    }
    case 'string':
      return text
    default:
      return parseJson(spec.flag, text)
  }
}

export interface ParsedCommand {
  readonly tool: ToolDeclaration
  readonly input: Record<string, unknown>
  readonly json: boolean
  readonly help: boolean
}

/** Global flags that take a value; their values are read by main.ts. */
const VALUE_FLAGS = new Set(['--root', '--user-root'])

/** Reads `--input -` (stdin) or `--input @FILE`: the whole text of `source`, `-` or a file path. */
export type InputReader = (source: string) => Promise<string>

/** The command's argument field when it takes text (write's summary, search's query). */
function textArgument(tool: ToolDeclaration, entry: ToolCommand): string | undefined {
  const schema = entry.positional !== undefined ? tool.input.properties[entry.positional] : undefined
  return schema !== undefined && kind(schema) === 'string' ? entry.positional : undefined
}

/**
 * The object `--input` gives: inline JSON, or the text of stdin (`-`) or a file (`@FILE`), which is
 * a JSON object, or else plain text for the command's argument field (write's summary).
 */
async function inputObject(tool: ToolDeclaration, entry: ToolCommand, value: string, read: InputReader): Promise<Record<string, unknown>> {
  const source = value === '-' ? '-' : value.startsWith('@') ? value.slice(1) : undefined
  if (source === '') throw usageError('--input: expected JSON, - for stdin, or @FILE')
  const text = source !== undefined ? await read(source) : value
  const field = textArgument(tool, entry)
  // Plain text, as a person would pipe a note in: the argument field, without the final newline.
  if (source !== undefined && field !== undefined && !text.trimStart().startsWith('{')) return { [field]: text.replace(/\r?\n$/, '') }
  const parsed = parseJson('--input', text)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw usageError('--input: expected a JSON object')
  return parsed as Record<string, unknown>
}

/**
 * argv after the command name -> the tool and its input. Throws INVALID_INPUT (exit 2) on misuse.
 * `read` fetches the text behind `--input -` and `--input @FILE`.
 */
export async function parseToolCommand(command: string, args: readonly string[], read: InputReader): Promise<ParsedCommand> {
  const entry = TOOL_COMMANDS[command]
  const tool = entry === undefined ? undefined : findTool(entry.tool)
  if (entry === undefined || tool === undefined) throw usageError(`unknown command ${JSON.stringify(command)}`)
  const specs = flagsOf(tool)
  const byFlag = new Map<string, FlagSpec>()
  for (const s of specs) {
    byFlag.set(s.flag, s)
    if (s.alias !== undefined) byFlag.set(s.alias, s)
  }
  let base: Record<string, unknown> = {}
  const fields: Record<string, unknown> = {}
  let json = false
  let help = false
  const positionals: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1
    const name = eq > 0 ? arg.slice(0, eq) : arg
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined
    const next = (): string => {
      if (inline !== undefined) return inline
      const value = args[++i]
      if (value === undefined) throw usageError(`${name} needs a value`)
      return value
    }
    if (!name.startsWith('--') || name === '--') {
      positionals.push(arg)
      continue
    }
    if (name === '--json') json = true
    else if (name === '--help') help = true
    else if (name === '--user' || name === '--no-user-root') continue
    // The routing layer's field (src/stores/route.ts): only a command serving two stores accepts it.
    else if (name === '--store') fields['store'] = next()
    else if (VALUE_FLAGS.has(name)) next()
    else if (name === '--input') base = await inputObject(tool, entry, next(), read)
    else {
      const negated = name.startsWith('--no-') ? byFlag.get(`--${name.slice(5)}`) : undefined
      const spec = byFlag.get(name) ?? (negated !== undefined && kind(negated.schema) === 'boolean' ? negated : undefined)
      if (spec === undefined) {
        const known = [...specs.flatMap((s) => [s.flag, ...(s.alias !== undefined ? [s.alias] : [])]), '--input', ...COMMON_FLAGS]
        throw usageError(`${command}: unknown flag ${name} (known: ${known.join(', ')})${didYouMean(name, known)}`)
      }
      if (kind(spec.schema) === 'boolean') {
        fields[spec.field] = inline !== undefined ? valueOf(spec, spec.schema, inline) : spec !== negated
      } else if ('type' in spec.schema && spec.schema.type === 'array') {
        const value = valueOf(spec, spec.schema.items, next())
        const list = (fields[spec.field] as unknown[] | undefined) ?? []
        // An array of objects may also come whole, as one JSON array.
        fields[spec.field] = kind(spec.schema.items) !== 'string' && Array.isArray(value) ? [...list, ...value] : [...list, value]
      } else {
        fields[spec.field] = valueOf(spec, spec.schema, next())
      }
    }
  }
  if (positionals.length > 0) {
    const target = entry.positional !== undefined ? tool.input.properties[entry.positional] : undefined
    const many = target !== undefined && kind(target) === 'array'
    if (entry.positional === undefined || (positionals.length > 1 && !many))
      throw usageError(`${command}: unexpected argument ${JSON.stringify(positionals[entry.positional === undefined ? 0 : 1])}`)
    // `-` for a text argument is stdin, as `echo note | memory-agent write -` means it.
    const stdin = positionals[0] === '-' && !many && textArgument(tool, entry) !== undefined
    fields[entry.positional] = many ? [...((fields[entry.positional] as unknown[] | undefined) ?? []), ...positionals] : stdin ? (await read('-')).replace(/\r?\n$/, '') : positionals[0]
  }
  return { tool, input: { ...base, ...fields }, json, help }
}

function typeLabel(schema: Schema): string {
  if ('oneOf' in schema) return 'JSON'
  switch (schema.type) {
    case 'string':
      return schema.enum !== undefined ? schema.enum.join('|') : 'TEXT'
    case 'integer':
      return 'INT'
    case 'number':
      return 'NUMBER'
    case 'boolean':
      return ''
    case 'array':
      return `${typeLabel(schema.items)} (repeatable)`
    default:
      return 'JSON'
  }
}

/** ` ID`, ` [ID]` when optional, ` ID...` for an array field: how a command's bare arguments show in help. */
function argumentLabel(tool: ToolDeclaration, field: string | undefined): string {
  const schema = field !== undefined ? tool.input.properties[field] : undefined
  if (field === undefined || schema === undefined) return ''
  const many = kind(schema) === 'array'
  const label = `${kebab(many ? singular(field) : field).replace(/-/g, '_').toUpperCase()}${many ? '...' : ''}`
  return (tool.input.required ?? []).includes(field) ? ` ${label}` : ` [${label}]`
}

/** The usage lines of every tool command, from the registry: the command, its argument, the tool and its title. */
export function toolUsage(): string {
  return Object.entries(TOOL_COMMANDS)
    .map(([command, entry]) => {
      const tool = findTool(entry.tool)
      const head = `  memory-agent ${command}${tool !== undefined ? argumentLabel(tool, entry.positional) : ''} [flags]`
      const what = `${entry.tool}: ${tool?.title ?? ''}`
      return head.length < 41 ? `${head.padEnd(41)}${what}` : `${head}\n${' '.repeat(41)}${what}`
    })
    .join('\n')
}

/** A command's help: the tool's own description and its flags, from the schema. */
export function commandHelp(command: string): string {
  const entry = TOOL_COMMANDS[command]
  const tool = entry === undefined ? undefined : findTool(entry.tool)
  if (entry === undefined || tool === undefined) throw usageError(`unknown command ${JSON.stringify(command)}`)
  const required = new Set(tool.input.required ?? [])
  const positional = argumentLabel(tool, entry.positional)
  const rows = flagsOf(tool).map((s) => {
    const bool = kind(s.schema) === 'boolean'
    const name = bool ? `${s.flag}, --no-${s.flag.slice(2)}` : `${s.flag}${s.alias !== undefined ? `|${s.alias}` : ''} ${typeLabel(s.schema)}`
    const notes = [
      ...(s.field === entry.positional ? ['also the first argument'] : []),
      ...(required.has(s.field) ? ['required'] : []),
      ...('default' in s.schema && s.schema.default !== undefined ? [`default ${JSON.stringify(s.schema.default)}`] : []),
    ]
    return `  ${name}\n      ${s.schema.description ?? ''}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`
  })
  return [
    `memory-agent ${command}: ${tool.title} (tool ${tool.name})`,
    '',
    tool.description,
    '',
    `Usage: memory-agent ${command}${positional} [--root DIR] [--user-root DIR | --user] [--json] [--input JSON|-|@FILE] [flags]`,
    '',
    'Flags:',
    ...rows,
    '  --input JSON|-|@FILE',
    `      The whole input object, inline, from stdin (-) or from a file (@FILE); flags given beside it override its fields.${textArgument(tool, entry) !== undefined ? ` Text from stdin or a file that is not a JSON object is the ${textArgument(tool, entry)}.` : ''}`,
    '  --root DIR, --user, --json',
    '      The store (default $MEMORY_AGENT_ROOT, else ./.agent/memory); --json prints the structured output.',
    '  --user-root DIR',
    '      Also serve the personal store (default $MEMORY_AGENT_USER_ROOT, else ~/.agent/memory; --no-user-root: the project store alone); --user: the personal store alone.',
    '  --store project|user|all',
    '      With two stores: which one (reads default to all, writes go by kind).',
    '',
  ].join('\n')
}
