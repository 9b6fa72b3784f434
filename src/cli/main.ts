#!/usr/bin/env node
/**
 * The `memory-agent` command. An entry point: the only place besides the other adapters that
 * reads argv, the environment and the working directory. Commands call the same handlers as
 * every host.
 */

import { mkdtempSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { asMemoryError, isMemoryError } from '../errors.js'
import { modelFromEnv } from '../lifecycle/chat-model.js'
import { setConsolidationModel } from '../memory/consolidation/model.js'
import { selectTools } from '../mcp/profile.js'
import { packageVersion } from '../version.js'
import type { MemoryBackend } from '../store/backend.js'
import type { MissingStore } from '../store/existing.js'
import { createFileBackend } from '../store/file-backend.js'
import { knownProjectsIn, noteWorkspace, resolveProjectStore, type ProjectStore } from '../stores/project-store.js'
import { routeTool } from '../stores/route.js'
import { flushCaches } from '../retrieve/retriever.js'
import { rebuildIndex } from '../store/rebuild.js'
import { confirmHandler } from '../tools/memory-confirm.js'
import { navHandler } from '../tools/memory-nav.js'
import { renderValue } from '../tools/render/text.js'
import { renderOutline } from '../tools/render/outline.js'
import { writeHandler } from '../tools/write-memory.js'
import { COMMAND_ALIASES, TOOL_COMMANDS, commandHelp, exitCode, parseToolCommand, toolUsage, usageError, OTHER_COMMANDS } from './tool-commands.js'
import { cliWords } from './cli-words.js'
import { didYouMean } from './suggest.js'
import { parseFlags, splitStoreFlags, type FlagSpec } from './flags.js'
import { applyEmbedderSettings, EMBEDDER_HELP, embedderFromSettings, takeEmbedderSettings, type EmbedderSettings } from './embedder-options.js'
import { listenToProgress } from '../store/progress.js'

const USAGE = `memory-agent: long-term memory for AI agents, kept as plain markdown files

Usage (every tool, then the commands on the store as a whole):
${toolUsage()}
  memory-agent show ID [flags]           one memory in full (also: get ID): nav with its id
  memory-agent rebuild [--json]          recreate index.jsonl from the memory files
  memory-agent sync [--remote URL]       share the store through git: commit, pull, settle, re-index, push
  memory-agent export [--out FILE]       the whole store as one JSON bundle (stdout by default)
  memory-agent import PATH [flags]       memories from a bundle, markdown notes, MCP memory JSONL
                                         or Claude's /memories folder (--format, --dry-run)
  memory-agent mcp [--tools LIST]        serve tools to an MCP client over stdio: the core group by default;
                                         --tools all, or groups and tool names (core,time,review,curate,browse);
                                         after --consolidate-idle-ms MS without a call (30000) it consolidates
                                         the store when a run is due (config consolidateAfterEpisodes)
  memory-agent serve [--port N]          the settings panel in a browser (prints its link with the key)
  memory-agent panel-key                 print the store's panel key, to paste into a panel
  memory-agent watch                     watch the store, so that commands started meanwhile need not
                                         check every file (the MCP server and serve do so too)
  memory-agent demo [--root DIR]         write a few memories (Chinese and English) into a store and list them
                                         (default: a new temporary folder)
  memory-agent COMMAND --help            a command's description and flags
  memory-agent --help                    this text
  memory-agent --version                 the package's version

Every store command takes the same store flags: --root DIR, else $MEMORY_AGENT_ROOT, else
./.agent/memory of the working directory; --user, --user-root DIR and --no-user-root. Tool commands and mcp also serve the personal store: --user-root DIR, else
$MEMORY_AGENT_USER_ROOT, else ~/.agent/memory (--no-user-root or an empty variable: the project
store alone); --user works on the personal store alone
(default ~/.agent/memory). --json prints the structured output instead of text. A tool command's
whole input may come as --input JSON, --input - (stdin) or --input @FILE; plain text there is the
command's text argument (write's summary).
consolidate (and serve's panel) uses a model when $MEMORY_AGENT_LLM_BASE_URL and $MEMORY_AGENT_LLM_MODEL name an
OpenAI-compatible chat-completions endpoint ($MEMORY_AGENT_LLM_API_KEY its key, if it needs one);
without them it runs without a model.
${EMBEDDER_HELP}
Exit codes: 0 ok, 2 usage or INVALID_INPUT, 3 NOT_FOUND, 4 INVALID_STATE, 5 PATH_OUTSIDE_ROOT,
6 LOCK_TIMEOUT, 1 anything else.
`

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name)
  if (at < 0) return undefined
  const value = args[at + 1]
  if (value === undefined || value.startsWith('--')) throw usageError(`${name} needs a value`)
  return value
}

/** Columns a string takes in a terminal: East Asian wide characters take two. */
function displayWidth(text: string): number {
  let width = 0
  for (const ch of text) width += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(ch) ? 2 : 1
  return width
}

/** Cut to at most `width` columns (with an ellipsis when cut) and pad to exactly `width`. */
function column(text: string, width: number): string {
  let out = ''
  for (const ch of text) {
    if (displayWidth(out + ch) > width - 1 && displayWidth(text) > width) {
      out += '…'
      break
    }
    out += ch
  }
  return out + ' '.repeat(Math.max(0, width - displayWidth(out)))
}

async function demo(root: string): Promise<void> {
  const backend = createFileBackend(root)
  const writes = [
    { summary: '项目用 pnpm 管理依赖，不要用 npm install。', title: '包管理器', tags: ['约定', 'pnpm'], session_id: 'demo-1' },
    { summary: 'The API server listens on port 8080 behind nginx.', title: 'API port', tags: ['environment'], entities: ['nginx'], session_id: 'demo-1' },
    { summary: 'Before every commit run bash verify.sh; it must exit 0.', title: 'Pre-commit check', tags: ['convention'], session_id: 'demo-1' },
    { summary: '用户偏好简洁的中文回答，代码注释用英文。', title: '回答风格', tags: ['偏好'], session_id: 'demo-2' },
    {
      summary: '排查了 Redis 缓存击穿：热点 key 过期瞬间大量请求打到数据库。',
      raw: '用户：线上 Redis 缓存好像被击穿了，数据库 CPU 飙到 100%。\n助手：热点 key 过期后并发回源，加互斥锁或逻辑过期即可。',
      tags: ['redis', 'incident'],
      session_id: 'demo-2',
    },
    // A new version of the same slot: supersedes the first API port memory.
    { summary: 'The API server now listens on port 9090 (moved on 2026-11-01).', title: 'API port', tags: ['environment'], session_id: 'demo-2' },
    // A repeat with different punctuation: recognised, not stored twice.
    { summary: '项目用 pnpm 管理依赖, 不要用 npm install!', title: '包管理器', session_id: 'demo-2' },
    // Waits behind the confirmation gate until confirmed.
    { summary: 'Deployments go out on Tuesdays and Thursdays only.', title: 'Deploy days', requireConfirmation: true, session_id: 'demo-2' },
  ]
  console.log(`store: ${root}\n`)
  let suggested: string | null = null
  for (const input of writes) {
    const out = await writeHandler(backend, input)
    const note = out.dedupe ? `${out.outcome} (${out.dedupe}, similarity ${out.similarity})` : out.superseded.length > 0 ? `${out.outcome}: supersedes ${out.superseded.join(', ')}` : `${out.outcome}, ${out.status}`
    console.log(`write  ${out.id}  ${note}`)
    if (out.status === 'suggested') suggested = out.id
  }
  if (suggested !== null) {
    await confirmHandler(backend, { id: suggested })
    console.log(`confirm ${suggested}  active`)
  }
  const page = await navHandler(backend, { limit: 20 })
  console.log(`\n${page.total} memories (${Object.entries(page.facets.statuses).map(([s, n]) => `${n} ${s}`).join(', ')}):\n`)
  for (const e of page.entries) {
    console.log(`${column(e.status, 10)} ${column(e.type, 7)} ${column(e.title, 24)} ${column(e.summary, 60).trimEnd()}`)
  }
  await flushCaches(backend)
  console.log(`\nOpen the files in ${root} with any editor; ledger.jsonl records every step.`)
}

/** The store a command works on: --root, --user, $MEMORY_AGENT_ROOT, then the working directory's. */
function storeRoot(args: string[]): string {
  const root = option(args, '--root')
  if (root !== undefined && args.includes('--user')) throw usageError('--root and --user exclude each other')
  if (args.includes('--user') && args.includes('--no-user-root')) throw usageError('--user and --no-user-root exclude each other')
  if (root !== undefined) return path.resolve(root)
  if (args.includes('--user')) return userRoot(args) ?? path.join(homedir(), '.agent', 'memory')
  const env = process.env['MEMORY_AGENT_ROOT']
  if (env !== undefined && env !== '') return path.resolve(env)
  return workingProject(args).root
}

let resolved: ProjectStore | undefined
/**
 * The working directory's project store, found by the project's identity (stores/project-store.ts):
 * its own, its repository's (a worktree), or the one last seen for the same origin (a clone by
 * another URL), from the workspaces the personal store records. Asked once per process.
 */
function workingProject(args: string[]): ProjectStore {
  resolved ??= resolveProjectStore(process.cwd(), knownProjectsIn(userRoot(args)))
  return resolved
}

/** Records the working directory as a workspace of its project in the personal store, when the store was chosen by the directory. */
async function noteWorkingFolder(args: string[], user: MemoryBackend | undefined): Promise<void> {
  if (user === undefined || missingStoreOf(args) !== 'empty') return
  await noteWorkspace(user, workingProject(args), process.cwd())
}

/**
 * The working directory's default store (no --root, --user or $MEMORY_AGENT_ROOT) is one not
 * written yet when it is missing, so a new project's first search says "nothing stored yet"; a
 * store the user named and that is missing is likely a typo: NOT_FOUND (store/existing.ts).
 */
function missingStoreOf(args: string[]): MissingStore {
  const named = option(args, '--root') !== undefined || args.includes('--user') || (process.env['MEMORY_AGENT_ROOT'] ?? '') !== ''
  return named ? 'not-found' : 'empty'
}

/**
 * The personal store's folder: --user-root, else $MEMORY_AGENT_USER_ROOT, else ~/.agent/memory;
 * none with --no-user-root or an empty $MEMORY_AGENT_USER_ROOT.
 */
function userRoot(args: string[]): string | undefined {
  if (args.includes('--no-user-root')) return undefined
  const root = option(args, '--user-root') ?? process.env['MEMORY_AGENT_USER_ROOT'] ?? path.join(homedir(), '.agent', 'memory')
  return root !== '' ? path.resolve(root.replace(/^~(?=$|[\\/])/, homedir())) : undefined
}

/** The personal store served beside the project store, unless --user asked for it alone. */
function personalStore(args: string[], projectRoot: string): { root: string; projectId: string } | undefined {
  const root = userRoot(args)
  if (root === undefined || args.includes('--user') || root === projectRoot) return undefined
  return { root, projectId: workingProject(args).identity.id }
}

/** The text behind `--input -` (stdin) or `--input @FILE`; a file that cannot be read is INVALID_INPUT naming it. */
async function readInput(source: string): Promise<string> {
  try {
    if (source !== '-') return await readFile(path.resolve(source), 'utf8')
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  } catch (err) {
    throw usageError(`--input: cannot read ${source === '-' ? 'stdin' : JSON.stringify(source)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`)
  }
}

/** A tool command: flags from the tool's schema, its text rendering or --json, caches flushed after. */
async function runTool(command: string, args: string[], embedder: EmbedderSettings): Promise<number> {
  const parsed = await parseToolCommand(command, args, readInput)
  if (parsed.help) {
    process.stdout.write(commandHelp(command))
    return 0
  }
  const root = storeRoot(args)
  const backend = createFileBackend(root, { missingStore: missingStoreOf(args) })
  const personal = personalStore(args, root)
  const user = personal !== undefined ? createFileBackend(personal.root) : undefined
  // memory_consolidate may use a chat-completions endpoint the environment names (MEMORY_AGENT_LLM_*).
  const model = modelFromEnv(process.env)
  for (const b of [backend, user]) if (b !== undefined) setConsolidationModel(b, model)
  // The bar (string-width, a grapheme segmenter) loads only for a command that can draw one.
  const progress = parsed.tool.progress !== undefined ? (await import('./progress.js')).progressBar(process.stderr, parsed.tool.progress) : null
  try {
    await applyEmbedderSettings(embedder, ...(user !== undefined ? [backend, user] : [backend]))
    if (progress !== null) listenToProgress(backend, progress.update)
    const tool = user !== undefined ? routeTool(parsed.tool, { user, projectId: personal?.projectId ?? '' }) : parsed.tool
    // The handler validates the input (INVALID_INPUT naming the field), so it takes it as parsed.
    const untyped = tool as unknown as { handler(backend: MemoryBackend, input: unknown): Promise<unknown> }
    const out = await untyped.handler(backend, parsed.input)
    progress?.finish()
    // Text in the CLI's words: commands and flags where the agent reads tool names and fields.
    const text = () => cliWords(renderValue(parsed.tool.name, out, (v) => renderOutline(parsed.tool.output, v), { evidenceBatch: false }))
    process.stdout.write(`${parsed.json ? JSON.stringify(out, null, 2) : text()}\n`)
    return 0
  } finally {
    progress?.finish()
    await noteWorkingFolder(args, user)
    await flushCaches(backend)
    if (user !== undefined) await flushCaches(user)
  }
}

const REBUILD_HELP = `memory-agent rebuild: recreate index.jsonl from the memory files

Usage: memory-agent rebuild [--root DIR | --user] [--user-root DIR] [--no-user-root] [--json]

Reads every memory file of the store, gives a new id to a copied file whose id another file holds,
and writes the index again; the files themselves are not changed. --json prints the counts.
`

const MCP_HELP = `memory-agent mcp: serve the tools to an MCP client over stdio

Usage: memory-agent mcp [--tools LIST] [--consolidate-idle-ms MS] [--root DIR] [--user-root DIR | --no-user-root]

  --tools LIST
      The tools to serve: the core group by default; all, or groups and tool names separated by
      commas (core, time, review, curate, browse).
  --consolidate-idle-ms MS
      After MS milliseconds without a call (default 30000), consolidate the store when a run is due
      (config consolidateAfterEpisodes).
  --root DIR, --user-root DIR, --no-user-root
      The project store (default $MEMORY_AGENT_ROOT, else ./.agent/memory) and the personal store
      served beside it (default $MEMORY_AGENT_USER_ROOT, else ~/.agent/memory).

stdout is the protocol; messages go to stderr.
`

const DEMO_HELP = `memory-agent demo: write a few memories (Chinese and English) into a store and list them

Usage: memory-agent demo [--root DIR]

  --root DIR
      The store to write into (default: a new temporary folder, so nothing of yours is touched).
`

/** The help of the commands main.ts runs itself (serve.ts holds the panel's). */
const OWN_HELP: Readonly<Record<string, string>> = { rebuild: REBUILD_HELP, mcp: MCP_HELP, demo: DEMO_HELP }

/** The own flags of the commands main.ts runs itself; each also takes the store flags (flags.ts). */
const OWN_FLAGS: Readonly<Record<string, FlagSpec>> = {
  rebuild: { switches: ['--json'] },
  mcp: { valued: ['--tools', '--consolidate-idle-ms'] },
  serve: { valued: ['--port', '--host'] },
  'panel-key': {},
  demo: {},
}

async function main(argv: string[]): Promise<number> {
  const [command, ...given] = argv
  const { rest, settings: embedder } = takeEmbedderSettings(given, process.env)
  const args = splitStoreFlags(rest)
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE)
    return command === undefined ? 2 : 0
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${packageVersion()}\n`)
    return 0
  }
  const tool = COMMAND_ALIASES[command] ?? command
  if (TOOL_COMMANDS[tool] !== undefined) return runTool(tool, args, embedder)
  // The commands below load what only they use (the MCP SDK, the web server, git sync, transfer)
  // when they run: a tool command such as `search` starts without them.
  if (command === 'sync') return (await import('./sync-command.js')).syncCommand(args, storeRoot)
  if (command === 'export') return (await import('./transfer.js')).exportCommand(args, storeRoot)
  if (command === 'import') return (await import('./transfer.js')).importCommand(args, storeRoot)
  if (command === 'watch') return (await import('./watch-command.js')).watchCommand(args, storeRoot)
  const own = OWN_FLAGS[command]
  const flags = own !== undefined ? parseFlags(command, args, own) : undefined
  if (flags?.switches.has('--help') === true) {
    process.stdout.write(OWN_HELP[command] ?? (await import('./serve.js')).PANEL_COMMAND_HELP[command] ?? USAGE)
    return 0
  }
  if (flags !== undefined && flags.positionals.length > 0) throw usageError(`${command}: unexpected argument ${JSON.stringify(flags.positionals[0])}`)
  switch (command) {
    case 'demo': {
      const root = path.resolve(option(args, '--root') ?? mkdtempSync(path.join(tmpdir(), 'memory-agent-demo-')))
      await demo(root)
      return 0
    }
    case 'rebuild': {
      const root = storeRoot(args)
      const progress = (await import('./progress.js')).progressBar(process.stderr, 'rebuilding')
      const r = await rebuildIndex(root, { onProgress: progress.update }).finally(progress.finish)
      if (args.includes('--json')) {
        process.stdout.write(`${JSON.stringify({ root, ...r }, null, 2)}\n`)
        return 0
      }
      console.log(
        `rebuilt ${root}: ${r.entries} entries from ${r.scanned} files (${r.skipped} skipped, ${r.reidentified} given a new id, ` +
          `${r.unreadable.length} with front-matter that does not parse, ${r.badIndexLines} bad index lines dropped)`,
      )
      for (const w of r.warnings) console.log(`warning: ${w}`)
      return 0
    }
    case 'mcp': {
      // Checked before anything starts: a mistyped group is a usage error, not a silent default.
      const tools = selectTools(option(args, '--tools'))
      const idleText = flags?.values.get('--consolidate-idle-ms')
      const consolidateIdleMs = idleText === undefined ? undefined : Number(idleText)
      if (consolidateIdleMs !== undefined && (!/^\d+$/.test(idleText ?? '') || consolidateIdleMs < 1 || consolidateIdleMs > 86_400_000)) {
        throw usageError(`mcp: --consolidate-idle-ms: expected milliseconds 1-86400000, got ${JSON.stringify(idleText)}`)
      }
      // stdout is the protocol from here on; everything else goes to stderr.
      const vectors = await embedderFromSettings(createFileBackend(storeRoot(args)), embedder)
      const options = { ...(consolidateIdleMs === undefined ? {} : { consolidateIdleMs }), ...(vectors !== undefined ? { embedder: vectors } : {}) }
      const { serveStdio } = await import('../mcp/stdio.js')
      // A store chosen by the working directory makes it a workspace of its project (memory_workspaces).
      const workspace = missingStoreOf(args) === 'empty' ? { store: workingProject(args), folder: process.cwd() } : undefined
      await serveStdio({ root: storeRoot(args), missingStore: missingStoreOf(args), ...(workspace !== undefined ? { workspace } : {}) }, packageVersion(), personalStore(args, storeRoot(args)), tools, options)
      return 0
    }
    case 'serve':
      return (await import('./serve.js')).serve(storeRoot(args), args, personalStore(args, storeRoot(args)))
    case 'panel-key':
      return (await import('./serve.js')).printPanelKey(storeRoot(args))
    default: {
      const hint = didYouMean(command, [...Object.keys(TOOL_COMMANDS), ...Object.keys(COMMAND_ALIASES), ...OTHER_COMMANDS])
      process.stderr.write(`memory-agent: unknown command ${JSON.stringify(command)}${hint}\n${hint !== '' ? 'memory-agent --help lists the commands.\n' : `\n${USAGE}`}`)
      return 2
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (thrown: unknown) => {
    const err = asMemoryError(thrown)
    const message = cliWords(err instanceof Error ? err.message : String(err))
    const code = isMemoryError(err) ? err.code : undefined
    // --json asked for machine-readable output: the error too, as one JSON object on stderr.
    if (process.argv.includes('--json')) {
      const field = isMemoryError(err) ? err.field : undefined
      process.stderr.write(`${JSON.stringify({ error: { code: code ?? 'ERROR', message, ...(field !== undefined ? { field } : {}) } })}\n`)
    } else process.stderr.write(`memory-agent: ${code !== undefined ? `${code}: ` : ''}${message}\n`)
    process.exitCode = exitCode(code)
  },
)
