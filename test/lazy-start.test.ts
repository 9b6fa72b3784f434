/**
 * Start-up loads what the first answer needs and no more: a search through the library (its
 * per-module build and its bundle) or the BUILT CLI (`npm run build` first) loads neither the
 * MCP SDK, zod and the web server nor gray-matter (with js-yaml and esprima) when no memory file
 * changed; those load at their first use, and work then. (A search records its use beside the answer, under the store lock: that
 * loads proper-lockfile, after the answer is made.)
 */

import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, writeHandler } from '../src/api.js'

const repo = path.resolve(import.meta.dirname, '..')
const CLI = path.join(repo, 'lib', 'cli', 'main.js')
const API = pathToFileURL(path.join(repo, 'lib', 'api.js')).href
const HOOKS = pathToFileURL(path.join(repo, 'test', 'workers', 'load-log-hooks.mjs')).href

async function savedStore(): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), 'lazy-start-'))
  const backend = createFileBackend(root)
  await writeHandler(backend, { summary: '周报每周五下午三点发给老板' })
  await writeHandler(backend, { summary: 'The staging database runs on port 5433' })
  await flushCaches(backend)
  return root
}

/** Packages (folder names under node_modules) among loaded module paths or URLs. */
const packagesIn = (paths: readonly string[]) => [...new Set(paths.flatMap((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1] ?? []))].sort()

const HEAVY = ['@modelcontextprotocol/sdk', 'ajv', 'esprima', 'gray-matter', 'js-yaml', 'zod']

describe('lazy start-up', () => {
  // The per-module build (tests and benches import it) and the bundle a host imports (`exports["./api"]`).
  it.each([['lib/api.js', API], ['the package export ./api', 'dsh-memory-agent/api']])('a library search through %s loads no heavy package; a write then loads and uses them', async (_, api) => {
    const root = await savedStore()
    const script = `
      import { createRequire } from 'node:module'
      const api = await import(${JSON.stringify(api)})
      const cjs = () => Object.keys(createRequire(import.meta.url).cache)
      const backend = api.createFileBackend(${JSON.stringify(root)})
      const hits = (await api.searchHandler(backend, { query: '周报' })).hits.map((h) => h.summary)
      const afterSearch = cjs()
      const wrote = await api.writeHandler(backend, { summary: '发布窗口改到周四晚上' })
      const afterWrite = cjs()
      await api.flushCaches(backend)
      process.stdout.write(JSON.stringify({ hits, afterSearch, afterWrite, wrote: wrote.path }))`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repo, encoding: 'utf8' })
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout) as { hits: string[]; afterSearch: string[]; afterWrite: string[]; wrote: string }
    expect(out.hits).toEqual(['周报每周五下午三点发给老板'])
    expect(packagesIn(out.afterSearch).filter((p) => HEAVY.includes(p))).toEqual([])
    expect(packagesIn(out.afterWrite)).toEqual(expect.arrayContaining(['gray-matter', 'js-yaml', 'proper-lockfile', 'write-file-atomic']))
    expect(readFileSync(path.join(root, out.wrote), 'utf8')).toMatch(/^---\nid: mem_/)
  })

  it('the CLI loads no MCP SDK, zod, web server or progress bar for a search', async () => {
    const root = await savedStore()
    const log = path.join(mkdtempSync(path.join(tmpdir(), 'lazy-log-')), 'loaded.txt')
    const register = `data:text/javascript,import { register } from "node:module"; register(${JSON.stringify(HOOKS)})`
    const r = spawnSync(process.execPath, ['--import', register, CLI, 'search', 'staging', '--root', root, '--json'], { encoding: 'utf8', env: { ...process.env, LOAD_LOG: log } })
    expect(r.status, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as { hits: Array<{ summary: string }> }).hits.map((h) => h.summary)).toEqual(['The staging database runs on port 5433'])
    const loaded = readFileSync(log, 'utf8').split('\n').filter((l) => l !== '')
    expect(loaded.some((u) => u.endsWith('/lib/cli/main.js'))).toBe(true)
    expect(packagesIn(loaded).filter((p) => HEAVY.includes(p))).toEqual([])
    // The progress bar's width measure (a grapheme segmenter and emoji patterns built on import)
    // is for commands that draw one.
    expect(packagesIn(loaded)).not.toContain('string-width')
    expect(loaded.filter((u) => /\/lib\/(host\/|mcp\/(server|stdio)\.js)/.test(u))).toEqual([])
  })
})
