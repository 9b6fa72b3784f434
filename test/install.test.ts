/**
 * SLOW (about 15 s, needs the npm registry or its cache): the README's install path works from a
 * clone. Runs the "3 commands" step 2 as written (`npm install -g "$(npm pack --silent)"`) into an
 * empty prefix, then starts every MCP client snippet's command line from the README (Claude
 * Code, mcpServers JSON, opencode) with only that prefix's bin on PATH, and does an MCP
 * initialize + tools/list over stdio. Needs lib/ (`npm run build`; `npm test` builds first).
 */

import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { selectTools } from '../src/mcp/profile.js'
import { README, commandsOf, fencedBlocks, snippetLaunches } from './readme-kit.js'

const repo = path.resolve(import.meta.dirname, '..')

describe('install from a clone (slow)', () => {
  it('the packed tarball installs into an empty prefix, and every README snippet starts its MCP server from there', async () => {
    const steps = fencedBlocks('bash').map(commandsOf).find((lines) => lines.some((l) => l.startsWith('claude mcp add')) && lines.some((l) => l.includes('npm pack'))) ?? []
    expect(steps).toHaveLength(3)
    expect(steps[0]).toBe('npm ci && npm run build')
    const prefix = mkdtempSync(path.join(tmpdir(), 'install-prefix-'))
    const tarballsBefore = new Set(readdirSync(repo).filter((f) => f.endsWith('.tgz')))
    try {
      // Step 2 as the README writes it; npm_config_prefix makes "-g" the empty prefix.
      execFileSync('bash', ['-c', steps[1] ?? ''], {
        cwd: repo,
        env: { ...process.env, npm_config_prefix: prefix, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_ignore_scripts: 'true' },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
    } finally {
      for (const f of readdirSync(repo)) if (f.endsWith('.tgz') && !tarballsBefore.has(f)) rmSync(path.join(repo, f))
    }
    const bin = path.join(prefix, 'bin')
    expect(existsSync(path.join(bin, 'memory-agent'))).toBe(true)

    // Claude Code's (at the top and under MCP), the mcpServers JSON, opencode's.
    const launches = snippetLaunches()
    expect(launches.length).toBeGreaterThanOrEqual(4)
    for (const [command, ...args] of launches) {
      expect(command).toBe('memory-agent')
      expect(args[0]).toBe('mcp')
      const cwd = mkdtempSync(path.join(tmpdir(), 'install-mcp-'))
      const client = new Client({ name: 'install-test', version: '1.0.0' })
      // Only the prefix's bin and node's folder on PATH: the command must come from the install.
      const env = { PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}`, HOME: cwd }
      await client.connect(new StdioClientTransport({ command: path.join(bin, command ?? ''), args, cwd, env, stderr: 'ignore' }))
      try {
        const listed = await client.listTools()
        const at = args.indexOf('--tools')
        expect(listed.tools.map((t) => t.name).sort()).toEqual(selectTools(at >= 0 ? args[at + 1] : undefined).map((t) => t.name).sort())
        expect(client.getInstructions()).toMatch(/memory_search_hybrid/)
      } finally {
        await client.close()
      }
    }
  }, 180_000)

  it('the Chinese README gives the same install commands and client snippets', () => {
    const zh = readFileSync(path.join(repo, 'README.zh-CN.md'), 'utf8')
    const install = (text: string) => fencedBlocks('bash', text).map(commandsOf).find((lines) => lines.some((l) => l.includes('npm pack')))
    expect(install(zh)).toEqual(install(README))
    expect(snippetLaunches(zh)).toEqual(snippetLaunches())
  })
})
