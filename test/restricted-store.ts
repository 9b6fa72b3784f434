/**
 * Real ways to take write access away from a store, for tests that must see what a read-only or
 * full store does: no mocks, each one is the operating system refusing a write.
 *
 * - `EROFS`: the store folder bind-mounted read-only in a private mount namespace
 *   (`unshare -m` as root, `unshare -rm` in a user namespace otherwise).
 * - `EACCES`: `chmod -R a-w`; root ignores file modes, so as root the command runs as `nobody`
 *   (`setpriv --reuid 65534`).
 * - `ENOSPC`: a small tmpfs mounted over the store folder in a private mount namespace, the
 *   store copied in and the rest of the space filled with a dot-file the store never lists.
 *
 * Each mechanism is probed once on this machine; a test of one that does not work here is
 * skipped with the reason printed, never faked. Nothing outside the child process sees a mount.
 */

import { spawnSync } from 'node:child_process'
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export type Restriction = 'EROFS' | 'EACCES' | 'ENOSPC'

const isRoot = process.getuid?.() === 0
const NOBODY = 65534
/** The tmpfs of the ENOSPC case: room for the store, then filled. */
const FULL_DISK_BYTES = 4 * 1024 * 1024

/** `sh -c` scripts run in a private mount namespace; `$0` is the store folder, `$1` its source copy. */
const SCRIPTS: Record<'EROFS' | 'ENOSPC', string> = {
  EROFS: 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" || exit 97; shift; exec "$@"',
  ENOSPC:
    `mount -t tmpfs -o size=${FULL_DISK_BYTES} tmpfs "$0" && cp -a "$1"/. "$0"/ || exit 97; ` +
    'dd if=/dev/zero of="$0/.fill" bs=4096 >/dev/null 2>&1; shift; exec "$@"',
}

function namespaced(restriction: 'EROFS' | 'ENOSPC', store: string, command: string[]): string[] {
  return ['unshare', isRoot ? '-m' : '-rm', 'sh', '-c', SCRIPTS[restriction], store, `${store}.source`, ...command]
}

/** The command line that runs `command` with the store at `store` restricted. */
export function restrictedCommand(restriction: Restriction, store: string, command: string[]): string[] {
  if (restriction === 'EACCES') return isRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...command] : command
  return namespaced(restriction, store, command)
}

/** Sets the store up for the restriction (before the command runs). */
export function restrict(restriction: Restriction, store: string): void {
  if (restriction === 'ENOSPC') {
    rmSync(`${store}.source`, { recursive: true, force: true })
    cpSync(store, `${store}.source`, { recursive: true })
  }
  if (restriction !== 'EACCES') return
  // nobody must reach the store: the temporary folders above it are owner-only.
  for (let dir = path.dirname(store); dir !== os.tmpdir() && dir !== path.dirname(dir); dir = path.dirname(dir)) chmodSync(dir, 0o755)
  setWritable(store, false)
}

/** Gives write access back (so the test can clean up and compare). */
export function unrestrict(restriction: Restriction, store: string): void {
  if (restriction === 'EACCES') setWritable(store, true)
}

function setWritable(target: string, writable: boolean): void {
  const st = statSync(target)
  const mode = writable ? st.mode | 0o200 : st.mode & ~0o222
  if (st.isDirectory()) {
    // Children first while the folder is still writable, the folder itself last.
    if (writable) chmodSync(target, mode & 0o7777)
    for (const name of readdirSync(target)) setWritable(path.join(target, name), writable)
    if (!writable) chmodSync(target, mode & 0o7777)
  } else chmodSync(target, mode & 0o7777)
}

const probed = new Map<Restriction, string | null>()

/** Null when the restriction works on this machine, else why not. */
export function unavailable(restriction: Restriction): string | null {
  if (probed.has(restriction)) return probed.get(restriction) ?? null
  const dir = mkdtempSync(path.join(os.tmpdir(), 'restrict-probe-'))
  const store = path.join(dir, 'store')
  mkdirSync(store)
  writeFileSync(path.join(store, 'a'), 'a')
  let reason: string | null = null
  try {
    restrict(restriction, store)
    const [cmd, ...args] = restrictedCommand(restriction, store, ['sh', '-c', 'cat "$0/a" && cp "$0/a" "$0/b"', store])
    const r = spawnSync(cmd as string, args, { encoding: 'utf8' })
    const refused = { EROFS: 'Read-only file system', EACCES: 'Permission denied', ENOSPC: 'No space left on device' }[restriction]
    if (r.error !== undefined) reason = `${cmd} cannot run: ${r.error.message}`
    else if (r.stdout !== 'a' || !r.stderr.includes(refused)) reason = `${cmd} does not give ${restriction} here (exit ${r.status}: ${r.stderr.trim().slice(0, 200)})`
  } finally {
    unrestrict(restriction, store)
    rmSync(dir, { recursive: true, force: true })
  }
  probed.set(restriction, reason)
  return reason
}

/**
 * The files a restricted command runs from, at a place its user can read. Only the `EACCES` case
 * as root changes user (to nobody), and nobody cannot reach a checkout under an owner-only folder
 * (`mktemp -d` makes one): then `paths` (relative to `checkout`) are copied, as hard links where
 * the file system allows, into a world-readable temporary folder, and that folder is returned.
 * `{ reason }` when even the copy is out of nobody's reach (the checkout's own files owner-only).
 */
export function reachableCheckout(restriction: Restriction, checkout: string, paths: readonly string[]): { dir: string } | { reason: string } {
  if (restriction !== 'EACCES' || !isRoot) return { dir: checkout }
  const readable = (dir: string) => paths.every((p) => spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'test', '-r', path.join(dir, p)]).status === 0)
  if (readable(checkout)) return { dir: checkout }
  const stage = mkdtempSync(path.join(os.tmpdir(), 'restricted-checkout-'))
  chmodSync(stage, 0o755)
  for (const p of paths) {
    mkdirSync(path.dirname(path.join(stage, p)), { recursive: true, mode: 0o755 })
    // Hard links cost no copy; across file systems (a checkout off /tmp's disk) a real copy.
    const linked = spawnSync('cp', ['-al', path.join(checkout, p), path.join(stage, p)])
    if (linked.status !== 0) cpSync(path.join(checkout, p), path.join(stage, p), { recursive: true })
  }
  if (readable(stage)) return { dir: stage }
  rmSync(stage, { recursive: true, force: true })
  return { reason: `nobody cannot read the checkout's files even from a world-readable copy (${checkout} keeps them owner-only)` }
}

/** How the restriction is made on this machine, for the test's report. */
export function mechanism(restriction: Restriction): string {
  if (restriction === 'EACCES') return isRoot ? 'chmod -R a-w, run as nobody (setpriv; this process is root)' : 'chmod -R a-w'
  const ns = isRoot ? 'unshare -m' : 'unshare -rm'
  return restriction === 'EROFS' ? `read-only bind mount (${ns})` : `full ${FULL_DISK_BYTES / 1024 / 1024} MB tmpfs (${ns})`
}
