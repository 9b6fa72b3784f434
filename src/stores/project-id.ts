/**
 * Which project a working directory belongs to, as one stable name: the normalised git origin
 * (`git@host:owner/repo.git`, `ssh://git@host/owner/repo`, `https://host/owner/repo` are all
 * `host/owner/repo`), worktrees resolved to their main repository; without an origin, `path:` and
 * the sha256 of the repository's (or the directory's) full real path. Asks git, read-only; never
 * writes. Only adapters call it, with the directory they chose.
 */

import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { realpathSync } from 'node:fs'
import path from 'node:path'

export interface ProjectIdentity {
  /** `host/owner/repo` for a git origin, else `path:<sha256 of the full path>`. */
  readonly id: string
  readonly via: 'git-origin' | 'path'
  /** The main repository's working tree (worktrees resolved), else the directory itself. */
  readonly root: string
}

/**
 * A git remote URL as `host/owner/repo`: scheme, user, port, a trailing `.git` and slashes
 * dropped, the host lower-cased. Null for what is not a remote URL (a local path).
 */
export function normaliseRemote(url: string): string | null {
  const text = url.trim()
  // scp-like ssh: git@github.com:owner/repo.git (no scheme, a colon before the path).
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(text)
  let host: string
  let rest: string
  if (!text.includes('://') && scp !== null) {
    host = scp[1] ?? ''
    rest = scp[2] ?? ''
  } else {
    let parsed: URL
    try {
      parsed = new URL(text)
    } catch {
      return null
    }
    if (parsed.protocol === 'file:' || parsed.hostname === '') return null
    host = parsed.hostname
    rest = decodeURIComponent(parsed.pathname)
  }
  const repo = rest.replace(/\/+$/, '').replace(/\.git$/i, '').replace(/^\/+/, '')
  if (repo === '') return null
  return `${host.toLowerCase()}/${repo}`
}

function git(cwd: string, args: readonly string[]): string | null {
  try {
    return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim()
  } catch {
    // Not a repository, no such remote, or no git at all: the caller falls back to the path.
    return null
  }
}

function realPath(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

const pathId = (root: string) => `path:${createHash('sha256').update(root).digest('hex')}`

/** The identity of the project `dir` is in (see the module comment). */
export function projectIdentity(dir: string): ProjectIdentity {
  const cwd = realPath(dir)
  // Relative to cwd when git prints it so (older git has no --path-format).
  const commonDir = git(cwd, ['rev-parse', '--git-common-dir'])
  if (commonDir === null || commonDir === '') return { id: pathId(cwd), via: 'path', root: cwd }
  // The common git dir is shared by every worktree; the main working tree is its parent (a bare
  // repository's common dir is the repository itself).
  const common = realPath(path.resolve(cwd, commonDir))
  const root = path.basename(common) === '.git' ? path.dirname(common) : common
  const origin = git(cwd, ['config', '--get', 'remote.origin.url'])
  const normalised = origin !== null ? normaliseRemote(origin) : null
  return normalised !== null ? { id: normalised, via: 'git-origin', root } : { id: pathId(root), via: 'path', root }
}
