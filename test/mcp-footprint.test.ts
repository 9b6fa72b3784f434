/**
 * What the MCP server costs a model on every request: the characters of the tool names,
 * descriptions and input schemas a client lists, measured from the real `tools/list` answer of the
 * BUILT CLI over stdio (`npm run build` first), per tool profile. The default profile stays under
 * 12,000 characters; `--tools all` and the named groups bring the rest; the server sends
 * `instructions` naming the workflow with the tools it serves. Prints the figures per profile.
 */

import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { spawnSync } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, describe, expect, it } from 'vitest'
import { TOOLS } from '../src/api.js'
import { README } from './readme-kit.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')
const DEFAULT_BUDGET = 12_000

let dir = ''

afterAll(async () => {
  if (dir !== '') await fs.rm(dir, { recursive: true, force: true })
})

interface Listing {
  names: string[]
  chars: number
  instructions: string
}

/** Connects with the given extra arguments (the personal store served too, as by default) and measures the listing. */
async function listing(extra: string[]): Promise<Listing> {
  dir ||= await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-footprint-'))
  const client = new Client({ name: 'mcp-footprint', version: '1.0.0' })
  const args = [CLI, 'mcp', '--root', path.join(dir, 'project'), '--user-root', path.join(dir, 'user'), ...extra]
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' }))
  try {
    const { tools } = await client.listTools()
    const chars = tools.reduce((sum, t) => sum + t.name.length + (t.description ?? '').length + JSON.stringify(t.inputSchema).length, 0)
    return { names: tools.map((t) => t.name), chars, instructions: client.getInstructions() ?? '' }
  } finally {
    await client.close()
  }
}

describe('MCP footprint (built CLI over stdio)', () => {
  it('the default profile lists the core tools under 12,000 characters, with instructions', async () => {
    const all = await listing(['--tools', 'all'])
    const byDefault = await listing([])
    console.log(`MCP footprint: default ${byDefault.names.length} tools ${byDefault.chars} chars; all ${all.names.length} tools ${all.chars} chars`)
    expect(all.names.sort()).toEqual(TOOLS.map((t) => t.name).sort())
    expect(byDefault.chars).toBeLessThan(DEFAULT_BUDGET)
    // The README's figures are these, to the hundred (a description edit that moves them must update it).
    const stated = README.match(/`core` group \([^)]*?: (\d+) tools, about ([\d,]+) characters[\s\S]*?where all (\d+) cost about ([\d,]+)\)/)
    expect(stated, 'README: the MCP section states the default and full tool costs').not.toBeNull()
    const hundreds = (n: number) => Math.round(n / 100) * 100
    const [, coreCount, coreChars, allCount, allChars] = stated ?? []
    expect({ coreCount: Number(coreCount), coreChars: Number(coreChars?.replace(/,/g, '')), allCount: Number(allCount), allChars: Number(allChars?.replace(/,/g, '')) }).toEqual({
      coreCount: byDefault.names.length,
      coreChars: hundreds(byDefault.chars),
      allCount: all.names.length,
      allChars: hundreds(all.chars),
    })
    for (const name of ['memory_search_hybrid', 'write_memory', 'memory_verify']) expect(byDefault.names).toContain(name)
    // The instructions teach the workflow in a few lines and name only tools that are served.
    const text = byDefault.instructions
    expect(text.length).toBeGreaterThan(0)
    expect(text.split('\n').length).toBeLessThanOrEqual(12)
    expect(text).toMatch(/search/i)
    expect(text).toMatch(/verify/i)
    expect(text).toContain('--tools')
    const named = new Set(text.match(/\b(?:memory_[a-z_]+|write_memory|forget_memories_by_session)\b/g) ?? [])
    for (const name of named) expect(byDefault.names, `instructions name ${name}, which is not served`).toContain(name)
  }, 60_000)

  it('every tool is in exactly one group; groups add up to all; figures per group', async () => {
    const seen = new Map<string, string>()
    const figures: string[] = []
    const groups = [...new Set(TOOLS.map((t) => t.group))]
    expect(groups).toContain('core')
    for (const group of groups) {
      const got = await listing(['--tools', group])
      figures.push(`${group} ${got.names.length} tools ${got.chars} chars`)
      expect(got.names.sort()).toEqual(TOOLS.filter((t) => t.group === group).map((t) => t.name).sort())
      for (const name of got.names) {
        expect(seen.has(name), `${name} in ${seen.get(name)} and ${group}`).toBe(false)
        seen.set(name, group)
      }
    }
    console.log(`MCP footprint per group: ${figures.join('; ')}`)
    expect(seen.size).toBe(TOOLS.length)
    const mixed = await listing(['--tools', 'core,review,memory_history'])
    expect(mixed.names).toContain('memory_history')
    expect(mixed.names).toContain('memory_confirm')
    expect(mixed.names).toContain('write_memory')
  }, 120_000)

  it('an unknown group is a usage error naming what is known; no store is opened', () => {
    const root = path.join(os.tmpdir(), `never-made-by-mcp-footprint-${process.pid}`)
    const r = spawnSync(process.execPath, [CLI, 'mcp', '--root', root, '--tools', 'core,tiem'], { encoding: 'utf8', input: '' })
    expect(existsSync(root)).toBe(false)
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('tiem')
    expect(r.stderr).toContain('core')
    expect(r.stderr).toContain('all')
  })

  it('descriptions are in plain words: no inner jargon', () => {
    for (const tool of TOOLS) expect(tool.description, tool.name).not.toMatch(/palace/i)
  })
})
