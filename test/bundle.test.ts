/**
 * The product runs from the bundle (scripts/bundle-lib.mjs, part of `npm run build`: build first):
 * the package's `exports` and `bin` lead into lib/bundle/ and nothing else, so a process that
 * takes the plugin, the library and the CLI never loads a per-module lib/ file beside a chunk
 * holding the same module (two copies of a cache or of a WeakMap keyed by a backend). Real
 * processes, real files; keyless writes, Chinese and English.
 */

import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SEARCH_MANIFEST } from '../src/retrieve/segment-files.js'

const repo = path.resolve(import.meta.dirname, '..')
const lib = path.join(repo, 'lib')
const bundle = path.join(lib, 'bundle')
const CLI = path.join(lib, 'cli', 'main.js')
const HOOKS = pathToFileURL(path.join(repo, 'test', 'workers', 'load-log-hooks.mjs')).href
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { version: string; main: string; bin: Record<string, string>; exports: Record<string, { default: string }> }

/** Runs node with every resolved module URL logged; returns the run and the lib/ files it loaded, relative to lib/. */
function loggedRun(args: readonly string[], input?: string): { status: number | null; stdout: string; stderr: string; loaded: string[] } {
  const log = path.join(mkdtempSync(path.join(tmpdir(), 'bundle-log-')), 'loaded.txt')
  const register = `data:text/javascript,import { register } from "node:module"; register(${JSON.stringify(HOOKS)})`
  const r = spawnSync(process.execPath, ['--import', register, ...args], { cwd: repo, encoding: 'utf8', env: { ...process.env, LOAD_LOG: log }, ...(input === undefined ? {} : { input }) })
  const urls = readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith('file://'))
  const loaded = [...new Set(urls.map((u) => path.relative(lib, new URL(u).pathname)).filter((p) => !p.startsWith('..')))].sort()
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, loaded }
}

/** Loaded lib/ files that are not the bundle: a door (its path is the package's contract) or a per-module file. */
const outsideBundle = (loaded: readonly string[]) => loaded.filter((p) => !p.startsWith('bundle/'))

describe('the bundled product', () => {
  it('every chunk imports only chunks beside it, packages and Node built-ins; the doors are one import each', () => {
    const files = readdirSync(bundle)
    expect(files).toEqual(expect.arrayContaining(['api.js', 'host.js', 'cli.js']))
    for (const file of files) {
      const code = readFileSync(path.join(bundle, file), 'utf8')
      const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"']+)\1/g)].map((m) => m[2] as string)
      for (const spec of specifiers.filter((s) => s.startsWith('.') || s.startsWith('/'))) {
        expect(path.dirname(path.resolve(bundle, spec)), `${file} imports ${spec}`).toBe(bundle)
        expect(files, `${file} imports ${spec}`).toContain(path.basename(spec))
      }
    }
    expect(readFileSync(path.join(lib, 'host', 'index.js'), 'utf8')).toBe("export * from '../bundle/host.js'\n")
    expect(readFileSync(CLI, 'utf8')).toBe("#!/usr/bin/env node\nimport '../bundle/cli.js'\n")
    expect([pkg.main, pkg.exports['.']?.default, pkg.exports['./api']?.default, pkg.bin['memory-agent']]).toEqual(['./lib/host/index.js', './lib/host/index.js', './lib/bundle/api.js', 'lib/cli/main.js'])
  })

  it('the plugin and the library in one process load each module once, from the bundle; writes and searches work', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bundle-api-'))
    const script = `
      const plugin = await import('dsh-memory-agent')
      const api = await import('dsh-memory-agent/api')
      const backend = api.createFileBackend(${JSON.stringify(root)})
      await api.writeHandler(backend, { summary: '周报每周五下午三点发给老板' })
      await api.writeHandler(backend, { summary: 'The staging database runs on port 5433' })
      const zh = (await api.searchHandler(backend, { query: '周报什么时候发' })).hits.map((h) => h.summary)
      const en = (await api.searchHandler(backend, { query: 'staging database port' })).hits.map((h) => h.summary)
      await api.flushCaches(backend)
      process.stdout.write(JSON.stringify({ plugin: [plugin.name, typeof plugin.apply], zh, en }))`
    const r = loggedRun(['--input-type=module', '-e', script])
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout) as { plugin: [string, string]; zh: string[]; en: string[] }
    expect(out.plugin).toEqual(['dsh-memory-agent', 'function'])
    expect(out.zh[0]).toBe('周报每周五下午三点发给老板')
    expect(out.en[0]).toBe('The staging database runs on port 5433')
    expect(r.loaded).toContain('bundle/api.js')
    expect(r.loaded).toContain('bundle/host.js')
    expect(outsideBundle(r.loaded)).toEqual(['host/index.js'])
    // The package version, found from lib/bundle/ (two folders down), stamps the saved index.
    const manifest = JSON.parse(readFileSync(path.join(root, SEARCH_MANIFEST), 'utf8')) as { index: string }
    expect(manifest.index.endsWith(`@${pkg.version}`)).toBe(true)
  })

  it('the CLI runs from the bundle: keyless writes, then searches in Chinese and English', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bundle-cli-'))
    const run = (...args: string[]) => loggedRun([CLI, ...args, '--root', root])
    for (const summary of ['用户住在杭州，周末喜欢去西湖边跑步', 'The deploy window moved to Thursday evening']) {
      const w = run('write', summary, '--json')
      expect(w.status, w.stderr).toBe(0)
      expect(outsideBundle(w.loaded)).toEqual(['cli/main.js'])
    }
    const zh = run('search', '住在哪里', '--json')
    expect(zh.status, zh.stderr).toBe(0)
    expect((JSON.parse(zh.stdout) as { hits: Array<{ summary: string }> }).hits[0]?.summary).toBe('用户住在杭州，周末喜欢去西湖边跑步')
    const en = run('search', 'deploy window', '--json')
    expect((JSON.parse(en.stdout) as { hits: Array<{ summary: string }> }).hits[0]?.summary).toBe('The deploy window moved to Thursday evening')
    expect(outsideBundle(en.loaded)).toEqual(['cli/main.js'])
  })

  it('the MCP server behind `memory-agent mcp` loads from the bundle too', () => {
    // An initialize request, then end of input: the server answers, then exits as its stdin closes.
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-test', version: '1' } } }
    const root = mkdtempSync(path.join(tmpdir(), 'bundle-mcp-'))
    const r = loggedRun([CLI, 'mcp', '--root', root, '--no-user-root'], `${JSON.stringify(init)}\n`)
    const answer = JSON.parse(r.stdout.split('\n')[0] ?? '') as { result: { serverInfo: { version: string } } }
    expect(answer.result.serverInfo.version).toBe(pkg.version)
    expect(r.loaded.some((p) => /^bundle\/stdio-[\w-]+\.js$/.test(p))).toBe(true)
    expect(outsideBundle(r.loaded)).toEqual(['cli/main.js'])
  })
})
