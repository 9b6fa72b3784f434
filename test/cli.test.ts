/**
 * The CLI as a person runs it: the BUILT `node lib/cli/main.js` (`npm test` builds first; run
 * `npm run build` before running this file alone) spawned in a temporary working directory, so the
 * default store `./.agent/memory` is used. Checks readable output, `--json` shapes against the
 * declared output schemas, flags derived from the schemas, help per command and exit codes.
 */

import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { findTool, outputViolation } from '../src/api.js'
import { TOOL_COMMANDS } from '../src/cli/tool-commands.js'

const CLI = path.resolve(import.meta.dirname, '..', 'lib', 'cli', 'main.js')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function cli(cwd: string, ...args: string[]): Run {
  const env = { ...process.env }
  delete env['MEMORY_AGENT_ROOT']
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** The CLI with `stdin` as its standard input. */
function cliIn(cwd: string, stdin: string, ...args: string[]): Run {
  const env = { ...process.env }
  delete env['MEMORY_AGENT_ROOT']
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env, input: stdin })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** The --json output of a tool command, checked against the tool's declared output schema. */
function json(cwd: string, command: string, ...args: string[]): Record<string, unknown> {
  const r = cli(cwd, command, ...args, '--json')
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  const value = JSON.parse(r.stdout) as Record<string, unknown>
  const tool = findTool(TOOL_COMMANDS[command]?.tool ?? '')
  expect(tool).toBeDefined()
  expect(outputViolation(tool!.output, value)).toBeNull()
  return value
}

const tempCwd = () => mkdtempSync(path.join(tmpdir(), 'cli-test-'))

describe('memory-agent tool commands', () => {
  it('write, search, nav, assemble, digest and stats on the default store of the working directory', () => {
    const cwd = tempCwd()
    const written = cli(cwd, 'write', 'The API server listens on port 8080 behind nginx.', '--title', 'API port', '--tag', 'environment', '--tags', 'net', '--session-id', 's1')
    expect(written.code).toBe(0)
    expect(written.stdout).toMatch(/^Stored mem_\w+ as topic, status active/)
    expect(existsSync(path.join(cwd, '.agent', 'memory', 'index.jsonl'))).toBe(true)

    const out = json(cwd, 'write', '用户偏好简洁的中文回答。', '--title', '回答风格', '--entity', 'user', '--confidence', '0.9', '--session-id', 's2')
    expect(out).toMatchObject({ type: 'topic', status: 'active', title: '回答风格' })
    expect(out['id']).toMatch(/^mem_/)

    const search = cli(cwd, 'search', 'nginx port')
    expect(search.code).toBe(0)
    expect(search.stdout).toContain('API port')
    expect(search.stdout).toContain('#environment #net')
    const hits = json(cwd, 'search', 'port', '--top-k', '1', '--tag', 'environment')['hits'] as { title: string; tags: string[] }[]
    expect(hits).toHaveLength(1)
    expect(hits[0]?.tags).toEqual(['environment', 'net'])
    expect(json(cwd, 'search', 'port', '--tag', 'nope')['hits']).toEqual([])

    const nav = cli(cwd, 'nav', 'topics/', '--limit', '1')
    expect(nav.code).toBe(0)
    expect(nav.stdout).toMatch(/entries 1-1 of 2/)
    expect(nav.stdout).toContain('More: memory-agent nav --offset 1.')
    expect(json(cwd, 'nav', '--sort', 'title')['total']).toBe(2)

    const assemble = cli(cwd, 'assemble', 'which port does the API use', '--budget', '300')
    expect(assemble.code).toBe(0)
    expect(assemble.stdout).toMatch(/port 8080/)
    expect(assemble.stdout).toMatch(/\/300 tokens/)

    expect(json(cwd, 'digest', 'API port', '--refresh')['text']).toContain('8080')
    expect(cli(cwd, 'digest').stdout).toMatch(/- API port: 1 entries/)

    const stats = cli(cwd, 'stats')
    expect(stats.code).toBe(0)
    expect(stats.stdout).toMatch(/^total\s+2$/m)
    const counts = JSON.parse(cli(cwd, 'stats', '--json').stdout) as Record<string, number>
    expect(counts).toMatchObject({ total: 2, searchable: 2, suggested: 0 })
  })

  it('confirm, resolve, forget and sweep; booleans as --flag and --no-flag, --input JSON', () => {
    const cwd = tempCwd()
    const root = path.join(cwd, 'store')
    const suggested = json(cwd, 'write', 'Deployments go out on Tuesdays only.', '--root', root, '--require-confirmation', '--session-id', 's1')
    expect(suggested['status']).toBe('suggested')
    const plain = json(cwd, 'write', 'Deployments may also go out on Thursdays.', '--root', root, '--no-require-confirmation', '--session-id', 's1')
    expect(plain['status']).toBe('active')
    expect(json(cwd, 'confirm', String(suggested['id']), '--root', root)['status']).toBe('active')

    // --input gives the whole object; a flag beside it overrides a field.
    const input = JSON.stringify({ summary: 'The cache is Redis 7.', key: 'cache', tags: ['infra'], session_id: 's2' })
    const first = json(cwd, 'write', '--root', root, '--input', input)
    expect(first['status']).toBe('active')
    const second = json(cwd, 'write', '--root', root, '--input', input, '--summary', 'The cache is Memcached.', '--expect-conflict')
    expect(second['status']).toBe('conflict')
    const resolved = json(cwd, 'resolve', String(second['id']), '--root', root, '--action', 'keep')
    expect(resolved).toMatchObject({ id: second['id'], status: 'active' })

    const sweep = json(cwd, 'sweep', '--root', root, '--days', '30', '--limit', '5')
    expect(sweep['thresholds']).toMatchObject({ longUnusedDays: 30 })

    const forget = json(cwd, 'forget', 's2', '--root', root, '--scope', 'include_shared_unlink')
    expect(forget).toMatchObject({ session_id: 's2', scope: 'include_shared_unlink', mode: 'soft' })
    expect(cli(cwd, 'stats', '--root', root).code).toBe(0)
  })

  it('tools without a rendering of their own print readable text, one field a line, and JSON only with --json', () => {
    const cwd = tempCwd()
    const suggested = json(cwd, 'write', 'Deployments go out on Tuesdays only.', '--require-confirmation', '--session-id', 's1')
    const outputs = {
      confirm: cli(cwd, 'confirm', String(suggested['id'])),
      sweep: cli(cwd, 'sweep'),
      duplicates: cli(cwd, 'duplicates'),
      forget: cli(cwd, 'forget', 's1'),
      undemote: cli(cwd, 'undemote', String(suggested['id'])),
    }
    for (const [command, r] of Object.entries(outputs)) {
      expect(r.code, `${command}: ${r.stderr}`).toBe(0)
      expect(r.stdout, command).not.toMatch(/^\s*[{[]/)
      expect(r.stdout.trim().split('\n').length, command).toBeGreaterThan(1)
    }
    expect(outputs.confirm.stdout).toMatch(new RegExp(`^id: ${String(suggested['id'])}\nstatus: active\nsuperseded: none$`, 'm'))
    expect(outputs.forget.stdout).toMatch(/^session id: s1$/m)
    expect(outputs.sweep.stdout).toMatch(/^thresholds:\n  long unused days: 90$/m)
  })

  it('--input - and --input @FILE read the whole input from stdin or a file, past the argument limit', () => {
    const cwd = tempCwd()
    // Longer than one argument may be on Linux (128 KiB): only stdin or a file can carry it.
    const raw = 'A long incident log line about the nginx upstream timeout.\n'.repeat(5000)
    const viaStdin = cliIn(cwd, JSON.stringify({ summary: 'The nginx upstream timed out under load.', raw, session_id: 's1' }), 'write', '--input', '-', '--json')
    expect(viaStdin.code, viaStdin.stderr).toBe(0)
    const stored = JSON.parse(viaStdin.stdout) as { raw_ref: string }
    const kept = readFileSync(path.join(cwd, '.agent', 'memory', stored.raw_ref), 'utf8')
    console.log(`--input -: ${kept.includes(raw) ? raw.length : 0} of ${raw.length} raw characters stored`)
    expect(kept).toContain(raw)

    // Plain text, not a JSON object: write's summary; a flag beside it still applies.
    const note = path.join(cwd, 'note.txt')
    writeFileSync(note, 'Backups run nightly at 02:00 to the NAS.\n')
    expect(json(cwd, 'write', '--input', `@${note}`, '--title', 'Backups')['title']).toBe('Backups')
    expect(cliIn(cwd, 'Releases are tagged vX.Y.Z.\n', 'write', '--input', '-').code).toBe(0)
    const input = path.join(cwd, 'search.json')
    writeFileSync(input, JSON.stringify({ query: 'backups nas', top_k: 1 }))
    expect((json(cwd, 'search', '--input', `@${input}`)['hits'] as { title: string; summary: string }[])[0]).toMatchObject({
      title: 'Backups',
      summary: 'Backups run nightly at 02:00 to the NAS.',
    })
    expect((json(cwd, 'search', 'releases tagged')['hits'] as { summary: string }[])[0]?.summary).toBe('Releases are tagged vX.Y.Z.')

    const missing = cli(cwd, 'write', '--input', '@nope.json')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^memory-agent: INVALID_INPUT: --input: cannot read "nope.json": ENOENT/)
    // Plain text is for a command whose argument is text: merge's is a list, so it wants JSON.
    expect(cliIn(cwd, 'mem_x', 'merge', '--input', '-').stderr).toMatch(/^memory-agent: INVALID_INPUT: --input: expected JSON/)
  })

  it('objects as JSON flags, and arrays of objects by repeating the flag', () => {
    const cwd = tempCwd()
    const out = json(cwd, 'write', 'Uses the staging database.', '--anchor', '{"kind":"env","name":"HOME"}', '--anchors', '[{"kind":"self-version","value":"0.1.0"}]')
    const search = json(cwd, 'search', 'staging', '--time-range', '{"from":"2000-01-01T00:00:00Z"}')
    expect((search['hits'] as { id: string }[]).map((h) => h.id)).toEqual([out['id']])
    const bad = cli(cwd, 'search', 'staging', '--time-range', '{from')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^memory-agent: INVALID_INPUT: --time-range: expected JSON/)
  })

  it('every store command takes the same store flags, and names the nearest flag for a typo', () => {
    const cwd = tempCwd()
    const root = path.join(cwd, 'store')
    const store = ['--root', root, '--user-root', path.join(cwd, 'personal'), '--no-user-root']
    // Inline --root=DIR is the same store, for tool commands too.
    expect(json(cwd, 'write', 'The build runs on Node 20.', `--root=${root}`, '--no-user-root')['status']).toBe('active')
    const note = path.join(cwd, 'note.md')
    writeFileSync(note, '# Lint\n\nRun the linter before pushing.\n')
    const runs: Record<string, Run> = {
      search: cli(cwd, 'search', 'node', ...store),
      stats: cli(cwd, 'stats', ...store),
      rebuild: cli(cwd, 'rebuild', ...store),
      export: cli(cwd, 'export', '--out', path.join(cwd, 'bundle.json'), ...store),
      import: cli(cwd, 'import', note, ...store),
      sync: cli(cwd, 'sync', ...store),
      'panel-key': cli(cwd, 'panel-key', ...store),
      mcp: cliIn(cwd, '', 'mcp', ...store),
    }
    const accepted = Object.entries(runs).filter(([, r]) => !/unknown flag|needs a value/.test(r.stderr) && r.code !== 2)
    console.log(`store flags: ${accepted.length} of ${Object.keys(runs).length} store commands accept --root, --user-root, --no-user-root`)
    expect(accepted.map(([c]) => c)).toEqual(Object.keys(runs))
    // Before the import: the one memory written above, in the store --root named.
    expect(runs['stats']?.stdout).toMatch(/^total\s+1$/m)
    expect(runs['rebuild']?.stdout).toMatch(/^rebuilt .*: 1 entries from 1 files/)
    expect(JSON.parse(cli(cwd, 'rebuild', '--json', ...store).stdout)).toMatchObject({ root, entries: 2 })
    expect(existsSync(path.join(cwd, 'personal'))).toBe(false)
    for (const command of ['stats', 'rebuild', 'sync', 'export', 'import', 'serve', 'panel-key', 'mcp']) {
      const typo = cli(cwd, command, '--rooot', root)
      expect(typo.code, command).toBe(2)
      expect(typo.stderr, command).toMatch(new RegExp(`^memory-agent: INVALID_INPUT: ${command}: unknown flag --rooot \\(known: .*\\); did you mean --root\\?$`, 'm'))
    }
    expect(cli(cwd, 'stats', 'extra', ...store).code).toBe(2)
    expect(cli(cwd, 'stats', '--user', '--no-user-root').stderr).toMatch(/--user and --no-user-root exclude each other/)
  })

  it('a memory written without a title is said once in search and assemble, not as title and summary', () => {
    const cwd = tempCwd()
    const summary = 'The billing worker retries failed invoices every 15 minutes.'
    expect(cli(cwd, 'write', summary).code).toBe(0)
    const search = cli(cwd, 'search', 'billing worker retries')
    expect(search.stdout.split(summary).length - 1).toBe(1)
    const assemble = cli(cwd, 'assemble', 'billing worker retries')
    expect(assemble.stdout).toContain(`### ${summary}\nSource: `)
    expect(assemble.stdout.split(summary).length - 1).toBe(1)
  })

  it('MEMORY_AGENT_ROOT picks the store when --root is not given', () => {
    const cwd = tempCwd()
    const env = { ...process.env, MEMORY_AGENT_ROOT: 'elsewhere' }
    const r = spawnSync(process.execPath, [CLI, 'write', 'Stored elsewhere.'], { cwd, encoding: 'utf8', env })
    expect(r.status).toBe(0)
    expect(existsSync(path.join(cwd, 'elsewhere', 'index.jsonl'))).toBe(true)
    expect(existsSync(path.join(cwd, '.agent'))).toBe(false)
  })
})

describe('memory-agent help and exit codes', () => {
  it('--help of every command prints the tool description and flags from the schema', () => {
    const cwd = tempCwd()
    for (const [command, { tool: name }] of Object.entries(TOOL_COMMANDS)) {
      const tool = findTool(name)!
      const r = cli(cwd, command, '--help')
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(tool.description)
      for (const field of Object.keys(tool.input.properties)) {
        const flag = `--${field.replace(/_/g, '-').replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}`
        expect(r.stdout).toContain(flag)
      }
    }
    expect(cli(cwd, 'search', '--help').stdout).toMatch(/--top-k INT\n.*\(default 10\)/)
    expect(cli(cwd, 'nav', '--help').stdout).toContain('--sort recent|oldest|title|id')
    expect(cli(cwd, 'digest', '--help').stdout).toContain('--refresh, --no-refresh')
    expect(cli(cwd, 'stats', '--help').stdout).toContain('memory-agent stats')
    expect(existsSync(path.join(cwd, '.agent'))).toBe(false)
  })

  it('an unknown flag exits 2 naming it and listing the known ones', () => {
    const r = cli(tempCwd(), 'write', 'x', '--sumary', 'y')
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^memory-agent: INVALID_INPUT: write: unknown flag --sumary \(known: --summary, /)
    expect(r.stderr).toContain('--tag')
    expect(cli(tempCwd(), 'stats', '--bogus').code).toBe(2)
  })

  it('an unknown command or flag gets the nearest known one as "did you mean"', () => {
    const cwd = tempCwd()
    const typo = cli(cwd, 'serch', 'port')
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/^memory-agent: unknown command "serch"; did you mean search\?$/m)
    expect(cli(cwd, 'reveiw-queue').stderr).toContain('did you mean review-queue?')
    expect(cli(cwd, 'panelkey').stderr).toContain('did you mean panel-key?')
    expect(cli(cwd, 'search', 'x', '--tpo-k', '3').stderr).toMatch(/unknown flag --tpo-k \(known: .*\); did you mean --top-k\?$/m)
    expect(cli(cwd, 'write', 'x', '--sumary', 'y').stderr).toMatch(/; did you mean --summary\?$/m)
    // Nothing near: the usage, no guess.
    const far = cli(cwd, 'zzzzzz')
    expect(far.stderr).not.toContain('did you mean')
    expect(far.stderr).toContain('Usage')
    expect(existsSync(path.join(cwd, '.agent'))).toBe(false)
  })

  it('bad input exits 2, a missing id 3, a wrong state 4, a path outside the root 5', () => {
    const cwd = tempCwd()
    const missing = cli(cwd, 'confirm', 'mem_doesnotexist')
    expect(missing.code).toBe(3)
    expect(missing.stderr).toMatch(/^memory-agent: NOT_FOUND: /)

    const invalid = cli(cwd, 'search', 'x', '--top-k', '0')
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toMatch(/^memory-agent: INVALID_INPUT: memory-agent search: --top-k: /)
    expect(cli(cwd, 'nav', '--limit', 'ten').code).toBe(2)
    expect(cli(cwd, 'write').stderr).toMatch(/summary: expected .*\(required\)/)
    expect(cli(cwd, 'confirm', 'a', 'b').code).toBe(2)

    const active = json(cwd, 'write', 'Already active.')
    const state = cli(cwd, 'resolve', String(active['id']), '--action', 'drop')
    expect(state.code).toBe(4)
    expect(state.stderr).toMatch(/^memory-agent: INVALID_STATE: /)

    const outside = cli(cwd, 'nav', '../../etc/passwd')
    expect(outside.code).toBe(5)
    expect(outside.stderr).toMatch(/^memory-agent: PATH_OUTSIDE_ROOT: /)
  })
})
