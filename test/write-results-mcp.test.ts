/**
 * Write results and importance as a live signal through MCP (issue 29), as test/mcp.test.ts
 * drives the server: the SDK's real Client over stdio against the BUILT CLI (`npm run build`
 * first), every structuredContent checked against the declared output schema. Keyless free-text
 * writes in English and Chinese: outcome, replaced, neighbours, importance refused out of range,
 * a repeated episode keeping its new raw text, and a repeated fact rising in search.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { findTool, outputViolation } from '../src/api.js'
import { mcpClients, processEnv, type McpCall, type McpResult } from './mcp-kit.js'

const dirs: string[] = []
const connect = mcpClients('write-results-test')

afterAll(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})

async function serve(): Promise<{ root: string; call: McpCall }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'write-results-mcp-'))
  dirs.push(dir)
  const root = path.join(dir, 'store')
  return { root, call: await connect(['--root', root, '--tools', 'all'], { env: processEnv() }) }
}

/** The structured result of a call that must succeed and match its declared output schema. */
function ok(name: string, result: McpResult): Record<string, unknown> {
  expect(result.isError, result.content[0]?.text).toBeFalsy()
  const value = result.structuredContent as Record<string, unknown>
  expect(outputViolation(findTool(name)!.output, value)).toBeNull()
  return value
}

const CASES = [
  { lang: 'en', fact: 'I take the bus to work.', correction: 'I cycle to work now.', pair: ['Alice drinks green tea daily.', 'Bruno drinks green tea daily.'], query: 'green tea', episode: 'Planning call about the launch checklist.' },
  { lang: 'zh', fact: '我平时坐公交上班。', correction: '我改骑电动车上班了。', pair: ['小王每天喝绿茶。', '小李每天喝绿茶。'], query: '绿茶', episode: '讨论了发布前的检查清单。' },
] as const

describe.each(CASES)('write_memory results over MCP ($lang)', (c) => {
  it('outcome, replaced, neighbours; importance checked; a repeated episode keeps its raw text; a repeat rises in search', { timeout: 60_000 }, async () => {
    const { root, call } = await serve()
    const write = async (args: Record<string, unknown>) => ok('write_memory', await call('write_memory', args))
    const first = await write({ summary: c.fact })
    expect(first.outcome).toBe('created')
    const second = await write({ summary: c.correction })
    expect(second.outcome).toBe('updated')
    expect(second.replaced).toEqual({ id: first.id, version: 1, summary: c.fact })
    expect((await call('write_memory', { summary: c.fact, importance: 2 })).isError).toBe(true)
    const refused = await call('write_memory', { summary: c.fact, importance: 2 })
    expect(refused.content[0]?.text).toContain('importance')

    const a = await write({ summary: c.pair[0] })
    const b = await write({ summary: c.pair[1], importance: 0.5 })
    expect((b.neighbours as Array<{ id: string }>).map((n) => n.id)).toContain(a.id)
    expect(b.may_revise).toEqual(b.neighbours)

    const search = async () => (ok('memory_search_hybrid', await call('memory_search_hybrid', { query: c.query })).hits as Array<{ id: string }>).map((h) => h.id)
    const before = await search()
    expect(new Set(before)).toEqual(new Set([a.id, b.id]))
    const behind = before[1] === a.id ? c.pair[0] : c.pair[1]
    expect((await write({ summary: behind })).outcome).toBe('duplicate')
    // The server records the repeat after it answers: the next search sees it once it is on disk.
    await expect.poll(async () => (await fs.readFile(path.join(root, 'usage.jsonl'), 'utf8')).includes('"repeat":true')).toBe(true)
    expect(await search()).toEqual([before[1], before[0]])

    const ep = await write({ summary: c.episode, raw: 'first transcript', session_id: 's1' })
    const again = await write({ summary: c.episode, raw: 'second transcript', session_id: 's2' })
    expect(again).toMatchObject({ outcome: 'appended', id: ep.id })
    const raw = await fs.readFile(path.join(root, ep.raw_ref as string), 'utf8')
    expect(raw).toContain('first transcript')
    expect(raw).toContain('second transcript')
    expect((await call('write_memory', { summary: c.episode, raw: 'second transcript', session_id: 's2' })).structuredContent?.outcome).toBe('duplicate')
  })
})
