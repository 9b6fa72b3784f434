/**
 * The anchor probes any process can answer by itself: an environment variable, whether a path
 * exists (relative paths from a base folder, the working directory when the check runs by
 * default), and this package's version. Only `tool-list` needs a host that knows its tools, so it
 * stays unanswered (unchecked) here. Used by `createFileBackend` when its caller gives no probes;
 * reads the environment only when an anchor is checked, never on import.
 */

import { existsSync } from 'node:fs'
import path from 'node:path'
import { packageVersion } from '../version.js'
import type { AnchorProbes } from './backend.js'

export function localProbes(base?: string): AnchorProbes {
  return {
    env: (name) => process.env[name] ?? null,
    pathExists: (p) => existsSync(path.resolve(base ?? process.cwd(), p)),
    selfVersion: packageVersion,
  }
}
