/**
 * This package's version, read once from its package.json (one folder above `src/` and `lib/`
 * alike). Reads that one file and nothing else; nothing happens on import.
 */

import { readFileSync } from 'node:fs'

let cached: string | undefined

/** The version in package.json, or 0.0.0 when the file has none. */
export function packageVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown }
    cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  }
  return cached
}
