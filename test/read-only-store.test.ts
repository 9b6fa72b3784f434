/**
 * Issue 14, items 6 and 8: a store this process cannot write is still read, and a write to it
 * fails with IO_ERROR naming the file and the cause, losing nothing.
 *
 * Each restriction is real (test/restricted-store.ts: a read-only bind mount, chmod -R a-w run
 * as nobody when root, a full tmpfs), and the probe (test/workers/store-io-probe.mjs) runs inside
 * it: search, nav, stats, export, assemble, verify and history through the library, the panel
 * API, the CLI and an MCP client, then one write through each of library, CLI (and an export
 * --out into the store folder) and MCP.
 *
 * Three stores: as a writer leaves it (`.cache/` present), without `.cache/` (the case),
 * and as a git clone carries it (no `.cache/`, no index.jsonl: everything is indexed in memory).
 *
 * Runs the BUILT library and CLI: `npm test` builds first; alone, run `npm run build` before.
 * As nobody, from a world-readable copy of the checkout when the checkout sits under an
 * owner-only folder (a clone under `mktemp -d`), so the suite passes wherever it is cloned.
 */

import { spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, writeHandler } from '../src/api.js'
import { mechanism, reachableCheckout, restrict, restrictedCommand, unavailable, unrestrict, type Restriction } from './restricted-store.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const CHECKOUT = path.dirname(here)
const PROBE = 'test/workers/store-io-probe.mjs'
/** What the probe runs from: itself, the built library and CLI, their dependencies, and the read guard every Node child loads. */
const PROBE_FILES = [PROBE, 'package.json', 'lib', 'node_modules', 'test/read-guard/hook.mjs']

interface Outcome {
  adapter: 'library' | 'panel' | 'cli' | 'mcp'
  command: string
  ok: boolean
  code?: string | null
  errno?: string | null
  message?: string
}
interface Report {
  uid: number
  results: Outcome[]
  warnings: { library: string[]; cli: Record<string, string[]>; mcp: string[] }
  before: Record<string, string>
  after: Record<string, string>
}

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})

type Variant = 'as a writer leaves it' | 'without .cache/' | 'as a git clone carries it'

/** A store with two memories; returns its root and the id of the API-port memory. */
async function makeStore(variant: Variant): Promise<{ root: string; id: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'read-only-store-'))
  dirs.push(dir)
  const root = path.join(dir, 'store')
  const backend = createFileBackend(root)
  const { id } = await writeHandler(backend, { summary: 'The API server listens on port 8080 behind nginx.', title: 'API port', session_id: 's1' })
  await writeHandler(backend, { summary: 'Deploys go out on Tuesdays and Thursdays.', title: 'Deploy days', session_id: 's1' })
  await flushCaches(backend)
  const derived = { 'as a writer leaves it': [], 'without .cache/': ['.cache'], 'as a git clone carries it': ['.cache', 'index.jsonl', 'rooms.json', 'rooms-log.jsonl'] }[variant]
  for (const name of derived) await fs.rm(path.join(root, name), { recursive: true, force: true })
  return { root, id }
}

/** Where the probe runs from for each restriction (a copy nobody can reach, when the checkout is not), or why it cannot. */
const checkouts = new Map<Restriction, { dir: string } | { reason: string }>()
function probeCheckout(restriction: Restriction): { dir: string } | { reason: string } {
  let found = checkouts.get(restriction)
  if (found === undefined) {
    found = reachableCheckout(restriction, CHECKOUT, PROBE_FILES)
    if ('dir' in found && found.dir !== CHECKOUT) dirs.push(found.dir)
    checkouts.set(restriction, found)
  }
  return found
}

function probe(restriction: Restriction, root: string, id: string): Report {
  const checkout = probeCheckout(restriction)
  if (!('dir' in checkout)) throw new Error(checkout.reason)
  restrict(restriction, root)
  try {
    const [cmd, ...args] = restrictedCommand(restriction, root, [process.execPath, path.join(checkout.dir, PROBE), root, id])
    // The read guard (NODE_OPTIONS --import) loads from the copy too.
    const nodeOptions = (process.env.NODE_OPTIONS ?? '').replaceAll(pathToFileURL(CHECKOUT).href, pathToFileURL(checkout.dir).href)
    const r = spawnSync(cmd as string, args, { encoding: 'utf8', timeout: 120_000, env: { ...process.env, NODE_OPTIONS: nodeOptions } })
    const last = r.stdout.trim().split('\n').pop() ?? ''
    if (r.status !== 0 || !last.startsWith('{')) throw new Error(`probe exited ${r.status ?? r.signal}: ${r.stderr.slice(-2000)}`)
    return JSON.parse(last) as Report
  } finally {
    unrestrict(restriction, root)
  }
}

const WRITES = new Set(['write', 'write_memory', 'export --out'])

const CASES: Array<[Restriction, Variant]> = [
  ['EROFS', 'as a writer leaves it'],
  ['EROFS', 'without .cache/'],
  ['EROFS', 'as a git clone carries it'],
  ['EACCES', 'as a writer leaves it'],
  ['EACCES', 'without .cache/'],
  ['EACCES', 'as a git clone carries it'],
  ['ENOSPC', 'as a writer leaves it'],
]

describe.each(CASES)('a store that refuses writes with %s, %s', (restriction, variant) => {
  const reach = probeCheckout(restriction)
  const why = unavailable(restriction) ?? ('reason' in reach ? reach.reason : null)
  it.skipIf(why !== null)(`reads succeed, writes fail with IO_ERROR naming the file, nothing changes (${why ?? mechanism(restriction)})`, { timeout: 180_000 }, async () => {
    const { root, id } = await makeStore(variant)
    const report = probe(restriction, root, id)

    const reads = report.results.filter((r) => !WRITES.has(r.command))
    const failed = reads.filter((r) => !r.ok)
    console.log(`${restriction}, ${variant} (${mechanism(restriction)}, uid ${report.uid}): ${reads.length - failed.length} of ${reads.length} read commands succeeded`)
    for (const f of failed) console.log(`  failed: ${f.adapter} ${f.command}: ${f.code ?? ''} ${f.message ?? '(wrong answer)'}`)
    expect(failed).toEqual([])

    // What reads could not keep on the side is said once per process, not once per call: the
    // library searched 3 times, the MCP server 3 times.
    const refusals = (said: string[] = []) => said.filter((w) => w.includes(' cannot be written (')).length
    for (const said of [report.warnings.library, report.warnings.mcp, report.warnings.cli['search']]) {
      expect(refusals(said)).toBe(1)
      expect(said?.find((w) => w.includes(' cannot be written ('))).toMatch(new RegExp(`cannot \\w+ ${root}/\\S+: .+ \\(${restriction}\\)`))
    }
    for (const said of Object.values(report.warnings.cli)) expect(refusals(said)).toBeLessThanOrEqual(1)

    const writes = report.results.filter((r) => WRITES.has(r.command))
    expect(writes.map((w) => w.adapter).sort()).toEqual(['cli', 'cli', 'library', 'mcp'])
    for (const w of writes) {
      expect(w, `${w.adapter} ${w.command}`).toMatchObject({ ok: false, code: 'IO_ERROR' })
      // The file and the cause in plain words, the errno for programs.
      expect(w.message).toMatch(new RegExp(`^cannot \\w+ ${root}/\\S+: .+ \\(${restriction}\\)`))
      if (w.adapter === 'library') expect(w.errno).toBe(restriction)
    }
    expect(report.after).toEqual(report.before)
  })
})
