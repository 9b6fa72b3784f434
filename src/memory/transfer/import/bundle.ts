/**
 * Importing an export bundle (`src/memory/transfer/export.ts`).
 *
 * Into an empty store (no memories, no ledger) it is a restore: every file verbatim, the ledger
 * carried over, the index derived from the files (with the bundle's times for files whose
 * front-matter names none), so ids, statuses, versions and history are what they were. Into a
 * store with memories it is a merge: a memory whose id, or whose content (type and summary, for
 * a live memory), is already there is a duplicate and left alone; the rest is added verbatim,
 * ids and statuses kept; where an added current version meets a current one already there in
 * the same slot, the newer supersedes the older, as a write would. The store's own settings,
 * notes and ledger stay as they are.
 *
 * The same walk serves the dry run (over a throwaway overlay of the index) and the real import
 * (inside one transaction: all or nothing). Files are copied as they are, except for secrets:
 * a bundle may come from a store edited by hand or be made by hand, so a memory file, a store
 * file or a ledger event that holds one is redacted on its way in (parsed, its fields and body
 * redacted, written again: a marker must not land unquoted in YAML); a file without one keeps
 * its bytes. The derived files (hit counts, query log, rooms) are restored into an empty store;
 * a merge adds the hits of the memories it added and keeps the store's own query log and rooms.
 * Their JSON lines are redacted one by one, so a hand-edited query log cannot bring a secret in.
 */

import { pushAll } from '../../../arrays.js'
import { MemoryError, invalidInput } from '../../../errors.js'
import type { MemoryBackend } from '../../../store/backend.js'
import { entryFromFile, isMemoryPath, parseFile, renderFile } from '../../../store/frontmatter.js'
import { redactRecord, redactSecrets, type RedactionKind } from '../../../redact.js'
import { slotOf, type IndexLookup } from '../../../store/index-view.js'
import { parseLedgerLine } from '../../../store/ledger.js'
import type { IndexEntry, LedgerEvent } from '../../../types.js'
import { BUNDLE_FORMAT, BUNDLE_VERSION, DERIVED_FILES, type BundleFile } from '../export.js'
import { ROOMS_FILE, ROOMS_LOG_FILE } from '../../organisation/rooms.js'
import { USAGE_FILE } from '../../organisation/signals.js'
import { LIVE, supersedeSlot } from '../../writing/slots.js'
import { Overlay, transact } from '../../writing/txn.js'
import { emptyResult, tally, type ImportItem, type ImportResult } from './types.js'

const LEDGER_FILE = 'ledger.jsonl'
/** Files of a store besides memories that a bundle may carry. */
const STORE_FILES = new Set(['README.md', '_index.md', 'config.json', 'aliases.json', 'topics/_index.md', 'episodes/_index.md', 'raw/_index.md'])
/** Settings whose difference a merge reports (notes are the layout's and need no word). */
const SETTINGS = new Set(['config.json', 'aliases.json'])

export interface CheckedBundle {
  /** Memory files, in bundle order. */
  memories: BundleFile[]
  /** The store's notes and settings. */
  storeFiles: BundleFile[]
  /** Bundle time of each indexed path, in epoch ms: the time of a file whose front-matter has none. */
  times: Map<string, number>
  ledger: LedgerEvent[]
  /** Hit counts, query log and rooms, redacted. */
  derived: BundleFile[]
  /** Entries of `files` that cannot be imported, by position. */
  problems: ImportItem[]
  warnings: string[]
  /** Kinds of secret redacted on the way in. */
  redactions: RedactionKind[]
}

/**
 * A file's text with its secrets redacted, and their kinds; the same text when it holds none. A
 * memory file's front-matter is parsed and rendered again (a marker such as `[已脱敏:aws-key]`
 * must not land unquoted in YAML, where it would read as a list), a JSON settings file likewise.
 */
function redactFile(path: string, text: string): { text: string; kinds: RedactionKind[] } {
  const found = redactSecrets(text)
  if (found.kinds.length === 0) return { text, kinds: [] }
  if (path.endsWith('.json')) {
    try {
      const r = redactRecord(JSON.parse(text) as unknown)
      return { text: `${JSON.stringify(r.value, null, 2)}\n`, kinds: r.kinds }
    } catch {
      return found
    }
  }
  const parsed = parseFile(text)
  if (!parsed.hasFrontMatter || parsed.error !== undefined) return found
  const data = redactRecord(parsed.data)
  const body = redactSecrets(parsed.body)
  return { text: renderFile(data.value, body.text), kinds: [...new Set([...data.kinds, ...body.kinds])] }
}

/** Each JSON line redacted and written again; a line that does not parse is dropped (readers skip it too). */
function redactLines(text: string): { text: string; kinds: RedactionKind[] } {
  const kinds = new Set<RedactionKind>()
  const lines: string[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const r = redactRecord(JSON.parse(line) as unknown)
      for (const k of r.kinds) kinds.add(k)
      lines.push(JSON.stringify(r.value))
    } catch {
      // a torn line
    }
  }
  return { text: lines.map((l) => `${l}\n`).join(''), kinds: [...kinds] }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A relative path with no way out of the store: no `..`, no absolute or empty parts, no backslash or NUL. */
function safePath(path: string): boolean {
  return path !== '' && !/[\\\0]/.test(path) && !path.startsWith('/') && path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..')
}

/**
 * Checks a parsed bundle. Throws INVALID_INPUT (naming `name`) when it is not a bundle this build
 * reads; lesser faults (an odd file entry, a bad ledger event) are reported and passed over.
 */
export function checkBundle(value: unknown, name: string): CheckedBundle {
  if (!isObject(value) || value.format !== BUNDLE_FORMAT) {
    throw invalidInput('path', `a ${BUNDLE_FORMAT} bundle (a JSON object with "format": "${BUNDLE_FORMAT}"); ${name} is not one`)
  }
  if (value.version !== BUNDLE_VERSION) {
    throw invalidInput('path', `bundle version ${BUNDLE_VERSION}; ${name} has version ${JSON.stringify(value.version ?? null)}`)
  }
  if (!Array.isArray(value.files)) throw invalidInput('path', `a bundle with a "files" list; ${name} has none`)
  const out: CheckedBundle = { memories: [], storeFiles: [], times: new Map(), ledger: [], derived: [], problems: [], warnings: [], redactions: [] }
  const redactedFiles: string[] = []
  const redacted = (path: string, text: string): BundleFile => {
    const r = path.endsWith('.jsonl') ? redactLines(text) : redactFile(path, text)
    if (r.kinds.length > 0) redactedFiles.push(path)
    for (const k of r.kinds) if (!out.redactions.includes(k)) out.redactions.push(k)
    return { path, text: r.text }
  }
  for (const [i, file] of value.files.entries()) {
    const where = isObject(file) && typeof file.path === 'string' ? file.path : `files[${i}]`
    if (!isObject(file) || typeof file.path !== 'string' || typeof file.text !== 'string') {
      out.problems.push({ source: where, outcome: 'skipped', reason: 'a file entry needs a path and a text' })
    } else if (safePath(file.path) && isMemoryPath(file.path)) {
      out.memories.push(redacted(file.path, file.text))
    } else if (STORE_FILES.has(file.path)) {
      out.storeFiles.push(redacted(file.path, file.text))
    } else {
      out.problems.push({ source: where, outcome: 'skipped', reason: 'not a memory file or store file path (topics/, episodes/ or raw/ and .md)' })
    }
  }
  for (const file of Array.isArray(value.derived) ? value.derived : []) {
    if (isObject(file) && typeof file.path === 'string' && typeof file.text === 'string' && DERIVED_FILES.includes(file.path)) out.derived.push(redacted(file.path, file.text))
    else out.problems.push({ source: isObject(file) && typeof file.path === 'string' ? file.path : 'derived', outcome: 'skipped', reason: `a derived file is one of ${DERIVED_FILES.join(', ')} with a text` })
  }
  for (const entry of Array.isArray(value.index) ? value.index : []) {
    if (!isObject(entry) || typeof entry.path !== 'string' || typeof entry.time !== 'string') continue
    const ms = Date.parse(entry.time)
    if (!Number.isNaN(ms)) out.times.set(entry.path, ms)
  }
  let badEvents = 0
  for (const event of Array.isArray(value.ledger) ? value.ledger : []) {
    // The same test a ledger line passes when read back.
    const checked = parseLedgerLine(JSON.stringify(event) ?? '')
    if (checked === null) {
      badEvents++
      continue
    }
    const r = redactRecord(checked)
    for (const k of r.kinds) if (!out.redactions.includes(k)) out.redactions.push(k)
    out.ledger.push(r.value)
  }
  if (redactedFiles.length > 0) {
    out.warnings.push(`${name}: secrets were redacted on the way in (${out.redactions.join(', ')}) in ${redactedFiles.length} files: ${redactedFiles.slice(0, 5).join(', ')}${redactedFiles.length > 5 ? ', …' : ''}`)
  }
  if (badEvents > 0) out.warnings.push(`${name}: ${badEvents} ledger events without "at" and "event" were left out`)
  if (value.truncated === true) {
    const omitted = typeof value.omitted_files === 'number' ? value.omitted_files : 'some'
    out.warnings.push(`${name} was cut at export: ${omitted} files were left out of it and cannot be imported`)
  }
  const paths = new Set(out.memories.map((f) => f.path))
  const missing = [...out.times.keys()].filter((p) => !paths.has(p) && isMemoryPath(p)).length
  if (missing > 0 && value.truncated !== true) out.warnings.push(`${name}: ${missing} index entries have no file in the bundle`)
  return out
}

/** Parses and checks bundle text. INVALID_INPUT naming `name` when it is not JSON or not a bundle. */
export function parseBundle(text: string, name: string): CheckedBundle {
  let value: unknown
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (err) {
    throw invalidInput('path', `a JSON bundle; ${name} does not parse (${err instanceof Error ? err.message : String(err)})`)
  }
  return checkBundle(value, name)
}

/** What the walk needs from where it runs: the real transaction or a dry run's overlay. */
interface Place {
  index: IndexLookup
  exists(relPath: string): Promise<boolean>
  put(file: BundleFile, mtimeMs: number): Promise<IndexEntry>
  /** Makes winner the current version of its slot; returns the ids it replaced. */
  settle(winner: IndexEntry): Promise<string[]>
}

function newer(a: IndexEntry, b: IndexEntry): IndexEntry {
  return a.time > b.time || (a.time === b.time && a.id > b.id) ? a : b
}

/** Walks the bundle's memory files into place; fills the result's items and superseded count. */
async function walk(place: Place, bundle: CheckedBundle, mode: 'restore' | 'merge', now: number, result: ImportResult, onProgress?: (done: number, total: number) => void): Promise<IndexEntry[]> {
  // Episodes before raw text, so raw text can follow what became of its episode.
  const files = [...bundle.memories.filter((f) => !f.path.startsWith('raw/')), ...bundle.memories.filter((f) => f.path.startsWith('raw/'))]
  const added: IndexEntry[] = []
  const left = new Map<string, ImportItem>()
  for (const [i, file] of files.entries()) {
    const entry = entryFromFile(file.path, file.text, bundle.times.get(file.path) ?? now)
    const episode = entry.type === 'raw' && entry.episode !== null ? left.get(entry.episode) : undefined
    const same = mode === 'merge' && entry.type !== 'raw' ? place.index.withHash(entry.content_hash).find((e) => e.type === entry.type && LIVE.has(e.status)) : undefined
    let item: ImportItem
    if (place.index.get(entry.id) !== undefined) {
      item = { source: file.path, outcome: 'duplicate', id: entry.id, reason: 'same id' }
    } else if (place.index.atPath(file.path) !== undefined || (await place.exists(file.path))) {
      item = { source: file.path, outcome: 'skipped', reason: `another file is already at ${file.path}` }
    } else if (episode !== undefined) {
      item = { source: file.path, outcome: episode.outcome, reason: `its episode ${entry.episode} was not imported` }
    } else if (same !== undefined) {
      item = { source: file.path, outcome: 'duplicate', id: same.id, reason: `same content as ${same.id}` }
    } else {
      added.push(await place.put(file, bundle.times.get(file.path) ?? now))
      item = { source: file.path, outcome: 'added', id: entry.id }
    }
    if (item.outcome !== 'added') left.set(entry.id, item)
    result.items.push(item)
    onProgress?.(i + 1, files.length)
  }
  if (mode === 'merge') result.superseded = await settleSlots(place, added)
  return added
}

/**
 * Where an added current version meets a current one that was already there, in one slot, the
 * newest active one supersedes the rest (what a write of it would have done). Slots holding only
 * the bundle's memories stay as the bundle had them.
 */
async function settleSlots(place: Place, added: IndexEntry[]): Promise<number> {
  const ids = new Set(added.map((e) => e.id))
  const done = new Set<string>()
  let superseded = 0
  for (const e of added) {
    if (e.type === 'raw' || e.key === null || e.status !== 'active' || done.has(slotOf(e))) continue
    done.add(slotOf(e))
    const current = place.index.inSlot(slotOf(e)).filter((m) => m.type === e.type && (m.status === 'active' || m.status === 'conflict'))
    if (current.every((m) => ids.has(m.id))) continue
    const winner = current.filter((m) => m.status === 'active').reduce(newer)
    superseded += (await place.settle(winner)).length
  }
  return superseded
}

export interface BundleImportOptions {
  dryRun?: boolean
  /** The input's name for the result and the ledger (default "bundle"). */
  source?: string
  onProgress?: (done: number, total: number) => void
}

async function isEmpty(backend: MemoryBackend, index: IndexLookup): Promise<boolean> {
  return index.size === 0 && ((await backend.stat(LEDGER_FILE))?.size ?? 0) === 0
}

/** Imports a checked bundle (see the module note). Atomic: on failure nothing of it stays. */
export async function importCheckedBundle(backend: MemoryBackend, bundle: CheckedBundle, options: BundleImportOptions = {}): Promise<ImportResult> {
  const source = options.source ?? 'bundle'
  const exists = async (p: string) => (await backend.stat(p)) !== null

  if (options.dryRun === true) {
    const overlay = new Overlay(await backend.indexView())
    const mode = (await isEmpty(backend, overlay)) ? 'restore' : 'merge'
    const result = emptyResult('bundle', source, mode, true)
    const place: Place = {
      index: overlay,
      exists,
      put: async (file, mtimeMs) => {
        const entry = entryFromFile(file.path, file.text, mtimeMs)
        overlay.put(entry)
        return entry
      },
      settle: async (winner) => {
        const losers = overlay.inSlot(slotOf(winner)).filter((m) => m.id !== winner.id && m.type === winner.type && (m.status === 'active' || m.status === 'conflict'))
        return losers.map((l) => l.id)
      },
    }
    await walk(place, bundle, mode, Date.parse(backend.now()), result, options.onProgress)
    return finish(result, bundle, mode)
  }

  /** Store files and the ledger written outside the transaction's own files: put back on failure. */
  const previous = new Map<string, string | null>()
  const replace = async (relPath: string, text: string) => {
    if (!previous.has(relPath)) previous.set(relPath, await backend.readFile(relPath))
    await backend.writeFileAtomic(relPath, text)
  }
  const remove = async (relPath: string) => {
    if (!previous.has(relPath)) previous.set(relPath, await backend.readFile(relPath))
    await backend.removeFile(relPath)
  }
  try {
    return await transact(backend, async (txn) => {
      const mode = (await isEmpty(backend, txn.index)) ? 'restore' : 'merge'
      const result = emptyResult('bundle', source, mode, false)
      const place: Place = {
        index: txn.index,
        exists,
        put: (file, mtimeMs) => txn.put(file.path, file.text, mtimeMs),
        settle: async (winner) => (await supersedeSlot(txn, winner)).superseded,
      }
      const added = await walk(place, bundle, mode, Date.parse(txn.now), result, options.onProgress)
      if (mode === 'restore') {
        for (const file of [...bundle.storeFiles, ...bundle.derived]) await replace(file.path, file.text)
        // The bundle's rooms.json is the whole palace: a log left beside it would be replayed over it.
        if (bundle.derived.some((f) => f.path === ROOMS_FILE)) await remove(ROOMS_LOG_FILE)
        // The history comes first; this import's own event is appended after it.
        if (bundle.ledger.length > 0) await replace(LEDGER_FILE, bundle.ledger.map((e) => `${JSON.stringify(e)}\n`).join(''))
        result.ledger_events = bundle.ledger.length
      }
      finish(result, bundle, mode)
      if (mode === 'merge') {
        await mergeDerived(backend, bundle.derived, new Set(added.map((e) => e.id)), result)
        for (const file of bundle.storeFiles) {
          if (SETTINGS.has(file.path) && (await backend.readFile(file.path)) !== file.text) {
            result.warnings.push(`${file.path}: the store keeps its own; the bundle's was not applied`)
          }
        }
      }
      txn.log({
        event: 'import',
        format: 'bundle',
        from: source,
        mode,
        found: result.found,
        added: result.added,
        duplicates: result.duplicates,
        skipped: result.skipped,
        superseded: result.superseded,
        ledger_events: result.ledger_events,
        ids: added.map((e) => e.id),
      })
      return result
    })
  } catch (err) {
    for (const [relPath, text] of previous) {
      if (text === null) await backend.removeFile(relPath).catch(() => false)
      else await backend.writeFileAtomic(relPath, text).catch(() => undefined)
    }
    throw err instanceof MemoryError ? err : new MemoryError('IO_ERROR', `the bundle import failed and was undone: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/** A merge: the hits of the memories it added join the store's; its own query log and rooms stay. */
async function mergeDerived(backend: MemoryBackend, derived: readonly BundleFile[], added: ReadonlySet<string>, result: ImportResult): Promise<void> {
  const kept: string[] = []
  for (const file of derived) {
    if (file.path !== USAGE_FILE) {
      kept.push(file.path)
      continue
    }
    const ofAdded = (line: string) => {
      const v: unknown = JSON.parse(line) // redactLines left only JSON lines
      return isObject(v) && typeof v.id === 'string' && added.has(v.id)
    }
    const lines = file.text.split('\n').filter((l) => l !== '' && ofAdded(l))
    if (lines.length > 0) await backend.appendText(USAGE_FILE, lines.map((l) => `${l}\n`).join(''))
  }
  if (kept.length > 0) result.warnings.push(`${kept.join(', ')}: the store keeps its own; the bundle's were not applied`)
}

function finish(result: ImportResult, bundle: CheckedBundle, mode: 'restore' | 'merge'): ImportResult {
  pushAll(result.items, bundle.problems)
  pushAll(result.warnings, bundle.warnings)
  for (const k of bundle.redactions) if (!result.redactions.includes(k)) result.redactions.push(k)
  if (mode === 'merge' && bundle.ledger.length > 0) {
    result.warnings.push(`the bundle's ledger (${bundle.ledger.length} events) was not copied: this store has its own history; the import event records the merge`)
  }
  return tally(result)
}
