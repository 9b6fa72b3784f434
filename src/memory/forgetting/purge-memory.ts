/**
 * memory_purge: after a forget, removing a memory for good, so that what it said is on disk
 * nowhere in the store. Under the store lock it removes the files of the memory and of what was
 * forgotten with it (its raw text, the memories the same forget took because they repeat the
 * value), compacts index.jsonl (whose older lines still held them), replaces their text in
 * ledger.jsonl by a marker (each event keeps its skeleton: when, what, which ids), drops their
 * lines from usage.jsonl and query-log.jsonl, and drops the saved search index. Then it rebuilds
 * or removes the digests that held the value, saves a search index built afresh, saves the file
 * stats without the removed paths, and checks every file under the root: what still holds the
 * value (a memory that was never forgotten, say) is reported in `remaining`.
 *
 * Only deleted_pending memories are purged: a live memory must be forgotten first.
 */

import { MemoryError } from '../../errors.js'
import { rebuildSearchCache, SEARCH_INDEX_FILE } from '../../retrieve/retriever.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh, saveSeenStats } from '../../store/freshness.js'
import { slotOf, type IndexLookup } from '../../store/index-view.js'
import { parseLedgerLine } from '../../store/ledger.js'
import { tokenize } from '../../language/tokenizer.js'
import type { IndexEntry, LedgerEvent } from '../../types.js'
import { sweepDigests, type DigestChange } from './digest-sweep.js'
import { QUERY_LOG_FILE, USAGE_FILE, signalsSettled } from '../organisation/signals.js'
import { rawSibling } from '../writing/slots.js'
import { transact, type Txn } from '../writing/txn.js'
import { anchorOf, holdsValue, skeletonOf, type ValueAnchor } from '../writing/value.js'

/**
 * Said after every purge: a purge rewrites the files, never git history, and a store that was
 * ever committed (synced with `memory-agent sync`, or inside a project repository) still has the
 * value in its older commits, on its remote and in other clones.
 */
export const GIT_HISTORY_NOTE =
  'Git history is not rewritten: if this store was ever committed (memory-agent sync, or a project repository it lives in), ' +
  'older commits, the remote and every other clone still hold the value. To remove it there, put the value in a file and run ' +
  '`git filter-repo --replace-text <file>` in a fresh clone (BFG Repo-Cleaner works too), force-push every branch and tag, ' +
  'then have each clone re-clone (a pull brings the old commits back); the git host may keep cached views until it collects garbage.'

/** What replaces the text of a purged memory's ledger events. */
export const PURGED_MARKER = '[purged]'
const LEDGER_FILE = 'ledger.jsonl'

export interface PurgeMemoryResult {
  id: string
  /** Ids removed from disk (raw text included). */
  purged: string[]
  removed_paths: string[]
  /** Ledger events whose text was replaced by the marker. */
  redacted_events: number
  scrubbed: {
    usage_lines: number
    query_lines: number
    digests: DigestChange[]
    index_compacted: boolean
    search_index_rebuilt: boolean
  }
  /** Files under the root that still hold the value (none, unless a live memory repeats it). */
  remaining: string[]
  already_purged: boolean
  guidance: string
}

const idsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : typeof v === 'string' ? [v] : [])

/** True when an event names one of the ids in any of its fields. */
function references(event: LedgerEvent, ids: ReadonlySet<string>): boolean {
  return Object.values(event).some((v) => idsOf(v).some((s) => ids.has(s)))
}

/** The memory_forget event that took this id, latest first: its ids go with it, its query names the value. */
function forgetOf(ledger: readonly LedgerEvent[], id: string): LedgerEvent | undefined {
  for (let i = ledger.length - 1; i >= 0; i--) {
    const ev = ledger[i] as LedgerEvent
    if (ev.event === 'forget' && ev.scope === 'memory' && idsOf(ev.ids).includes(id)) return ev
  }
  return undefined
}

/** The memory, its raw text, and what the same forget took, as far as each is still deleted_pending. */
function purgeGroup(txn: Txn, entry: IndexEntry, forget: LedgerEvent | undefined): IndexEntry[] {
  const group = new Map<string, IndexEntry>([[entry.id, entry]])
  for (const id of idsOf(forget?.ids)) {
    const e = txn.index.get(id)
    if (e !== undefined && e.status === 'deleted_pending') group.set(id, e)
  }
  for (const e of [...group.values()]) {
    const raw = rawSibling(txn, e)
    if (raw !== undefined) group.set(raw.id, raw)
  }
  return [...group.values()].sort((a, b) => a.path.localeCompare(b.path))
}

function anchorsOf(group: IndexEntry[], index: IndexLookup, query: string): ValueAnchor[] {
  const ids = new Set(group.map((e) => e.id))
  return group
    .filter((e) => e.type !== 'raw' || e.episode === null || !ids.has(e.episode) || index.get(e.episode) === undefined)
    .map((e) => anchorOf({ ...e, summary: e.summary.replace(/…$/, '') }, query))
}

/**
 * Rewrites ledger.jsonl: an event about a purged memory keeps its skeleton and has every other
 * field replaced by the marker; any other field that holds the value is replaced too; an
 * unreadable line that holds it is dropped. Returns how many lines changed. Under the lock.
 */
async function redactLedger(backend: MemoryBackend, ids: ReadonlySet<string>, leaks: (text: string) => boolean): Promise<number> {
  let changed = 0
  // A compare-and-swap: a line appended meanwhile (a writer that takes no lock) is not dropped.
  await backend.rewriteFile(LEDGER_FILE, (text) => {
    const redacted = redactedLedger(text, ids, leaks)
    changed = redacted.changed
    return redacted.changed > 0 ? redacted.text : null
  })
  return changed
}

/** The ledger's text with what a purge removes redacted, and how many lines changed. Pure. */
function redactedLedger(text: string, ids: ReadonlySet<string>, leaks: (text: string) => boolean): { text: string; changed: number } {
  const out: string[] = []
  let changed = 0
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const event = parseLedgerLine(line)
    if (event === null) {
      if (leaks(line)) changed++
      else out.push(line)
      continue
    }
    let next: Record<string, unknown> = event
    if (references(event, ids)) next = { ...skeletonOf(event, PURGED_MARKER), redacted: true }
    else if (leaks(line)) next = Object.fromEntries(Object.entries(event).map(([k, v]) => [k, k !== 'at' && k !== 'event' && leaks(JSON.stringify(v)) ? PURGED_MARKER : v]))
    if (next === event) out.push(line)
    else {
      out.push(JSON.stringify(next))
      changed++
    }
  }
  return { text: out.length > 0 ? `${out.join('\n')}\n` : '', changed }
}

/** Keeps the lines of a JSONL side file that `keep` accepts (unreadable lines too); returns how many went. */
async function filterJsonl(backend: MemoryBackend, relPath: string, keep: (record: Record<string, unknown>) => boolean): Promise<number> {
  let dropped = 0
  // Shared logs: searches append to these files without the lock.
  await backend.rewriteLog(relPath, (text) => {
    const lines = text.split('\n').filter((l) => l.trim() !== '')
    const kept = lines.filter((line) => {
      try {
        const v: unknown = JSON.parse(line)
        return typeof v !== 'object' || v === null || keep(v as Record<string, unknown>)
      } catch {
        return true
      }
    })
    dropped = lines.length - kept.length
    return dropped > 0 ? (kept.length > 0 ? `${kept.join('\n')}\n` : '') : null
  })
  return dropped
}

/** A query that asks about the value: any of its value terms, or every term of its name, or the statement. */
function touches(anchor: ValueAnchor, query: string): boolean {
  const terms = new Set(tokenize(query))
  return (
    holdsValue(anchor, query) ||
    anchor.valueTerms.some((t) => terms.has(t)) ||
    (anchor.nameTerms.length > 0 && anchor.nameTerms.every((t) => terms.has(t)))
  )
}

/** Every file under the root (dot folders such as .cache included) that still holds one of the values. */
async function stillHolding(backend: MemoryBackend, anchors: ValueAnchor[], paths: readonly string[]): Promise<string[]> {
  const files = new Set([...(await backend.listFiles('')), ...(await backend.listFiles('.cache'))])
  const out: string[] = []
  for (const file of [...files].sort()) {
    const text = await backend.readFile(file).catch(() => null)
    if (text === null) continue
    if (anchors.some((a) => holdsValue(a, text)) || paths.some((p) => text.includes(p))) out.push(file)
  }
  return out
}

function wasPurged(ledger: readonly LedgerEvent[], id: string): boolean {
  return ledger.some((ev) => ev.event === 'purge' && idsOf(ev.ids).includes(id))
}

export async function purgeMemory(backend: MemoryBackend, id: string): Promise<PurgeMemoryResult> {
  // Scanned first, so the saved file stats learn that the removed files are gone.
  await ensureFresh(backend)
  await signalsSettled(backend)
  const done = await transact(backend, async (txn) => {
    const ledger = await txn.backend.readLedger()
    const entry = txn.index.get(id)
    if (entry === undefined) {
      if (wasPurged(ledger, id)) return null
      throw new MemoryError('NOT_FOUND', `no memory with id ${JSON.stringify(id)}; list ids with memory_nav`, 'id')
    }
    if (entry.type === 'raw') throw new MemoryError('INVALID_STATE', `${id} is raw text; purge its episode ${entry.episode ?? ''} instead`.trim(), 'id')
    if (entry.status !== 'deleted_pending')
      throw new MemoryError('INVALID_STATE', `${id} is ${entry.status}; forget it first with memory_forget (dryRun shows what goes with it), then purge`, 'id')

    const forget = forgetOf(ledger, id)
    const group = purgeGroup(txn, entry, forget)
    const anchors = anchorsOf(group, txn.index, typeof forget?.query === 'string' ? forget.query : '')
    const paths = group.map((e) => e.path)
    const leaks = (text: string) => anchors.some((a) => holdsValue(a, text)) || paths.some((p) => text.includes(p))
    const ids = new Set(group.flatMap((e) => [e.id, ...(e.type === 'raw' ? [] : [`${e.id}-raw`])]))

    const removed: IndexEntry[] = []
    for (const e of group) if (await txn.remove(e)) removed.push(e)
    const redacted = await redactLedger(txn.backend, ids, leaks)
    const usage = await filterJsonl(txn.backend, USAGE_FILE, (r) => !(typeof r.id === 'string' && ids.has(r.id)))
    const queries = await filterJsonl(txn.backend, QUERY_LOG_FILE, (r) => !(typeof r.query === 'string' && anchors.some((a) => touches(a, r.query as string))))
    // A rewrite of these killed midway may have left their unredacted text set aside.
    await txn.backend.dropSetAside([LEDGER_FILE, USAGE_FILE, QUERY_LOG_FILE])
    await txn.backend.removeFile(SEARCH_INDEX_FILE)
    // index.jsonl is a log: lines written before still hold the removed entries until it is rewritten.
    await txn.backend.writeIndex([...txn.index.values()])
    txn.log({ event: 'purge', scope: 'memory', id, ids: group.map((e) => e.id), removed_count: removed.length, redacted_events: redacted, source: 'user' })
    return { group, removed, anchors, paths, redacted, usage, queries }
  })

  if (done === null) {
    return {
      id,
      purged: [],
      removed_paths: [],
      redacted_events: 0,
      scrubbed: { usage_lines: 0, query_lines: 0, digests: [], index_compacted: false, search_index_rebuilt: false },
      remaining: [],
      already_purged: true,
      guidance: `${id} was purged already; nothing of it is left to remove.`,
    }
  }
  const { group, removed, anchors, paths, redacted, usage, queries } = done
  const slots = group.filter((e) => e.key !== null && e.type !== 'raw').map((e) => slotOf(e))
  const digests = await sweepDigests(backend, await backend.indexView(), slots, (text) => anchors.some((a) => holdsValue(a, text)))
  await rebuildSearchCache(backend)
  await saveSeenStats(backend)
  const remaining = await stillHolding(backend, anchors, paths)
  return {
    id,
    purged: removed.map((e) => e.id),
    removed_paths: removed.map((e) => e.path),
    redacted_events: redacted,
    scrubbed: { usage_lines: usage, query_lines: queries, digests, index_compacted: true, search_index_rebuilt: true },
    remaining,
    already_purged: false,
    guidance:
      (remaining.length === 0
        ? `Purged ${removed.length} file(s); their text is gone from the ledger, the index, the logs, digests and caches. `
        : `Purged ${removed.length} file(s), but ${remaining.length} file(s) still hold the value: ${remaining.slice(0, 5).join(', ')}. Forget and purge the memories among them too. `) +
      GIT_HISTORY_NOTE,
  }
}
