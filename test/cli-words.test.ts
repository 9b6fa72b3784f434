/**
 * The CLI speaks CLI: the BUILT `node lib/cli/main.js` (run `npm run build` before running this
 * file alone) says commands and flags where an agent reads tool names and input fields, leaves
 * out the search's evidence-batch note, prints --json errors as JSON, gives every command its own
 * --help, reads `write -` from stdin, prints --version and opens a memory with `show`/`get`.
 */

import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { TOOLS } from '../src/tools/index.js'
import { cliWords } from '../src/cli/cli-words.js'
import { commandName } from '../src/cli/tool-commands.js'

const REPO = path.resolve(import.meta.dirname, '..')
const CLI = path.join(REPO, 'lib', 'cli', 'main.js')

function cli(cwd: string, args: readonly string[], input?: string): { code: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, MEMORY_AGENT_USER_ROOT: '' }
  delete env['MEMORY_AGENT_ROOT']
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env, ...(input !== undefined ? { input } : {}) })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const tempCwd = () => mkdtempSync(path.join(tmpdir(), 'cli-words-'))

describe('cliWords, from the registry', () => {
  it('names every tool by its command and a field given a value by its flag', () => {
    for (const tool of TOOLS) expect(cliWords(`settle it with ${tool.name}.`)).toBe(`settle it with memory-agent ${commandName(tool)}.`)
    expect(cliWords('More: memory_nav with offset 3.')).toBe('More: memory-agent nav --offset 3.')
    expect(cliWords('Call memory_decay with dryRun: false to archive them')).toBe('Run memory-agent decay --no-dry-run to archive them')
    expect(cliWords('Call with dryRun: false to consolidate.')).toBe('Run with --no-dry-run to consolidate.')
    expect(cliWords('call again with dryRun: false')).toBe('run again with --no-dry-run')
    expect(cliWords('memory_search_hybrid: top_k: expected a number >= 1, got 0')).toBe('memory-agent search: --top-k: expected a number >= 1, got 0')
    // Words that are not a tool or a field given a value stay as they are.
    expect(cliWords('memory_nowhere with offset of the page; with dryRun set')).toBe('memory_nowhere with offset of the page; with dryRun set')
  })
})

describe('the CLI speaks CLI', () => {
  it('says commands and flags in its text, and no evidence-batch note after a search', () => {
    const cwd = tempCwd()
    for (const text of ['The cache TTL is 60 seconds.', 'The cache lives in Redis.']) expect(cli(cwd, ['write', text]).code).toBe(0)
    const nav = cli(cwd, ['nav', '--limit', '1'])
    expect(nav.stdout).toContain('More: memory-agent nav --offset 1.')
    const search = cli(cwd, ['search', 'cache'])
    expect(search.code).toBe(0)
    expect(search.stdout).toContain('2 hit(s)')
    expect(search.stdout).not.toMatch(/Evidence batch|memory_assess/)
    const preview = cli(cwd, ['consolidate'])
    expect(preview.stdout).toContain('Run with --no-dry-run to consolidate.')
    expect(preview.stdout).not.toMatch(/dryRun|memory_/)
    const missing = cli(cwd, ['rooms', '--room', 'nope'])
    expect(missing.code).toBe(3)
    expect(missing.stderr).toMatch(/^memory-agent: NOT_FOUND: memory-agent rooms: no room nope/)
  })

  it('prints an error as one JSON object on stderr under --json, with the exit code of its kind', () => {
    const cwd = tempCwd()
    expect(cli(cwd, ['write', 'A first memory, so that the store exists.']).code).toBe(0)
    const r = cli(cwd, ['show', 'mem_nothing', '--json'])
    expect(r.code).toBe(3)
    expect(r.stdout).toBe('')
    const error = (JSON.parse(r.stderr) as { error: { code: string; message: string; field?: string } }).error
    expect(error).toMatchObject({ code: 'NOT_FOUND', field: 'path' })
    expect(error.message).toContain('mem_nothing')
    const usage = JSON.parse(cli(cwd, ['search', 'x', '--top-k', 'many', '--json']).stderr) as { error: { code: string; message: string } }
    expect(usage.error).toEqual({ code: 'INVALID_INPUT', message: '--top-k: expected a number, got "many"' })
  })

  it('gives demo, rebuild and mcp their own --help, and runs none of them', () => {
    const cwd = tempCwd()
    for (const command of ['demo', 'rebuild', 'mcp']) {
      const r = cli(cwd, [command, '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^memory-agent ${command}: `))
      expect(r.stdout).not.toContain('Usage (every tool')
    }
    expect(cli(cwd, ['demo', '--help']).stdout).not.toContain('store:')
    expect(cli(cwd, ['mcp', '--help']).stdout).toContain('--consolidate-idle-ms MS')
  })

  it('reads `write -` from stdin, prints --version, and opens one memory with show and get', () => {
    const cwd = tempCwd()
    const written = JSON.parse(cli(cwd, ['write', '-', '--json'], 'Backups run nightly at 02:00.\n').stdout) as { id: string; path: string }
    const file = readFileSync(path.join(cwd, '.agent', 'memory', written.path), 'utf8')
    expect(file).toContain('Backups run nightly at 02:00.')
    expect(file).not.toMatch(/^summary: -$/m)
    const version = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version
    expect(cli(cwd, ['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` })
    for (const command of ['show', 'get']) {
      const r = cli(cwd, [command, written.id])
      expect(r.code).toBe(0)
      expect(r.stdout.split('\n')[0]).toBe(written.path)
      expect(r.stdout).toContain('Backups run nightly at 02:00.')
    }
    expect(cli(cwd, ['show', '--help']).stdout).toMatch(/^memory-agent nav: /)
  })
})
