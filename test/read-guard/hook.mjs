// The read guard: records every file-system read that the project's own code (src, lib, test,
// bench, scripts) makes outside the repository, so the suite can prove that a fresh clone needs
// nothing beside it. Loaded by test/read-guard/setup.ts into each test worker, and by
// `NODE_OPTIONS=--import` into every Node child a test or bench starts.
//
// Allowed: the repository (with its node_modules, even when that is a symlink, and a worktree's
// git folder inside the main repository's .git), the temp folder
// (every store a test makes lives there), and the kernel's pseudo-files (/proc, /dev, /sys).
// A read that a library makes on its own account (vitest, tsx, git's config) is not counted:
// only calls whose nearest caller outside Node is a file of this repository.
//
// Environment: MEMORY_AGENT_READ_GUARD_LOG, a file that outside reads are appended to as JSON
// lines (one per read). Without it the hook records nothing.

import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const INSTALLED = Symbol.for('memory-agent.read-guard')

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const self = fileURLToPath(import.meta.url)

function real(p) {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return p
  }
}

const within = (p, dir) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)

/** A git worktree's `.git` is a file naming its folder inside the main repository's `.git`: that is the repository too. */
function gitCommonDir() {
  try {
    const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(path.join(repo, '.git'), 'utf8'))
    return m === null ? null : path.resolve(repo, m[1].trim(), '..', '..')
  } catch {
    return null // a folder (an ordinary clone, inside the repository) or none
  }
}

const common = gitCommonDir()
const allowed = [...new Set([repo, real(repo), real(path.join(repo, 'node_modules')), os.tmpdir(), real(os.tmpdir()), '/proc', '/dev', '/sys', ...(common !== null ? [common] : [])])]
const ownRoots = [repo, real(repo)]
const modules = [path.join(repo, 'node_modules'), real(path.join(repo, 'node_modules'))]

/** The file a stack line names, or null for Node's own frames. */
function frameFile(line) {
  const m = /\(?((?:file:\/\/)?\/[^():]+):\d+:\d+\)?\s*$/.exec(line)
  if (!m) return null
  return m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1]
}

/** The nearest caller outside Node and this hook, when it is a file of this repository. */
function ownCaller() {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 40
  const stack = new Error().stack ?? ''
  Error.stackTraceLimit = limit
  for (const line of stack.split('\n').slice(1)) {
    const file = frameFile(line)
    if (file === null || file === self) continue
    const own = ownRoots.some((r) => within(file, r)) && !modules.some((m) => within(file, m))
    return own ? `${path.relative(repo, file)}` : null
  }
  return null
}

function target(arg) {
  if (typeof arg === 'string') return path.resolve(arg)
  if (arg instanceof URL) return arg.protocol === 'file:' ? fileURLToPath(arg) : null
  if (Buffer.isBuffer(arg)) return path.resolve(arg.toString())
  return null // a file descriptor: its open was checked
}

/** The outside reads this process made (also appended to the log when one is set). Shared through
 * globalThis, since a test runner may load this file twice (natively and through its transform). */
const fresh = globalThis[INSTALLED] === undefined
export const outsideReads = (globalThis[INSTALLED] ??= [])

function check(op, arg) {
  const file = target(arg)
  if (file === null || allowed.some((dir) => within(file, dir))) return
  const caller = ownCaller()
  if (caller === null) return
  const entry = { op, path: file, caller, pid: process.pid }
  outsideReads.push(entry)
  const log = process.env.MEMORY_AGENT_READ_GUARD_LOG
  if (log) originalAppend(log, `${JSON.stringify(entry)}\n`)
}

const originalAppend = fs.appendFileSync

/** Names of the functions that read a file or folder, or probe for one, by path (first argument). */
const READS = ['readFile', 'open', 'createReadStream', 'readdir', 'opendir', 'stat', 'lstat', 'access', 'exists', 'readlink', 'realpath']

function wrap(owner, name, op) {
  const original = owner[name]
  if (typeof original !== 'function') return
  const wrapped = function (arg, ...rest) {
    check(op, arg)
    return original.call(this, arg, ...rest)
  }
  // realpathSync.native and friends hang off the function itself.
  for (const key of Object.keys(original)) wrapped[key] = original[key]
  owner[name] = wrapped
}

if (fresh) {
  for (const name of READS) {
    wrap(fs, name, name)
    wrap(fs, `${name}Sync`, name)
    wrap(fs.promises, name, name)
  }
  syncBuiltinESMExports()
}
