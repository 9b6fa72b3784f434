/**
 * Settling what a pull could not merge, so that no conflict marker ever reaches a memory file
 * or the index:
 *
 * - a memory file both sides changed merges field by field (`merge.ts`); when the content
 *   itself differs, both versions are kept as memories: ours at its path, theirs under a new id
 *   beside it, both `conflict` with each other as `variants`, for `memory_resolve` to settle.
 *   (Two old versions that are neither current are kept side by side with their status.)
 * - a file one side deleted and the other changed is kept as changed: nothing is lost.
 * - another store file (config.json, aliases.json, a folder note) keeps our version; theirs
 *   stays in the history and the result says so.
 * - a slot that ends with two current versions (each side wrote a new version of one fact) has
 *   them marked `conflict` with each other, as `expectConflict` would have; a conflict whose
 *   other side is gone (resolved elsewhere) is current again; versions left superseding each
 *   other in a circle (each side dropped a different variant) are a conflict again.
 *
 * The planners are pure; `settleUnmerged` and `repairSlots` write files through the
 * backend and must run inside the store lock, during the merge.
 */

import { pushAll } from '../arrays.js'
import type { MemoryBackend } from '../store/backend.js'
import { entryFromFile, isMemoryPath, parseFile, renderFile } from '../store/frontmatter.js'
import { slotOf, type IndexLookup } from '../store/index-view.js'
import { baseFrontMatter } from '../memory/writing/txn.js'
import { newMemoryId } from '../memory/writing/write.js'
import type { IndexEntry, LedgerEventDraft, MemoryStatus } from '../types.js'
import { mergeMemoryText } from './merge.js'

/** Memories a sync left in `conflict`, to settle with memory_resolve (keep one, or drop one). */
export interface SyncConflict {
  /** Ours first. */
  ids: string[]
  paths: string[]
  reason: string
}

/** A file the sync settled by keeping one side (or both, side by side), and why. */
export interface KeptFile {
  path: string
  kept: 'ours' | 'theirs' | 'both'
  reason: string
}

export interface Settlement {
  conflicts: SyncConflict[]
  kept: KeptFile[]
  events: LedgerEventDraft[]
  /** Store paths written (to stage). */
  written: string[]
}

/**
 * An unmerged path and the text git holds for it in each stage (null: that side has none). Only
 * memory files are read; another file carries '' for each side it has, and is settled by
 * `keepSide` (git's own checkout of a stage, exact for any bytes).
 */
export interface UnmergedFile {
  path: string
  base: string | null
  ours: string | null
  theirs: string | null
}

const CURRENT: ReadonlySet<MemoryStatus> = new Set(['active', 'conflict'])

/** A memory file's front-matter with fields this program derives filled in (a hand file has none). */
function frontMatterOf(path: string, text: string, mtimeMs: number): { data: Record<string, unknown>; body: string; entry: IndexEntry } {
  const parsed = parseFile(text)
  const entry = entryFromFile(path, text, mtimeMs)
  const data = parsed.hasFrontMatter ? { id: entry.id, type: entry.type, time: entry.time, ...parsed.data } : baseFrontMatter(entry)
  return { data, body: parsed.body, entry }
}

/** The text of a memory file with its front-matter patched (null removes a field); body and unknown fields kept. Pure. */
export function patchMemoryText(path: string, text: string, patch: Record<string, unknown>, mtimeMs: number): string {
  const { data, body } = frontMatterOf(path, text, mtimeMs)
  return renderFile({ ...data, ...patch }, body)
}

/** Where their version of `path` goes: the same name with the new id in place of ours. Pure. */
export function variantPath(path: string, ourId: string, theirId: string, taken: (p: string) => boolean): string {
  const slash = path.lastIndexOf('/')
  const dir = path.slice(0, slash + 1)
  const name = path.slice(slash + 1).replace(/\.md$/i, '')
  const stem = name.includes(ourId) ? name.replace(ourId, theirId) : `${name}-${theirId}`
  let candidate = `${dir}${stem}.md`
  for (let n = 2; taken(candidate); n++) candidate = `${dir}${stem}-${n}.md`
  return candidate
}

const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])]

/**
 * Both versions of a memory file whose content both sides changed, as two files: ours at
 * `path`, theirs beside it under its own id. Pure (ids and paths come in).
 */
export function splitVariants(
  path: string,
  ours: string,
  theirs: string,
  opts: { now: number; newId: () => string; taken: (p: string) => boolean },
): { files: Array<{ path: string; text: string }>; conflict: SyncConflict | null; kept: KeptFile | null; events: LedgerEventDraft[] } {
  const o = frontMatterOf(path, ours, opts.now)
  const t = frontMatterOf(path, theirs, opts.now)
  const ourId = o.entry.id
  const theirId = t.entry.id === ourId ? opts.newId() : t.entry.id
  const theirPath = variantPath(path, ourId, theirId, opts.taken)
  // Their copy keeps its own raw text only if it had another one: a raw file shared with ours
  // belongs to ours, and settling their copy must not change its status.
  const theirRaw = t.data.raw_ref === o.data.raw_ref ? { raw_ref: null } : {}
  const bothOld = !CURRENT.has(o.entry.status) && o.entry.status === t.entry.status
  if (bothOld) {
    // Two edits of a version that is no longer current: nothing to decide, keep both as they are.
    return {
      files: [
        { path, text: ours },
        { path: theirPath, text: renderFile({ ...t.data, id: theirId, variant_of: ourId, ...theirRaw }, t.body) },
      ],
      conflict: null,
      kept: { path, kept: 'both', reason: `both sides changed this ${o.entry.status} memory; theirs is kept beside it as ${theirPath}` },
      events: [{ event: 'sync-kept-both', id: ourId, ids: [theirId], path, variant_path: theirPath }],
    }
  }
  const files = [
    { path, text: renderFile({ ...o.data, status: 'conflict', variants: union(o.entry.variants, [theirId]) }, o.body) },
    {
      path: theirPath,
      text: renderFile({ ...t.data, id: theirId, status: 'conflict', variants: union(t.entry.variants.filter((v) => v !== theirId), [ourId]), variant_of: ourId, ...theirRaw }, t.body),
    },
  ]
  return {
    files,
    conflict: { ids: [ourId, theirId], paths: [path, theirPath], reason: 'both sides changed this memory' },
    kept: null,
    events: [{ event: 'conflict', id: ourId, ids: [theirId], slot: slotOf(o.entry), via: 'sync', path, variant_path: theirPath }],
  }
}

/** Settles every unmerged store path, writing the results through the backend. Returns what it did. */
export async function settleUnmerged(
  backend: MemoryBackend,
  files: readonly UnmergedFile[],
  now: number,
  keepSide: (path: string, side: 'ours' | 'theirs') => Promise<void>,
): Promise<Settlement> {
  const out: Settlement = { conflicts: [], kept: [], events: [], written: [] }
  const planned = new Set<string>()
  const listed = new Map<string, Set<string>>()
  const taken = (p: string) => planned.has(p) || (listed.get(p.slice(0, p.lastIndexOf('/') + 1))?.has(p) ?? false)
  const write = async (path: string, text: string) => {
    await backend.writeFileAtomic(path, text)
    planned.add(path)
    out.written.push(path)
  }
  for (const f of files) {
    if (f.path === 'ledger.jsonl') continue // merged by its own rule, after this
    if (f.ours === null || f.theirs === null) {
      if (f.ours === null && f.theirs === null) continue // deleted on both sides
      const side = f.ours !== null ? 'ours' : 'theirs'
      await keepSide(f.path, side)
      planned.add(f.path)
      out.kept.push({ path: f.path, kept: side, reason: side === 'ours' ? 'deleted on the other side, changed here: kept' : 'deleted here, changed on the other side: kept' })
      out.events.push({ event: 'sync-kept', path: f.path, kept: side })
      continue
    }
    if (!isMemoryPath(f.path)) {
      await keepSide(f.path, 'ours')
      planned.add(f.path)
      out.kept.push({ path: f.path, kept: 'ours', reason: 'both sides changed this file; this side is kept, theirs is in the history (git log -p)' })
      out.events.push({ event: 'sync-kept', path: f.path, kept: 'ours' })
      continue
    }
    const merged = mergeMemoryText(f.base, f.ours, f.theirs)
    if (merged.kind === 'merged') {
      await write(f.path, merged.text)
      continue
    }
    const folder = f.path.slice(0, f.path.lastIndexOf('/') + 1)
    if (!listed.has(folder)) listed.set(folder, new Set(await backend.listFiles(folder)))
    const split = splitVariants(f.path, f.ours, f.theirs, { now, newId: newMemoryId, taken })
    for (const file of split.files) await write(file.path, file.text)
    if (split.conflict !== null) out.conflicts.push({ ...split.conflict, reason: `${split.conflict.reason} (${merged.reason})` })
    if (split.kept !== null) out.kept.push(split.kept)
    pushAll(out.events, split.events)
  }
  return out
}

/** What a slot needs after a merge: its current versions in one conflict, or its last one current again. */
export interface SlotRepair {
  /** The slot's current versions (active or conflict), to be one conflict: each with the others as variants. */
  conflict: IndexEntry[] | null
  /** A lone `conflict` whose other sides are all gone or superseded: active again. */
  settle: IndexEntry | null
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x))

/**
 * Slots (with an explicit key) that a merge touched and left inconsistent: two or more current
 * versions that are not one conflict (each side wrote a new version of one fact, or a conflict
 * met a newer version), or one conflict left without another side. Pure: `changed` maps every
 * changed path to its entry after the merge (null: removed).
 */
export function planSlotRepairs(index: IndexLookup, changed: ReadonlyMap<string, IndexEntry | null>): SlotRepair[] {
  const bySlot = new Map<string, IndexEntry[]>()
  const touched = new Map<string, { slot: string; type: string }>()
  for (const e of changed.values()) {
    if (e === null) continue
    const slot = slotOf(e)
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), e])
    if (e.key !== null) touched.set(`${e.type}\u0000${slot}`, { slot, type: e.type })
  }
  const repairs: SlotRepair[] = []
  for (const { slot, type } of touched.values()) {
    const members = new Map<string, IndexEntry>()
    for (const e of index.inSlot(slot)) if (!changed.has(e.path)) members.set(e.id, e)
    for (const e of bySlot.get(slot) ?? []) members.set(e.id, e)
    // A file whose front-matter does not parse is never rewritten: it waits for a person.
    const current = [...members.values()]
      .filter((e) => e.type === type && e.key !== null && CURRENT.has(e.status) && e.front_matter_error === undefined)
      .sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
    const ids = current.map((e) => e.id)
    if (current.length === 0) {
      // Each side settled the same conflict the other way (each dropped a different variant):
      // the versions now supersede each other and none is current. They are a conflict again.
      const cycle = supersedeCycle([...members.values()].filter((e) => e.type === type && e.key !== null))
      if (cycle.length > 1) repairs.push({ conflict: cycle, settle: null })
    } else if (current.length > 1) {
      const consistent = current.every((e) => e.status === 'conflict' && sameSet(e.variants, ids.filter((id) => id !== e.id)))
      if (!consistent) repairs.push({ conflict: current, settle: null })
    } else if (current.length === 1 && current[0]?.status === 'conflict') {
      repairs.push({ conflict: null, settle: current[0] })
    }
  }
  return repairs
}

/** Superseded versions whose `superseded_by` pointers lead round in a circle, oldest first. Pure. */
export function supersedeCycle(entries: readonly IndexEntry[]): IndexEntry[] {
  const byId = new Map(entries.map((e) => [e.id, e]))
  const inCycle = new Map<string, IndexEntry>()
  for (const start of entries) {
    const path: string[] = []
    let e: IndexEntry | undefined = start
    while (e !== undefined && e.status === 'superseded' && e.superseded_by !== null && !path.includes(e.id)) {
      path.push(e.id)
      e = byId.get(e.superseded_by)
    }
    if (e === undefined || !path.includes(e.id)) continue
    for (const id of path.slice(path.indexOf(e.id))) inCycle.set(id, byId.get(id) as IndexEntry)
  }
  return [...inCycle.values()].sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))
}

/** Applies slot repairs to the memory files. Returns what it did. */
export async function repairSlots(backend: MemoryBackend, repairs: readonly SlotRepair[], now: number): Promise<Settlement> {
  const out: Settlement = { conflicts: [], kept: [], events: [], written: [] }
  const rewrite = async (e: IndexEntry, patch: Record<string, unknown>) => {
    // A compare-and-swap, as every rewrite of a memory file: a hand edit made meanwhile stays.
    if ((await backend.rewriteFile(e.path, (text) => patchMemoryText(e.path, text, patch, now))) !== null) out.written.push(e.path)
  }
  for (const { conflict, settle } of repairs) {
    if (settle !== null) {
      await rewrite(settle, { status: 'active', variants: null })
      out.events.push({ event: 'resolve', id: settle.id, action: 'keep', via: 'sync', reason: 'no other current version left in its slot' })
    }
    if (conflict === null) continue
    const ids = conflict.map((e) => e.id)
    for (const e of conflict) await rewrite(e, { status: 'conflict', variants: ids.filter((id) => id !== e.id), superseded_by: null })
    const first = conflict[0] as IndexEntry
    out.conflicts.push({ ids, paths: conflict.map((e) => e.path), reason: `both sides hold a current version of "${first.key ?? first.title}"` })
    out.events.push({ event: 'conflict', id: first.id, ids: ids.slice(1), slot: slotOf(first), via: 'sync' })
  }
  return out
}
