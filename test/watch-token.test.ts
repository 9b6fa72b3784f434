/**
 * The watcher's token (store/watch-token.ts, store/watcher.ts): a start that finds a live
 * watcher asks it and skips the look at every file; a token of a watcher that is gone, whose pid
 * another process now has, whose heartbeat is old, or that does not answer (stopped), is ignored
 * and the start checks every file. An edit made while a watcher runs is seen by the next start
 * that trusts it, however soon after the edit it starts. The watcher is a real
 * `memory-agent watch` or `memory-agent mcp` child (lib/, built by npm test).
 */

import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { vouchedByWatcherLastTime } from '../src/store/freshness.js'
import { ASK_WAIT_MS, encodeToken, HEARTBEAT_STALE_MS, parseToken, processStarted, tokenDoubt, TOKEN_FILE, vouchedByWatcher } from '../src/store/watch-token.js'

const CLI = path.join(import.meta.dirname, '..', 'lib', 'cli', 'main.js')
const roots: string[] = []
const children: ChildProcess[] = []
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  for (const r of roots) rmSync(r, { recursive: true, force: true })
})

const SUMMARIES = ['The staging database moved to a new host on Monday', '妈妈对花生过敏，点菜时要提醒服务员', 'Alice keeps the release checklist in the team wiki']

async function store(): Promise<{ root: string; paths: string[] }> {
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'watch-token-')), 'store')
  roots.push(root)
  const b = createFileBackend(root)
  const paths: string[] = []
  for (const summary of SUMMARIES) paths.push(path.join(root, (await writeHandler(b, { summary })).path))
  await flushCaches(b)
  return { root, paths }
}

/** A new process's first search, as a command would run it: its hits, and whether a watcher vouched for it. */
async function firstSearch(root: string, query: string): Promise<{ hits: string[]; vouched: boolean; ms: number }> {
  const b: MemoryBackend = createFileBackend(root)
  const t0 = performance.now()
  const hits = (await searchHandler(b, { query })).hits.map((h) => h.summary)
  const ms = performance.now() - t0
  const vouched = vouchedByWatcherLastTime(b)
  await flushCaches(b)
  return { hits, vouched, ms }
}

/** `memory-agent watch` on root, resolved once it says it watches. */
function startWatcher(root: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'watch', '--root', root], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('memory-agent watch: watching')) resolve(child)
    })
    child.once('exit', (code) => reject(new Error(`watch exited ${code}: ${err}`)))
  })
}

const exited = (child: ChildProcess): Promise<number | null> => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))))

/** Replaces `from` with `to` (the same length) in a file and sets its mtime back: the saved stats cannot tell. */
function editKeepingStat(file: string, from: string, to: string): void {
  const st = statSync(file)
  const text = readFileSync(file, 'utf8')
  expect(text).toContain(from)
  writeFileSync(file, text.replaceAll(from, to))
  utimesSync(file, st.atime, st.mtime)
}

/** Edits a file (its size changes) and runs a new process's first search for it: a check that looks at every file finds it. */
async function editThenSearch(root: string, file: string, from: string, to: string, query: string): Promise<{ hits: string[]; vouched: boolean; ms: number }> {
  writeFileSync(file, readFileSync(file, 'utf8').replaceAll(from, to))
  const r = await firstSearch(root, query)
  expect(r.vouched).toBe(false)
  expect(r.hits[0]).toContain(to)
  return r
}

/** The id of the memory in a file, from its front matter. */
const idOf = (root: string, file: string): string => /^id: *(\S+)$/m.exec(readFileSync(path.resolve(root, file), 'utf8'))?.[1] ?? ''
const tokenOf = (root: string) => (existsSync(path.join(root, TOKEN_FILE)) ? parseToken(readFileSync(path.join(root, TOKEN_FILE))) : null)
const writeToken = (root: string, pid: number, started: string, heartbeat: number) => writeFileSync(path.join(root, TOKEN_FILE), encodeToken({ pid, started, heartbeat }))

describe('memory-agent watch', () => {
  it('has --help, is named in the command list, and names a root with no store', () => {
    const help = spawnSync(process.execPath, [CLI, 'watch', '--help'], { encoding: 'utf8' })
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('Usage: memory-agent watch [--root DIR | --user]')
    expect(spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' }).stdout).toContain('memory-agent watch ')
    const bad = spawnSync(process.execPath, [CLI, 'watch', '--port', '1'], { encoding: 'utf8' })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('watch: unknown flag --port')
    // A mistyped root is named, and no store is made there.
    const missing = path.join(mkdtempSync(path.join(tmpdir(), 'watch-token-')), 'nowhere')
    roots.push(missing)
    const none = spawnSync(process.execPath, [CLI, 'watch', '--root', missing], { encoding: 'utf8' })
    expect(none.status).toBe(3)
    expect(none.stderr).toContain(`NOT_FOUND: no memory store at ${missing}`)
    expect(existsSync(missing)).toBe(false)
  })

  it('an edit made while the watcher runs is seen by a start that trusts it, at once; a stopped watcher is not trusted', async () => {
    const { root, paths } = await store()
    const watcher = await startWatcher(root)
    expect(tokenOf(root)?.pid).toBe(watcher.pid)
    // Edits the saved stats cannot tell from the old text, each searched for right after it is
    // made: only the watcher's record can show them.
    for (const [from, to] of [['Monday', 'Friday'], ['Friday', 'Sunday'], ['Sunday', 'Monday']] as const) {
      editKeepingStat(paths[0] as string, from, to)
      const r = await firstSearch(root, `staging database ${to}`)
      expect(r.vouched).toBe(true)
      expect(r.hits[0]).toBe(`The staging database moved to a new host on ${to}`)
    }
    // A file added while it runs.
    writeFileSync(path.join(root, 'topics', 'hand-note.md'), '# Parking\n\nVisitors park on level minus two of the garage.\n')
    const added = await firstSearch(root, 'visitors park garage')
    expect(added.vouched).toBe(true)
    expect(added.hits[0]).toContain('level minus two')

    // Lagging: a watcher that does not answer (stopped) is asked, then the start checks every file.
    watcher.kill('SIGSTOP')
    try {
      const lagging = await editThenSearch(root, paths[2] as string, 'team wiki', 'shared drive folder', 'release checklist shared drive')
      expect(lagging.ms).toBeGreaterThanOrEqual(ASK_WAIT_MS)
    } finally {
      watcher.kill('SIGCONT')
    }
    watcher.kill('SIGTERM')
    expect(await exited(watcher)).toBe(0)
    expect(existsSync(path.join(root, TOKEN_FILE))).toBe(false)
  }, 60_000)

  it('a start loads the index while the watcher answers: lines the watcher appends meanwhile are read by the next look', async () => {
    const { root, paths } = await store()
    const watcher = await startWatcher(root)
    try {
      // A first answer, so the one below is not the watcher's first (slow on a loaded machine).
      expect((await firstSearch(root, 'staging database')).vouched).toBe(true)
      editKeepingStat(paths[0] as string, 'Monday', 'Friday')
      const b = createFileBackend(root)
      let asked: string[] = []
      const vouched = await vouchedByWatcher(b, async () => {
        // The ask is made before the work: the watcher folds while it runs.
        asked = readdirSync(path.join(root, '.cache')).filter((n) => n.startsWith('watch-ask-') && !n.endsWith('.ok'))
        // Loaded now, perhaps before the watcher folded the edit (as it may or may not have).
        await b.indexView()
      })
      expect(vouched).toBe(true)
      expect(asked).toHaveLength(1)
      expect((await b.indexView()).get(idOf(root, paths[0] as string))?.summary).toBe('The staging database moved to a new host on Friday')
    } finally {
      watcher.kill('SIGTERM')
      await exited(watcher)
    }
  }, 60_000)

  it('the MCP server vouches for its store while it serves, and takes its token away when it ends', async () => {
    const { root, paths } = await store()
    const mcp = spawn(process.execPath, [CLI, 'mcp', '--root', root, '--no-user-root'], { stdio: ['pipe', 'ignore', 'ignore'] })
    children.push(mcp)
    const deadline = Date.now() + 30_000
    while ((tokenOf(root)?.heartbeat ?? 0) === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(tokenOf(root)?.pid).toBe(mcp.pid)
    editKeepingStat(paths[0] as string, 'Monday', 'Friday')
    const r = await firstSearch(root, 'staging database Friday')
    expect(r.vouched).toBe(true)
    expect(r.hits[0]).toBe('The staging database moved to a new host on Friday')
    mcp.stdin?.end()
    await exited(mcp)
    expect(existsSync(path.join(root, TOKEN_FILE))).toBe(false)
  }, 60_000)

  it('a token of a dead watcher, of a reused pid, or with an old heartbeat is ignored: the start checks every file', async () => {
    const { root, paths } = await store()
    const watcher = await startWatcher(root)
    const token = tokenOf(root)
    expect(token).not.toBeNull()
    watcher.kill('SIGKILL')
    await exited(watcher)
    // The token stayed behind; the edit below is one the watcher never saw.
    expect(tokenDoubt(tokenOf(root), Date.now())).toBe('watcher gone')
    await editThenSearch(root, paths[1] as string, '花生', '芒果和花生', '芒果')

    // A live pid that started at another time than the token says: the pid was reused.
    writeToken(root, process.pid, `${Number(processStarted(process.pid)) + 1}`, Date.now())
    expect(tokenDoubt(tokenOf(root), Date.now())).toBe('pid reused')
    // The token of this very process: a watcher never asks itself.
    writeToken(root, process.pid, processStarted(process.pid) as string, Date.now())
    expect(tokenDoubt(tokenOf(root), Date.now())).toBeNull()
    expect((await firstSearch(root, '芒果')).vouched).toBe(false)

    // A live process, the right start time, but a heartbeat older than the bound.
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    children.push(sleeper)
    const started = processStarted(sleeper.pid as number) as string
    writeToken(root, sleeper.pid as number, started, Date.now() - HEARTBEAT_STALE_MS - 1000)
    expect(tokenDoubt(tokenOf(root), Date.now())).toBe('stale heartbeat')
    await editThenSearch(root, paths[2] as string, 'team wiki', 'handbook page', 'release checklist handbook')
    // The same process with a fresh heartbeat is a watcher that never answers: lagging.
    writeToken(root, sleeper.pid as number, started, Date.now())
    const lagging = await firstSearch(root, 'release checklist handbook')
    expect(lagging.vouched).toBe(false)
    expect(lagging.ms).toBeGreaterThanOrEqual(ASK_WAIT_MS)
    sleeper.kill('SIGKILL')
  }, 60_000)
})
