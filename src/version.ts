/**
 * This package's version, read once from its package.json: one folder above `src/` and `lib/`,
 * two above `lib/bundle/` (the bundled entry points and their chunks). Reads that one file and
 * nothing else; nothing happens on import.
 */

import { existsSync, readFileSync } from 'node:fs'

/** Where package.json lies from this module's folder, nearest first. */
const PACKAGE_JSON = ['../package.json', '../../package.json'].map((relative) => new URL(relative, import.meta.url))

let cached: string | undefined

/** The version in package.json, or 0.0.0 when the file has none. */
export function packageVersion(): string {
  if (cached === undefined) {
    const file = PACKAGE_JSON.find((url) => existsSync(url)) ?? (PACKAGE_JSON[0] as URL)
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }
    cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  }
  return cached
}
