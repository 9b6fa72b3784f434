/**
 * memory_stats (issue 29 item 8): the store in numbers from the tool registry. Counts by status
 * and kind on keyless free-text writes (Chinese and English, one replaced by a later one), the
 * files and bytes on disk, the last write's time, the index's state (refreshed after a hand
 * edit), and with two stores the sum and each store's total. Through the library, the built CLI
 * (`stats`, now the tool's command) and the built MCP server over stdio (run `npm run build`
 * before this file alone).
 */

import { spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { TOOLS, flushCaches, outputViolation, writeHandler } from '../src/api.js'
import { routeTools } from '../src/stores/route.js'
import { memoryStatsTool, statsHandler } from '../src/tools/memory-stats.js'
import { renderValue } from '../src/tools/render/text.js'
import { BUILT_CLI, mcpClients } from './mcp-kit.js'
import { tempStores } from './store-kit.js'

const CLI = BUILT_CLI
const connect = mcpClients('stats-test')
const store = tempStores('memory-stats-')
const APRIL_2 = '2026-04-02T10:00:00.000Z'
const APRIL_20 = '2026-04-20T10:00:00.000Z'

type Stats = Awaited<ReturnType<typeof statsHandler>>

async function filled() {
  const s = await store(APRIL_2)
  await writeHandler(s.backend, { summary: '我的饮食是素食。' })
  await writeHandler(s.backend, { summary: 'The billing service uses PostgreSQL 16.' })
  await writeHandler(s.backend, { summary: '聊了聊周末去西湖散步。', raw: '用户：周末去西湖走走。', session_id: 'day-2' })
  s.at(APRIL_20)
  const now = await writeHandler(s.backend, { summary: '我最近开始吃鸡胸肉了，不再只吃素。' })
  expect(now.superseded).toHaveLength(1)
  return s
}

describe('memory_stats', () => {
  it('counts by status and kind, sizes on disk, the last write and a fresh index', async () => {
    const { backend, root } = await filled()
    const s = await statsHandler(backend, {})
    expect(outputViolation(memoryStatsTool.output, s)).toBeNull()
    expect(s.byStatus).toEqual({ active: 3, suggested: 0, superseded: 1, conflict: 0, deleted_pending: 0, orphaned: 0, archived: 0 })
    expect(s.byKind).toEqual({ topic: 3, episode: 1, raw: 1, summary: 0 })
    expect({ total: s.total, searchable: s.searchable }).toEqual({ total: 4, searchable: 3 })
    expect(s.lastWrite).toBe(APRIL_20)
    expect(s.index).toEqual({ entries: 5, state: 'fresh', changed: 0, skippedLines: 0 })
    const files: string[] = []
    for (const folder of ['topics', 'episodes', 'raw']) for (const f of await fs.readdir(path.join(root, folder)).catch(() => [])) if (f.endsWith('.md')) files.push(path.join(root, folder, f))
    const bytes = (await Promise.all(files.map((f) => fs.stat(f)))).reduce((n, st) => n + st.size, 0)
    expect(s.size).toEqual({ files: files.length, bytes, indexBytes: (await fs.stat(path.join(root, 'index.jsonl'))).size, ledgerBytes: (await fs.stat(path.join(root, 'ledger.jsonl'))).size })
    expect(s.embeddings).toBeUndefined()
    const text = renderValue('memory_stats', s)
    expect(text).toMatch(/^total\s+4$/m)
    expect(text).toContain('by status: active 3, suggested 0, superseded 1')
    expect(text).toContain(`last write: ${APRIL_20}`)
  })

  it('says the index took in a file edited by hand', async () => {
    const { backend, root } = await filled()
    await statsHandler(backend, {})
    const topics = await fs.readdir(path.join(root, 'topics'))
    const texts = await Promise.all(topics.map((f) => fs.readFile(path.join(root, 'topics', f), 'utf8')))
    const at = texts.findIndex((t) => t.includes('PostgreSQL 16'))
    await fs.writeFile(path.join(root, 'topics', topics[at] as string), (texts[at] as string).replaceAll('PostgreSQL 16', 'PostgreSQL 17'))
    const s = await statsHandler(backend, {})
    expect(s.index).toMatchObject({ state: 'refreshed', changed: 1 })
  })

  it('over two stores: counts add up and byStore gives each store', async () => {
    const project = await filled()
    const user = await store(APRIL_2)
    await writeHandler(user.backend, { summary: 'I prefer short answers in English.', tags: ['preference'] })
    const tools = routeTools(TOOLS, { user: user.backend })
    const routed = tools.find((t) => t.name === 'memory_stats')!
    const s = (await routed.handler(project.backend, {})) as Stats & { store: string }
    expect(outputViolation(routed.output, s)).toBeNull()
    expect(s).toMatchObject({ total: 5, byStore: { project: 4, user: 1 }, lastWrite: APRIL_20, store: 'all' })
    expect(s.byKind.topic).toBe(4)
    expect(((await routed.handler(project.backend, { store: 'user' })) as Stats).total).toBe(1)
  })

  it('CLI `stats` and MCP memory_stats answer from the tool', async () => {
    const { backend } = await filled()
    await flushCaches(backend)
    const text = spawnSync(process.execPath, [CLI, 'stats', '--root', backend.root], { encoding: 'utf8' })
    expect(text.status, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^total\s+4$/m)
    expect(text.stdout).toMatch(/^by kind: summary 0, episode 1, raw 1, topic 3$/m)
    const json = JSON.parse(spawnSync(process.execPath, [CLI, 'stats', '--root', backend.root, '--json'], { encoding: 'utf8' }).stdout) as Stats
    expect(json.byStatus.superseded).toBe(1)
    const call = await connect(['--root', backend.root, '--tools', 'browse'])
    const r = await call('memory_stats')
    expect(r.isError).toBeFalsy()
    expect((r.structuredContent as unknown as Stats).byKind).toEqual({ topic: 3, episode: 1, raw: 1, summary: 0 })
  }, 60_000)
})
