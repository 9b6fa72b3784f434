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
import { consolidate, findTool, forgetHandler, lineageHandler, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
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
    const lineage = await lineageHandler(b, { id: topic })
    expect(lineage.sessions.sort()).toEqual(['s1', 's2', 's3'])
    expect(lineage.sources.map((s) => s.session_id).sort()).toEqual(['s1', 's2', 's3'])

    for (const s of ['s1', 's2']) expect((await forgetHandler(b, { session_id: s })).forgotten_derived_count).toBe(0)
    expect((await b.indexView()).get(topic)?.status).toBe('active')
    const last = await forgetHandler(b, { session_id: 's3' })
    expect(last.forgotten_derived_count).toBe(1)
    expect(last.status_changes).toContainEqual({ id: topic, from: 'active', to: 'deleted_pending' })
    expect((await b.indexView()).get(topic)?.status).toBe('deleted_pending')
    expect((await searchHandler(b, { query: 'Lisbon' })).hits.map((h) => h.id)).not.toContain(topic)
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
    for (const s of ['s1', 's2', 's3']) await call('forget_memories_by_session', { session_id: s })
    expect((await call('memory_search_hybrid', { query: 'Lisbon' })).hits.map((h: { id: string }) => h.id)).not.toContain(topic)
    const verdict = await call('memory_assess', { batchId: found.batch_id, evidenceRefs: [ref], nextStrategy: 'answer', sufficient: true, session_id: 'ask' })
    expect(verdict.verdict).toBe('insufficient')
    expect(verdict.refused).toEqual([{ ref, reason: 'forgotten' }])
  }, 60_000)
})
