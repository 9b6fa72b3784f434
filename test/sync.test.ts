/**
 * `sync` with the real git binary: a bare repository in a temporary folder stands for the
 * shared remote, and two stores (two machines, or two teammates) sync through it. Every git call
 * here and in the code under test runs with an isolated configuration (an empty global config,
 * no system config) and its own identity, so nothing depends on the machine's git setup.
 */

import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createFileBackend,
  describeSync,
  flushCaches,
  navHandler,
  resolveHandler,
  searchHandler,
  syncStore,
  verifyHandler,
  writeHandler,
  type IndexEntry,
  type MemoryBackend,
  type SyncOptions,
} from '../src/api.js'
import { handleApiRequest, TOKEN_HEADER } from '../src/host/api.js'
import { DEFAULT_CONFIG } from '../src/memory/settings/config.js'
import { withLines } from '../src/store/git-settings.js'
import { mergeLedgerText, mergeMemoryText } from '../src/sync/merge.js'
import { commitMessage, newLedgerLines } from '../src/sync/messages.js'
import { planIndexChanges } from '../src/store/index-plan.js'
import { copyId } from '../src/store/identity.js'
import { findSecret } from '../src/sync/secrets.js'
import { IndexView } from '../src/store/index-view.js'
import { entryFromFile } from '../src/store/frontmatter.js'
import { scanMemoryFiles } from '../src/store/rebuild.js'

const CLI = path.resolve(import.meta.dirname, '..', 'lib', 'cli', 'main.js')

const opened: MemoryBackend[] = []
afterEach(async () => {
  for (const b of opened.splice(0)) await flushCaches(b)
})

interface World {
  dir: string
  remote: string
  env: Record<string, string>
  git(cwd: string, ...args: string[]): string
  store(name: string): { root: string; backend: MemoryBackend }
  sync(backend: MemoryBackend, options?: SyncOptions): ReturnType<typeof syncStore>
}

/** A temporary folder with a bare repository and git configured for this test only. */
/** A world whose store a has one memory, synced once to the remote; remoteHead is the remote's main then. */
async function pushedOnce(memory: { summary: string; title: string }) {
  const w = world()
  const a = w.store('a')
  await writeHandler(a.backend, memory)
  await w.sync(a.backend, { remote: w.remote })
  return { w, a, remoteHead: w.git(w.remote, 'rev-parse', 'main') }
}

function world(): World {
  const dir = mkdtempSync(path.join(tmpdir(), 'sync-test-'))
  const globalConfig = path.join(dir, 'gitconfig')
  writeFileSync(globalConfig, '')
  const env = {
    GIT_CONFIG_GLOBAL: globalConfig,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Sync Test',
    GIT_AUTHOR_EMAIL: 'sync-test@example.com',
    GIT_COMMITTER_NAME: 'Sync Test',
    GIT_COMMITTER_EMAIL: 'sync-test@example.com',
    GIT_TERMINAL_PROMPT: '0',
  }
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' })
  const remote = path.join(dir, 'remote.git')
  git(dir, 'init', '-q', '--bare', remote)
  return {
    dir,
    remote,
    env,
    git,
    store(name) {
      const root = path.join(dir, name)
      const backend = createFileBackend(root)
      opened.push(backend)
      return { root, backend }
    },
    sync: (backend, options = {}) => syncStore(backend, { env, ...options }),
  }
}

const ids = async (b: MemoryBackend) => [...(await b.indexView()).values()].map((e) => e.id).sort()
const entry = async (b: MemoryBackend, id: string) => (await b.indexView()).get(id)
const inSlot = async (b: MemoryBackend, key: string) => [...(await b.indexView()).values()].filter((e) => e.key === key).sort((x, y) => x.id.localeCompare(y.id))
const ledgerLines = (root: string) => readFileSync(path.join(root, 'ledger.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '')
const states = async (b: MemoryBackend) => Object.fromEntries([...(await b.indexView()).values()].map((e) => [e.id, [e.status, e.summary, [...e.variants].sort().join(',')]]))

/** Every file below root (outside .git), recursively. */
function allFiles(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === '.git') continue
      const p = path.join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      else out.push(p)
    }
  }
  walk(root)
  return out
}

function expectNoConflictMarkers(root: string): void {
  for (const file of allFiles(root)) {
    const text = readFileSync(file, 'utf8')
    expect(text, file).not.toMatch(/^(<{7}|>{7}|={7})( |$)/m)
  }
}

const byId = (a: IndexEntry, b: IndexEntry) => a.id.localeCompare(b.id)
/** The index a sync left equals what a rebuild derives from the files (read without writing anything). */
async function expectIndexMatchesFiles(backend: MemoryBackend): Promise<void> {
  const indexed = (await backend.readIndex()).sort(byId)
  const { entries, warnings } = await scanMemoryFiles(createFileBackend(backend.root))
  expect(warnings).toEqual([])
  expect(entries.sort(byId)).toEqual(indexed)
}

function handEdit(root: string, relPath: string, from: string, to: string): void {
  const file = path.join(root, relPath)
  const text = readFileSync(file, 'utf8')
  expect(text).toContain(from)
  writeFileSync(file, text.replace(from, to))
}

describe('sync: two stores through a bare repository', () => {
  it('writes on both sides end up on both; ledgers merge without loss or duplicates; a second sync changes nothing', async () => {
    const w = world()
    const a = w.store('a')
    const b = w.store('b')
    const a1 = await writeHandler(a.backend, { summary: 'The API server listens on port 8080.', title: 'API port', tags: ['env'] })
    const a2 = await writeHandler(a.backend, { summary: 'Fixed the flaky login test by waiting for the token.', raw: 'user: the login test fails\nassistant: wait for the token', session_id: 's-a' })
    const b1 = await writeHandler(b.backend, { summary: '项目用 pnpm 管理依赖。', title: '包管理器', tags: ['约定'] })
    const b2 = await writeHandler(b.backend, { summary: 'Deploys go out on Tuesdays.', title: 'Deploy days', session_id: 's-b' })
    const linesBefore = [...ledgerLines(a.root), ...ledgerLines(b.root)]

    const first = await w.sync(a.backend, { remote: w.remote })
    expect(first).toMatchObject({ initialized: true, branch: 'main', remote: { url: w.remote, branch: 'main' }, conflicts: [] })
    expect(first.committed).toHaveLength(1)
    expect(first.committed[0]?.subject).toBe('memory-agent sync: 2 writes')
    expect(first.pushed?.from).toBeNull()
    const second = await w.sync(b.backend, { remote: w.remote })
    expect(second.pulled).toMatchObject({ fastForward: false })
    expect(second.reindexed).toMatchObject({ full: false, upserts: 3 })
    await w.sync(a.backend)

    const all = [a1.id, a2.id, `${a2.id}-raw`, b1.id, b2.id].sort()
    expect(await ids(a.backend)).toEqual(all)
    expect(await ids(b.backend)).toEqual(all)
    for (const s of [a, b]) {
      const lines = ledgerLines(s.root)
      expect(new Set(lines).size).toBe(lines.length) // no duplicates
      // Nothing lost; the one line added moves b1 off topics#1, which a1 had been given first.
      const moves = lines.filter((l) => l.includes('"event":"move"'))
      expect(moves.map((l) => JSON.parse(l) as { id: string; from: string }).map((m) => `${m.id} ${m.from}`)).toEqual([`${b1.id} topics#1`])
      expect(lines.filter((l) => !moves.includes(l)).sort()).toEqual([...linesBefore].sort())
      expect(w.git(s.root, 'status', '--porcelain')).toBe('')
      await expectIndexMatchesFiles(s.backend)
    }
    // What is shared and what stays on each machine.
    const tracked = w.git(a.root, 'ls-files').split('\n')
    expect(tracked).toEqual(expect.arrayContaining(['ledger.jsonl', '.gitignore', '.gitattributes', 'README.md', 'digests/_index.md']))
    for (const local of ['index.jsonl', 'usage.jsonl', 'query-log.jsonl']) expect(tracked).not.toContain(local)
    expect(tracked.some((f) => f.startsWith('.cache/'))).toBe(false)
    expect(readFileSync(path.join(a.root, '.gitattributes'), 'utf8')).toMatch(/^ledger\.jsonl merge=union$/m)

    // Idempotent: nothing to commit, pull or push; the remote does not move.
    const remoteHead = w.git(w.remote, 'rev-parse', 'main')
    for (const s of [a, b, a]) {
      const again = await w.sync(s.backend)
      expect(again).toMatchObject({ committed: [], pulled: null, pushed: null, conflicts: [] })
      expect(describeSync(again)).toContain('Already in sync')
    }
    expect(w.git(w.remote, 'rev-parse', 'main')).toBe(remoteHead)
  })

  it('the same memory changed on both sides ends as one conflict with both variants, and resolves cleanly', async () => {
    const w = world()
    const a = w.store('a')
    const v1 = await writeHandler(a.backend, { summary: 'The API listens on port 8080.', title: 'API port', key: 'api-port' })
    const note = await writeHandler(a.backend, { summary: 'Backups run at 02:00 every night.', title: 'Backups' })
    await w.sync(a.backend, { remote: w.remote })
    // The second machine joins with a plain clone: no index.jsonl comes with it.
    w.git(w.dir, 'clone', '-q', w.remote, 'b')
    const b = w.store('b')
    const joined = await w.sync(b.backend)
    expect(joined.reindexed?.full).toBe(true)
    expect(await ids(b.backend)).toEqual(await ids(a.backend))

    // Both write a new version of the same fact, and both edit the same note by hand.
    const va = await writeHandler(a.backend, { summary: 'The API listens on port 9090.', title: 'API port', key: 'api-port' })
    const vb = await writeHandler(b.backend, { summary: 'The API listens on port 7070.', title: 'API port', key: 'api-port' })
    expect(va.superseded).toEqual([v1.id])
    expect(vb.superseded).toEqual([v1.id])
    handEdit(a.root, note.path, 'at 02:00 every night', 'at 03:00 every night')
    handEdit(b.root, note.path, 'at 02:00 every night', 'at 04:00 on weekdays')

    await w.sync(a.backend)
    const merged = await w.sync(b.backend)
    expect(merged.conflicts).toHaveLength(2)
    await w.sync(a.backend)

    for (const s of [a, b]) {
      expectNoConflictMarkers(s.root)
      const slot = await inSlot(s.backend, 'api-port')
      expect(slot.map((e) => [e.id, e.status])).toEqual(
        [
          [v1.id, 'superseded'],
          [va.id, 'conflict'],
          [vb.id, 'conflict'],
        ].sort((x, y) => (x[0] as string).localeCompare(y[0] as string)),
      )
      expect((await entry(s.backend, va.id))?.variants).toEqual([vb.id])
      expect((await entry(s.backend, vb.id))?.variants).toEqual([va.id])
      // The note: ours (b's, which made the merge) at its path, theirs beside it, both conflict.
      const original = await entry(s.backend, note.id)
      expect(original?.status).toBe('conflict')
      expect(original?.summary).toBe('Backups run at 04:00 on weekdays.')
      const variantId = original?.variants[0] as string
      const variant = await entry(s.backend, variantId)
      expect(variant).toMatchObject({ status: 'conflict', summary: 'Backups run at 03:00 every night.', variants: [note.id] })
      const hits = await searchHandler(s.backend, { query: 'backups' })
      expect(hits.hits.map((h) => h.id).sort()).toEqual([note.id, variantId].sort())
      await expectIndexMatchesFiles(s.backend)
    }
    expect(await states(a.backend)).toEqual(await states(b.backend))

    // Settled on one machine, settled on both.
    const variantId = (await entry(a.backend, note.id))?.variants[0] as string
    await resolveHandler(b.backend, { id: va.id, action: 'keep' })
    await resolveHandler(b.backend, { id: variantId, action: 'drop' })
    await w.sync(b.backend)
    const pulled = await w.sync(a.backend)
    expect(pulled.conflicts).toEqual([])
    for (const s of [a, b]) {
      expect((await inSlot(s.backend, 'api-port')).map((e) => e.status).sort()).toEqual(['active', 'superseded', 'superseded'])
      expect((await entry(s.backend, va.id))?.status).toBe('active')
      expect((await entry(s.backend, note.id))?.status).toBe('active')
      expect((await entry(s.backend, variantId))?.status).toBe('superseded')
      expectNoConflictMarkers(s.root)
      await expectIndexMatchesFiles(s.backend)
    }
    expect(await states(a.backend)).toEqual(await states(b.backend))
  })

  it('puts a slot right when a conflict meets a newer version, and when both sides settled it differently', async () => {
    const w = world()
    const a = w.store('a')
    const b = w.store('b')
    await writeHandler(a.backend, { summary: 'Port is 8080.', title: 'port' })
    await w.sync(a.backend, { remote: w.remote })
    await w.sync(b.backend, { remote: w.remote })
    const va = await writeHandler(a.backend, { summary: 'Port is 9090.', title: 'port' })
    const vb = await writeHandler(b.backend, { summary: 'Port is 7070.', title: 'port' })
    await w.sync(a.backend)
    await w.sync(b.backend) // va and vb: one conflict
    // A has not pulled that yet and writes a newer version, superseding va there.
    const vc = await writeHandler(a.backend, { summary: 'Port is 6060.', title: 'port' })
    const merged = await w.sync(a.backend)
    expect(merged.conflicts.map((c) => [...c.ids].sort())).toEqual([[vb.id, vc.id].sort()])
    await w.sync(b.backend)
    const current = async (s: MemoryBackend) => (await inSlot(s, 'port')).filter((e) => e.status === 'active' || e.status === 'conflict').map((e) => [e.id, e.status, e.variants])
    for (const s of [a, b]) {
      expect((await entry(s.backend, va.id))?.status).toBe('superseded')
      expect(await current(s.backend)).toEqual(
        [
          [vb.id, 'conflict', [vc.id]],
          [vc.id, 'conflict', [vb.id]],
        ].sort((x, y) => (x[0] as string).localeCompare(y[0] as string)),
      )
    }
    // Each side settles it the other way round: neither version may end up dropped.
    await resolveHandler(a.backend, { id: vb.id, action: 'drop' })
    await resolveHandler(b.backend, { id: vc.id, action: 'drop' })
    await w.sync(a.backend)
    const again = await w.sync(b.backend)
    expect(again.conflicts).toHaveLength(1)
    await w.sync(a.backend)
    for (const s of [a, b]) expect((await current(s.backend)).map((c) => c[1])).toEqual(['conflict', 'conflict'])
    expect(await states(a.backend)).toEqual(await states(b.backend))
  })

  it('a hand edit pulled from the other clone is found by the next search; the edit is one ledger event, in the commit message', async () => {
    const w = world()
    const a = w.store('a')
    const b = w.store('b')
    const m = await writeHandler(a.backend, { summary: 'The staging database is called orders-staging.', title: 'Staging database' })
    await w.sync(a.backend, { remote: w.remote })
    await w.sync(b.backend, { remote: w.remote })
    expect((await searchHandler(b.backend, { query: 'zanzibar' })).hits).toEqual([]) // warms b's search index
    handEdit(a.root, m.path, 'is called orders-staging.', 'is called orders-staging, hosted in the zanzibar region.')
    await w.sync(a.backend)
    const pulled = await w.sync(b.backend)
    expect(pulled.reindexed).toMatchObject({ upserts: 1 })
    expect((await searchHandler(b.backend, { query: 'zanzibar' })).hits.map((h) => h.id)).toEqual([m.id])
    // A process opening the store afresh finds it too.
    expect((await searchHandler(createFileBackend(b.root), { query: 'zanzibar region' })).hits.map((h) => h.id)).toEqual([m.id])
    // The edit is one event, A's (its sync noticed the edit first); B's pull adds none of its own.
    const noticed = (root: string) => ledgerLines(root).filter((l) => l.includes('"external-change"') && l.includes(m.id))
    expect(noticed(a.root)).toHaveLength(1)
    expect(noticed(b.root)).toEqual(noticed(a.root))
    expect(w.git(a.root, 'log', '--format=%s')).toMatch(/^memory-agent sync: 1 external-change$/m)
  })

  it('refuses to commit a file holding a secret, and to push one committed by hand; names the file', async () => {
    const w = world()
    const a = w.store('a')
    const m = await writeHandler(a.backend, { summary: 'The deploy key lives in the vault.', title: 'Deploy key' })
    await w.sync(a.backend, { remote: w.remote })
    const remoteHead = w.git(w.remote, 'rev-parse', 'main')
    const commits = w.git(a.root, 'rev-list', '--count', 'HEAD')

    handEdit(a.root, m.path, 'lives in the vault.', 'is sk-abcdefghijklmnop1234567890 for now.')
    const refused = await w.sync(a.backend).catch((err: { code?: string; message: string }) => err)
    expect(refused).toMatchObject({ code: 'INVALID_STATE' })
    expect((refused as Error).message).toContain(`${m.path}:`)
    expect((refused as Error).message).toContain('api-key')
    expect(w.git(a.root, 'rev-list', '--count', 'HEAD')).toBe(commits)
    expect(w.git(w.remote, 'rev-parse', 'main')).toBe(remoteHead)

    // A commit made outside sync with a secret in it is not pushed either.
    w.git(a.root, 'commit', '-q', '-am', 'by hand')
    const held = await w.sync(a.backend).catch((err: Error) => err)
    expect(held).toMatchObject({ code: 'INVALID_STATE' })
    expect((held as Error).message).toMatch(/not pushed yet; nothing was pushed/)
    expect(w.git(w.remote, 'rev-parse', 'main')).toBe(remoteHead)

    handEdit(a.root, m.path, 'is sk-abcdefghijklmnop1234567890 for now.', 'is in the vault.')
    const ok = await w.sync(a.backend)
    expect(ok.pushed).not.toBeNull()
  })

  it('refuses to commit or push a binary file holding a secret (NUL bytes, UTF-16), and says which file', async () => {
    const { w, a, remoteHead } = await pushedOnce({ summary: 'The deploy key lives in the vault.', title: 'Deploy key' })
    const commits = w.git(a.root, 'rev-list', '--count', 'HEAD')
    const pushedFiles = () => w.git(w.remote, 'ls-tree', '-r', '--name-only', 'main')
    const attempts: Array<[string, Buffer, string]> = [
      ['topics/blob.bin', Buffer.concat([Buffer.from([0, 1, 2, 0xff, 0]), Buffer.from('key AKIAIOSFODNN7EXAMPLE\0tail', 'latin1')]), 'aws-access-key'],
      ['topics/notes-utf16.txt', Buffer.from('\ufeffslack xoxb-2400000000001-2400000000002-AbCdEfGhIjKlMnOpQrStUvWx\n', 'utf16le'), 'slack-token'],
      ['topics/dump.bin', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]), Buffer.from('sk_live_51HqLyjK2eZvKYlo2C0aBcDeFgHiJkLmN', 'latin1'), Buffer.from([0, 0])]), 'stripe-key'],
    ]
    const outcomes: Array<{ file: string; kind: string; refused: unknown; pushed: boolean }> = []
    for (const [file, bytes, kind] of attempts) {
      writeFileSync(path.join(a.root, file), bytes)
      const refused = await w.sync(a.backend).catch((err: unknown) => err)
      outcomes.push({ file, kind, refused, pushed: pushedFiles().includes(file) })
      unlinkSync(path.join(a.root, file))
    }
    console.info(`[sync] binary files with a secret: ${outcomes.filter((o) => !o.pushed).length} of ${attempts.length} kept from the remote`)
    for (const { file, kind, refused, pushed } of outcomes) {
      expect(pushed, file).toBe(false)
      expect(refused, file).toMatchObject({ code: 'INVALID_STATE' })
      expect((refused as Error).message).toContain(`sync refused: ${file} (binary; ${kind}) holds what looks like a secret; nothing was committed or pushed`)
    }
    expect(w.git(a.root, 'rev-list', '--count', 'HEAD')).toBe(commits)
    expect(w.git(w.remote, 'rev-parse', 'main')).toBe(remoteHead)

    // Committed by hand outside sync: not pushed either.
    const [file, bytes] = attempts[0] as [string, Buffer, string]
    writeFileSync(path.join(a.root, file), bytes)
    w.git(a.root, 'add', file)
    w.git(a.root, 'commit', '-q', '-m', 'by hand')
    const held = await w.sync(a.backend).catch((err: Error) => err)
    expect(held).toMatchObject({ code: 'INVALID_STATE' })
    expect((held as Error).message).toContain(`sync refused: ${file} (binary; aws-access-key) holds what looks like a secret in a commit made outside sync that is not pushed yet; nothing was pushed`)
    expect(w.git(w.remote, 'rev-parse', 'main')).toBe(remoteHead)
    expect(pushedFiles()).not.toContain(file)
  })

  it('never commits or pushes an embedder key in config.json, whatever its shape; without it config.json syncs', async () => {
    const { w, a, remoteHead } = await pushedOnce({ summary: 'The embedder runs on the GPU box.', title: 'Embedder host' })
    const config = (apiKey?: string) => JSON.stringify({ embedder: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic', dimensions: 8, ...(apiKey !== undefined ? { apiKey } : {}) } }, null, 2)
    for (const key of ['abc123', 'local-ollama-key', '0f1e2d3c4b5a69788796a5b4c3d2e1f0']) {
      writeFileSync(path.join(a.root, 'config.json'), config(key))
      const refused = await w.sync(a.backend).catch((err: unknown) => err)
      expect(refused, key).toMatchObject({ code: 'INVALID_STATE' })
      expect((refused as Error).message).toContain('sync refused: config.json:')
      expect((refused as Error).message).toContain('$MEMORY_AGENT_EMBEDDER_KEY')
      expect(w.git(w.remote, 'rev-parse', 'main')).toBe(remoteHead)
      expect(w.git(a.root, 'log', '-p', '--all')).not.toContain(key)
    }
    writeFileSync(path.join(a.root, 'config.json'), config())
    expect((await w.sync(a.backend)).pushed).not.toBeNull()
    expect(w.git(w.remote, 'show', 'main:config.json')).toContain('"model": "nomic"')
  })

  it('is safe to run while writes go on: every write is committed, and reaches the other store', async () => {
    const w = world()
    const a = w.store('a')
    await writeHandler(a.backend, { summary: 'First memory before any sync.', title: 'first' })
    const writes = Array.from({ length: 20 }, (_, i) => writeHandler(a.backend, { summary: `Concurrent memory number ${i} about topic ${i * 7}.`, title: `concurrent ${i}` }))
    const [synced, ...written] = await Promise.all([w.sync(a.backend, { remote: w.remote }), ...writes])
    expect(synced.pushed).not.toBeNull()
    await w.sync(a.backend)
    expect(w.git(a.root, 'status', '--porcelain')).toBe('')
    const b = w.store('b')
    await w.sync(b.backend, { remote: w.remote })
    const got = await ids(b.backend)
    for (const r of written) expect(got).toContain(r.id)
    // Two syncs of one store at once queue up instead of tripping over each other.
    await writeHandler(a.backend, { summary: 'One more after the first round.', title: 'more' })
    const [x, y] = await Promise.all([w.sync(a.backend), w.sync(a.backend)])
    expect(x.committed.length + y.committed.length).toBe(1)
  })

  it('is safe beside a writer in another process', async () => {
    const w = world()
    const a = w.store('a')
    await writeHandler(a.backend, { summary: 'Before the writer starts.', title: 'before' })
    await w.sync(a.backend, { remote: w.remote })
    const worker = spawn(process.execPath, [path.resolve(import.meta.dirname, 'workers', 'write-stream.mjs'), a.root, 'w1', '40', 'episode'], { stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    worker.stdout.on('data', (c: Buffer) => (out += c.toString()))
    worker.stderr.on('data', (c: Buffer) => (err += c.toString()))
    await new Promise<void>((resolve) => worker.stdout.once('data', () => resolve()))
    const done = new Promise<number | null>((resolve) => worker.on('close', resolve))
    worker.stdin.write('go\n')
    const during = [await w.sync(a.backend), await w.sync(a.backend)]
    expect(await done).toBe(0)
    expect(err).toBe('')
    await w.sync(a.backend)
    expect(during.every((r) => r.pushed !== null || r.committed.length === 0)).toBe(true)
    expect(w.git(a.root, 'status', '--porcelain')).toBe('')
    const written = JSON.parse(out.trim().split('\n').pop() as string) as { ids: string[] }
    const b = w.store('b')
    await w.sync(b.backend, { remote: w.remote })
    const got = await ids(b.backend)
    for (const id of written.ids) expect(got).toContain(id)
    await expectIndexMatchesFiles(b.backend)
  })

  it('finishes a pull that a person started by hand and git stopped at a conflict, without markers', async () => {
    const w = world()
    const a = w.store('a')
    const m = await writeHandler(a.backend, { summary: 'The office wifi is called north-5.', title: 'Wifi' })
    await w.sync(a.backend, { remote: w.remote })
    w.git(w.dir, 'clone', '-q', w.remote, 'b')
    const b = w.store('b')
    await w.sync(b.backend)
    handEdit(a.root, m.path, 'north-5', 'north-6')
    await w.sync(a.backend)
    handEdit(b.root, m.path, 'north-5', 'south-1')
    w.git(b.root, 'commit', '-q', '-am', 'edit by hand')
    const pull = spawnSync('git', ['pull', '-q', '--no-rebase'], { cwd: b.root, env: { ...process.env, ...w.env }, encoding: 'utf8' })
    expect(pull.status).not.toBe(0)
    expect(readFileSync(path.join(b.root, m.path), 'utf8')).toContain('<<<<<<<')
    const finished = await w.sync(b.backend)
    expect(finished.conflicts).toHaveLength(1)
    expectNoConflictMarkers(b.root)
    expect((await entry(b.backend, m.id))).toMatchObject({ status: 'conflict', summary: 'The office wifi is called south-1.' })
    await w.sync(a.backend)
    expect(await states(a.backend)).toEqual(await states(b.backend))
  })
  it('settles other files: both changed config.json keeps this side; a memory deleted there but changed here is kept', async () => {
    const w = world()
    const a = w.store('a')
    const m = await writeHandler(a.backend, { summary: 'The build uses node 20.', title: 'Node version' })
    writeFileSync(path.join(a.root, 'config.json'), '{ "maxTopK": 50 }\n')
    await w.sync(a.backend, { remote: w.remote })
    const b = w.store('b')
    await w.sync(b.backend, { remote: w.remote })
    writeFileSync(path.join(a.root, 'config.json'), '{ "maxTopK": 60 }\n')
    writeFileSync(path.join(b.root, 'config.json'), '{ "maxTopK": 70 }\n')
    unlinkSync(path.join(a.root, m.path))
    handEdit(b.root, m.path, 'node 20', 'node 22')
    await w.sync(a.backend)
    const merged = await w.sync(b.backend)
    expect(merged.kept.map((k) => [k.path, k.kept]).sort()).toEqual([
      ['config.json', 'ours'],
      [m.path, 'ours'],
    ])
    await w.sync(a.backend)
    for (const s of [a, b]) {
      expect(readFileSync(path.join(s.root, 'config.json'), 'utf8')).toBe('{ "maxTopK": 70 }\n')
      expect(await entry(s.backend, m.id)).toMatchObject({ status: 'active', summary: 'The build uses node 22.' })
      expectNoConflictMarkers(s.root)
    }
  })
})

describe('sync: where the repository is', () => {
  it('without a remote a first sync in a project repository refuses to commit onto its branch; once the store is committed there it commits only the store and says where', async () => {
    const w = world()
    const project = path.join(w.dir, 'project')
    mkdirSync(path.join(project, 'src'), { recursive: true })
    w.git(project, 'init', '-q')
    writeFileSync(path.join(project, 'src', 'app.ts'), 'export {}\n')
    const root = path.join(project, '.agent', 'memory')
    const backend = createFileBackend(root)
    opened.push(backend)
    await writeHandler(backend, { summary: 'The project uses vitest.', title: 'Test runner' })
    writeFileSync(path.join(project, 'README.md'), '# project\n')
    w.git(project, 'add', 'README.md') // a person's work in progress, staged
    // The store's .gitignore is there from its creation: adding it stages no derived file.
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toMatch(/^\/\.cache\/$/m)
    await expect(w.sync(backend)).rejects.toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining(`the repository at ${project}, which has no remote`) })
    expect(spawnSync('git', ['rev-parse', '-q', '--verify', 'HEAD'], { cwd: project }).status).not.toBe(0)
    expect(w.git(project, 'status', '--porcelain')).toBe('A  README.md\n?? .agent/\n?? src/\n')
    // The way the refusal names: commit the store once by hand, then syncs commit there.
    w.git(project, 'add', '.agent/memory')
    expect(w.git(project, 'diff', '--cached', '--name-only')).not.toMatch(/index\.jsonl|\.cache\/|usage\.jsonl|query-log/)
    w.git(project, 'commit', '-q', '-m', 'memory', '--', '.agent/memory')
    await writeHandler(backend, { summary: 'The project lints with eslint.', title: 'Linter' })
    const r = await w.sync(backend)
    expect(r).toMatchObject({ initialized: false, repository: project, remote: null, pushed: null })
    expect(describeSync(r)).toContain('No remote is configured')
    expect(describeSync(r)).toContain(`Commits go to branch ${r.branch} of the project's repository at ${project}`)
    const committed = w.git(project, 'show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean)
    expect(committed.every((f) => f.startsWith('.agent/memory/'))).toBe(true)
    expect(committed).toContain('.agent/memory/ledger.jsonl')
    expect(w.git(project, 'status', '--porcelain')).toBe('A  README.md\n?? src/\n')
    // Again with a commit to build on, more staged work, and a derived file committed by hand.
    w.git(project, 'add', 'src/app.ts')
    w.git(project, 'add', '-f', '.agent/memory/index.jsonl')
    w.git(project, 'commit', '-q', '-m', 'by hand', '--', '.agent/memory/index.jsonl')
    await writeHandler(backend, { summary: 'A second memory in the project.', title: 'Second' })
    const again = await w.sync(backend)
    expect(again.committed).toHaveLength(1)
    expect(again.untracked).toEqual(['index.jsonl'])
    const second = w.git(project, 'show', '--name-status', '--format=', 'HEAD').split('\n').filter(Boolean)
    expect(second.every((f) => f.includes('.agent/memory/'))).toBe(true)
    expect(second).toContain('D\t.agent/memory/index.jsonl')
    expect(w.git(project, 'status', '--porcelain')).toBe('A  README.md\nA  src/app.ts\n')
    // A remote may be added, but a project's existing origin is never re-pointed.
    w.git(project, 'remote', 'add', 'origin', w.remote)
    await expect(w.sync(backend, { remote: path.join(w.dir, 'elsewhere.git') })).rejects.toMatchObject({ code: 'INVALID_INPUT' })
  })

  it('a pull that conflicts outside the store is refused and undone, with the store as it was', async () => {
    const w = world()
    const projectA = path.join(w.dir, 'pa')
    mkdirSync(path.join(projectA, 'src'), { recursive: true })
    w.git(projectA, 'init', '-q', '-b', 'main')
    writeFileSync(path.join(projectA, 'src', 'app.ts'), 'export const port = 1\n')
    w.git(projectA, 'add', '-A')
    w.git(projectA, 'commit', '-q', '-m', 'app')
    w.git(projectA, 'remote', 'add', 'origin', w.remote)
    w.git(projectA, 'push', '-q', '-u', 'origin', 'main')
    const a = createFileBackend(path.join(projectA, '.agent', 'memory'))
    opened.push(a)
    const m = await writeHandler(a, { summary: 'The app listens on port 1.', title: 'App port' })
    expect((await w.sync(a)).remote).toMatchObject({ url: w.remote, branch: 'main' })
    w.git(w.dir, 'clone', '-q', '-b', 'main', w.remote, 'pb')
    const projectB = path.join(w.dir, 'pb')
    const b = createFileBackend(path.join(projectB, '.agent', 'memory'))
    opened.push(b)
    await w.sync(b)
    for (const [project, port] of [
      [projectA, '2'],
      [projectB, '3'],
    ] as const) {
      writeFileSync(path.join(project, 'src', 'app.ts'), `export const port = ${port}\n`)
      w.git(project, 'commit', '-q', '-am', `port ${port}`)
      handEdit(path.join(project, '.agent', 'memory'), m.path, 'port 1', `port ${port}`)
    }
    await w.sync(a)
    const headB = w.git(projectB, 'rev-parse', 'HEAD')
    await expect(w.sync(b)).rejects.toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining('src/app.ts') as unknown })
    expect(spawnSync('git', ['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: projectB, env: { ...process.env, ...w.env } }).status).not.toBe(0)
    expect(w.git(projectB, 'rev-parse', 'HEAD~1')).toBe(headB) // only the store's own commit was added
    expect(w.git(projectB, 'status', '--porcelain')).toBe('')
    expect(readFileSync(path.join(projectB, '.agent', 'memory', m.path), 'utf8')).toContain('port 3')
  })

  it('a store the project ignores gets a repository of its own', async () => {
    const w = world()
    const project = path.join(w.dir, 'project')
    mkdirSync(project)
    w.git(project, 'init', '-q')
    writeFileSync(path.join(project, '.gitignore'), '.agent/\n')
    const root = path.join(project, '.agent', 'memory')
    const backend = createFileBackend(root)
    opened.push(backend)
    await writeHandler(backend, { summary: 'Ignored stores still sync.', title: 'ignored' })
    const r = await w.sync(backend, { remote: w.remote })
    expect(r).toMatchObject({ initialized: true, repository: root })
    expect(existsSync(path.join(root, '.git'))).toBe(true)
    expect(w.git(w.remote, 'ls-tree', '-r', '--name-only', 'main')).toContain('ledger.jsonl')
  })

  it('stops derived files committed by an earlier hand commit from being shared', async () => {
    const w = world()
    const a = w.store('a')
    await writeHandler(a.backend, { summary: 'Something worth keeping.', title: 'keep' })
    w.git(a.root, 'init', '-q')
    // Forced: the store's .gitignore keeps derived files out of a plain `git add -A` (a store made before it had none).
    w.git(a.root, 'add', '-A', '-f')
    w.git(a.root, 'commit', '-q', '-m', 'everything, by hand')
    expect(w.git(a.root, 'ls-files')).toContain('index.jsonl')
    const r = await w.sync(a.backend)
    expect(r.untracked).toContain('index.jsonl')
    expect(w.git(a.root, 'ls-files')).not.toContain('index.jsonl')
    expect(existsSync(path.join(a.root, 'index.jsonl'))).toBe(true)
  })
})

describe('sync: the pure parts', () => {
  it('merges ledgers: ours, then the lines only they added, none twice', () => {
    expect(mergeLedgerText('a\n', 'a\nx\ny\n', 'a\ny\nz\n')).toBe('a\nx\ny\nz\n')
    expect(mergeLedgerText('', 'x\n', 'x\n')).toBe('x\n')
    expect(mergeLedgerText('a\n', 'a\n', 'a\nb\n')).toBe('a\nb\n')
    // A line each side really wrote twice stays twice.
    expect(mergeLedgerText('', 'x\nx\n', 'x\n')).toBe('x\nx\n')
  })

  it('merges a memory file field by field; content changed on both sides is a conflict', () => {
    const file = (fields: string, body = '# T\n\nBody.\n') => `---\nid: m1\ntype: topic\n${fields}---\n${body}`
    const base = file('status: active\ntags:\n  - a\n')
    const ours = file('status: superseded\nsuperseded_by: mem_b\ntags:\n  - a\n  - x\n')
    const theirs = file('status: superseded\nsuperseded_by: mem_c\ntags:\n  - y\n')
    const merged = mergeMemoryText(base, ours, theirs)
    expect(merged.kind).toBe('merged')
    const e = entryFromFile('topics/t-m1.md', merged.kind === 'merged' ? merged.text : '', 0)
    expect(e).toMatchObject({ status: 'superseded', superseded_by: 'mem_c', tags: ['x', 'y'] })
    expect(mergeMemoryText(base, file('status: active\n', '# T\n\nOne.\n'), file('status: active\n', '# T\n\nTwo.\n'))).toEqual({ kind: 'conflict', reason: 'both sides changed the text' })
    expect(mergeMemoryText(base, file('status: active\nconfidence: 0.9\n'), file('status: active\nconfidence: 0.2\n'))).toMatchObject({ kind: 'conflict' })
  })

  it('plans a re-index from changed files: edits, moves and removals', () => {
    const text = (id: string, summary: string) => `---\nid: ${id}\ntype: topic\ntitle: ${id}\ntime: '2026-01-01T00:00:00.000Z'\n---\n# ${id}\n\n${summary}\n`
    const view = new IndexView()
    view.set(entryFromFile('topics/a.md', text('a', 'one'), 0))
    view.set(entryFromFile('topics/b.md', text('b', 'two'), 0))
    view.set(entryFromFile('topics/c.md', text('c', 'three'), 0))
    const plan = planIndexChanges(view, [
      { path: 'topics/a.md', stated: entryFromFile('topics/a.md', text('a', 'one'), 0) }, // unchanged
      { path: 'topics/b.md', stated: null }, // moved to b2.md
      { path: 'topics/b2.md', stated: entryFromFile('topics/b2.md', text('b', 'two'), 0) },
      { path: 'topics/c.md', stated: null }, // removed
      { path: 'topics/d.md', stated: entryFromFile('topics/d.md', text('a', 'claims a taken id'), 0) },
    ])
    // d.md states a's id: a.md, whose name is the id, keeps it; d.md is indexed under an id of its own.
    expect(plan.upserts.map((e) => [e.id, e.path])).toEqual([
      ['b', 'topics/b2.md'],
      [copyId('a', 'topics/d.md'), 'topics/d.md'],
    ])
    expect(plan.removed).toEqual(['c'])
    expect(plan.changes.map((c) => [c.change, c.id])).toEqual([
      ['moved', 'b'],
      ['added', copyId('a', 'topics/d.md')],
      ['removed', 'c'],
    ])
    expect(plan.warnings).toHaveLength(1)
    expect(plan.warnings[0]).toContain('topics/a.md')
  })

  it('finds secrets with their line, keeps settings files, writes commit messages from the ledger', () => {
    expect(findSecret('topics/x.md', 'line one\ntoken ghp_abcdefghijklmnopqrstuvwxyz012345\n')).toEqual({ path: 'topics/x.md', line: 2, kinds: ['github-token'] })
    expect(findSecret('topics/x.md', 'redacted: [已脱敏:api-key]\n')).toBeNull()
    expect(findSecret('topics/x.md', 'maps\nkey AIzaSyD4nB2kQ9xL0vT7mR3wE8uY1pZ6cF5hJ2g\n')).toEqual({ path: 'topics/x.md', line: 2, kinds: ['google-api-key'] })
    expect(findSecret('topics/x.md', 'bot xoxb-2400000000001-2400000000002-AbCdEfGhIjKlMnOpQrStUvWx\n')).toEqual({ path: 'topics/x.md', line: 1, kinds: ['slack-token'] })
    expect(findSecret('topics/x.md', 'a\nb\nSTRIPE sk_live_51HqLyjK2eZvKYlo2C0aBcDeFgHiJkLmN\n')).toEqual({ path: 'topics/x.md', line: 3, kinds: ['stripe-key'] })
    expect(findSecret('a.bin', 'x\0AKIAIOSFODNN7EXAMPLE\0')).toEqual({ path: 'a.bin', line: 0, kinds: ['aws-access-key'], binary: true })
    expect(findSecret('a.bin', 'x\0y\0z')).toBeNull()
    expect(withLines('node_modules/\n', '# head', ['a', 'b'])).toBe('node_modules/\n\n# head\na\nb\n')
    expect(withLines('# head\na\nb\n', '# head', ['a', 'b'])).toBeNull()
    expect(newLedgerLines('x\n', 'x\ny\nz\n')).toEqual(['y', 'z'])
    const message = commitMessage(
      [
        { at: 't', event: 'write', id: 'mem_1', type: 'topic', status: 'active', path: 'topics/a-mem_1.md' },
        { at: 't', event: 'write', id: 'mem_2', type: 'topic', status: 'active', path: 'topics/b-mem_2.md' },
        { at: 't', event: 'supersede', id: 'mem_2', ids: ['mem_0'] },
      ],
      ['ledger.jsonl', 'topics/a-mem_1.md'],
    )
    expect(message.split('\n')[0]).toBe('memory-agent sync: 2 writes, 1 supersede')
    expect(message).toContain('- write mem_1 topic active topics/a-mem_1.md')
    expect(message).toContain('- supersede mem_2 (mem_0)')
    expect(commitMessage([], ['README.md']).split('\n')[0]).toBe('memory-agent sync: 1 file changed')
  })
})

describe('sync: adapters', () => {
  it('the panel API serves sync as an op', async () => {
    const w = world()
    const a = w.store('a')
    await writeHandler(a.backend, { summary: 'Synced from the panel.', title: 'panel' })
    // The op takes no arguments: the remote is configured once, from the command line or git.
    await w.sync(a.backend, { remote: w.remote })
    await writeHandler(a.backend, { summary: 'A second one from the panel.', title: 'panel 2' })
    const previous = { ...process.env }
    Object.assign(process.env, w.env) // the op runs git with the host's environment
    try {
      const res = await handleApiRequest(
        {
          method: 'POST',
          remoteAddress: '127.0.0.1',
          headers: { host: 'localhost:5140', origin: 'http://localhost:5140', 'content-type': 'application/json', [TOKEN_HEADER]: 'secret' },
          body: JSON.stringify({ op: 'sync' }),
        },
        { backend: a.backend, secret: 'secret', config: { get: () => DEFAULT_CONFIG, set: () => DEFAULT_CONFIG } },
      )
      expect(res.status).toBe(200)
      const body = JSON.parse(res.body) as { ok: boolean; result: { committed: unknown[]; pushed: unknown } }
      expect(body.ok).toBe(true)
      expect(body.result.committed).toHaveLength(1)
      expect(body.result.pushed).not.toBeNull()
    } finally {
      for (const key of Object.keys(w.env)) if (previous[key] === undefined) delete process.env[key]
      Object.assign(process.env, previous)
    }
  })

  it('memory-agent sync: --help, readable output, --json, exit codes', () => {
    const w = world()
    const root = path.join(w.dir, 'cli-store')
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: w.dir, env: { ...process.env, ...w.env }, encoding: 'utf8' })
    const help = cli('sync', '--help')
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/memory-agent sync/)
    expect(help.stdout).toMatch(/--remote URL/)
    expect(cli('write', 'The CLI syncs too.', '--title', 'cli', '--root', root).status).toBe(0)
    const first = cli('sync', '--root', root, '--remote', w.remote)
    expect(first.stderr).toBe('')
    expect(first.status).toBe(0)
    expect(first.stdout).toMatch(/^Created a git repository and synced /)
    expect(first.stdout).toMatch(/Pushed \(none\)\.\.[0-9a-f]{7}\./)
    const again = cli('sync', '--root', root, '--json')
    expect(again.status).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ committed: [], pulled: null, pushed: null, remote: { url: w.remote } })
    const file = readdirSync(path.join(root, 'topics')).find((f) => f.startsWith('cli-')) as string
    writeFileSync(path.join(root, 'topics', file), `${readFileSync(path.join(root, 'topics', file), 'utf8')}\nkey AKIAABCDEFGHIJKLMNOP\n`)
    const refused = cli('sync', '--root', root)
    expect(refused.status).toBe(4)
    expect(refused.stderr).toContain(`memory-agent: INVALID_STATE: sync refused: topics/${file}:`)
    expect(cli('sync', '--root', root, '--bogus').status).toBe(2)
  })
})

describe('sync: the bench', () => {
  it('bench:sync prints its table with the time and the share spent re-indexing', () => {
    const repo = path.resolve(import.meta.dirname, '..')
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'bench-sync-test-')), 'sync.json')
    const printed = execFileSync(path.join(repo, 'node_modules/.bin/tsx'), ['bench/sync.ts', '--size', '60', '--changes', '9', '--overlap', '2', '--out', out], {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    expect(printed).toMatch(/== sync: 60 memories, 9 changes per side \(2 on the same facts\) ==/)
    expect(printed).toMatch(/^B: 9 changes, merge, push +\| +\d+ \|/m)
    expect(printed).toMatch(/re-indexing index\.jsonl took [\d.]+% of it/)
    const figures = JSON.parse(readFileSync(out, 'utf8')) as { total: { conflicts: number } }
    expect(figures.total.conflicts).toBe(2)
  }, 120_000)
})

describe('sync: room slots across clones', () => {
  /** Locations that memories hold which are not versions of one fact: slots given twice. */
  const givenTwice = async (b: MemoryBackend) => {
    const families = new Map<string, Set<string>>()
    for (const e of (await b.indexView()).values()) {
      if (e.location === undefined) continue
      families.set(e.location, (families.get(e.location) ?? new Set()).add(e.key !== null ? `key ${e.key}` : `id ${e.id}`))
    }
    return [...families].filter(([, f]) => f.size > 1).map(([location]) => location)
  }
  const locations = async (b: MemoryBackend) => Object.fromEntries([...(await b.indexView()).values()].filter((e) => e.location !== undefined).map((e) => [e.id, e.location]))
  const wingOf = (root: string) => (JSON.parse(readFileSync(path.join(root, '.cache', 'rooms-wing.json'), 'utf8')) as { wing: string | null }).wing

  it('two stores that gave the same slots before they first synced: the memory placed first keeps its slot, the other moves, and the old slot still finds it', async () => {
    const w = world()
    const a = w.store('a')
    const b = w.store('b')
    const a1 = await writeHandler(a.backend, { summary: 'The deploy key rotates every 90 days.' })
    const a2 = await writeHandler(a.backend, { summary: 'Backups are kept for 30 days.' })
    const b1 = await writeHandler(b.backend, { summary: 'Staging runs on two nodes.' })
    const b2 = await writeHandler(b.backend, { summary: 'The team reviews alerts on Mondays.' })
    // The attack: each store on its own gave topics#1 and topics#2.
    expect([a1.location, a2.location, b1.location, b2.location]).toEqual(['topics#1', 'topics#2', 'topics#1', 'topics#2'])

    await w.sync(a.backend, { remote: w.remote })
    const merged = await w.sync(b.backend, { remote: w.remote })
    await w.sync(a.backend)
    const wingB = wingOf(b.root) as string
    expect(wingB).toMatch(/^[a-z]{5}$/)
    expect(wingOf(a.root)).not.toBe(wingB)
    expect(merged.moved).toEqual([
      { id: b1.id, ids: [b1.id], from: 'topics#1', to: `topics-${wingB}#1`, kept: a1.id },
      { id: b2.id, ids: [b2.id], from: 'topics#2', to: `topics-${wingB}#2`, kept: a2.id },
    ])
    expect(describeSync(merged)).toContain(`Moved ${b1.id} from topics#1 to topics-${wingB}#1: another clone had given topics#1 to ${a1.id} first.`)
    for (const s of [a, b]) {
      expect(await givenTwice(s.backend)).toEqual([])
      expect(await locations(s.backend)).toEqual({ [a1.id]: 'topics#1', [a2.id]: 'topics#2', [b1.id]: `topics-${wingB}#1`, [b2.id]: `topics-${wingB}#2` })
      expect((await entry(s.backend, b1.id))?.moved_from).toEqual(['topics#1'])
      // Both old references resolve: the slot answers with the memory that kept it and says who moved where.
      const old = await navHandler(s.backend, { path: 'topics#1' })
      expect(old.file?.path).toBe(a1.path)
      expect(old.moved).toEqual([{ id: b1.id, from: 'topics#1', to: `topics-${wingB}#1` }])
      expect((await navHandler(s.backend, { path: `topics-${wingB}#1` })).file?.path).toBe(b1.path)
      expect(ledgerLines(s.root).filter((l) => l.includes('"event":"move"'))).toHaveLength(2)
      await expectIndexMatchesFiles(s.backend)
      expect(w.git(s.root, 'status', '--porcelain')).toBe('')
    }

    // From now on each clone gives slots of its own rooms only.
    const later: string[] = []
    for (let i = 0; i < 10; i++) {
      later.push((await writeHandler(a.backend, { summary: `Clone A fact ${i}: cache shard ${i} lives on node ${i + 3}.` })).location as string)
      later.push((await writeHandler(b.backend, { summary: `Clone B fact ${i}: queue ${i} drains every ${i + 2} minutes.` })).location as string)
    }
    const syncs = [await w.sync(a.backend), await w.sync(b.backend), await w.sync(a.backend)]
    const twice = await givenTwice(a.backend)
    console.info(`[rooms] ${later.length - new Set(later).size} of ${later.length} slots given on two clones after their first sync were given twice; ${twice.length} shared after syncing`)
    expect(new Set(later).size).toBe(later.length)
    expect(syncs.flatMap((r) => r.moved)).toEqual([])
    expect(twice).toEqual([])
    expect(await givenTwice(b.backend)).toEqual([])
  })

  it('a plain git clone gives slots of its own rooms before it ever syncs', async () => {
    const w = world()
    const a = w.store('a')
    for (let i = 0; i < 3; i++) await writeHandler(a.backend, { summary: `Origin fact ${i}: port ${8000 + i} serves the API.` })
    await w.sync(a.backend, { remote: w.remote })
    w.git(w.dir, 'clone', '-q', w.remote, 'c')
    const c = w.store('c')
    const fromClone = []
    const fromOrigin = []
    for (let i = 0; i < 12; i++) {
      fromClone.push((await writeHandler(c.backend, { summary: `Clone fact ${i}: worker ${i} runs nightly.` })).location as string)
      fromOrigin.push((await writeHandler(a.backend, { summary: `Origin fact ${i + 3}: bucket ${i} holds logs.` })).location as string)
    }
    const wingC = wingOf(c.root) as string
    expect(wingC).toMatch(/^[a-z]{5}$/)
    expect(fromClone.slice(0, 10)).toEqual([...Array.from({ length: 9 }, (_, i) => `topics-${wingC}#${i + 1}`), `topics-${wingC}-2#1`])
    expect(fromOrigin.every((l) => l.startsWith(`topics-${wingOf(a.root) as string}`))).toBe(true)
    await w.sync(c.backend)
    const last = await w.sync(a.backend)
    expect(last.moved).toEqual([])
    expect(await givenTwice(a.backend)).toEqual([])
    expect((await navHandler(a.backend, { path: 'topics#2' })).entries).toHaveLength(1)
  })
})

describe('sync: a pulled file never takes an id this clone holds (issue 28, item 9)', () => {
  /** A teammate's hand-made file that states `id` with other words: the original's text, changed. */
  const hostile = (original: string, id: string, time: string, words: string, keepId = true) =>
    original
      .replace(/^time: .*$/m, `time: '${time}'`)
      .replace(/^location: .*\n/m, '')
      .replace(/^id: .*\n/m, keepId ? `id: ${id}\n` : '')
      .replaceAll(/The billing service database is PostgreSQL 15\.|计费服务的数据库是 PostgreSQL 15。/g, words)

  it('five hostile pushes (older time, newer time, a copy under another name, another folder, no id line) and a broken one: the original keeps its id, each incoming file gets a copy id it keeps everywhere', async () => {
    const w = world()
    const a = w.store('a')
    const b = w.store('b')
    const en = { summary: 'The billing service database is PostgreSQL 15.', ...(await writeHandler(a.backend, { summary: 'The billing service database is PostgreSQL 15.' })) }
    const zh = { summary: '计费服务的数据库是 PostgreSQL 15。', ...(await writeHandler(a.backend, { summary: '计费服务的数据库是 PostgreSQL 15。' })) }
    await w.sync(a.backend, { remote: w.remote })
    await w.sync(b.backend, { remote: w.remote })
    const text = (m: { path: string }) => readFileSync(path.join(b.root, m.path), 'utf8')
    const slugOf = (m: { path: string }) => path.basename(m.path).replace(/-mem_[0-9a-z]+\.md$/, '')
    const pushes: Array<{ memory: typeof en; path: string; text: string }> = [
      // An older time and a name that carries the id: the tie-break gave it the id.
      { memory: en, path: `topics/other-${en.id}.md`, text: hostile(text(en), en.id, '2001-01-01T00:00:00.000Z', 'The billing service database is MySQL 5.') },
      // A newer time.
      { memory: en, path: `topics/newer-${en.id}.md`, text: hostile(text(en), en.id, '2099-01-01T00:00:00.000Z', 'The billing service database is Oracle 9.') },
      // The original copied under another name, with other words.
      { memory: zh, path: 'topics/copied.md', text: hostile(text(zh), zh.id, '2001-01-01T00:00:00.000Z', '计费服务的数据库是 MySQL 5。') },
      // Another folder, a name that carries the id, the same time: its path sorts first.
      { memory: zh, path: `episodes/${slugOf(zh)}-${zh.id}.md`, text: hostile(text(zh), zh.id, /^time: '(.*)'$/m.exec(text(zh))?.[1] ?? '', '计费服务的数据库是 Oracle 9。') },
      // No id line: the name states it, and an older time.
      { memory: en, path: `topics/aaa-${en.id}.md`, text: hostile(text(en), en.id, '2001-01-01T00:00:00.000Z', 'The billing service database is SQLite 3.', false) },
    ]
    // Broken YAML with an older time: it cannot be rewritten, so it is indexed under its copy id and named.
    const broken = { memory: zh, path: `topics/broken-${zh.id}.md`, text: hostile(text(zh), zh.id, '2001-01-01T00:00:00.000Z', '计费服务的数据库是 DB2。').replace(/^title: /m, 'title: [') }
    const kept = new Set<string>()
    for (const [round, push] of pushes.entries()) {
      writeFileSync(path.join(b.root, push.path), push.text)
      await w.sync(b.backend)
      // Every other round this clone wrote meanwhile: the pull is a merge, not a fast-forward.
      if (round % 2 === 1) await writeHandler(a.backend, { summary: `Round ${round}: the office plant was watered.`, title: `Plant ${round}` })
      const pulled = await w.sync(a.backend)
      expect(pulled.pulled?.fastForward, push.path).toBe(round % 2 === 0)
      const copy = copyId(push.memory.id, push.path)
      // The original keeps its id: nav shows its text, and its statement is still supported.
      expect((await entry(a.backend, push.memory.id))?.path, push.path).toBe(push.memory.path)
      expect((await navHandler(a.backend, { path: push.memory.id })).file?.text).toContain(push.memory.summary)
      // Its statement is still found as the original's (the teammate's other value contradicts it, as it should).
      const verdict = await verifyHandler(a.backend, { claim: push.memory.summary })
      expect(verdict.verdict, push.path).not.toBe('unknown')
      expect(verdict.support?.id, push.path).toBe(push.memory.id)
      // The incoming file is readable under its copy id, named in the report and the ledger.
      expect(pulled.reidentified, push.path).toEqual([{ path: push.path, id: copy, was: push.memory.id, holder: push.memory.path }])
      expect(describeSync(pulled)).toContain(`${push.path}: states id ${push.memory.id}, which ${push.memory.path} holds here; it is ${copy} now`)
      expect((await navHandler(a.backend, { path: copy })).file?.path).toBe(push.path)
      expect(ledgerLines(a.root).filter((l) => l.includes('"reidentify"') && l.includes(copy))).toHaveLength(1)
      // The file states its copy id now, so a rebuild anywhere (and the teammate's clone) agrees.
      expect(readFileSync(path.join(a.root, push.path), 'utf8')).toMatch(new RegExp(`^id: ${copy}$`, 'm'))
      await expectIndexMatchesFiles(a.backend)
      await w.sync(b.backend)
      expect((await entry(b.backend, push.memory.id))?.path).toBe(push.memory.path)
      expect((await entry(b.backend, copy))?.path).toBe(push.path)
      kept.add(copy)
    }
    expect(kept.size).toBe(5)
    writeFileSync(path.join(b.root, broken.path), broken.text)
    await w.sync(b.backend)
    const pulled = await w.sync(a.backend)
    expect(pulled.reidentified).toEqual([])
    expect(pulled.warnings.find((m) => m.startsWith(`${broken.path}:`))).toContain(`it states id ${zh.id}, which ${zh.path} holds here, so it is indexed as ${copyId(zh.id, broken.path)}`)
    expect((await entry(a.backend, zh.id))?.path).toBe(zh.path)
    expect((await entry(a.backend, copyId(zh.id, broken.path)))?.path).toBe(broken.path)
    // A rebuild agrees: a file whose front-matter parses keeps an id over one whose does not.
    expect((await scanMemoryFiles(createFileBackend(a.root))).entries.find((e) => e.id === zh.id)?.path).toBe(zh.path)
    // Nothing more to do: another round changes nothing.
    expect((await w.sync(a.backend)).reidentified).toEqual([])
    expect(w.git(a.root, 'status', '--porcelain')).toBe('')
  })
})
