/**
 * The flags of the commands that are not tools (sync, export, import, stats, rebuild, serve,
 * panel-key, mcp): each names its own, and every one takes the same store flags as the tool
 * commands. Pure: main.ts reads the store from `args`.
 */

import { didYouMean } from './suggest.js'
import { usageError } from './tool-commands.js'

/** The store flags every store command takes: the store, the personal store, or neither. */
export const STORE_VALUE_FLAGS = ['--root', '--user-root'] as const
export const STORE_SWITCHES = ['--user', '--no-user-root'] as const

export interface Flags {
  readonly positionals: string[]
  readonly values: Map<string, string>
  readonly switches: Set<string>
  /** argv with `--flag=value` split in two, for the shared store-root reader. */
  readonly args: string[]
}

/** A command's own flags besides the store flags and --help. */
export interface FlagSpec {
  readonly valued?: readonly string[]
  readonly switches?: readonly string[]
}

/** argv after the command name, checked against the command's flags; an unknown one exits 2 with a "did you mean". */
export function parseFlags(command: string, args: readonly string[], spec: FlagSpec = {}): Flags {
  const valued = [...(spec.valued ?? []), ...STORE_VALUE_FLAGS]
  const switches = [...(spec.switches ?? []), ...STORE_SWITCHES, '--help']
  const out: Flags = { positionals: [], values: new Map(), switches: new Set(), args: [] }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1
    const name = eq > 0 ? arg.slice(0, eq) : arg
    if (!name.startsWith('--') || name === '--') {
      out.positionals.push(arg)
      out.args.push(arg)
    } else if (valued.includes(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : args[++i]
      if (value === undefined || (eq < 0 && value.startsWith('--'))) throw usageError(`${command}: ${name} needs a value`)
      out.values.set(name, value)
      out.args.push(name, value)
    } else if (switches.includes(name) && eq < 0) {
      out.switches.add(name)
      out.args.push(name)
    } else {
      const known = [...valued, ...switches]
      throw usageError(`${command}: unknown flag ${name} (known: ${known.join(', ')})${didYouMean(name, known)}`)
    }
  }
  return out
}

/** `--root=DIR` and `--user-root=DIR` as two arguments, the form the store reader looks for. */
export function splitStoreFlags(args: readonly string[]): string[] {
  return args.flatMap((arg) => {
    const eq = arg.indexOf('=')
    return eq > 0 && (STORE_VALUE_FLAGS as readonly string[]).includes(arg.slice(0, eq)) ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg]
  })
}
