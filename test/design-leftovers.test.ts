/**
 * Seed 001's leftovers: an alias hit is labelled "alias guess（别名推断）" in text answers; an anchor
 * value over 200 characters is cut and warned about, not refused; the design's import path
 * `dsh-memory-agent/lib/store/index-store.js` resolves and rebuilds an index. Through the library,
 * a real Node import of the package by name, and the built MCP server over stdio (real client).
 * Run `npm run build` before this file alone.
 */

import { spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { searchHandler, writeHandler } from '../src/api.js'
import { renderValue } from '../src/tools/render/text.js'
import { tempStores } from './store-kit.js'

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const CLI = path.join(REPO, 'lib', 'cli', 'main.js')
const store = tempStores('dsh-leftovers-')

describe("seed 001's leftovers", () => {
  it('library: an alias hit says reason alias and its text is labelled as an alias guess; a long anchor value is cut with a warning', async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'The service keeps its sessions in sqlite.' })
    const answer = await searchHandler(backend, { query: 'database' })
    expect(answer.hits.map((h) => h.reason)).toEqual(['alias'])
    expect(renderValue('memory_search_hybrid', answer)).toContain('alias guess（别名推断）')
    const w = await writeHandler(backend, { summary: 'Builds need the vendored toolchain.', anchors: [{ kind: 'path-exists', value: `/opt/${'x'.repeat(400)}` }] })
    expect(w.warnings).toContain('anchors[0].value: 405 characters cut to the first 200')
    expect(await fs.readFile(path.join(root, w.path), 'utf8')).toContain(`/opt/${'x'.repeat(195)}`)
    expect(await fs.readFile(path.join(root, w.path), 'utf8')).not.toContain('x'.repeat(196))
  })

  it("package: import { rebuildIndex } from 'dsh-memory-agent/lib/store/index-store.js' resolves and rebuilds", async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'The API listens on port 8080.' })
    await fs.rm(path.join(root, 'index.jsonl'))
    const script = `import { rebuildIndex } from 'dsh-memory-agent/lib/store/index-store.js'; const r = await rebuildIndex(${JSON.stringify(root)}); console.log(JSON.stringify({ entries: r.entries }))`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ entries: 1 })
  })

  it('MCP: an alias hit is labelled in the text content; write_memory cuts a long anchor value and warns instead of refusing', async () => {
    const { root } = await store()
    const client = new Client({ name: 'leftovers', version: '1.0.0' })
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: path.join(root, 'home') }
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], env, stderr: 'pipe' }))
    type Result = { isError?: boolean; content: { text?: string }[]; structuredContent?: Record<string, unknown> }
    try {
      const w = (await client.callTool({
        name: 'write_memory',
        arguments: { summary: 'The service keeps its sessions in sqlite.', anchors: [{ kind: 'env', name: 'DB_HOST', value: 'h'.repeat(250) }] },
      })) as Result
      expect(w.isError).toBeFalsy()
      expect(w.structuredContent?.['warnings']).toEqual(['anchors[0].value: 250 characters cut to the first 200'])
      const s = (await client.callTool({ name: 'memory_search_hybrid', arguments: { query: 'database' } })) as Result
      expect(s.content[0]?.text).toContain('alias guess（别名推断）')
    } finally {
      await client.close()
    }
  }, 60_000)
})
