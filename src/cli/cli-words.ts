/**
 * The CLI's words for what the tools say in MCP terms. A message written for an agent names a
 * tool (`memory_resolve`) and its input fields (`with dryRun: false`, `with offset 3`); printed by
 * the CLI it names the command and its flags (`memory-agent resolve`, `--no-dry-run`,
 * `--offset 3`). One mapping, derived from the tool registry like the commands themselves
 * (tool-commands.ts): nothing is listed by hand. Pure.
 */

import { TOOLS } from '../tools/index.js'
import { commandName, flagsOf } from './tool-commands.js'

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Every tool's name -> its command line. */
const COMMANDS = new Map(TOOLS.map((t) => [t.name, `memory-agent ${commandName(t)}`]))
/** Every input field of every tool -> its flag (`dryRun` -> `--dry-run`). */
const FLAGS = new Map(TOOLS.flatMap((t) => flagsOf(t).map((s) => [s.field, s.flag] as const)))

/** A regex alternation of `names`, longest first so that no name matches inside another. */
const alternation = (names: Iterable<string>) => [...names].sort((a, b) => b.length - a.length).map(escape).join('|')

/** `with dryRun: false`, `with offset 3`, `with limit: 20`: a field given a value. */
const FIELD_VALUE = new RegExp(`\\bwith (${alternation(FLAGS.keys())})(?::\\s*|\\s+)(true|false|-?\\d+(?:\\.\\d+)?)\\b`, 'g')
/** A tool's name, and the `with` that may follow it before a flag. */
const TOOL_NAME = new RegExp(`\\b(${alternation(COMMANDS.keys())})\\b( with (?=--))?`, 'g')

/** `memory_search_hybrid: top_k: expected ...`: a validation error naming a tool's input field. */
const TOOL_FIELD = new RegExp(`\\b(${alternation(COMMANDS.keys())}): (${alternation(FLAGS.keys())}):`, 'g')

/** `text` as the CLI says it: commands for tool names, flags for `with field: value` and for the field an error names, "run" for "call". */
export function cliWords(text: string): string {
  return text
    .replace(FIELD_VALUE, (_all, field: string, value: string) => {
      const flag = FLAGS.get(field) ?? field
      if (value === 'true') return `with ${flag}`
      if (value === 'false') return `with --no-${flag.slice(2)}`
      return `with ${flag} ${value}`
    })
    .replace(TOOL_FIELD, (_all, name: string, field: string) => `${name}: ${FLAGS.get(field) ?? field}:`)
    .replace(TOOL_NAME, (_all, name: string, before: string | undefined) => `${COMMANDS.get(name) ?? name}${before !== undefined ? ' ' : ''}`)
    .replace(/\b([Cc])all (?=(?:again )?with --|memory-agent )/g, (_all, c: string) => `${c === 'C' ? 'R' : 'r'}un `)
}
