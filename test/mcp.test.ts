/**
 * The MCP server as a client sees it: the SDK's real `Client` over stdio against the BUILT CLI
 * (`node lib/cli/main.js mcp --root <tmp>`; `npm test` builds first, run `npm run build` before
 * running this file alone). Every tool is listed with its hints and called with valid input; its
 * `structuredContent` satisfies the declared output schema (checked here with `outputViolation`,
 * and by the client itself against the listed JSON Schema); bad input is an `isError` result
 * naming the field; two servers on one root write concurrently without loss; an idle server
 * consolidates in the background once enough new episodes are due.
 */

import { spawn, spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, describe, expect, it } from 'vitest'
import { TOOLS, findTool, outputViolation, type IndexEntry, type LedgerEvent } from '../src/api.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')

const tmpDirs: string[] = []
const clients: Client[] = []

async function tempRoot(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-test-'))
  tmpDirs.push(dir)
  return path.join(dir, 'store')
}

async function connect(root: string, flags: string[] = []): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, '--tools', 'all', ...flags], env, stderr: 'pipe' }))
  clients.push(client)
  return client
}

interface ToolResult {
  isError?: boolean
  content: { type: string; text?: string }[]
  structuredContent?: Record<string, unknown>
}

async function lines<T>(file: string): Promise<T[]> {
  const text = await fs.readFile(file, 'utf8')
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T)
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await Promise.all(tmpDirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})

describe('MCP server over stdio (built CLI)', () => {
  let client: Client
  const called = new Set<string>()

  /** Calls a tool that must succeed; its structured content must satisfy the declared output schema. */
  async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult
    const text = result.content[0]?.text ?? ''
    expect(result.isError, `${name} failed: ${text}`).toBeFalsy()
    expect(result.content[0]?.type).toBe('text')
    expect(text.length).toBeGreaterThan(0)
    const value = result.structuredContent
    expect(value).toBeDefined()
    const tool = findTool(name)
    expect(tool).toBeDefined()
    expect(outputViolation(tool!.output, value)).toBeNull()
    called.add(name)
    return value!
  }

  it('lists every tool with its title, schemas and hints', async () => {
    client = await connect(await tempRoot())
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort())
    for (const declared of TOOLS) {
      const listed = tools.find((t) => t.name === declared.name)!
      expect(listed.title).toBe(declared.title)
      expect(listed.description).toBe(declared.description)
      expect(listed.annotations).toMatchObject({
        readOnlyHint: declared.annotations.readOnly,
        destructiveHint: declared.annotations.destructive,
        idempotentHint: declared.annotations.idempotent,
      })
      // The advertised input is the declared one: same fields, same required ones, closed.
      expect(Object.keys(listed.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(declared.input.properties).sort())
      expect([...(listed.inputSchema.required ?? [])].sort()).toEqual([...(declared.input.required ?? [])].sort())
      expect((listed.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false)
      expect(listed.outputSchema?.type).toBe('object')
      expect(Object.keys(listed.outputSchema?.properties ?? {}).sort()).toEqual(Object.keys(declared.output.properties).sort())
    }
  })

  it('calls every tool with valid input, each result matching its output schema', async () => {
    const first = await ok('write_memory', { summary: 'The API server listens on port 8080 behind nginx.', title: 'API port', tags: ['environment'] })
    expect(first.status).toBe('active')

    const episode = await ok('write_memory', {
      summary: '排查了 Redis 缓存击穿：热点 key 过期瞬间大量请求打到数据库。',
      raw: '用户：线上 Redis 缓存好像被击穿了。\n助手：热点 key 过期后并发回源，加互斥锁即可。',
      session_id: 'session-1',
      tags: ['redis'],
    })
    expect(episode.type).toBe('episode')
    expect(episode.raw_ref).toEqual(expect.any(String))

    const suggested = await ok('write_memory', { summary: 'Deployments go out on Tuesdays and Thursdays only.', title: 'Deploy days', requireConfirmation: true })
    expect(suggested.status).toBe('suggested')

    const conflict = await ok('write_memory', { summary: 'The API server listens on port 9090 now.', title: 'API port', expectConflict: true })
    expect(conflict.status).toBe('conflict')
    expect(conflict.variants).toContain(first.id)

    const search = await ok('memory_search_hybrid', { query: 'Redis 缓存', top_k: 5 })
    expect((search.hits as { id: string }[]).map((h) => h.id)).toContain(episode.id)

    const page = await ok('memory_nav', {})
    expect(page.total).toBeGreaterThanOrEqual(3)
    await ok('memory_nav', { path: String(episode.id) })

    const assembled = await ok('memory_assemble', { task: 'Which port does the API server use?', budget: 400 })
    expect(assembled.used_tokens as number).toBeLessThanOrEqual(400)

    const digest = await ok('memory_digest', { key: 'API port' })
    expect(digest.slot).toEqual(expect.any(String))
    await ok('memory_digest', {})

    const confirmed = await ok('memory_confirm', { id: suggested.id })
    expect(JSON.stringify(confirmed)).toContain('active')

    await ok('memory_resolve', { id: conflict.id, action: 'keep' })
    const after = await ok('memory_nav', { path: String(first.id) })
    expect(JSON.stringify(after)).toContain('superseded')

    await ok('memory_sweep', {})
    // The conflict was resolved for 9090: the 8080 version is contradicted by it.
    expect((await ok('memory_verify', { claim: 'The API server listens on port 9090 now.' })).verdict).toBe('supported')
    expect((await ok('memory_verify', { claim: 'The API server listens on port 8080' })).verdict).toBe('contradicted')
    const forgotten = await ok('forget_memories_by_session', { session_id: 'session-1' })
    expect(JSON.stringify(forgotten)).toContain(String(episode.id))

    // history, lineage, as-of, forget, purge
    const history = await ok('memory_history', { id: first.id })
    expect((history.versions as { id: string }[]).map((v) => v.id)).toContain(conflict.id)
    expect((await ok('memory_lineage', { id: first.id })).id).toBe(first.id)
    expect((await ok('memory_search_hybrid', { query: 'API server port', asOf: '2000-01-01T00:00:00Z' })).hits).toEqual([])
    expect((await ok('memory_forget', { id: suggested.id, dryRun: true })).dry_run).toBe(true)
    await ok('memory_forget', { id: suggested.id })
    expect((await ok('memory_purge', { id: suggested.id })).purged).toEqual([suggested.id])

    // duplicates, merge (preview, then applied), undemote
    const one = await ok('write_memory', { summary: 'Backups run nightly at 02:00 UTC.', title: 'Backups' })
    const two = await ok('write_memory', { summary: 'Backups run nightly at 02:00 UTC', title: 'Backup schedule' })
    const groups = (await ok('memory_duplicates', {})).groups as { members: { id: string }[] }[]
    expect(groups.map((g) => g.members.map((m) => m.id).sort())).toContainEqual([one.id, two.id].sort())
    expect((await ok('memory_merge', { ids: [one.id, two.id] })).dryRun).toBe(true)
    const merged = await ok('memory_merge', { ids: [one.id, two.id], dryRun: false })
    const folded = (merged.folded as { id: string }[]).map((f) => f.id)
    expect((await ok('memory_undemote', { ids: folded })).restored).toEqual([{ id: folded[0], from: (merged.survivor as { id: string }).id }])
    expect((await ok('memory_undo_judgement', { ids: [one.id] })).unchanged).toEqual([one.id])

    // rooms, navigation and decay
    expect(((await ok('memory_rooms', {})).rooms as unknown[]).length).toBeGreaterThan(0)
    expect((await ok('memory_timeline', { order: 'tour' })).total as number).toBeGreaterThan(0)
    expect((await ok('memory_neighbors', { id: one.id })).id).toBe(one.id)
    expect((await ok('memory_decay', {})).dry_run).toBe(true)
    expect((await ok('memory_consolidate', {})).dry_run).toBe(true)
    expect((await ok('memory_restore', { ids: [one.id] })).unchanged).toEqual([one.id])
    expect((await ok('memory_audit_forgotten', {})).total).toBe(0)

    // retrieval practice and the evidence gate
    const batch = await ok('memory_search_hybrid', { query: 'nightly backups', session_id: 'gate-session' })
    const refs = (batch.hits as { ref: string }[]).map((h) => h.ref).slice(0, 1)
    expect((await ok('memory_assess', { batchId: batch.batch_id, evidenceRefs: refs, nextStrategy: 'answer', sufficient: true, session_id: 'gate-session' })).batchKnown).toBe(true)
    expect((await ok('memory_review_queue', {})).due_total).toEqual(expect.any(Number))
    expect((await ok('memory_review', { id: one.id })).id).toBe(one.id)
    expect((await ok('memory_report', { id: one.id, grade: 4 })).recalled).toBe(true)
    expect(await ok('memory_embed', {})).toMatchObject({ embedded: 0, pending: 0 })
    // Workspaces are the personal store's: none is served here, so none is recorded.
    expect((await ok('memory_workspaces', {})).projects).toEqual([])

    // answer with citations, the store in numbers (issue 29)
    const answered = await ok('memory_answer', { question: 'When do the nightly backups run?' })
    expect(answered.abstained).toBe(false)
    expect((answered.citations as { id: string }[]).every((c) => (answered.retrieved as string[]).includes(c.id))).toBe(true)
    expect(answered.answer).toContain('02:00 UTC')
    expect((await ok('memory_answer', { question: 'Which airline does the team fly?' })).reason).toBe('nothing-relevant')
    const stats = await ok('memory_stats', {})
    expect(stats.total as number).toBeGreaterThan(0)
    expect((stats.byKind as Record<string, number>)['topic']).toBeGreaterThan(0)

    expect([...called].sort()).toEqual(TOOLS.map((t) => t.name).sort())
  })

  it('revises keyless free text: a change supersedes, a value without a cue conflicts, verify reads the value', async () => {
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult & { structuredContent: Record<string, unknown> }
    const old = await call('write_memory', { summary: 'The reports service cron schedule is 02:00 UTC.' })
    const next = await call('write_memory', { summary: 'The reports service cron schedule moved to 03:00 UTC.' })
    expect(next.structuredContent.superseded).toEqual([old.structuredContent.id])
    expect(next.content[0]?.text).toContain('Superseded: ')
    expect(next.content[0]?.text).toContain('Subject (slot): ')
    await call('write_memory', { summary: '报表服务的负责人是王芳。' })
    const clash = await call('write_memory', { summary: '报表服务的负责人是李雷。' })
    expect(clash.structuredContent.status).toBe('conflict')
    expect(clash.content[0]?.text).toMatch(/Warning: conflict: /)
    const v = await call('memory_verify', { claim: 'The reports service cron schedule is 02:00 UTC' })
    expect(v.structuredContent.verdict).toBe('contradicted')
    expect(String(v.structuredContent.note)).toContain('03:00 UTC')
  })

  it('answers invalid input with an isError result naming the field', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['write_memory', {}, /^INVALID_INPUT: .*summary.*required/],
      ['write_memory', { summary: 42 }, /^INVALID_INPUT: .*summary: expected a string/],
      ['write_memory', { summary: 'x', colour: 'red' }, /^INVALID_INPUT: .*colour: expected no such field/],
      ['memory_search_hybrid', { query: 'x', top_k: 0 }, /^INVALID_INPUT: .*top_k: expected a number >= 1/],
      ['memory_resolve', { id: 'mem_does_not_exist' }, /^NOT_FOUND: /],
    ]
    for (const [name, args, message] of cases) {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(result.structuredContent).toBeUndefined()
      expect(result.content[0]?.text).toMatch(message)
    }
  })

  it('lets two servers on one root write concurrently without loss', async () => {
    const root = await tempRoot()
    const [a, b] = await Promise.all([connect(root), connect(root)])
    const PER_CLIENT = 50
    const writes = (c: Client, who: string) =>
      Promise.all(
        Array.from({ length: PER_CLIENT }, (_, i) =>
          c.callTool({ name: 'write_memory', arguments: { summary: `Fact ${i} from ${who}: the ${who} service uses queue q-${who}-${i}.`, title: `${who} fact ${i}` } }),
        ),
      )
    const results = (await Promise.all([writes(a, 'alpha'), writes(b, 'beta')])).flat() as ToolResult[]
    const failed = results.filter((r) => r.isError === true).map((r) => r.content[0]?.text)
    expect(failed).toEqual([])
    const ids = new Set(results.map((r) => r.structuredContent?.id))
    expect(ids.size).toBe(2 * PER_CLIENT)

    const index = await lines<IndexEntry>(path.join(root, 'index.jsonl'))
    expect(index).toHaveLength(2 * PER_CLIENT)
    expect(new Set(index.map((e) => e.id))).toEqual(ids)
    const ledger = await lines<LedgerEvent>(path.join(root, 'ledger.jsonl'))
    expect(ledger.filter((e) => e.event === 'write')).toHaveLength(2 * PER_CLIENT)
  })

  it('consolidates in the background once idle for --consolidate-idle-ms, when consolidateAfterEpisodes new episodes are due', async () => {
    const root = await tempRoot()
    await fs.mkdir(root, { recursive: true })
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateAfterEpisodes: 3 }))
    const idleMs = 300
    const c = await connect(root, ['--consolidate-idle-ms', String(idleMs)])
    const ledger = () => lines<LedgerEvent>(path.join(root, 'ledger.jsonl'))
    const consolidations = async () => (await ledger()).filter((e) => e.event === 'consolidate')
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    const ids: unknown[] = []
    const write = async (session_id: string, time: string, summary: string) => {
      const r = (await c.callTool({ name: 'write_memory', arguments: { summary, type: 'episode', session_id, time } })) as ToolResult
      expect(r.isError, r.content[0]?.text).toBeFalsy()
      ids.push(r.structuredContent?.id)
    }
    // One fact said in three sessions. Two episodes are below the threshold: idle, nothing runs.
    await write('s1', '2026-02-02T08:30:00Z', 'User mentioned they are based in Lisbon, so a 9:00 UTC call works for them.')
    await write('s2', '2026-02-05T14:00:00Z', 'Scheduled the vendor sync for 10:00 Lisbon time, since that is where the user lives.')
    await sleep(3 * idleMs)
    expect(await consolidations()).toEqual([])
    await write('s3', '2026-02-09T16:20:00Z', '用户说他住在 Lisbon，想找周末徒步的路线。')
    let ran = await consolidations()
    for (let i = 0; i < 200 && ran.length === 0; i++) {
      await sleep(50)
      ran = await consolidations()
    }
    expect(ran).toEqual([expect.objectContaining({ promoted: 1 })])
    // It started only after the idle wait that followed the last call.
    const lastWrite = (await ledger()).find((e) => e.event === 'write' && e.id === ids[2]) as LedgerEvent
    expect(Date.parse(ran[0]?.at as string) - Date.parse(lastWrite.at)).toBeGreaterThanOrEqual(idleMs)
    const topics = (await lines<IndexEntry>(path.join(root, 'index.jsonl'))).filter((e) => e.type === 'topic')
    expect(topics.map((t) => [...(t.derived_from ?? [])].sort())).toEqual([[...ids].sort()])
    // Idle again with nothing new: no second run.
    await sleep(3 * idleMs)
    expect(await consolidations()).toHaveLength(1)
  })

  it('closes and flushes on SIGTERM after a write, exit 0: a lock library loaded later does not re-raise the signal', async () => {
    const root = await tempRoot()
    const child = spawn(process.execPath, [CLI, 'mcp', '--root', root, '--tools', 'all'], { stdio: ['pipe', 'pipe', 'pipe'] })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
    let out = ''
    child.stdout.setEncoding('utf8')
    const answered = (id: number) =>
      new Promise<void>((resolve) => {
        const look = () => {
          if (out.split('\n').some((l) => l.includes(`"id":${id}`))) resolve()
          else child.stdout.once('data', look)
        }
        look()
      })
    child.stdout.on('data', (d: string) => (out += d))
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sigterm-test', version: '1.0.0' } } })
    await answered(1)
    send({ method: 'notifications/initialized' })
    // The first write takes the store lock: proper-lockfile (and its signal-exit) loads only now.
    send({ id: 2, method: 'tools/call', params: { name: 'write_memory', arguments: { summary: '周五把部署窗口改到晚上八点，运维组已经确认。' } } })
    await answered(2)
    expect(out).toContain('Stored mem_')
    child.kill('SIGTERM')
    expect(await exited).toEqual({ code: 0, signal: null })
  })

  it('refuses a --consolidate-idle-ms that is not a number of milliseconds, before serving', async () => {
    const root = await tempRoot()
    for (const bad of ['soon', '0', '-5', '1.5']) {
      const r = spawnSync(process.execPath, [CLI, 'mcp', '--root', root, '--consolidate-idle-ms', bad], { encoding: 'utf8', input: '' })
      expect(r.status, bad).toBe(2)
      expect(r.stderr).toContain(`mcp: --consolidate-idle-ms: expected milliseconds 1-86400000, got ${JSON.stringify(bad)}`)
    }
  })
})
