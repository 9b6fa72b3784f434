/**
 * Anchors are checked wherever the store is opened, not only inside DSH: the library's
 * `createFileBackend`, the built CLI and the built MCP server over stdio (real client) probe
 * `env`, `path-exists` and `self-version` themselves, so `memory_sweep` reports a memory whose
 * path is gone, whose variable is unset or whose version moved on; one whose path exists, whose
 * variable is set and whose version is current is not reported. `tool-list` stays unchecked
 * without a host. Run `npm run build` before this file alone.
 */

import { spawnSync } from 'node:child_process'
import { promises as fs, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, sweepHandler, writeHandler } from '../src/api.js'
import { flushCaches } from '../src/retrieve/retriever.js'

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const CLI = path.join(REPO, 'lib', 'cli', 'main.js')
const VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version
const SET_VAR = 'MEMORY_AGENT_ANCHOR_TEST_SET'
const UNSET_VAR = 'MEMORY_AGENT_ANCHOR_TEST_UNSET'

const dirs: string[] = []
afterAll(async () => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))))

interface Fixture {
  root: string
  /** Each memory's summary, and whether sweep must call it stale. */
  writes: { summary: string; title: string; anchors: Record<string, string>[]; stale: boolean }[]
}

async function fixture(): Promise<Fixture> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'anchors-local-'))
  dirs.push(dir)
  const present = path.join(dir, 'present.conf')
  await fs.writeFile(present, 'x')
  const w = (title: string, anchors: Record<string, string>[], stale: boolean) => ({ summary: `${title} holds while its anchor holds.`, title, anchors, stale })
  return {
    root: path.join(dir, 'store'),
    writes: [
      w('Missing path', [{ kind: 'path-exists', value: path.join(dir, 'gone', 'app.conf') }], true),
      w('Present path', [{ kind: 'path-exists', value: present }], false),
      w('Unset variable', [{ kind: 'env', name: UNSET_VAR }], true),
      w('Set variable', [{ kind: 'env', name: SET_VAR, value: 'yes' }], false),
      w('Old version', [{ kind: 'self-version', value: '0.0.0-old' }], true),
      w('Current version', [{ kind: 'self-version', value: VERSION }], false),
      w('Tool offered', [{ kind: 'tool-list', value: 'shell' }], false),
    ],
  }
}

const env = { ...process.env, [SET_VAR]: 'yes' } as Record<string, string>
delete env[UNSET_VAR]

function expectSweep(f: Fixture, sweep: { staleAnchors: { title: string; kind: string }[] }): void {
  const stale = sweep.staleAnchors.map((s) => s.title).sort()
  const expected = f.writes.filter((w) => w.stale).map((w) => w.title).sort()
  console.log(`stale anchors reported: ${stale.length} of ${f.writes.length} (expected ${expected.length}: ${expected.join(', ')})`)
  expect(stale).toEqual(expected)
}

describe('anchors probed locally', () => {
  it('library: createFileBackend without probes checks env, path-exists and self-version', async () => {
    const f = await fixture()
    process.env[SET_VAR] = 'yes'
    delete process.env[UNSET_VAR]
    const backend = createFileBackend(f.root)
    try {
      for (const w of f.writes) await writeHandler(backend, { summary: w.summary, title: w.title, anchors: w.anchors })
      expectSweep(f, await sweepHandler(backend, {}))
    } finally {
      await flushCaches(backend)
      delete process.env[SET_VAR]
    }
  })

  it('CLI: sweep reports the missing path, not the present one', async () => {
    const f = await fixture()
    for (const w of f.writes) {
      const r = spawnSync(process.execPath, [CLI, 'write', '--root', f.root, '--no-user-root', '--json', '--input', JSON.stringify({ summary: w.summary, title: w.title, anchors: w.anchors })], { encoding: 'utf8', env })
      expect(r.status, r.stderr).toBe(0)
    }
    const r = spawnSync(process.execPath, [CLI, 'sweep', '--root', f.root, '--no-user-root', '--json'], { encoding: 'utf8', env })
    expect(r.status, r.stderr).toBe(0)
    expectSweep(f, JSON.parse(r.stdout) as { staleAnchors: { title: string; kind: string }[] })
  })

  it('MCP: memory_sweep over stdio reports the missing path, not the present one', async () => {
    const f = await fixture()
    const client = new Client({ name: 'anchors-local', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', f.root, '--no-user-root', '--tools', 'core,curate'], env, stderr: 'pipe' }))
    try {
      for (const w of f.writes) {
        const r = (await client.callTool({ name: 'write_memory', arguments: { summary: w.summary, title: w.title, anchors: w.anchors } })) as { isError?: boolean }
        expect(r.isError).toBeFalsy()
      }
      const r = (await client.callTool({ name: 'memory_sweep', arguments: {} })) as { structuredContent: { staleAnchors: { title: string; kind: string }[] } }
      expectSweep(f, r.structuredContent)
    } finally {
      await client.close()
    }
  }, 30_000)
})
