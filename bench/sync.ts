/**
 * Sync bench: two stores sharing one bare repository on the local disk, the store grown through
 * the public API, then changed on both sides and synced both ways.
 *
 *   npm run bench:sync                          (builds lib/, then runs this file with tsx)
 *   tsx bench/sync.ts --size 10000 --changes 100 --overlap 5 --out bench/results/sync.json --keep
 *
 * Steps, each timed as one `syncStore` call:
 *   1. A: first sync, pushing the whole store;
 *   2. B: an empty store joins (fetch, merge, index made from every file);
 *   3. `--changes` changes on each side (new memories, new versions of existing facts, hand edits
 *      of memory files; `--overlap` of the new versions hit the same facts on both sides, which
 *      the sync turns into conflicts), then A syncs (commit, push), B syncs (commit, merge,
 *      settle, re-index, push), A syncs (fast-forward pull, re-index).
 * For each step: the time, files pulled, memory files re-indexed, the time spent re-indexing
 * index.jsonl and its share of the sync, and the search index catching up at the next search
 * (what a long-running host pays after the sync). The git configuration is isolated (an empty
 * global config, a fixed identity). Table to stdout, progress to stderr, figures to
 * bench/results/sync.json (or --out). The product is reached only through ../lib/api.js.
 */

import { flags, mulberry32, resultsFile } from './args.js'
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileBackend, flushCaches, searchHandler, syncStore, writeHandler, type MemoryBackend, type SyncResult } from '../lib/api.js'

const RESULTS = resultsFile('sync.json')

interface Args {
  size: number
  changes: number
  overlap: number
  seed: number
  keep: boolean
  out: string
}

function parseArgs(argv: string[]): Args {
  const args: Args = { size: 10_000, changes: 100, overlap: 5, seed: 20261201, keep: false, out: RESULTS }
  const int = (flag: string, v: string, min: number): number => {
    const n = Number(v.replace(/_/g, ''))
    if (!Number.isInteger(n) || n < min) throw new Error(`${flag} takes an integer >= ${min}, not ${v}`)
    return n
  }
  for (const { name, value } of flags(argv)) {
    if (name === '--size') args.size = int(name, value(), 10)
    else if (name === '--changes') args.changes = int(name, value(), 3)
    else if (name === '--overlap') args.overlap = int(name, value(), 0)
    else if (name === '--seed') args.seed = int(name, value(), 0)
    else if (name === '--keep') args.keep = true
    else if (name === '--out') args.out = value()
    else throw new Error(`unknown argument ${name} (known: --size N --changes N --overlap N --seed N --out FILE --keep)`)
  }
  if (args.overlap * 2 > args.changes) throw new Error('--overlap can be at most half of --changes')
  if (args.changes * 2 > args.size) throw new Error('--changes can be at most half of --size')
  return args
}

const log = (line: string): void => void process.stderr.write(`${line}\n`)


const EN = 'database server deploy release backup restore cache queue token session login config port proxy cluster index query migration schema invoice customer meeting budget coffee lunch flight hotel visa gym sleep doctor'.split(' ')
const ZH = '数据库 服务 部署 发布 备份 恢复 缓存 队列 登录 配置 端口 代理 集群 索引 查询 迁移 客户 会议 预算 咖啡 午饭 机票 酒店 签证 健身 睡眠 医生'.split(' ')

function summary(rng: () => number, i: number): string {
  const pick = (list: string[]) => list[Math.floor(rng() * list.length)] as string
  return i % 2 === 0
    ? `Note ${i}: the ${pick(EN)} for ${pick(EN)} uses ${pick(EN)} ${Math.floor(rng() * 10000)} and ${pick(EN)}.`
    : `第 ${i} 条：${pick(ZH)}的${pick(ZH)}改用${pick(ZH)} ${Math.floor(rng() * 10000)}，和${pick(ZH)}有关。`
}

interface Step {
  step: string
  syncMs: number
  pulled: number
  reindexedFiles: number
  reindexMs: number
  conflicts: number
  catchUpMs: number
}

async function timedSync(name: string, backend: MemoryBackend, env: Record<string, string>, remote?: string): Promise<Step> {
  log(`${name}...`)
  const t0 = performance.now()
  const r: SyncResult = await syncStore(backend, { env, ...(remote !== undefined ? { remote } : {}) })
  const syncMs = performance.now() - t0
  // What the next search pays for the index changes: the search index catches up.
  const t1 = performance.now()
  await searchHandler(backend, { query: 'database 部署', top_k: 5 })
  const catchUpMs = performance.now() - t1
  return {
    step: name,
    syncMs,
    pulled: r.pulled?.files ?? 0,
    reindexedFiles: r.reindexed?.files ?? 0,
    reindexMs: r.reindexed?.ms ?? 0,
    conflicts: r.conflicts.length,
    catchUpMs,
  }
}

/** Rewrites a memory file's summary paragraph, as a person in an editor would. */
async function handEdit(root: string, relPath: string, suffix: string): Promise<void> {
  const file = join(root, relPath)
  const text = await readFile(file, 'utf8')
  const lines = text.split('\n')
  const at = lines.findIndex((_line, i) => i > 1 && lines[i - 1] === '' && (lines[i - 2] ?? '').startsWith('# '))
  if (at < 0) throw new Error(`no summary line in ${relPath}`)
  lines[at] = `${lines[at]} ${suffix}`
  await writeFile(file, lines.join('\n'))
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const dir = await mkdtemp(join(tmpdir(), 'bench-sync-'))
  const gitConfig = join(dir, 'gitconfig')
  // No automatic gc: it runs detached after a large commit and would race the clean-up below.
  await writeFile(gitConfig, '[gc]\n\tauto = 0\n')
  const env = {
    GIT_CONFIG_GLOBAL: gitConfig,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
  }
  const remote = join(dir, 'remote.git')
  execFileSync('git', ['init', '-q', '--bare', remote], { env: { ...process.env, ...env } })
  const gitVersion = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim()
  const a = createFileBackend(join(dir, 'a'))
  const b = createFileBackend(join(dir, 'b'))
  const rng = mulberry32(args.seed)

  log(`writing ${args.size} memories into A (${dir})`)
  const written: Array<{ id: string; path: string; title: string }> = []
  const t0 = performance.now()
  for (let i = 0; i < args.size; i++) {
    const title = `fact ${i}`
    const r = await writeHandler(a, { summary: summary(rng, i), title, tags: [i % 2 === 0 ? 'en' : 'zh'], session_id: `s${Math.floor(i / 50)}` })
    written.push({ id: r.id, path: r.path, title })
    if ((i + 1) % 2000 === 0) log(`  ${i + 1} written (${((performance.now() - t0) / 1000).toFixed(0)} s)`)
  }
  await flushCaches(a)

  const steps: Step[] = []
  steps.push(await timedSync(`A: first sync, push ${args.size}`, a, env, remote))
  steps.push(await timedSync(`B: join, pull ${args.size}`, b, env, remote))

  // The changes: per side, a third new memories, a third new versions, a third hand edits.
  const third = Math.floor(args.changes / 3)
  const plan = { writes: args.changes - 2 * third, versions: third, edits: third }
  const half = Math.floor(args.size / 2)
  let next = args.size
  const shared = written.slice(0, args.overlap) // new versions of these on both sides: conflicts
  for (const [side, backend, own] of [
    ['A', a, written.slice(args.overlap, half)],
    ['B', b, written.slice(half)],
  ] as const) {
    log(`${args.changes} changes on ${side}`)
    const root = backend.root
    for (let i = 0; i < plan.writes; i++) {
      const n = next++
      await writeHandler(backend, { summary: summary(rng, n), title: `fact ${n}`, session_id: `bench-${side}` })
    }
    const versions = [...shared, ...own.slice(0, plan.versions - shared.length)]
    for (const [i, m] of versions.entries()) {
      await writeHandler(backend, { summary: `${side} says: ${summary(rng, i)}`, title: m.title, session_id: `bench-${side}` })
    }
    for (const m of own.slice(plan.versions, plan.versions + plan.edits)) await handEdit(root, m.path, `(edited on ${side})`)
  }
  steps.push(await timedSync(`A: ${args.changes} changes, push`, a, env))
  steps.push(await timedSync(`B: ${args.changes} changes, merge, push`, b, env))
  steps.push(await timedSync('A: pull', a, env))

  const both = steps.slice(2)
  const total = {
    step: 'both ways (last three)',
    syncMs: both.reduce((s, x) => s + x.syncMs, 0),
    pulled: both.reduce((s, x) => s + x.pulled, 0),
    reindexedFiles: both.reduce((s, x) => s + x.reindexedFiles, 0),
    reindexMs: both.reduce((s, x) => s + x.reindexMs, 0),
    conflicts: both.reduce((s, x) => s + x.conflicts, 0),
    catchUpMs: both.reduce((s, x) => s + x.catchUpMs, 0),
  }
  const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '-')
  const rows = [...steps, total].map((s) => [
    s.step,
    s.syncMs.toFixed(0),
    String(s.pulled),
    String(s.reindexedFiles),
    s.reindexMs.toFixed(1),
    pct(s.reindexMs, s.syncMs),
    s.catchUpMs.toFixed(0),
    pct(s.reindexMs + s.catchUpMs, s.syncMs + s.catchUpMs),
    String(s.conflicts),
  ])
  const head = ['step', 'sync ms', 'files pulled', 're-indexed', 're-index ms', 'share', 'search catch-up ms', 'share with catch-up', 'conflicts']
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join(' | ')
  console.log(`== sync: ${args.size} memories, ${args.changes} changes per side (${args.overlap} on the same facts) ==`)
  console.log(`${gitVersion}, node ${process.version}, ${cpus().length} cores`)
  console.log(line(head))
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'))
  for (const r of rows) console.log(line(r))
  console.log(
    `\nBoth ways: ${(total.syncMs / 1000).toFixed(2)} s for ${args.changes} changes per side; re-indexing index.jsonl took ${pct(total.reindexMs, total.syncMs)} of it, ` +
      `${pct(total.reindexMs + total.catchUpMs, total.syncMs + total.catchUpMs)} with the search index catching up at the next search.`,
  )
  await flushCaches(a)
  await flushCaches(b)
  await writeFile(args.out, `${JSON.stringify({ args, git: gitVersion, node: process.version, cores: cpus().length, steps, total }, null, 2)}\n`)
  log(`figures in ${args.out}`)
  if (args.keep) log(`stores kept in ${dir}`)
  else await rm(dir, { recursive: true, force: true, maxRetries: 5 })
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
