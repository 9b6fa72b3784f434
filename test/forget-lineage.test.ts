/**
 * Forgetting follows lineage through derived memories (issue 28): a promoted topic records the
 * sessions it was made from, forgetting every one of them forgets the topic (and not before), and
 * memory_assess refuses a ref to a memory forgotten since its search. Through the library and a
 * real MCP server over stdio (the built lib/).
 */

import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, describe, expect, it } from 'vitest'
import { consolidate, findTool, forgetHandler, forgetValueHandler, lineageHandler, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { readFileSync } from 'node:fs'
import { tempStores } from './store-kit.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')
const store = tempStores('forget-lineage-')
const assess = findTool('memory_assess')!.handler as (b: MemoryBackend, input: unknown) => Promise<{ verdict: string; refused: { ref: string; reason: string }[] }>

/** One fact said in three sessions (English and Chinese), and a one-off: consolidation promotes the fact. */
const EPISODES: Array<[string, string, string]> = [
  ['s1', '2026-02-02T08:30:00Z', 'User mentioned they are based in Lisbon, so a 9:00 UTC call works for them.'],
  ['s1', '2026-02-02T08:40:00Z', 'Set up the pre-commit hook for ruff in the scraper repo.'],
  ['s2', '2026-02-05T14:00:00Z', 'Scheduled the vendor sync for 10:00 Lisbon time, since that is where the user lives.'],
  ['s3', '2026-02-09T16:20:00Z', '用户说他住在 Lisbon，想找周末徒步的路线。'],
]

describe('forgetting follows lineage (library)', () => {
  it('a promoted topic names its sessions and is forgotten with the last of them, not before', async () => {
    const { backend: b } = await store()
    for (const [session_id, time, summary] of EPISODES) await writeHandler(b, { summary, type: 'episode', session_id, time })
    const report = await consolidate(b, { dryRun: false })
    expect(report.promoted).toHaveLength(1)
    const topic = report.promoted[0]?.id as string
    const ids = new Map([...(await b.indexView()).values()].map((e) => [e.id, { session: e.session_id }]))
    const lineage = await lineageHandler(b, { id: topic })
    expect(lineage.sessions.sort()).toEqual(['s1', 's2', 's3'])
    expect(lineage.sources.map((s) => s.session_id).sort()).toEqual(['s1', 's2', 's3'])

    // Each forgotten source: a new version made from the clean ones, lineage pointing at them only.
    let current = topic
    const left = [['s2', 's3'], ['s3']]
    for (const [i, s] of ['s1', 's2'].entries()) {
      const r = await forgetHandler(b, { session_id: s })
      expect(r.forgotten_derived_count).toBe(0)
      expect(r.rebuilt_derived).toHaveLength(1)
      const rebuilt = r.rebuilt_derived?.[0] as { id: string; was: string; derived_from: string[] }
      expect(rebuilt.was).toBe(current)
      expect((await b.indexView()).get(current)?.status).toBe('deleted_pending')
      const next = (await b.indexView()).get(rebuilt.id)
      expect(next).toMatchObject({ status: 'active', supersedes: current, derived_from: rebuilt.derived_from })
      expect(rebuilt.derived_from.map((id) => (ids.get(id) ?? '?').session)).toEqual(left[i])
      expect((await lineageHandler(b, { id: rebuilt.id })).sessions.sort()).toEqual(left[i])
      expect(next?.summary).toContain('Lisbon')
      expect(ledger(b).filter((e) => e.event === 'rebuild-derived' && e.id === rebuilt.id)).toEqual([expect.objectContaining({ was: current, ids: rebuilt.derived_from, via: 'forget' })])
      current = rebuilt.id
    }
    const last = await forgetHandler(b, { session_id: 's3' })
    expect(last.forgotten_derived_count).toBe(1)
    expect(last.rebuilt_derived).toBeUndefined()
    expect(last.status_changes).toContainEqual({ id: current, from: 'active', to: 'deleted_pending' })
    expect((await b.indexView()).get(current)?.status).toBe('deleted_pending')
    const hits = (await searchHandler(b, { query: 'Lisbon' })).hits.map((h) => h.id)
    expect(hits).not.toContain(topic)
    expect(hits).not.toContain(current)
    // Repeating the call changes nothing.
    expect((await forgetHandler(b, { session_id: 's3' })).status_changes).toEqual([])
  })

  it('memory_assess refuses a ref to a memory forgotten since its search', async () => {
    const { backend: b } = await store()
    const w = await writeHandler(b, { summary: 'The staging database listens on port 6543.', type: 'episode', session_id: 's9' })
    const found = await searchHandler(b, { query: 'staging database port', session_id: 'ask' })
    const hit = found.hits.find((h) => h.id === w.id)
    expect(hit).toBeDefined()
    const claim = { batchId: found.batch_id, evidenceRefs: [hit?.ref], nextStrategy: 'answer', sufficient: true, session_id: 'ask' }
    expect((await assess(b, claim)).verdict).toBe('sufficient')
    await forgetHandler(b, { session_id: 's9' })
    const after = await assess(b, claim)
    expect(after.verdict).toBe('insufficient')
    expect(after.refused).toEqual([{ ref: hit?.ref, reason: 'forgotten' }])
  })
})

const ledger = (b: MemoryBackend) =>
  readFileSync(path.join(b.root, 'ledger.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)

/** One finished session: three episodes that decide, learn and do, and small talk; its summary quotes the three. */
const SUMMARISED = {
  en: {
    episodes: ['Decided to keep the billing ledger in Postgres.', 'Learnt that the staging cache key expires after 7 minutes.', 'Fixed the login redirect loop on Safari.'],
    forgotten: 'staging cache key',
    chatter: 'Chatted about the weather in the office.',
  },
  zh: {
    episodes: ['决定把计费账本放在 Postgres 里。', '发现预发环境的缓存键七分钟后过期。', '修复了 Safari 上登录跳转的死循环。'],
    forgotten: '缓存键',
    chatter: '聊了聊办公室的天气。',
  },
}

describe('forgetting one source of a summary rebuilds it from the clean ones (library)', () => {
  for (const [lang, c] of Object.entries(SUMMARISED)) {
    it(`${lang}: memory_forget of one quoted episode makes a new version from the other two; the last forgets it`, async () => {
      const { backend: b } = await store()
      const episodes: string[] = []
      for (const [i, summary] of [...c.episodes, c.chatter].entries()) episodes.push((await writeHandler(b, { summary, type: 'episode', session_id: `sum-${lang}`, time: `2026-03-0${i + 1}T10:00:00Z` })).id)
      episodes.pop()
      const report = await consolidate(b, { dryRun: false })
      const summary = report.reflected[0]?.id as string
      expect(report.reflected[0]?.derived_from.sort()).toEqual([...episodes].sort())
      const before = (await b.indexView()).get(summary)
      expect(before?.summary).toContain(c.forgotten)

      // A dry run says the same and changes nothing.
      const dry = await forgetValueHandler(b, { id: episodes[1], dryRun: true })
      expect(dry.rebuilt).toEqual([{ id: null, was: summary, derived_from: [episodes[0], episodes[2]], dropped: [episodes[1]] }])
      expect(dry.forgotten.map((f) => f.id)).toEqual([episodes[1]])
      expect((await b.indexView()).get(summary)?.status).toBe('active')
      const r = await forgetValueHandler(b, { id: episodes[1] })
      expect(r.forgotten.map((f) => f.id)).toEqual([episodes[1]])
      expect(r.rebuilt).toHaveLength(1)
      const rebuilt = r.rebuilt[0] as { id: string; was: string; derived_from: string[] }
      expect(rebuilt).toMatchObject({ was: summary, derived_from: [episodes[0], episodes[2]] })
      const next = (await b.indexView()).get(rebuilt.id)
      expect(next).toMatchObject({ status: 'active', supersedes: summary, derived_from: [episodes[0], episodes[2]], tags: before?.tags })
      // Extractive: the clean episodes' words are there, the forgotten one's are not, in the file too.
      expect(next?.summary).not.toContain(c.forgotten)
      for (const i of [0, 2]) expect(next?.summary).toContain(c.episodes[i]?.slice(0, 6))
      expect(readFileSync(path.join(b.root, next?.path ?? ''), 'utf8')).not.toContain(c.forgotten)
      expect((await b.indexView()).get(summary)?.status).toBe('deleted_pending')
      expect(ledger(b).filter((e) => e.event === 'rebuild-derived')).toEqual([expect.objectContaining({ id: rebuilt.id, was: summary, ids: rebuilt.derived_from, dropped: [episodes[1]], via: 'forget' })])
      expect((await searchHandler(b, { query: c.forgotten })).hits).toEqual([])

      // Forgetting the other two leaves nothing clean: the summary is forgotten, not rebuilt.
      expect((await forgetValueHandler(b, { id: episodes[0] })).rebuilt.map((x) => x.was)).toEqual([rebuilt.id])
      const third = [...(await b.indexView()).values()].find((e) => e.supersedes === rebuilt.id)
      expect(third?.derived_from).toEqual([episodes[2]])
      const end = await forgetValueHandler(b, { id: episodes[2] })
      expect(end.rebuilt).toEqual([])
      expect(end.forgotten.map((f) => f.id)).toContain(third?.id)
      expect([...(await b.indexView()).values()].filter((e) => e.status === 'active' && e.derived_from !== undefined)).toEqual([])
    })
  }
})

describe('forgetting follows lineage (MCP)', () => {
  const clients: Client[] = []
  afterAll(async () => {
    for (const c of clients) await c.close()
  })

  it('forget_memories_by_session on every source session forgets the promoted topic; assess refuses its ref', async () => {
    const { root } = await store()
    const client = new Client({ name: 'forget-lineage', version: '1.0.0' })
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, '--no-user-root', '--tools', 'all'], env, stderr: 'pipe' }))
    clients.push(client)
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text?: string }[] }
      expect(r.isError, `${name}: ${r.content.map((c) => c.text).join('\n')}`).toBeFalsy()
      return r.structuredContent as Record<string, any>
    }
    for (const [session_id, time, summary] of EPISODES) await call('write_memory', { summary, type: 'episode', session_id, time })
    const report = await call('memory_consolidate', { dryRun: false })
    const topic = report.promoted[0].id as string
    expect(((await call('memory_lineage', { id: topic })).sessions as string[]).sort()).toEqual(['s1', 's2', 's3'])
    const found = await call('memory_search_hybrid', { query: 'Lisbon', session_id: 'ask' })
    const ref = (found.hits as Array<{ id: string; ref: string }>).find((h) => h.id === topic)?.ref
    expect(ref).toBeDefined()
    // The first two each make the topic again from the sessions left; the last forgets it.
    const made = []
    for (const s of ['s1', 's2', 's3']) made.push((await call('forget_memories_by_session', { session_id: s })).rebuilt_derived?.length ?? 0)
    expect(made).toEqual([1, 1, 0])
    expect((await call('memory_search_hybrid', { query: 'Lisbon' })).hits.map((h: { id: string }) => h.id)).not.toContain(topic)
    const verdict = await call('memory_assess', { batchId: found.batch_id, evidenceRefs: [ref], nextStrategy: 'answer', sufficient: true, session_id: 'ask' })
    expect(verdict.verdict).toBe('insufficient')
    expect(verdict.refused).toEqual([{ ref, reason: 'forgotten' }])
  }, 60_000)
})
