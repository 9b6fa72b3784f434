/**
 * One registry, every surface: each tool of `TOOLS` is a command of the BUILT CLI (listed in its
 * usage, with help from its description and a run that reaches its handler, text and `--json`),
 * a tool of the MCP server over stdio, and a tool the DSH plugin registers with a real host. A
 * tool added to the registry and missing anywhere fails here. (The panel's ops are a chosen
 * subset, see docs/decisions.md.) Run `npm run build` first when running this file alone.
 */

import { spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { SystemPrompt } from '@deepseek-ai/dsh-system-prompt'
import { ToolRuntime } from '@deepseek-ai/dsh-tools'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { TOOLS, outputViolation } from '../src/api.js'
import { OTHER_COMMANDS, TOOL_COMMANDS, commandName } from '../src/cli/tool-commands.js'
import * as plugin from '../src/host/index.js'

const CLI = path.resolve(import.meta.dirname, '..', 'lib', 'cli', 'main.js')
const dirs: string[] = []

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'surfaces-'))
  dirs.push(dir)
  return dir
}

function cli(cwd: string, ...args: string[]) {
  const env = { ...process.env }
  delete env['MEMORY_AGENT_ROOT']
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

afterAll(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})

describe('every registry tool on every surface', () => {
  it('the CLI: one command per tool, in the usage, with help, reaching the handler in text and --json', async () => {
    const cwd = await tempDir()
    const commands = TOOLS.map(commandName)
    expect(new Set(commands).size).toBe(TOOLS.length)
    expect(commands.filter((c) => (OTHER_COMMANDS as readonly string[]).includes(c))).toEqual([])
    expect(Object.values(TOOL_COMMANDS).map((c) => c.tool)).toEqual(TOOLS.map((t) => t.name))
    const usage = cli(cwd, '--help').stdout
    // Reads need an existing store (NOT_FOUND otherwise): the first write makes it.
    expect(cli(cwd, 'write', 'The surfaces test store exists.', '--root', path.join(cwd, 'store'), '--no-user-root').code).toBe(0)
    let reached = 0
    for (const tool of TOOLS) {
      const command = commandName(tool)
      expect(usage, command).toMatch(new RegExp(`^  memory-agent ${command} .*\\n?.*${tool.name}: `, 'm'))
      const help = cli(cwd, command, '--help')
      expect(help.code, command).toBe(0)
      expect(help.stdout).toContain(tool.description)
      // With no input: a result, or the tool's own validation naming a field (required ones, one of two).
      const args = ['--root', path.join(cwd, 'store'), '--no-user-root']
      const json = cli(cwd, command, ...args, '--json')
      const text = cli(cwd, command, ...args)
      if (json.code !== 0) {
        expect(json.code, `${command}: ${json.stderr}`).toBe(2)
        // Under --json the error is one JSON object naming the field; in text, a line naming the kind.
        const error = (JSON.parse(json.stderr) as { error: { code: string; field?: string } }).error
        expect(error.code, `${command}: ${json.stderr}`).toBe('INVALID_INPUT')
        expect(typeof error.field, `${command}: ${json.stderr}`).toBe('string')
        expect(text.code, `${command}: ${text.stderr}`).toBe(2)
        expect(text.stderr).toMatch(/^memory-agent: INVALID_INPUT: /)
      } else {
        expect(outputViolation(tool.output, JSON.parse(json.stdout))).toBeNull()
        expect(text.code).toBe(0)
        // Readable text: not the JSON again, on one line or many.
        expect(text.stdout.trimStart().startsWith('{'), `${command} printed JSON without --json: ${text.stdout}`).toBe(false)
      }
      reached++
    }
    console.log(`CLI: ${reached} of ${TOOLS.length} registry tools are commands that reach their handler`)
    expect(reached).toBe(TOOLS.length)
  }, 120_000)

  it('the MCP server over stdio lists every tool', async () => {
    const root = path.join(await tempDir(), 'store')
    const client = new Client({ name: 'surfaces-test', version: '1.0.0' })
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--tools', 'all', '--root', root, '--no-user-root'], env, stderr: 'pipe' }))
    try {
      const { tools } = await client.listTools()
      const missing = TOOLS.filter((t) => !tools.some((m) => m.name === t.name && m.description === t.description)).map((t) => t.name)
      console.log(`MCP: ${TOOLS.length - missing.length} of ${TOOLS.length} registry tools listed`)
      expect(missing).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('the DSH plugin registers every tool with a real host', async () => {
    const dir = await tempDir()
    const root = new Context()
    await root.plugin(SystemPrompt, {})
    await root.plugin(ToolRuntime, {})
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined)
    const fiber = await root.plugin(plugin as never, { root: path.join(dir, 'store'), userRoot: path.join(dir, 'personal') })
    try {
      const names = (root as unknown as { tools: { schemas(): { name: string }[] } }).tools.schemas().map((s) => s.name)
      const missing = TOOLS.filter((t) => !names.includes(t.name)).map((t) => t.name)
      console.log(`DSH: ${TOOLS.length - missing.length} of ${TOOLS.length} registry tools registered`)
      expect(missing).toEqual([])
    } finally {
      await (fiber as unknown as { dispose(): Promise<unknown> }).dispose()
      info.mockRestore()
    }
  })
})
