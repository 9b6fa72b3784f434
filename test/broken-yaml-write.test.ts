/**
 * A write while a memory file's YAML front-matter is broken by hand (issue 28, item 12): the
 * store still knows the slot and the words the broken file holds, so a write into that slot, or
 * of those words, is refused with the file and line named, and fixing the YAML never leaves two
 * current versions. The panel's memory list flags the broken file. Keyless free text in English
 * and Chinese, and a titled write; through the library, the panel API and a real MCP server over
 * stdio (the built lib/: `npm run build` first).
 */

import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { handleApiRequest, TOKEN_HEADER } from '../src/host/api.js'
import { DEFAULT_CONFIG, flushCaches, searchHandler, sweepHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { mcpClients, processEnv } from './mcp-kit.js'
import { expectCode, tempStores } from './store-kit.js'

const stores = tempStores('broken-yaml-write-')

/** Breaks the title line of a memory file as a hand edit would (an unclosed flow list). */
function breakTitle(root: string, rel: string): () => void {
  const file = path.join(root, rel)
  const text = readFileSync(file, 'utf8')
  const lines = text.split('\n')
  const at = lines.findIndex((l) => l.startsWith('title: '))
  const broken = [...lines.slice(0, at), lines[at]?.replace(/^title: '?/, 'title: [') ?? '', ...lines.slice(at + 1)].join('\n')
  writeFileSync(file, broken)
  return () => writeFileSync(file, text)
}

/** The current memories (active or in conflict) whose summary holds `word`. */
async function current(b: MemoryBackend, word: string): Promise<string[]> {
  return [...(await b.indexView()).values()].filter((e) => (e.status === 'active' || e.status === 'conflict') && e.summary.includes(word)).map((e) => e.id)
}

async function listed(backend: MemoryBackend): Promise<Array<Record<string, unknown>>> {
  const res = await handleApiRequest(
    {
      method: 'POST',
      headers: { host: '127.0.0.1:1', origin: 'http://127.0.0.1:1', 'content-type': 'application/json', [TOKEN_HEADER]: 'panel-secret-0123456789' },
      remoteAddress: '127.0.0.1',
      body: JSON.stringify({ op: 'list' }),
    },
    { backend, secret: 'panel-secret-0123456789', config: { get: () => ({ ...DEFAULT_CONFIG }), set: () => undefined } },
  )
  const answer = JSON.parse(res.body) as { ok: boolean; result: { entries: Array<Record<string, unknown>> } }
  expect(answer.ok).toBe(true)
  return answer.result.entries
}

const CASES = [
  { name: 'keyless English', first: { summary: 'The billing service database is PostgreSQL 15.' }, next: { summary: 'The billing service database is MySQL 8 now.' }, word: 'billing' },
  { name: 'keyless Chinese', first: { summary: '计费服务的数据库是 PostgreSQL 15。' }, next: { summary: '计费服务的数据库现在是 MySQL 8。' }, word: '计费' },
  { name: 'titled', first: { summary: 'Rotate the deploy key with vault write.', title: 'Deploy key rotation' }, next: { summary: 'Rotate the deploy key with sops now.', title: 'Deploy key rotation' }, word: 'deploy key' },
]

describe('a write while a file’s YAML is broken (library, panel API)', () => {
  for (const c of CASES) {
    it(`${c.name}: a new value is refused naming the file, the same words repeat it; once fixed, one current version`, async () => {
      const { root, backend } = await stores()
      const w = await writeHandler(backend, c.first)
      const fix = breakTitle(root, w.path)
      const brokenText = readFileSync(path.join(root, w.path), 'utf8')
      // The store still knows the broken file holds its id and its slot.
      expect((await searchHandler(backend, { query: c.word })).hits).toEqual([])
      const held = (await backend.indexView()).get(w.id)
      expect(held).toMatchObject({ path: w.path, status: 'active', front_matter_error: { line: expect.any(Number) } })
      const line = held?.front_matter_error?.line
      // A new value for its subject would supersede it, which needs the file rewritten: refused.
      const err = await expectCode(writeHandler(backend, c.next), 'INVALID_STATE')
      expect(err.message).toContain(`${w.path}:${line}`)
      expect(err.message).toMatch(/fix it by hand first/)
      // The same words again repeat the memory the broken file holds: no second one.
      expect(await writeHandler(backend, c.first)).toMatchObject({ id: w.id, dedupe: 'exact' })
      // Nothing written, the person's file untouched; diagnostics and the panel list flag it.
      expect(readFileSync(path.join(root, w.path), 'utf8')).toBe(brokenText)
      expect((await sweepHandler(backend, { days: 90, limit: 20 })).unreadable).toEqual([expect.objectContaining({ id: w.id, path: w.path, line })])
      const row = (await listed(backend)).find((e) => e.id === w.id)
      expect(row?.['warning']).toMatch(new RegExp(`^${w.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}: the front-matter does not parse`))
      // Fixed by hand: one current version, no warning; the write goes through now.
      fix()
      expect(await current(backend, c.first.summary.slice(0, 8))).toEqual([w.id])
      expect((await listed(backend)).find((e) => e.id === w.id)?.['warning']).toBeUndefined()
      const after = await writeHandler(backend, c.next)
      expect(after.superseded ?? []).toContain(w.id)
      expect(await current(backend, c.first.summary.slice(0, 8))).toEqual([after.id])
      await flushCaches(backend)
    })
  }
})

describe('a write while a file’s YAML is broken (MCP)', () => {
  const connect = mcpClients('broken-yaml-write')

  it('write_memory answers an error naming the file and line; after the fix one version is current', async () => {
    const { root } = await stores()
    const call = await connect(['--root', root, '--no-user-root', '--tools', 'all'], { env: processEnv() })
    const first = await call('write_memory', { summary: '计费服务的数据库是 PostgreSQL 15。' })
    expect(first.isError).toBeFalsy()
    const { id, path: rel } = first.structuredContent as { id: string; path: string }
    const fix = breakTitle(root, rel)
    const refused = await call('write_memory', { summary: '计费服务的数据库现在是 MySQL 8。' })
    expect(refused.isError).toBe(true)
    const swept = await call('memory_sweep', {})
    expect(swept.structuredContent?.unreadable).toEqual([expect.objectContaining({ id, path: rel, line: expect.any(Number) })])
    const line = (swept.structuredContent?.unreadable as Array<{ line: number }>)[0]?.line
    expect(refused.content.map((c) => c.text).join('\n')).toContain(`${rel}:${line}`)
    fix()
    const again = await call('write_memory', { summary: '计费服务的数据库现在是 MySQL 8。' })
    expect(again.isError).toBeFalsy()
    expect(again.structuredContent?.superseded).toContain(id)
    const hits = (await call('memory_search_hybrid', { query: '计费服务 数据库' })).structuredContent?.hits as Array<{ id: string }>
    expect(hits.map((h) => h.id)).toEqual([again.structuredContent?.id])
  }, 60_000)
})
