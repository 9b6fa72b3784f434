/**
 * Folding restatements into one survivor, and undoing it. A merge keeps the survivor's summary,
 * carries over what the folded memories add (tags, entities, sources, longer or other details,
 * a higher confidence), then folds them: `superseded` by the survivor with `merged_into`, still
 * on disk and undone by `undemote`. Members whose premises conflict with the survivor's, or with
 * a member already folded, are never folded (`blocked`). A dry run plans the same and writes
 * nothing.
 *
 * Recorded for readers of lineage: a folded file gets `merged_into: <survivor>` and `merged_at`
 * (with `status: superseded`, `superseded_by: <survivor>`); the survivor gets
 * `merged_from: [ids]`; the ledger gets `merge` { id: survivor, ids: folded, blocked, carried }
 * and `undemote` { id: survivor, ids: restored }.
 */

import { MemoryError, invalidInput } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { parseFile } from '../../store/frontmatter.js'
import type { IndexLookup } from '../../store/index-view.js'
import { comparePremises } from '../../store/premises.js'
import { bigramJaccard, normalizeForHash } from '../../text.js'
import type { IndexEntry, Source } from '../../types.js'
import { mergeable, readMember, restatementGroups, survivorOrder, usageHitsOf, type MemberFile } from './duplicates.js'
import { rawSibling, setStatus } from '../writing/slots.js'
import { transact, type Txn } from '../writing/txn.js'

export interface MergeRequest {
  ids: string[]
  into?: string
  dryRun: boolean
}

export interface MergeResult {
  dryRun: boolean
  survivor: { id: string; path: string; title: string; summary: string }
  folded: Array<{ id: string; path: string; summary: string; similarity: number }>
  /** Named but folded into this merge's memories by an earlier merge: nothing to do for them. */
  alreadyFolded: string[]
  blocked: Array<{ id: string; conflictsWith: string; keys: string[] }>
  carried: string[]
  note: string
}

interface Member {
  entry: IndexEntry
  file: MemberFile
}

interface Plan {
  survivor: Member
  folded: Member[]
  alreadyFolded: string[]
  blocked: MergeResult['blocked']
  carried: string[]
  tags: string[]
  entities: string[]
  sources: Source[]
  confidence: number
  /** The survivor's details with the folded ones carried over, or null when they stay as they are. */
  details: string | null
}

function unknownId(id: string, field: string): MemoryError {
  return new MemoryError('NOT_FOUND', `no memory with id ${JSON.stringify(id)}; find restatements with memory_duplicates`, field)
}

/** The `merged_into` a file records, or null. */
async function mergedInto(backend: MemoryBackend, e: IndexEntry): Promise<string | null> {
  if (e.status !== 'superseded') return null
  const into = parseFile((await backend.readFile(e.path)) ?? '').data.merged_into
  return typeof into === 'string' ? into : null
}

/**
 * The memories a merge names: the active ones it may fold, and the ones an earlier merge already
 * folded into one of them (so that repeating a merge changes nothing and is no error).
 */
async function members(backend: MemoryBackend, index: IndexLookup, req: MergeRequest): Promise<{ active: IndexEntry[]; done: IndexEntry[] }> {
  const ids = [...new Set([...req.ids, ...(req.into !== undefined ? [req.into] : [])])]
  if (ids.length < 2) throw invalidInput('ids', 'at least two different memory ids (the restatements to fold, the survivor among them or in into)')
  const active: IndexEntry[] = []
  const done: IndexEntry[] = []
  for (const id of ids) {
    const e = index.get(id)
    if (e === undefined) throw unknownId(id, id === req.into && !req.ids.includes(id) ? 'into' : 'ids')
    if (mergeable(e)) {
      active.push(e)
      continue
    }
    const into = await mergedInto(backend, e)
    if (into !== null && ids.includes(into) && id !== req.into) {
      done.push(e)
      continue
    }
    const hint =
      into !== null ? `; it was folded into ${into}${req.into === id ? '' : ', which this merge does not name'} (memory_undemote brings it back)`
      : e.status === 'conflict' ? '; settle the conflict with memory_resolve first'
      : e.type === 'raw' ? '; merge its episode instead'
      : ''
    throw new MemoryError('INVALID_STATE', `${id} is ${e.type === 'raw' ? 'raw text' : e.status}; only active memories can be merged${hint}`, 'ids')
  }
  if (active.length === 0) throw new MemoryError('INVALID_STATE', 'none of these memories is active: an earlier merge folded them all', 'ids')
  return { active, done }
}

/** Every member must restate another (one connected group): otherwise this is not a merge of restatements. */
function requireRestatements(entries: IndexEntry[]): void {
  const group = restatementGroups(entries).find((g) => g.length === entries.length)
  if (group !== undefined) return
  const largest = restatementGroups(entries).sort((a, b) => b.length - a.length)[0] ?? []
  const apart = entries.filter((e) => !largest.includes(e)).map((e) => e.id)
  throw new MemoryError(
    'INVALID_STATE',
    `these memories do not all restate one another: ${apart.join(', ')} ${apart.length === 1 ? 'shares' : 'share'} no summary close enough (2-gram Jaccard >= 0.9) with the rest; memory_duplicates lists groups that can be merged`,
    'ids',
  )
}

function newItems(have: readonly string[], add: readonly string[]): string[] {
  const seen = new Set(have.map((s) => s.normalize('NFKC').toLowerCase()))
  const out: string[] = []
  for (const item of add) {
    const k = item.normalize('NFKC').toLowerCase()
    if (!seen.has(k)) {
      seen.add(k)
      out.push(item)
    }
  }
  return out
}

/** The strings of a front-matter list. */
function idList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : []
}

/** The survivor's body with `details` in place of its own (which are `own`). */
function withDetails(body: string, own: string, details: string): string {
  const at = own === '' ? -1 : body.lastIndexOf(own)
  if (at < 0) return `${body.trimEnd()}\n\n${details}\n`
  return `${body.slice(0, at)}${details}${body.slice(at + own.length)}`
}

async function plan(backend: MemoryBackend, index: IndexLookup, req: MergeRequest): Promise<Plan> {
  const { active: entries, done } = await members(backend, index, req)
  requireRestatements([...entries, ...done])
  const order = survivorOrder(await usageHitsOf(backend))
  const ranked = [...entries].sort(order)
  const chosen = req.into !== undefined ? (entries.find((e) => e.id === req.into) as IndexEntry) : (ranked[0] as IndexEntry)
  const read = async (entry: IndexEntry): Promise<Member> => ({ entry, file: await readMember(backend, entry) })
  const survivor = await read(chosen)

  const folded: Member[] = []
  const blocked: MergeResult['blocked'] = []
  for (const entry of ranked) {
    if (entry.id === chosen.id) continue
    const m = await read(entry)
    // Conflicting premises are one claim under two conditions, not a restatement: never folded.
    const clash = [survivor, ...folded].find((other) => comparePremises(other.file.scope, m.file.scope).relation === 'conflict')
    if (clash !== undefined) blocked.push({ id: entry.id, conflictsWith: clash.entry.id, keys: comparePremises(clash.file.scope, m.file.scope).keys })
    else folded.push(m)
  }

  const carried: string[] = []
  const s = survivor.entry
  const tags = newItems(s.tags, folded.flatMap((m) => m.entry.tags))
  const entities = newItems(s.entities, folded.flatMap((m) => m.entry.entities))
  if (tags.length > 0) carried.push(`tags +${tags.length} (${tags.join(', ')})`)
  if (entities.length > 0) carried.push(`entities +${entities.length} (${entities.join(', ')})`)
  const sources = [...s.sources]
  for (const m of folded)
    for (const src of m.entry.sources)
      if (!sources.some((x) => x.session_id === src.session_id && x.kind === src.kind)) {
        sources.push(src)
        carried.push(`source ${src.session_id ?? src.kind} from ${m.entry.id}`)
      }
  const confidence = Math.max(s.confidence, ...folded.map((m) => m.entry.confidence))
  if (confidence > s.confidence) carried.push(`confidence ${s.confidence} -> ${confidence}`)
  let details = survivor.file.details
  for (const m of folded) {
    const theirs = normalizeForHash(m.file.details)
    const ours = normalizeForHash(details)
    if (theirs === '' || ours.includes(theirs)) continue
    if (theirs.includes(ours)) {
      details = m.file.details
      carried.push(`details from ${m.entry.id} (longer)`)
    } else {
      details = `${details}\n\n${m.file.details}`
      carried.push(`details from ${m.entry.id} (added)`)
    }
  }
  return {
    survivor,
    folded,
    alreadyFolded: done.map((e) => e.id),
    blocked,
    carried,
    tags: [...s.tags, ...tags],
    entities: [...s.entities, ...entities],
    sources,
    confidence,
    details: details === survivor.file.details ? null : details,
  }
}

function result(p: Plan, dryRun: boolean): MergeResult {
  const s = p.survivor.entry
  const n = p.folded.length
  const note =
    n === 0 && p.blocked.length === 0
      ? `nothing to fold: ${p.alreadyFolded.join(', ')} ${p.alreadyFolded.length === 1 ? 'was' : 'were'} folded by an earlier merge`
      : n === 0
      ? `nothing to fold: every other memory's premises conflict with ${s.id}'s or with each other (see blocked); they stay as they are`
      : dryRun
        ? `preview only: applying would keep ${s.id} and fold ${n} restatement(s) into it (undo with memory_undemote); call again with dryRun: false`
        : `kept ${s.id} and folded ${n} restatement(s) into it; memory_undemote brings them back`
  return {
    dryRun,
    survivor: { id: s.id, path: s.path, title: s.title, summary: s.summary },
    folded: p.folded.map((m) => ({ id: m.entry.id, path: m.entry.path, summary: m.entry.summary, similarity: Math.round(bigramJaccard(m.entry.summary, s.summary) * 1000) / 1000 })),
    alreadyFolded: p.alreadyFolded,
    blocked: p.blocked,
    carried: p.carried,
    note,
  }
}

async function apply(txn: Txn, p: Plan): Promise<void> {
  const s = p.survivor.entry
  // Both from the file as it is when it is rewritten: a hand edit made since the plan stays.
  const patch = (current: Record<string, unknown>) => ({
    tags: p.tags,
    entities: p.entities,
    sources: p.sources,
    confidence: p.confidence,
    merged_from: [...new Set([...idList(current.merged_from), ...p.folded.map((m) => m.entry.id)])],
  })
  const details = p.details
  const updated = await txn.update(s, patch, details === null ? undefined : (body) => withDetails(body, p.survivor.file.details, details))
  if (updated === null) throw new MemoryError('NOT_FOUND', `the file of ${s.id} (${s.path}) is gone; run rebuild`, 'ids')
  // The raw text shares its episode's sources, so forgetting a session treats both alike.
  const raw = rawSibling(txn, s)
  if (raw !== undefined) await txn.update(raw, { sources: p.sources })
  for (const m of p.folded) await setStatus(txn, m.entry, 'superseded', { superseded_by: s.id, merged_into: s.id, merged_at: txn.now })
  txn.log({ event: 'merge', id: s.id, ids: p.folded.map((m) => m.entry.id), blocked: p.blocked.map((b) => b.id), carried: p.carried })
}

export async function mergeMemories(backend: MemoryBackend, req: MergeRequest): Promise<MergeResult> {
  // Ids come from a report of the files as they are: hand edits since are taken in first.
  await ensureFresh(backend)
  if (req.dryRun) return result(await plan(backend, await backend.indexView(), req), true)
  return transact(backend, async (txn) => {
    const p = await plan(txn.backend, txn.index, req)
    if (p.folded.length > 0) await apply(txn, p)
    return result(p, false)
  })
}

export interface UndemoteResult {
  restored: Array<{ id: string; from: string }>
  /** Already active: nothing to do (a repeated undemote). */
  unchanged: string[]
}

/** Brings folded memories back: active again, off their survivor's `merged_from`. Repeating it changes nothing. */
export function undemote(backend: MemoryBackend, ids: string[]): Promise<UndemoteResult> {
  return transact(backend, async (txn) => {
    const unique = [...new Set(ids)]
    if (unique.length === 0) throw invalidInput('ids', 'at least one memory id folded by memory_merge')
    const restored: UndemoteResult['restored'] = []
    const unchanged: string[] = []
    const bySurvivor = new Map<string, string[]>()
    for (const id of unique) {
      const entry = txn.index.get(id)
      if (entry === undefined) throw unknownId(id, 'ids')
      if (mergeable(entry)) {
        unchanged.push(id)
        continue
      }
      const into = await mergedInto(txn.backend, entry)
      if (into === null)
        throw new MemoryError('INVALID_STATE', `${id} is ${entry.type === 'raw' ? 'raw text' : entry.status}, not folded by memory_merge; only memories a merge folded can be undemoted`, 'ids')
      await setStatus(txn, entry, 'active', { superseded_by: entry.superseded_by === into ? null : entry.superseded_by, merged_into: null, merged_at: null })
      restored.push({ id, from: into })
      bySurvivor.set(into, [...(bySurvivor.get(into) ?? []), id])
    }
    for (const [survivorId, back] of bySurvivor) {
      const survivor = txn.index.get(survivorId)
      if (survivor !== undefined) {
        await txn.update(survivor, (current) => {
          const left = idList(current.merged_from).filter((x) => !back.includes(x))
          return { merged_from: left.length > 0 ? left : null }
        })
      }
      txn.log({ event: 'undemote', id: survivorId, ids: back })
    }
    return { restored, unchanged }
  })
}
