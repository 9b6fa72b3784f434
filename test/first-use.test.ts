/**
 * First use: on the default store of a project that has written nothing yet, the tools a model
 * calls first (search, verify, nav) answer "nothing stored yet" instead of a NOT_FOUND error, and
 * create nothing; a root the user named and that is missing stays NOT_FOUND (read-missing-root).
 * Through the library, the built CLI in a fresh folder, and the built MCP server over stdio (real
 * client, no --root). Run `npm run build` before this file alone.
 */

import { spawnSync } from 'node:child_process'
import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, describe, expect, it } from 'vitest'
import { MemoryError, TOOLS, createFileBackend, navHandler, outputViolation, searchHandler, verifyHandler, writeHandler } from '../src/api.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')
const dirs: string[] = []
afterAll(async () => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))))

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'first-use-'))
  dirs.push(dir)
  return dir
}

/** The output schema a tool declares, for checking a first-use answer against it. */
function schemaOf(name: string) {
  const tool = TOOLS.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`no tool ${name}`)
  return tool.output
}

describe('first use: nothing stored yet', () => {
  it('library: the default root answers search, verify and nav with "nothing stored yet", creates nothing; a write then starts it', async () => {
    const root = path.join(await tempDir(), '.agent', 'memory')
    const backend = createFileBackend(root, { missingStore: 'empty' })
    const search = await searchHandler(backend, { query: 'port' })
    expect(search.reason).toBe('nothing-stored')
    expect(search.hits).toEqual([])
    expect(search.guidance).toContain('nothing stored yet')
    expect(search.batch_id).toBeUndefined()
    const verify = await verifyHandler(backend, { claim: 'The API listens on port 8080.' })
    expect(verify.verdict).toBe('unknown')
    expect(verify.note).toMatch(/^UNKNOWN: nothing stored yet/)
    const nav = await navHandler(backend, { limit: 5 })
    expect({ total: nav.total, entries: nav.entries, limit: nav.limit }).toEqual({ total: 0, entries: [], limit: 5 })
    expect(nav.note).toContain('nothing stored yet')
    for (const [name, value] of [['memory_search_hybrid', search], ['memory_verify', verify], ['memory_nav', nav]] as const) {
      expect(outputViolation(schemaOf(name), value), name).toBeNull()
    }
    expect(existsSync(path.dirname(root))).toBe(false)
    await writeHandler(backend, { summary: 'The API listens on port 8080.' })
    const after = await searchHandler(backend, { query: 'port' })
    expect(after.reason).toBe('ok')
    expect(after.hits.length).toBe(1)
  })

  it("library: a root named by the caller (the library's default) that is missing is still NOT_FOUND", async () => {
    const root = path.join(await tempDir(), 'stor')
    const err = await searchHandler(createFileBackend(root), { query: 'port' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MemoryError)
    expect((err as MemoryError).code).toBe('NOT_FOUND')
  })

  it('CLI: search, verify and nav in a fresh project exit 0 saying nothing is stored yet, and create nothing', async () => {
    const dir = await tempDir()
    const home = path.join(dir, 'home')
    await fs.mkdir(home)
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: home }
    for (const read of [['search', 'port'], ['verify', 'The API listens on port 8080.'], ['nav']]) {
      const r = spawnSync(process.execPath, [CLI, ...read], { cwd: dir, encoding: 'utf8', env })
      expect(r.status, `${read.join(' ')}: ${r.stderr}`).toBe(0)
      expect(r.stdout, read.join(' ')).toContain('nothing stored yet')
    }
    expect(existsSync(path.join(dir, '.agent'))).toBe(false)
    expect(await fs.readdir(home)).toEqual([])
  }, 60_000)

  it('MCP: with no --root, a new project\'s first search, verify and nav are answers, not errors; write_memory then starts the store', async () => {
    const dir = await tempDir()
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: path.join(dir, 'home') }
    const client = new Client({ name: 'first-use', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env, cwd: dir, stderr: 'pipe' }))
    try {
      const expected: Record<string, (s: Record<string, unknown>) => unknown> = {
        memory_search_hybrid: (s) => s['reason'],
        memory_verify: (s) => s['verdict'],
        memory_nav: (s) => s['total'],
      }
      const wanted: Record<string, unknown> = { memory_search_hybrid: 'nothing-stored', memory_verify: 'unknown', memory_nav: 0 }
      for (const [name, args] of [
        ['memory_search_hybrid', { query: 'port' }],
        ['memory_verify', { claim: 'The API listens on port 8080.' }],
        ['memory_nav', {}],
      ] as const) {
        const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text?: string }[]; structuredContent?: Record<string, unknown> }
        expect(r.isError, name).toBeFalsy()
        expect(r.content[0]?.text, name).toContain('nothing stored yet')
        expect(expected[name]?.(r.structuredContent ?? {}), name).toBe(wanted[name])
      }
      expect(existsSync(path.join(dir, '.agent'))).toBe(false)
      const w = (await client.callTool({ name: 'write_memory', arguments: { summary: 'The API listens on port 8080.', tags: ['environment'] } })) as { isError?: boolean }
      expect(w.isError).toBeFalsy()
      const s = (await client.callTool({ name: 'memory_search_hybrid', arguments: { query: 'port' } })) as { structuredContent?: { reason?: string } }
      expect(s.structuredContent?.reason).toBe('ok')
    } finally {
      await client.close()
    }
  }, 60_000)
})
