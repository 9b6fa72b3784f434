/**
 * The git binary, and nothing else: runs `git` with execFile (never a shell) in one working
 * folder, with a timeout, and turns a failure into an IO_ERROR that quotes git's own message.
 * git inherits the process environment (HOME, PATH, ssh agent) with the caller's variables laid
 * over it; nothing here reads it. Owns no policy (`sync.ts` decides what to run) and never reads
 * or writes files itself.
 */

import { execFile } from 'node:child_process'
import { MemoryError } from '../errors.js'

export interface GitOptions {
  /** The folder git runs in (the store root). */
  cwd: string
  /** Variables laid over the inherited environment (identity, config isolation in tests). */
  env?: Readonly<Record<string, string>>
  /** `-c name=value` settings for every call (a fallback identity, for one). */
  config?: Readonly<Record<string, string>>
  /** Longest a local command may run. Default 60 s. */
  timeoutMs?: number
  /** Longest a fetch or push may run. Default 120 s. */
  networkTimeoutMs?: number
}

export interface RunOptions {
  /** A fetch or push: the longer timeout applies. */
  network?: boolean
  /** Text for git's standard input. */
  input?: string
  /** Variables for this call only (GIT_INDEX_FILE, for one). */
  env?: Readonly<Record<string, string>>
}

export interface GitRun {
  code: number
  stdout: string
  stderr: string
}

/** git output can be large (a diff of a 100k-file store): 256 MB before execFile gives up. */
const MAX_BUFFER = 256 * 1024 * 1024

export class Git {
  constructor(private readonly options: GitOptions) {}

  get cwd(): string {
    return this.options.cwd
  }

  /** Runs git and returns its exit code and output; rejects only when git could not run at all. */
  run(args: readonly string[], opts: RunOptions = {}): Promise<GitRun> {
    const configArgs = Object.entries(this.options.config ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`])
    const timeout = opts.network === true ? (this.options.networkTimeoutMs ?? 120_000) : (this.options.timeoutMs ?? 60_000)
    return new Promise((resolve, reject) => {
      const child = execFile(
        'git',
        [...configArgs, ...args],
        { cwd: this.options.cwd, env: { ...process.env, ...this.options.env, ...opts.env }, maxBuffer: MAX_BUFFER, timeout, encoding: 'utf8', windowsHide: true },
        (err, stdout, stderr) => {
          if (err === null) return resolve({ code: 0, stdout, stderr })
          const e = err as NodeJS.ErrnoException & { code?: unknown; killed?: boolean; signal?: string | null }
          if (e.code === 'ENOENT') return reject(new MemoryError('IO_ERROR', 'sync needs git, and no `git` was found on PATH; install git and try again'))
          if (e.killed === true || e.signal != null)
            return reject(new MemoryError('IO_ERROR', `git ${args[0] ?? ''} did not finish within ${Math.round(timeout / 1000)} s and was stopped${opts.network === true ? ' (is the remote reachable without a password prompt?)' : ''}`))
          resolve({ code: typeof e.code === 'number' ? e.code : 1, stdout, stderr })
        },
      )
      if (opts.input !== undefined) child.stdin?.end(opts.input)
    })
  }

  /** Runs git and returns stdout; any non-zero exit is an IO_ERROR with git's message. */
  async out(args: readonly string[], opts: RunOptions = {}): Promise<string> {
    const r = await this.run(args, opts)
    if (r.code !== 0) throw gitFailure(args, r)
    return r.stdout
  }

  /** True when git exits 0 (for questions such as `rev-parse --verify`). */
  async ok(args: readonly string[]): Promise<boolean> {
    return (await this.run(args)).code === 0
  }
}

export function gitFailure(args: readonly string[], r: GitRun): MemoryError {
  const said = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-6).join(' | ')
  return new MemoryError('IO_ERROR', `git ${args.slice(0, 3).join(' ')} failed (exit ${r.code}): ${said || 'no message'}`)
}

/** Splits NUL-separated git output (`-z`) into its fields, the empty tail dropped. */
export function nulFields(text: string): string[] {
  const parts = text.split('\0')
  if (parts[parts.length - 1] === '') parts.pop()
  return parts
}

/** The hash of the empty tree: what an unborn branch is diffed against. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'
