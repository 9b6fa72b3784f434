/** The README's fenced blocks and commands, for the tests that hold the README to what it says. */

import { readFileSync } from 'node:fs'
import path from 'node:path'

export const README = readFileSync(path.resolve(import.meta.dirname, '..', 'README.md'), 'utf8')

/** The text of every fenced block of `lang`, in order. */
export function fencedBlocks(lang: string, text: string = README): string[] {
  const out: string[] = []
  const re = new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g')
  for (const m of text.matchAll(re)) out.push(m[1] ?? '')
  return out
}

/** A block's command lines, comments and blank lines dropped. */
export function commandsOf(block: string): string[] {
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '')
}

/** The command line of every MCP client snippet: the JSON configurations, then `claude mcp add`'s. */
export function snippetLaunches(text: string = README): string[][] {
  const launches: string[][] = []
  for (const block of fencedBlocks('json', text)) {
    const config = JSON.parse(block) as { mcpServers?: Record<string, { command: string; args: string[] }>; mcp?: Record<string, { command: string[] }> }
    for (const server of Object.values(config.mcpServers ?? {})) launches.push([server.command, ...server.args])
    for (const server of Object.values(config.mcp ?? {})) launches.push(server.command)
  }
  for (const block of fencedBlocks('(?:text|bash)', text)) {
    for (const line of commandsOf(block)) if (/^claude mcp add /.test(line)) launches.push((line.split(' -- ')[1] ?? '').split(' '))
  }
  return launches
}
