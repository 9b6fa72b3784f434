/**
 * The export bundle: the index, the ledger and the text of every memory file (plus the store's
 * README, config.json and aliases.json) as one JSON document a person can download and keep.
 *
 * Read-only, and takes no lock, so a store this process cannot write exports too. The files,
 * index and ledger still belong to one moment: every write that changes them holds the store
 * lock and appends to index.jsonl or ledger.jsonl before letting go. So a try counts only when
 * no writer held the lock when it started or when it ended, index.jsonl and ledger.jsonl were
 * the same size and age at both ends, and every file read was still as it was read; otherwise
 * it is thrown away and made again (LOCK_TIMEOUT if the store never keeps still for 20 s).
 *
 * The bundle keeps to a byte budget: files are added in a fixed order (store notes and settings,
 * then topics, episodes, raw text) and adding stops at the first one that would take the JSON past
 * the budget; the bundle is then marked `truncated` with the number of files left out. The index
 * and the ledger are always whole, so only a store whose index and ledger alone pass the budget
 * gives a larger bundle (with no files, and truncated).
 *
 * `derived` carries what a rebuild cannot bring back and a person would miss: hit counts
 * (usage.jsonl, which decay and "never searched" read), the query log (redacted when recorded)
 * and rooms.json (the palace tour, with rooms-log.jsonl folded in). Whole, like the index, and outside the stillness check:
 * searches append to them without the lock, and a hit more or less is no inconsistency. Version 1
 * readers ignore the field, so the version stays 1.
 */

import { pushAll } from '../../arrays.js'
import { basename } from 'node:path'
import { MemoryError } from '../../errors.js'
import type { FileStat, MemoryBackend } from '../../store/backend.js'
import { requireStore } from '../../store/existing.js'
import { ensureFresh } from '../../store/freshness.js'
import { isMemoryPath } from '../../store/frontmatter.js'
import type { IndexEntry, LedgerEvent } from '../../types.js'
import { ROOMS_FILE, roomsSnapshot } from '../organisation/rooms.js'
import { QUERY_LOG_FILE, USAGE_FILE } from '../organisation/signals.js'

export const BUNDLE_FORMAT = 'dsh-memory-agent/bundle'
export const BUNDLE_VERSION = 1
/** The panel's download limit: 8 MB. */
export const DEFAULT_BUNDLE_BYTES = 8 * 1024 * 1024

/** Files of the store root that go into a bundle when they exist. */
const ROOT_FILES = ['README.md', '_index.md', 'config.json', 'aliases.json']
/** Derived files a bundle carries whole (see the module note). */
export const DERIVED_FILES: readonly string[] = [USAGE_FILE, QUERY_LOG_FILE, ROOMS_FILE]
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
  /** Hit counts, query log and rooms (absent from bundles made before they were carried). */
  derived?: BundleFile[]
  truncated: boolean
  omitted_files: number
}

export interface ExportOptions {
  /** Largest JSON text of the bundle, in UTF-8 bytes (default 8 MB). */
  maxBytes?: number
}

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8')

/** How long an export tries to find the store still before it gives up with LOCK_TIMEOUT. */
const STILL_WAIT_MS = 20_000
/** The files every committed write changes. */
const WRITE_MARKS = ['index.jsonl', 'ledger.jsonl']

const sameStat = (a: FileStat | null, b: FileStat | null): boolean => a?.size === b?.size && a?.mtimeMs === b?.mtimeMs

async function stats(backend: MemoryBackend, paths: readonly string[]): Promise<Array<FileStat | null>> {
  const out: Array<FileStat | null> = []
  for (const p of paths) out.push(await backend.stat(p))
  return out
}

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
  await requireStore(backend)
  const maxBytes = options.maxBytes ?? DEFAULT_BUNDLE_BYTES
  const deadline = Date.now() + STILL_WAIT_MS
  for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
    const bundle = await readBundle(backend, maxBytes)
    if (bundle !== null) return bundle
    if (Date.now() >= deadline)
      throw new MemoryError('LOCK_TIMEOUT', `the memory store at ${backend.root} kept changing for ${STILL_WAIT_MS} ms while it was exported; nothing was written, try again`)
    await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay))
  }
}

async function derivedFiles(backend: MemoryBackend): Promise<BundleFile[]> {
  const out: BundleFile[] = []
  for (const path of DERIVED_FILES) {
    // The rooms travel as one snapshot: rooms.json with the log since it folded in.
    const text = path === ROOMS_FILE ? await roomsSnapshot(backend) : await backend.readFile(path)
    if (text !== null) out.push({ path, text })
  }
  return out
}

/** One try at the bundle: null when a write overlapped it. */
async function readBundle(backend: MemoryBackend, maxBytes: number): Promise<Bundle | null> {
  await ensureFresh(backend)
  if (await backend.writeInProgress()) return null
  const marks = await stats(backend, WRITE_MARKS)
  const bundle: Bundle = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    exported_at: backend.now(),
    root_name: basename(backend.root),
    index: (await backend.readIndex()).sort((a, b) => a.path.localeCompare(b.path)),
    files: [],
    ledger: await backend.readLedger(),
    derived: await derivedFiles(backend),
    truncated: false,
    omitted_files: 0,
  }
  const paths = await bundlePaths(backend)
  const read: Array<[string, FileStat | null]> = []
  // Each added file costs its own JSON plus a separating comma. The tail is counted at its
  // longest (`false`, or the largest omitted count), so no added file takes the JSON past maxBytes.
  let size = Math.max(bytes(bundle), bytes({ ...bundle, truncated: true, omitted_files: paths.length }))
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i] as string
    const st = await backend.stat(path)
    const text = await backend.readFile(path)
    if (text === null) continue // removed while exporting
    read.push([path, st])
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
  if (await backend.writeInProgress()) return null
  const after = await stats(backend, WRITE_MARKS)
  if (marks.some((m, i) => !sameStat(m, after[i] ?? null))) return null
  for (const [path, st] of read) if (!sameStat(st, await backend.stat(path))) return null
  return bundle
}
