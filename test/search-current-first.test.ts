/**
 * The current value first in search (issue 27), on keyless free-text writes in English and
 * Chinese: a newer memory that may revise a hit (truth/current-first.ts, by verify's doubt
 * relation) comes before it even when the write rules left both active; a change yet to come
 * comes after the value still valid until its day, and first from that day (or as of it); two
 * look-alike facts about different things keep their rank; a successor always precedes what it
 * superseded, within the band of hits sharing identifiers with the query. One history through MCP
 * (the built CLI: `npm run build` first).
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { currentFirst } from '../src/memory/truth/current-first.js'
import { mcpClients, processEnv } from './mcp-kit.js'
import { tempStores } from './store-kit.js'

const store = tempStores('mem-current-first-')

/** Writes each text keyless, an hour apart from `start`; the store, its clock and the ids. */
async function history(texts: readonly string[], start = '2026-12-02T09:00:00.000Z') {
  const { backend, at } = await store(start)
  const ids: string[] = []
  for (const [i, summary] of texts.entries()) {
    at(new Date(Date.parse(start) + i * 3_600_000).toISOString())
    ids.push((await writeHandler(backend, { summary })).id)
  }
  return { backend, at, ids }
}

async function order(backend: MemoryBackend, ids: readonly string[], query: string, asOf?: string): Promise<number[]> {
  const found = await searchHandler(backend, { query, top_k: 5, ...(asOf !== undefined ? { asOf } : {}) })
  return found.hits.map((h) => ids.indexOf(h.id))
}

describe('a newer memory that may revise a hit comes first', () => {
  const revisions = [
    { lang: 'en', texts: ['The payments service is deployed in eu-west-1.', 'Payments now run in us-east-2.'], query: 'payments service region' },
    { lang: 'en', texts: ['The nightly backup runs at 2am.', 'Backups moved to 4am.'], query: 'nightly backup time' },
    { lang: 'zh', texts: ['测试环境数据库端口是 5432。', '测试库现在用 6432 端口。'], query: '测试环境数据库端口' },
    { lang: 'zh', texts: ['客服首响 SLA 是 4 小时。', '客服首次响应时限现在是 2 小时。'], query: '客服首响 SLA' },
  ]
  for (const r of revisions) {
    it(`${r.lang}: "${r.texts[1]}" before "${r.texts[0]}"`, async () => {
      const { backend, ids } = await history(r.texts)
      // Whether or not the write caught the revision, the old one never comes first.
      expect((await order(backend, ids, r.query))[0]).toBe(1)
    })
  }

  const lookalikes = [
    { lang: 'en', texts: ["Alice's phone number is 555-0101.", "Bob's phone number is 555-0199."], query: 'Alice phone number' },
    { lang: 'en', texts: ['The staging API listens on port 8080.', 'The production API listens on port 443.'], query: 'staging API port' },
    { lang: 'zh', texts: ['小王的工位在 3 楼。', '小李的工位在 5 楼。'], query: '小王的工位' },
    { lang: 'zh', texts: ['儿子在阳光幼儿园上学。', '女儿在实验小学上学。'], query: '儿子在哪上学' },
  ]
  for (const l of lookalikes) {
    it(`${l.lang}: look-alikes keep their rank ("${l.query}")`, async () => {
      const { backend, ids } = await history(l.texts)
      expect(await order(backend, ids, l.query)).toEqual([0, 1])
    })
  }
})

describe('a change yet to come', () => {
  // Wednesday 2 December 2026: "next week" starts on Monday 7 December.
  const changes = [
    { lang: 'en', texts: ['The team standup is at 9:30 every weekday.', 'Starting next week, standup will be at 10:00.'], query: 'team standup time' },
    { lang: 'zh', texts: ['团队周会在周一上午十点。', '下周起周会改到周二下午三点。'], query: '团队周会时间' },
  ]
  for (const c of changes) {
    it(`${c.lang}: comes after the value valid today, and first from its day or as of it`, async () => {
      const { backend, at, ids } = await history(c.texts)
      expect(await order(backend, ids, c.query)).toEqual([0, 1])
      at('2026-12-08T09:00:00.000Z')
      expect(await order(backend, ids, c.query)).toEqual([1, 0])
      expect(await order(backend, ids, c.query, '2026-12-03T09:00:00.000Z')).toEqual([0, 1])
    })
  }
})

describe('currentFirst over a caught revision', () => {
  it('puts the successor before what it superseded, but never across the identifier band', async () => {
    const { backend, ids } = await history(['Our office Wi-Fi password is sunflower42.', 'The office Wi-Fi password is now maple77.'])
    const view = await backend.indexView()
    const [old, current] = ids as [string, string]
    expect(view.get(old)?.superseded_by).toBe(current)
    const now = Date.parse('2026-12-03T00:00:00.000Z')
    expect(currentFirst([{ id: old }, { id: current }], (id) => view.get(id), now).map((h) => h.id)).toEqual([current, old])
    expect(currentFirst([{ id: old, literalMatch: 1 }, { id: current }], (id) => view.get(id), now).map((h) => h.id)).toEqual([old, current])
  })
})

describe('through MCP', () => {
  const connect = mcpClients('current-first-test')
  const dirs: string[] = []
  afterAll(async () => {
    await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
  })

  it('memory_search_hybrid ranks the newer of two active memories first, in both languages', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'current-first-mcp-'))
    dirs.push(dir)
    const call = await connect(['--root', path.join(dir, 'store')], { env: processEnv() })
    const write = async (summary: string) => ((await call('write_memory', { summary })).structuredContent as { id: string }).id
    for (const [older, newer, query] of [
      ['The nightly backup runs at 2am.', 'Backups moved to 4am.', 'nightly backup time'],
      ['测试环境数据库端口是 5432。', '测试库现在用 6432 端口。', '测试环境数据库端口'],
    ] as const) {
      await write(older)
      const id = await write(newer)
      const found = (await call('memory_search_hybrid', { query })).structuredContent as { hits: Array<{ id: string }> }
      expect(found.hits[0]?.id).toBe(id)
    }
  })
})
