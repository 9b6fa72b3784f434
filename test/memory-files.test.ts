/**
 * Issue 28, items 6 and 7: reads are confined to memory files, and no file can stall the process.
 *
 * - `memory_nav` (library, CLI, MCP) and a raw_ref open only markdown files in the memory folders
 *   and README.md: never `.git/config`, `.cache/panel-key`, `config.json`, nor a link to them; a
 *   link a teammate pushed into a memory folder (to `.git/config`) never becomes a memory.
 * - A FIFO, a link to one, or a FIFO as `aliases.json` / `config.json` is refused or passed over
 *   at once (real `mkfifo`; each case runs in a child with a timeout, which a hang would hit).
 * - A `topics/` or `.cache/` that links outside the store does not make every call fail.
 *
 * The CLI and MCP cases run the BUILT CLI: run `npm run build` first.
 */

import { execFileSync, spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { assembleHandler, createFileBackend, navHandler, rebuildIndex, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { expectCode } from './store-kit.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')
const TOKEN = 'ghp_R3aLlyS3cr3tT0kenV4lue9876543210abcd'
/**
 * Long enough for a slow machine, far shorter than a hang (which never ends). SIGKILL: a process
 * blocked opening a FIFO never runs the CLI's SIGTERM handler, and spawnSync would wait on it.
 */
const NO_HANG_MS = 30_000

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})

let warnings: string[] = []
beforeEach(() => {
  warnings = []
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(' ')))
})
afterEach(() => vi.restoreAllMocks())

/** A store with one memory, a git folder holding a token, a panel key and a config.json. */
async function store(): Promise<{ base: string; root: string; backend: MemoryBackend }> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memory-files-')))
  dirs.push(base)
  const root = path.join(base, 'store')
  const backend = createFileBackend(root)
  await writeHandler(backend, { summary: 'The staging database runs on port 5433.', title: 'Staging DB' })
  await fs.mkdir(path.join(root, '.git'), { recursive: true })
  await fs.writeFile(path.join(root, '.git', 'config'), `[remote "origin"]\n\turl = https://x:${TOKEN}@github.com/team/memory.git\n`)
  await fs.mkdir(path.join(root, '.cache'), { recursive: true })
  await fs.writeFile(path.join(root, '.cache', 'panel-key'), `${TOKEN}\n`)
  await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ note: TOKEN }))
  return { base, root, backend }
}

function cli(root: string, args: string[], input?: string): ReturnType<typeof spawnSync> {
  return spawnSync(process.execPath, [CLI, ...args, '--root', root], { encoding: 'utf8', timeout: NO_HANG_MS, killSignal: 'SIGKILL', input, env: { ...process.env, MEMORY_AGENT_USER_ROOT: '' } })
}

describe('reads confined to memory files (item 6)', () => {
  it('memory_nav refuses .git/config, .cache/panel-key, config.json and a link to them, naming the path', async () => {
    const { root, backend } = await store()
    await fs.symlink('../.git/config', path.join(root, 'topics', 'notes.md'))
    for (const p of ['.git/config', '.cache/panel-key', 'config.json', 'ledger.jsonl', 'topics/../.git/config']) {
      const err = await expectCode(navHandler(backend, { path: p }), p.includes('..') ? 'PATH_OUTSIDE_ROOT' : 'INVALID_INPUT')
      expect(err.message).toContain(JSON.stringify(p))
      expect(err.message).not.toContain(TOKEN)
    }
    const link = await expectCode(navHandler(backend, { path: 'topics/notes.md' }), 'INVALID_INPUT')
    expect(link.message).toContain('"topics/notes.md"')
    expect(link.message).toContain('links to ".git/config"')
    // What is a memory file still opens.
    expect((await navHandler(backend, { path: 'README.md' })).file?.text).toContain('Agent memory')
  })

  it('a link pushed into a memory folder pointing at .git/config never becomes a memory, and is reported', async () => {
    const { root, backend } = await store()
    await fs.symlink('../.git/config', path.join(root, 'topics', 'remote-notes.md'))
    expect((await searchHandler(backend, { query: 'remote origin url github' })).hits.map((h) => h.path)).not.toContain('topics/remote-notes.md')
    expect((await navHandler(backend, { path: 'topics/' })).entries.map((e) => e.path)).not.toContain('topics/remote-notes.md')
    const rebuilt = createFileBackend(root)
    await rebuildIndex(root)
    expect((await rebuilt.readIndex()).map((e) => e.path)).not.toContain('topics/remote-notes.md')
    expect(JSON.stringify(await rebuilt.readIndex())).not.toContain(TOKEN)
    expect(warnings.some((w) => w.includes('topics/remote-notes.md') && w.includes('.git/config'))).toBe(true)
  })

  it('a raw_ref naming .git/config is not read into an assembled prompt', async () => {
    const { root, backend } = await store()
    await fs.writeFile(
      path.join(root, 'episodes', '2026-01-01-mem_pushed.md'),
      '---\nid: mem_pushed\ntype: episode\ntitle: Deploy notes\nraw_ref: .git/config\n---\n# Deploy notes\n\nThe deploy runs from the origin remote on github.\n',
    )
    const out = await assembleHandler(backend, { task: 'deploy origin remote github', budget: 4000 })
    expect(out.context).toContain('Deploy notes')
    expect(out.context).not.toContain(TOKEN)
  })

  it('the CLI and the MCP server refuse them too', async () => {
    const { root } = await store()
    for (const p of ['.git/config', '.cache/panel-key', 'config.json']) {
      const r = cli(root, ['nav', p])
      expect(r.status, p).not.toBe(0)
      expect(String(r.stdout) + String(r.stderr)).not.toContain(TOKEN)
      expect(String(r.stderr)).toContain(JSON.stringify(p))
    }
    const client = new Client({ name: 'memory-files-test', version: '1.0.0' })
    const env = Object.fromEntries(Object.entries({ ...process.env, MEMORY_AGENT_USER_ROOT: '' }).filter((e): e is [string, string] => e[1] !== undefined))
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], env, stderr: 'pipe' }))
    try {
      for (const p of ['.git/config', '.cache/panel-key', 'config.json']) {
        const res = (await client.callTool({ name: 'memory_nav', arguments: { path: p } })) as { isError?: boolean; content: Array<{ text?: string }> }
        expect(res.isError, p).toBe(true)
        expect(JSON.stringify(res)).not.toContain(TOKEN)
        expect(res.content[0]?.text).toContain(JSON.stringify(p))
      }
    } finally {
      await client.close()
    }
  }, 60_000)
})

describe('special files never hang the process (item 7)', () => {
  it('nav of a FIFO and of a link to one is refused at once, naming the file', async () => {
    const { root } = await store()
    execFileSync('mkfifo', [path.join(root, 'topics', 'pipe.md')])
    await fs.symlink('pipe.md', path.join(root, 'topics', 'pipe-link.md'))
    for (const p of ['topics/pipe.md', 'topics/pipe-link.md']) {
      const r = cli(root, ['nav', p])
      expect(r.signal, `${p} hung`).toBeNull()
      expect(r.status, p).not.toBe(0)
      expect(String(r.stderr)).toMatch(/pipe\.md: it is a FIFO \(named pipe\), and only regular files are read/)
    }
    // The listing passes over it; search goes on.
    const r = cli(root, ['search', 'staging database port'])
    expect(r.signal).toBeNull()
    expect(r.status).toBe(0)
    expect(String(r.stdout)).toContain('Staging DB')
  }, 90_000)

  it('a FIFO as aliases.json or config.json does not hang search', async () => {
    for (const name of ['aliases.json', 'config.json']) {
      const { root } = await store()
      await fs.rm(path.join(root, name), { force: true })
      execFileSync('mkfifo', [path.join(root, name)])
      const r = cli(root, ['search', 'staging database port'])
      expect(r.signal, `${name} hung`).toBeNull()
      expect(r.status, `${name}: ${String(r.stderr)}`).toBe(0)
      expect(String(r.stdout)).toContain('Staging DB')
    }
  }, 90_000)

  it('a topics/ that links outside the store is passed over: the rest reads and writes, a topic write is refused naming it', async () => {
    const { base, root } = await store()
    const outside = path.join(base, 'elsewhere')
    await fs.mkdir(outside)
    await fs.writeFile(path.join(outside, 'theirs.md'), '# Theirs\n\nNot part of this store.\n')
    await fs.rename(path.join(root, 'topics'), path.join(base, 'old-topics'))
    await fs.symlink(outside, path.join(root, 'topics'))
    const backend = createFileBackend(root)
    const ep = await writeHandler(backend, { summary: 'The release train leaves on Fridays.', title: 'Release day', raw: 'We ship on Fridays.', session_id: 's1' })
    expect(ep.path).toMatch(/^episodes\//)
    expect((await searchHandler(backend, { query: 'release train Fridays' })).hits.map((h) => h.id)).toContain(ep.id)
    const err = await expectCode(writeHandler(backend, { summary: 'Reviews need two approvals.', title: 'Reviews', type: 'topic' }), 'PATH_OUTSIDE_ROOT')
    expect(err.message).toContain('topics/')
    expect(await fs.readdir(outside)).toEqual(['theirs.md'])
    expect(warnings.some((w) => w.includes('topics is passed over'))).toBe(true)
  })

  it('a .cache/ that links outside the store is replaced by a folder of its own, the outside left untouched', async () => {
    const { base, root } = await store()
    const outside = path.join(base, 'cache-elsewhere')
    await fs.mkdir(outside)
    await fs.rm(path.join(root, '.cache'), { recursive: true })
    await fs.symlink(outside, path.join(root, '.cache'))
    const backend = createFileBackend(root)
    expect((await searchHandler(backend, { query: 'staging database port' })).hits.map((h) => h.title)).toContain('Staging DB')
    await writeHandler(backend, { summary: 'Nightly backups run at 02:00.', title: 'Backups' })
    expect((await fs.lstat(path.join(root, '.cache'))).isDirectory()).toBe(true)
    expect(await fs.readdir(outside)).toEqual([])
    expect(warnings.some((w) => w.includes('.cache is passed over') || w.includes('.cache'))).toBe(true)
  })
})
