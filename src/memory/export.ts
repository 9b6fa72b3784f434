/**
 * The export bundle: the index, the ledger and the text of every memory file (plus the store's
 * README, config.json and aliases.json) as one JSON document a person can download and keep.
 * Read-only; taken under the store lock so the files, index and ledger belong to one moment.
 *
 * The bundle keeps to a byte budget: files are added in a fixed order (store notes and settings,
 * then topics, episodes, raw text) and adding stops at the first one that would take the JSON past
 * the budget; the bundle is then marked `truncated` with the number of files left out. The index
 * and the ledger are always whole, so only a store whose index and ledger alone pass the budget
 * gives a larger bundle (with no files, and truncated).
 */

import { pushAll } from '../arrays.js'
import { basename } from 'node:path'
import type { MemoryBackend } from '../store/backend.js'
import { ensureFresh } from '../store/freshness.js'
import { isMemoryPath } from '../store/frontmatter.js'
import type { IndexEntry, LedgerEvent } from '../types.js'

export const BUNDLE_FORMAT = 'dsh-memory-agent/bundle'
export const BUNDLE_VERSION = 1
/** The panel's download limit: 8 MB. */
export const DEFAULT_BUNDLE_BYTES = 8 * 1024 * 1024

/** Files of the store root that go into a bundle when they exist. */
const ROOT_FILES = ['README.md', '_index.md', 'config.json', 'aliases.json']
/** Memory folders in the order their files are added: what matters most comes first. */
const FOLDERS = ['topics', 'episodes', 'raw']

export interface BundleFile {
  path: string
  text: string
}

export interface Bundle {
  format: typeof BUNDLE_FORMAT
  version: typeof BUNDLE_VERSION
  exported_at: string
  /** The store folder's name (not its absolute path: a bundle travels). */
  root_name: string
  index: IndexEntry[]
  files: BundleFile[]
  ledger: LedgerEvent[]
  truncated: boolean
  omitted_files: number
}

export interface ExportOptions {
  /** Largest JSON text of the bundle, in UTF-8 bytes (default 8 MB). */
  maxBytes?: number
}

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8')

/** Paths to export, in bundle order: root files that exist, then memory files and folder notes. */
async function bundlePaths(backend: MemoryBackend): Promise<string[]> {
  const paths: string[] = []
  for (const name of ROOT_FILES) if ((await backend.stat(name)) !== null) paths.push(name)
  for (const folder of FOLDERS) {
    const files = (await backend.listFiles(folder)).filter((p) => isMemoryPath(p) || p === `${folder}/_index.md`)
    pushAll(paths, files.sort())
  }
  return paths
}

export async function exportBundle(backend: MemoryBackend, options: ExportOptions = {}): Promise<Bundle> {
  const maxBytes = options.maxBytes ?? DEFAULT_BUNDLE_BYTES
  await backend.init()
  await ensureFresh(backend)
  return backend.withLock(async () => {
    const bundle: Bundle = {
      format: BUNDLE_FORMAT,
      version: BUNDLE_VERSION,
      exported_at: backend.now(),
      root_name: basename(backend.root),
      index: (await backend.readIndex()).sort((a, b) => a.path.localeCompare(b.path)),
      files: [],
      ledger: await backend.readLedger(),
      truncated: false,
      omitted_files: 0,
    }
    const paths = await bundlePaths(backend)
    // Each added file costs its own JSON plus a separating comma. The tail is counted at its
    // longest (`false`, or the largest omitted count), so no added file takes the JSON past maxBytes.
    let size = Math.max(bytes(bundle), bytes({ ...bundle, truncated: true, omitted_files: paths.length }))
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i] as string
      const text = await backend.readFile(path)
      if (text === null) continue // removed while exporting
      const file: BundleFile = { path, text }
      const cost = bytes(file) + (bundle.files.length > 0 ? 1 : 0)
      if (size + cost > maxBytes) {
        bundle.truncated = true
        bundle.omitted_files = paths.length - i
        break
      }
      bundle.files.push(file)
      size += cost
    }
    return bundle
  })
}
