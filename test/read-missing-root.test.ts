/**
 * Reads never create stores. A read on a root that does not exist (a mistyped --root) is
 * NOT_FOUND naming the path and leaves no folder behind, through the library, the built CLI and
 * the built MCP server over stdio (real client); the personal store (~/.agent/memory under a
 * fresh HOME) is created by the first write that goes there, not by any command before it.
 * Run `npm run build` before this file alone.
 */

import { spawnSync } from 'node:child_process'
import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, describe, expect, it } from 'vitest'
import { MemoryError, createFileBackend, navHandler, searchHandler, sweepHandler, writeHandler } from '../src/api.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')
const dirs: string[] = []
afterAll(async () => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))))

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'read-missing-'))
  dirs.push(dir)
  return dir
}

/** The built CLI in cwd with a fresh HOME and no store variables. */
function cli(cwd: string, home: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: home }
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env })
}

const READS: readonly string[][] = [
  ['search', 'port'],
  ['nav'],
  ['stats'],
  ['sweep'],
  ['verify', 'The API listens on port 8080.'],
  ['history', 'mem_x'],
  ['duplicates'],
  ['export'],
]

describe('reads never create stores', () => {
  it('library: a read on a missing root is NOT_FOUND naming it; no folder is made; a write makes it', async () => {
    const root = path.join(await tempDir(), 'typo', 'store')
    const backend = createFileBackend(root)
    for (const read of [() => navHandler(backend, {}), () => searchHandler(backend, { query: 'port' }), () => sweepHandler(backend, {})]) {
      const err = await read().catch((e: unknown) => e)
      expect(err).toBeInstanceOf(MemoryError)
      expect((err as MemoryError).code).toBe('NOT_FOUND')
      expect((err as MemoryError).message).toContain(root)
    }
    expect(existsSync(path.dirname(root))).toBe(false)
    await writeHandler(backend, { summary: 'The API listens on port 8080.' })
    expect(existsSync(path.join(root, 'index.jsonl'))).toBe(true)
    expect((await searchHandler(backend, { query: 'port' })).hits.length).toBe(1)
  })

  it('CLI: every read command on a mistyped --root exits 3 naming the path, and creates nothing', async () => {
    const dir = await tempDir()
    const home = path.join(dir, 'home')
    await fs.mkdir(home)
    const typo = path.join(dir, 'stor')
    let refused = 0
    for (const read of READS) {
      const r = cli(dir, home, ...read, '--root', typo)
      expect(r.status, `${read.join(' ')}: ${r.stderr}`).toBe(3)
      expect(r.stderr, read.join(' ')).toContain('NOT_FOUND')
      expect(r.stderr, read.join(' ')).toContain(typo)
      if (!existsSync(typo)) refused++
    }
    console.log(`mistyped --root: ${refused} of ${READS.length} read commands left no folder`)
    expect(refused).toBe(READS.length)
    expect(await fs.readdir(home)).toEqual([])
  }, 120_000)

  it('CLI: with a fresh HOME, ~/.agent/memory appears only when a write goes there', async () => {
    const dir = await tempDir()
    const home = path.join(dir, 'home')
    await fs.mkdir(home)
    const personal = path.join(home, '.agent', 'memory')
    const project = path.join(dir, '.agent', 'memory')
    // A project write: the project store is made, the personal one is not.
    expect(cli(dir, home, 'write', 'The API listens on port 8080.', '--tags', 'environment').status).toBe(0)
    expect(existsSync(project)).toBe(true)
    for (const read of READS.filter((r) => r[0] !== 'history')) {
      const r = cli(dir, home, ...read)
      expect(r.status, `${read.join(' ')}: ${r.stderr}`).toBe(0)
    }
    expect(existsSync(path.join(home, '.agent'))).toBe(false)
    // --user reads the personal store alone: it does not exist yet.
    const userRead = cli(dir, home, 'search', 'port', '--user')
    expect(userRead.status).toBe(3)
    expect(userRead.stderr).toContain(personal)
    expect(existsSync(path.join(home, '.agent'))).toBe(false)
    // The first write that targets it makes it.
    expect(cli(dir, home, 'write', 'I prefer short answers in English.', '--user').status).toBe(0)
    expect(existsSync(path.join(personal, 'index.jsonl'))).toBe(true)
  }, 120_000)

  it('MCP: a read tool on a missing root is an isError NOT_FOUND naming it; write_memory creates the store', async () => {
    const dir = await tempDir()
    const root = path.join(dir, 'stor')
    const client = new Client({ name: 'read-missing', version: '1.0.0' })
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: path.join(dir, 'home') }
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], env, cwd: dir, stderr: 'pipe' }))
    try {
      for (const [name, args] of [
        ['memory_search_hybrid', { query: 'port' }],
        ['memory_nav', {}],
        ['memory_verify', { claim: 'The API listens on port 8080.' }],
      ] as const) {
        const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text?: string }[] }
        expect(r.isError, name).toBe(true)
        expect(r.content[0]?.text, name).toMatch(/^NOT_FOUND: /)
        expect(r.content[0]?.text, name).toContain(root)
      }
      expect(existsSync(root)).toBe(false)
      expect(existsSync(path.join(dir, 'home', '.agent'))).toBe(false)
      const w = (await client.callTool({ name: 'write_memory', arguments: { summary: 'The API listens on port 8080.', tags: ['environment'] } })) as { isError?: boolean }
      expect(w.isError).toBeFalsy()
      expect(existsSync(path.join(root, 'index.jsonl'))).toBe(true)
    } finally {
      await client.close()
    }
  }, 30_000)
})
