/**
 * The README never lies: its two opening commands are the ones package.json and .ci/run run,
 * its CLI commands work as written, and its library example runs against the built package.
 */

import { execFileSync, spawn } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { commandsOf, fencedBlocks } from './readme-kit.js'

const repo = path.resolve(import.meta.dirname, '..')
const readme = readFileSync(path.join(repo, 'README.md'), 'utf8')
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }

describe('README', () => {
  it('opens with the set-up + demo and set-up + test commands that CI and package.json use', () => {
    const first = commandsOf(fencedBlocks('bash')[0] ?? '')
    expect(first).toEqual(['npm ci && npm run demo', 'npm ci && npm test'])
    expect(pkg.scripts.demo).toBe('npm run build && node lib/cli/main.js demo')
    const ci = readFileSync(path.join(repo, '.ci/run'), 'utf8')
    expect(ci).toMatch(/^npm ci\b/m)
    expect(ci).toMatch(/^npm run demo$/m)
    expect(ci).toMatch(/^npm test$/m)
  })

  it('demo (what `npm run demo` runs after building) writes, dedupes, supersedes and lists', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'readme-demo-'))
    const out = execFileSync(process.execPath, ['lib/cli/main.js', 'demo', '--root', root], { cwd: repo, encoding: 'utf8' })
    expect(out).toContain(`store: ${root}`)
    expect(out).toMatch(/supersedes mem_/)
    expect(out).toMatch(/duplicate \(near/)
    expect(out).toMatch(/7 memories \(6 active, 1 superseded\)/)
    expect(existsSync(path.join(root, 'ledger.jsonl'))).toBe(true)
  })

  it('runs every command of the command-line section as written', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'readme-cli-'))
    const cli = path.join(repo, 'lib/cli/main.js')
    const block = fencedBlocks('bash').find((b) => b.includes('lib/cli/main.js rebuild')) ?? ''
    const commands = commandsOf(block)
    expect(commands.length).toBe(3)
    for (const command of commands) {
      const args = command.replace(/^node lib\/cli\/main\.js\s*/, '').split(/\s+/)
      const out = execFileSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8' })
      expect(out.length).toBeGreaterThan(0)
    }
    expect(existsSync(path.join(cwd, 'demo-memory', 'index.jsonl'))).toBe(true)
  })

  it('runs every command of the CLI tour as written, on the default store of the working directory', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'readme-tour-'))
    const cli = path.join(repo, 'lib/cli/main.js')
    // The tour: the block that writes and then searches, navigates and assembles (not the two-store example).
    const block = fencedBlocks('bash').find((b) => b.includes('lib/cli/main.js write') && b.includes('lib/cli/main.js assemble')) ?? ''
    const commands = commandsOf(block)
    expect(commands.length).toBeGreaterThanOrEqual(8)
    const env = { ...process.env }
    delete env['MEMORY_AGENT_ROOT']
    // The tour quotes its arguments, so a shell runs each line; only the script's path changes.
    for (const command of commands) {
      expect(command).toMatch(/^node lib\/cli\/main\.js /)
      const out = execFileSync('bash', ['-c', command.replace(/^node lib\/cli\/main\.js/, `node '${cli}'`)], { cwd, env, encoding: 'utf8' })
      expect(out.length).toBeGreaterThan(0)
    }
    expect(existsSync(path.join(cwd, '.agent', 'memory', 'index.jsonl'))).toBe(true)
    // Each step does what it says: the tour's `forget SESSION` soft-deletes what the tour wrote in that session.
    const forget = commands.find((c) => / forget \S+/.test(c))
    const session = forget?.split(/\s+/)[3]
    expect(session).toBeDefined()
    const latest = new Map<string, { status: string; sources?: Array<{ session_id?: string }> }>()
    for (const line of readFileSync(path.join(cwd, '.agent', 'memory', 'index.jsonl'), 'utf8').split('\n').filter((l) => l !== '')) {
      const e = JSON.parse(line) as { id: string; status: string; sources?: Array<{ session_id?: string }> }
      latest.set(e.id, e)
    }
    const ofSession = [...latest.values()].filter((e) => e.sources?.some((s) => s.session_id === session))
    const forgotten = ofSession.filter((e) => e.status === 'deleted_pending').length
    console.log(`tour: forget ${session} soft-deleted ${forgotten} of ${ofSession.length} memories of that session`)
    expect(forgotten).toBeGreaterThan(0)
  })

  it('the tool table has one row per registered tool, naming its input fields', async () => {
    const { TOOLS } = await import('../src/tools/index.js')
    const rows = new Map([...readme.matchAll(/^\| `(\w+)` \| `\{ ?(.*?) ?\}` \|/gm)].map((m) => [m[1] ?? '', m[2] ?? '']))
    expect([...rows.keys()].sort()).toEqual(TOOLS.map((t) => t.name).sort())
    for (const tool of TOOLS) {
      // Top-level fields: nested objects dropped, then each name before its `?`, `:` or a range.
      const flat = (rows.get(tool.name) ?? '').replace(/\{[^{}]*\}/g, '')
      const fields = flat.split(/,|\\\|/).map((f) => f.trim().match(/^(\w+)/)?.[1]).filter((f): f is string => f !== undefined)
      expect(fields.sort(), `README tool table: ${tool.name}`).toEqual(Object.keys(tool.input.properties).sort())
    }
  })

  it('has a Chinese README, linked from the top, that names the same commands', () => {
    const zh = readFileSync(path.join(repo, 'README.zh-CN.md'), 'utf8')
    expect(readme.split('\n').slice(0, 5).join('\n')).toContain('[简体中文](README.zh-CN.md)')
    expect(zh.split('\n').slice(0, 5).join('\n')).toContain('[English](README.md)')
    // Command words in prose and code, comments after `#` aside (they are the translated part).
    const commands = (text: string) => [...new Set([...text.replace(/[ \t]+#\s.*$/gm, '').matchAll(/(?<![\w-])(?:node lib\/cli\/main\.js|memory-agent) ([a-z][a-z-]*)/g)].map((m) => m[1]))].sort()
    expect(commands(readme).length).toBeGreaterThan(15)
    expect(commands(zh)).toEqual(commands(readme))
    // The tour is the same commands, word for word outside the comments.
    const tour = (text: string) => commandsOf(text.match(/```bash\n(node lib\/cli\/main\.js write "The API server listens on port 8080\." --title[\s\S]*?)```/)?.[1] ?? '')
    expect(tour(zh)).toEqual(tour(readme))
    expect(tour(readme).length).toBeGreaterThanOrEqual(8)
    expect((JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { files: string[] }).files).toContain('README.zh-CN.md')
  })

  it('the settings panel section counts the counters and tabs the page shows', () => {
    const panel = readFileSync(path.join(repo, 'client', 'src', 'panel.ts'), 'utf8')
    const tabs = panel.match(/label: 'tab[A-Z]\w*'/g)?.length ?? 0
    const counters = panel.match(/label: 'stat[A-Z]\w*'/g)?.length ?? 0
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']
    const said = readme.match(/It shows the store's path and (\w+) counters[\s\S]*?has (\w+) tabs:/)
    expect(said).not.toBeNull()
    expect([words.indexOf(said?.[1] ?? ''), words.indexOf(said?.[2] ?? '')]).toEqual([counters, tabs])
    const section = readme.slice(said?.index ?? 0).split('\n\n').slice(1, 2).join('')
    expect(section.match(/^- \*\*[^*]+\*\*/gm)?.length).toBe(tabs)
  })

  it('runs the keyless revision commands as written: a change supersedes, verify contradicts the old value', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'readme-truth-'))
    const block = fencedBlocks('bash').find((b) => b.includes('now listens on port 9090')) ?? ''
    const commands = commandsOf(block)
    expect(commands).toHaveLength(6)
    // The project store alone (an empty variable leaves the personal store out).
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: path.join(cwd, 'home'), MEMORY_AGENT_USER_ROOT: '' }
    delete env['MEMORY_AGENT_ROOT']
    const outs = commands.map((command) =>
      execFileSync('bash', ['-c', command.replace(/^node lib\/cli\/main\.js/, `node '${path.join(repo, 'lib/cli/main.js')}'`)], { cwd, env, encoding: 'utf8' }),
    )
    expect(outs[1]).toMatch(/supersed/i)
    expect(outs[2]).toMatch(/CONTRADICTED/)
    expect(outs[2]).toContain('9090')
    expect(outs[4]).toMatch(/supersed/i)
    expect(outs[5].split('\n').find((l) => l.includes('用户'))).toContain('鸡胸肉')
  })

  it('runs the consolidation commands as written: the preview changes nothing, the run makes a topic naming both episodes', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'readme-consolidate-'))
    const block = fencedBlocks('bash').find((b) => b.includes('lib/cli/main.js consolidate')) ?? ''
    const commands = commandsOf(block)
    expect(commands).toHaveLength(4)
    const env = { ...process.env, MEMORY_AGENT_USER_ROOT: '' }
    delete env['MEMORY_AGENT_ROOT']
    const run = (command: string) => execFileSync('bash', ['-c', command.replace(/^node lib\/cli\/main\.js/, `node '${path.join(repo, 'lib/cli/main.js')}'`)], { cwd, env, encoding: 'utf8' })
    const outs = commands.map(run)
    const index = () =>
      readFileSync(path.join(cwd, '.agent', 'memory', 'index.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { id: string; type: string; status: string; derived_from?: string[] })
    expect(outs[2]).toMatch(/status: would-promote/)
    const episodes = index().filter((e) => e.type === 'episode').map((e) => e.id)
    expect(episodes).toHaveLength(2)
    const topics = [...new Map(index().map((e) => [e.id, e])).values()].filter((e) => e.type === 'topic')
    expect(topics.map((t) => [t.status, [...(t.derived_from ?? [])].sort()])).toEqual([['suggested', [...episodes].sort()]])
  })

  it('runs the two-store commands as written: a preference lands in ~/.agent/memory, search shows both stores', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'readme-stores-'))
    const home = path.join(cwd, 'home')
    const block = fencedBlocks('bash').find((b) => b.includes('--tag preference')) ?? ''
    const commands = commandsOf(block)
    expect(commands).toHaveLength(3)
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home }
    delete env['MEMORY_AGENT_ROOT']
    delete env['MEMORY_AGENT_USER_ROOT']
    const outs = commands.map((command) =>
      execFileSync('bash', ['-c', command.replace(/^node lib\/cli\/main\.js/, `node '${path.join(repo, 'lib/cli/main.js')}'`)], { cwd, env, encoding: 'utf8' }),
    )
    expect(outs[0]).toMatch(/in the user store/)
    expect(outs[1]).toMatch(/in the project store/)
    expect(outs[2]).toMatch(/user store/)
    expect(outs[2]).toMatch(/project store/)
    expect(existsSync(path.join(home, '.agent', 'memory', 'index.jsonl'))).toBe(true)
    expect(existsSync(path.join(cwd, '.agent', 'memory', 'index.jsonl'))).toBe(true)
  })

  it('runs every export and import command as written, with the test fixtures as the notes and the graph', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'readme-transfer-'))
    cpSync(path.join(repo, 'test/fixtures/import/notes'), path.join(cwd, 'notes'), { recursive: true })
    cpSync(path.join(repo, 'test/fixtures/import/mcp/memory.jsonl'), path.join(cwd, 'memory.jsonl'))
    const block = fencedBlocks('bash').find((b) => b.includes('lib/cli/main.js export')) ?? ''
    const commands = commandsOf(block)
    expect(commands.length).toBeGreaterThanOrEqual(5)
    const env = { ...process.env }
    delete env['MEMORY_AGENT_ROOT']
    for (const command of commands) {
      // export --out speaks on stderr only, so both streams count as output.
      const out = execFileSync('bash', ['-c', `${command.replace(/^node lib\/cli\/main\.js/, `node '${path.join(repo, 'lib/cli/main.js')}'`)} 2>&1`], { cwd, env, encoding: 'utf8' })
      expect(out.length).toBeGreaterThan(0)
    }
    expect(existsSync(path.join(cwd, 'backup.json'))).toBe(true)
    expect(readFileSync(path.join(cwd, 'restored', 'ledger.jsonl'), 'utf8')).toMatch(/"event":"import","format":"bundle"/)
  })

  it('runs the library example against the built package', () => {
    const block = fencedBlocks('js').find((b) => b.includes("from 'dsh-memory-agent/api'"))
    expect(block).toBeDefined()
    const dir = mkdtempSync(path.join(tmpdir(), 'readme-lib-'))
    const file = path.join(dir, 'example.mjs')
    const api = new URL(`file://${path.join(repo, 'lib/api.js')}`).href
    writeFileSync(file, (block ?? '').replace("'dsh-memory-agent/api'", `'${api}'`))
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8' })
    expect(out).toContain('active 1')
    expect(out).toContain('entries: 1')
  })
})

describe('README: settings panel commands', () => {
  it('serve prints a link with the key that opens the page, stops on SIGTERM; panel-key prints that key', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'readme-panel-'))
    const cli = path.join(repo, 'lib/cli/main.js')
    const block = fencedBlocks('bash').find((b) => b.includes('lib/cli/main.js serve')) ?? ''
    const [serveLine, keyLine, ...rest] = commandsOf(block)
    expect(rest).toEqual([])
    expect(serveLine).toMatch(/^node lib\/cli\/main\.js serve /)
    expect(keyLine).toMatch(/^node lib\/cli\/main\.js panel-key /)
    const args = (line: string) => line.replace(/^node lib\/cli\/main\.js\s*/, '').split(/\s+/)
    const proc = spawn(process.execPath, [cli, ...args(serveLine ?? '')], { cwd, stdio: ['ignore', 'pipe', 'inherit'] })
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve))
    const link = await new Promise<string>((resolve, reject) => {
      let out = ''
      proc.stdout.on('data', (d: Buffer) => {
        out += d.toString()
        const m = /^memory-agent panel: (http:\/\/127\.0\.0\.1:\d+\/#memory-agent-key=[\w-]+)$/m.exec(out)
        if (m?.[1] !== undefined) resolve(m[1])
      })
      void exited.then((code) => reject(new Error(`serve exited with ${code}`)))
    })
    const page = await fetch(link)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('/panel.js')
    // A write through the API loads the lock library (and its signal-exit) after serve listens for
    // signals: SIGTERM must still close and flush, exit 0, not re-raise the signal.
    const origin = new URL(link).origin
    const written = await fetch(`${origin}/memory-agent/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-dsh-memory-agent': 'panel', 'x-dsh-memory-agent-token': new URL(link).hash.split('=')[1] ?? '' },
      body: JSON.stringify({ op: 'config.set', injectEnabled: false }),
    })
    expect(((await written.json()) as { ok: boolean }).ok).toBe(true)
    proc.kill('SIGTERM')
    expect(await exited).toBe(0)
    const key = execFileSync(process.execPath, [cli, ...args(keyLine ?? '')], { cwd, encoding: 'utf8' }).trim()
    expect(link.endsWith(`#memory-agent-key=${key}`)).toBe(true)
  })
})

describe('README: benchmark commands', () => {
  // `npm run bench:*` builds first; the suite must not rebuild lib/ under the other tests, so it
  // runs what the scripts run after the build, on small sizes.
  const tsx = path.join(repo, 'node_modules/.bin/tsx')

  it('package.json has the bench scripts the README names', () => {
    for (const name of ['bench:retrieval', 'bench:scale']) {
      expect(readme).toContain(`npm run ${name}`)
      expect(pkg.scripts[name]).toMatch(/^npm run build && tsx bench\//)
    }
  })

  it('bench:retrieval prints the MADial table beside its baseline', () => {
    const out = execFileSync(tsx, ['bench/retrieval.ts', '--only', 'madial'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    expect(out).toMatch(/MADial zh frac@k/)
    expect(out).toMatch(/^all\s+\|\s+80\s+\|/m)
  }, 120_000)

  it('bench:scale prints the size table with FTS5 beside it', () => {
    const out = execFileSync(tsx, ['bench/scale.ts', '--sizes', '300', '--queries', '20', '--window', '100'], {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    expect(out).toMatch(/== 300 memories ==/)
    expect(out).toMatch(/query p95 zh, ms/)
    expect(out).toMatch(/FTS5/)
  }, 180_000)
})
