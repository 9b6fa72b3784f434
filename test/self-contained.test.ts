/**
 * A fresh clone needs nothing beside it: no test or bench reads outside the repository.
 *
 * The read guard (test/read-guard/) records every read the project's own code makes outside the
 * repository, the temp folder and /proc, /dev, /sys, in each test worker and in every Node child
 * it starts; each test file fails on one (setup.ts). This file proves the guard sees both kinds of
 * read, then runs every `bench:*` script of package.json on its smallest setting under the guard.
 */

import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { takeOutsideReads } from './read-guard/setup.js'

const repo = path.resolve(import.meta.dirname, '..')
const CLI = path.join(repo, 'lib', 'cli', 'main.js')
const TSX = path.join(repo, 'node_modules', 'tsx', 'dist', 'cli.mjs')
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }

/**
 * The smallest run of each bench that still goes through all of its code: args, results file, and
 * whether it exits 1 with "targets missed" when a target is missed (a figure, not a failure here).
 */
const SMOKE: Record<string, { args: string[]; results: string | null; targets?: true }> = {
  'bench:retrieval': { args: ['--limit-conversations', '1'], results: 'retrieval.json' },
  'bench:scale': { args: ['--sizes', '50', '--queries', '5', '--window', '10', '--vectors', '2000', '--vector-dim', '64', '--index-only', '200'], results: 'scale.json' },
  'bench:anti-hallucination': { args: [], results: 'anti-hallucination.json' },
  'bench:claims': { args: ['--split', 'dev'], results: 'claims.json', targets: true },
  'bench:sync': { args: ['--size', '20', '--changes', '4', '--overlap', '2'], results: 'sync.json' },
  'bench:rebuild': { args: ['--files', '50'], results: null },
  'bench:promotion': { args: ['--split', 'dev'], results: 'promotion.json', targets: true },
  'bench:scenario': { args: [], results: 'scenario.json', targets: true },
  'bench:colloquial-zh': { args: ['--split', 'dev'], results: 'colloquial-zh.json' },
  'bench:guard': { args: ['--sizes', '16384,32768'], results: 'guard.json' },
  'bench:palace-lookup': { args: ['--sizes', '1000'], results: 'palace-lookup.json' },
  'bench:eval': { args: ['--only', 'scenario'], results: 'eval.json' },
  'bench:subject-terms': { args: [], results: null },
}

describe('the repository is self-contained', () => {
  // The file-system root is outside the repository and the temp folder wherever the clone lives
  // (a clone under /tmp has the temp folder as its parent, which the guard allows).
  const outside = path.parse(repo).root

  it('the read guard records a read outside the repository by the code of a test', () => {
    readdirSync(outside)
    const reads = takeOutsideReads()
    expect(reads).toEqual([expect.objectContaining({ op: 'readdir', path: outside, caller: 'test/self-contained.test.ts', pid: process.pid })])
  })

  it('the read guard records a read outside the repository by a Node child of a test', () => {
    const missing = path.join(outside, `no-store-here-${process.pid}`)
    const r = spawnSync(process.execPath, [CLI, 'search', 'anything', '--root', missing, '--no-user-root'], { encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(3) // NOT_FOUND: the CLI looked, and the guard saw it look
    const reads = takeOutsideReads()
    expect(reads.length).toBeGreaterThan(0)
    expect(reads.every((x) => x.pid !== process.pid && x.path.startsWith(missing) && x.caller.startsWith('lib/'))).toBe(true)
  })

  it('every bench script is in the smoke list (and nothing else is)', () => {
    const benches = Object.keys(pkg.scripts).filter((s) => s.startsWith('bench:'))
    expect(benches.sort()).toEqual(Object.keys(SMOKE).sort())
  })

  for (const [script, smoke] of Object.entries(SMOKE)) {
    it(`${script} runs on its smallest setting and reads nothing outside the repository`, () => {
      const file = /\btsx (bench\/\S+\.ts)/.exec(pkg.scripts[script] ?? '')?.[1]
      expect(file, `${script} runs a bench/*.ts file with tsx`).toBeTruthy()
      const results = mkdtempSync(path.join(tmpdir(), 'bench-results-'))
      const r = spawnSync(process.execPath, [TSX, file as string, ...smoke.args], {
        cwd: repo,
        encoding: 'utf8',
        env: { ...process.env, MEMORY_AGENT_BENCH_RESULTS: results },
        maxBuffer: 64 * 1024 * 1024,
      })
      const missedTargets = smoke.targets === true && r.status === 1 && r.stderr.includes('targets missed')
      expect(r.status === 0 || missedTargets, r.stderr.slice(-2000)).toBe(true)
      if (smoke.results !== null) expect(existsSync(path.join(results, smoke.results))).toBe(true)
      expect(takeOutsideReads()).toEqual([])
    }, 180_000)
  }

  // Comments may cite the reference documents; a string literal naming them would be a path to read.
  it('no test, bench or script names a data folder or the tool library beside the checkout', () => {
    const offenders: string[] = []
    for (const dir of ['src', 'test', 'bench', 'scripts', '.ci']) {
      for (const entry of readdirSync(path.join(repo, dir), { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !/\.(ts|mts|mjs|js|sh)$|^run$/.test(entry.name)) continue
        const file = path.join(entry.parentPath, entry.name)
        if (file === import.meta.filename) continue
        const text = readFileSync(file, 'utf8')
        if (/['"`][^'"`\n]*(\bshared\/(data|seeds)\b|\/\.library\/)/.test(text)) offenders.push(path.relative(repo, file))
      }
    }
    expect(offenders).toEqual([])
  })
})
