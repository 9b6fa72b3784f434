/**
 * The panel key: the secret every panel API request carries (`x-dsh-memory-agent-token`). It is
 * made once per store (32 random bytes, base64url) and kept in `<root>/.cache/panel-key`, readable
 * by the owner only, so the DSH route and `memory-agent serve` on one store accept the same key
 * and a browser that has it keeps working across restarts. Delete the file to change the key.
 *
 * Why a file and not something the host hands out: no HTTP route of a loopback server can tell
 * the user's browser from any other local process (the DSH web host has no authentication of its
 * own), so a key that a route gives away is no secret. The key reaches the browser out of band
 * instead: in the `#…` fragment of the link the host process prints (a fragment is never sent to
 * a server) or pasted by the user. Who can read the store's files can read the key; that is no
 * loss, since such a process can read the memories directly.
 */

import { randomBytes } from 'node:crypto'
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ioError } from '../errors.js'
import { io, makeDirs } from '../store/fs-io.js'
import { PANEL_KEY_PARAM, PANEL_KEY_PATTERN } from './panel-protocol.js'

export const PANEL_KEY_FILE = path.join('.cache', 'panel-key')
export { PANEL_KEY_PARAM } from './panel-protocol.js'

function readKey(file: string): string | null {
  try {
    const text = readFileSync(file, 'utf8').trim()
    return PANEL_KEY_PATTERN.test(text) ? text : null
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw ioError('read', file, err)
  }
}

/**
 * The store's panel key, made on first use. Two processes racing to make it end with one key:
 * the key is written to a private temporary file first and linked into place, so the key file
 * appears whole or not at all, and the loser of the link reads the winner's key.
 */
export function panelKey(root: string): string {
  const file = path.join(root, PANEL_KEY_FILE)
  const known = readKey(file)
  if (known !== null) return known
  makeDirs(path.dirname(file))
  const key = randomBytes(32).toString('base64url')
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
  io('write', file, () => writeFileSync(temp, `${key}\n`, { mode: 0o600, flag: 'wx' }))
  try {
    linkSync(temp, file)
    return key
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('write', file, err)
    const winner = readKey(file)
    if (winner !== null) return winner
    // A file that exists but holds no key (emptied by hand): replaced, in one rename.
    io('write', file, () => renameSync(temp, file))
    return key
  } finally {
    rmSync(temp, { force: true })
  }
}

/** A link to the panel page that carries the key in its fragment. */
export function panelLink(base: string, key: string): string {
  const url = new URL(base)
  url.hash = `${PANEL_KEY_PARAM}=${key}`
  return url.toString()
}
