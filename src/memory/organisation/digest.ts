/**
 * Current belief per slot: `digests/<slot>.md` holds the latest statement of a slot (a memory
 * written with a key or title), its unresolved conflicts (at most 3, with date and source) and
 * how many older versions exist, in at most 400 tokens. A digest is a cache of the memory files:
 * stale when it is older than the slot's newest entry or does not list it among its sources
 * (same-millisecond writes included), and then rebuilt on read. `digests/` is never indexed.
 */

import { MemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { parseFile, renderFile } from '../../store/frontmatter.js'
import { slotOf, type IndexLookup } from '../../store/index-view.js'
import { sha1, truncateUnits } from '../../text.js'
import { sanitized } from '../truth/injection-guard.js'
import { premisesConflict } from '../../store/premises.js'
import { charsForBudget, type IndexEntry } from '../../types.js'

/** A digest's text stays within this many tokens. */
export const DIGEST_MAX_TOKENS = 400
const MAX_CONFLICTS_SHOWN = 3
const SLOT_FILE_CHARS = 120

/** The file of a slot: the slot encoded for a file name, cut to 120 characters plus a hash when longer. */
export function digestPath(slot: string): string {
  const encoded = encodeURIComponent(slot)
  if (encoded.length <= SLOT_FILE_CHARS) return `digests/${encoded}.md`
  // Cut at a character boundary, never through the escapes of one character.
  let name = ''
  for (const ch of slot) {
    const piece = encodeURIComponent(ch)
    if (name.length + piece.length > SLOT_FILE_CHARS) break
    name += piece
  }
  name = `${name}-${sha1(slot).slice(0, 12)}`
  return `digests/${name}.md`
}

export interface SlotState {
  slot: string
  /** The key as its newest entry states it. */
  key: string
  entries: IndexEntry[]
  current: IndexEntry[]
  conflicts: IndexEntry[]
  history: number
  newest: IndexEntry
}

const ordered = (list: IndexEntry[]) => [...list].sort((a, b) => a.time.localeCompare(b.time) || a.id.localeCompare(b.id))

/** Statuses a digest speaks of: current and older versions; not forgotten, orphaned, or unconfirmed ones. */
const DIGESTED = new Set(['active', 'conflict', 'superseded'])

/** The memories of a slot (episodes and topics with a key). */
function slotState(view: IndexLookup, slot: string): SlotState | null {
  const entries = ordered(view.inSlot(slot).filter((e) => e.key !== null && e.type !== 'raw' && DIGESTED.has(e.status)))
  const newest = entries[entries.length - 1]
  if (newest === undefined) return null
  const current = entries.filter((e) => e.status === 'active' || e.status === 'conflict')
  return {
    slot,
    key: newest.key ?? slot,
    entries,
    current,
    conflicts: current.filter((e) => e.status === 'conflict'),
    history: entries.filter((e) => e.status === 'superseded').length,
    newest,
  }
}

/** Every slot of the store, by its normalised name. */
export function allSlots(view: IndexLookup): SlotState[] {
  const slots = new Set<string>()
  for (const e of view.values()) if (e.key !== null && e.type !== 'raw' && DIGESTED.has(e.status)) slots.add(slotOf(e))
  return [...slots]
    .sort()
    .map((slot) => slotState(view, slot))
    .filter((s): s is SlotState => s !== null)
}

export function findSlot(view: IndexLookup, key: string): SlotState | null {
  return slotState(view, slotOf({ key, title: key }))
}

function sourceOf(e: IndexEntry): string {
  return e.session_id ?? e.sources[0]?.kind ?? 'unknown'
}

/** The digest body: latest statement first, then open conflicts, then the count of older versions. */
export function digestText(state: SlotState): string {
  const limit = charsForBudget(DIGEST_MAX_TOKENS)
  const lead = ordered(state.current).pop() ?? state.newest
  const lines = [`# ${state.key}`, '', lead.scope !== undefined ? `${lead.summary} [scope: ${lead.scope}]` : lead.summary]
  // Premises keep versions apart (premises.ts): what the slot holds under other conditions is current too.
  const elsewhere = state.current.filter((e) => e.id !== lead.id && e.status === 'active' && premisesConflict(e.scope, lead.scope))
  if (elsewhere.length > 0) {
    lines.push('', '其他前提下的当前说法：')
    for (const e of elsewhere.slice(-MAX_CONFLICTS_SHOWN).reverse()) lines.push(`- [scope: ${e.scope}] ${e.time.slice(0, 10)}：${truncateUnits(e.summary, 200)}`)
  }
  const others = state.conflicts.filter((e) => e.id !== lead.id)
  if (lead.status === 'conflict' || others.length > 0) {
    lines.push('', '⚠ 未裁决冲突（用 memory_resolve 收尾）：')
    for (const e of others.slice(-MAX_CONFLICTS_SHOWN).reverse()) lines.push(`- ${e.time.slice(0, 10)}（来源 ${sourceOf(e)}）：${truncateUnits(e.summary, 200)}`)
    if (others.length > MAX_CONFLICTS_SHOWN) lines.push(`- 另有 ${others.length - MAX_CONFLICTS_SHOWN} 种说法未列出`)
  }
  if (state.history > 0) lines.push('', `另有 ${state.history} 个历史版本留档（superseded，可顺 supersedes 链追溯）。`)
  // Sanitised before the limit is applied: a digest is rendered for a model wherever it goes.
  const text = sanitized(lines.join('\n'))
  return text.length <= limit ? text : truncateUnits(text, limit)
}

export interface DigestFile {
  slot: string
  path: string
  text: string
  updated_at: string
  status: 'active' | 'conflict'
  sources: string[]
  /** Hash of every slot entry's id and checksum when built: any status change or edit shows. */
  fingerprint: string
}

function fingerprintOf(state: SlotState): string {
  return sha1(state.entries.map((e) => `${e.id}:${e.checksum}`).join('\n')).slice(0, 16)
}

export async function readDigest(backend: MemoryBackend, slot: string): Promise<DigestFile | null> {
  const path = digestPath(slot)
  const raw = await backend.readFile(path)
  if (raw === null) return null
  const { data, body } = parseFile(raw)
  const sources = Array.isArray(data.sources) ? data.sources.filter((s): s is string => typeof s === 'string') : []
  const updated = typeof data.updated_at === 'string' ? data.updated_at : data.updated_at instanceof Date ? data.updated_at.toISOString() : ''
  const fingerprint = typeof data.fingerprint === 'string' ? data.fingerprint : ''
  return { slot, path, text: body.trim(), updated_at: updated, status: data.status === 'conflict' ? 'conflict' : 'active', sources, fingerprint }
}

/**
 * Stale: older than the slot's newest entry, or not built from it (same-millisecond writes
 * too), or built before any entry of the slot changed (a resolve, a forget, a hand edit).
 */
export function isStale(digest: DigestFile | null, state: SlotState): boolean {
  if (digest === null) return true
  return digest.updated_at < state.newest.time || !digest.sources.includes(state.newest.id) || digest.fingerprint !== fingerprintOf(state)
}

export async function writeDigest(backend: MemoryBackend, state: SlotState): Promise<DigestFile> {
  const text = digestText(state)
  const digest: DigestFile = {
    slot: state.slot,
    path: digestPath(state.slot),
    text,
    updated_at: state.newest.time > backend.now() ? state.newest.time : backend.now(),
    status: state.conflicts.length > 0 ? 'conflict' : 'active',
    sources: state.entries.map((e) => e.id),
    fingerprint: fingerprintOf(state),
  }
  const { slot: _slot, path: _path, text: _text, ...meta } = digest
  await backend.writeFileAtomic(digest.path, renderFile({ slot: state.key, ...meta }, `${text}\n`))
  return digest
}

/** The digest of a slot, rebuilt first when it is missing, stale or `refresh` is asked. */
export async function freshDigest(backend: MemoryBackend, state: SlotState, refresh: boolean): Promise<{ digest: DigestFile; rebuilt: boolean }> {
  const current = await readDigest(backend, state.slot)
  if (!refresh && current !== null && !isStale(current, state)) return { digest: current, rebuilt: false }
  return { digest: await writeDigest(backend, state), rebuilt: true }
}

export interface SlotDigest {
  slot: string
  path: string
  text: string
  updated_at: string
  status: 'active' | 'conflict'
  rebuilt: boolean
}

export interface SlotListing {
  slot: string
  path: string
  updated_at: string | null
  stale: boolean
  entries: number
  conflict: boolean
  history: number
  text?: string
}

/** The digest of the slot with this key (NOT_FOUND when no memory has it), fresh. */
export async function digestForKey(backend: MemoryBackend, key: string, refresh: boolean): Promise<SlotDigest> {
  await ensureFresh(backend)
  const state = findSlot(await backend.indexView(), key)
  if (state === null) throw new MemoryError('NOT_FOUND', `no memory has the key ${JSON.stringify(key)}; list slots with memory_digest({})`, 'key')
  const { digest, rebuilt } = await freshDigest(backend, state, refresh)
  return { slot: state.key, path: digest.path, text: digest.text, updated_at: digest.updated_at, status: digest.status, rebuilt }
}

/** Every slot, with whether its digest is stale; `refresh` rebuilds them all first. */
export async function listDigests(backend: MemoryBackend, refresh: boolean): Promise<{ slots: SlotListing[] }> {
  await ensureFresh(backend)
  const slots: SlotListing[] = []
  for (const state of allSlots(await backend.indexView())) {
    const found = refresh ? (await freshDigest(backend, state, true)).digest : await readDigest(backend, state.slot)
    const stale = isStale(found, state)
    slots.push({
      slot: state.key,
      path: digestPath(state.slot),
      updated_at: found?.updated_at ?? null,
      stale,
      entries: state.entries.length,
      conflict: state.conflicts.length > 0,
      history: state.history,
      ...(found !== null && !stale ? { text: found.text } : {}),
    })
  }
  return { slots }
}
