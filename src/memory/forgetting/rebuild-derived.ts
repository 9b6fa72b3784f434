/**
 * A derived memory (a session summary, an exchange, a promoted topic: `derived_from` names what it
 * was made from) that loses some of its sources to a forget is made again from the ones left
 * clean, extractively and without a model: the parts of its text that a clean source says are
 * kept, the parts a forgotten source said (or that repeat the forgotten value) go; when nothing
 * is left of it, it takes the clean sources' own words. The new version supersedes the old one,
 * which is forgotten (deleted_pending, so neither search nor an as-of read says it again), its
 * lineage names the clean sources only, and a `rebuild-derived` event records both. Only when no
 * clean source is left (or the rebuilt text would still repeat the value) is it forgotten whole.
 */

import type { IndexLookup } from '../../store/index-view.js'
import { memoryBody, parseFile } from '../../store/frontmatter.js'
import { normalizeForHash, slugify } from '../../text.js'
import type { IndexEntry } from '../../types.js'
import type { Txn } from '../writing/txn.js'
import { defaultTitle, derivedSources, newMemoryId } from '../writing/write.js'

export interface RebuiltDerived {
  /** The new version (null in a dry run). */
  id: string | null
  /** The version it replaces, now forgotten. */
  was: string
  /** What the new version is derived from: the clean sources. */
  derived_from: string[]
  /** The sources forgotten, which it no longer draws on. */
  dropped: string[]
}

/** What a derived memory was made from and is still there unforgotten, `going` (forgotten now) left out, in lineage order. */
export function cleanSources(index: IndexLookup, entry: IndexEntry, going: ReadonlySet<string>): IndexEntry[] {
  const out: IndexEntry[] = []
  for (const id of entry.derived_from ?? []) {
    const source = index.get(id)
    if (source !== undefined && source.status !== 'deleted_pending' && !going.has(id)) out.push(source)
  }
  return out
}

/** The sources of `entry` that are not among `clean`, as `known` (forgotten in this call) or the index has them. */
export function droppedSources(index: IndexLookup, entry: IndexEntry, clean: readonly IndexEntry[], known: ReadonlyMap<string, IndexEntry>): IndexEntry[] {
  const kept = new Set(clean.map((s) => s.id))
  const out: IndexEntry[] = []
  for (const id of entry.derived_from ?? []) {
    const source = kept.has(id) ? undefined : (known.get(id) ?? index.get(id))
    if (source !== undefined) out.push(source)
  }
  return out
}

/** The live derived memories drawing on any of `ids`. */
export function derivedFromAny(index: IndexLookup, ids: ReadonlySet<string>): IndexEntry[] {
  if (ids.size === 0) return []
  return [...index.values()].filter((e) => e.status !== 'deleted_pending' && !ids.has(e.id) && (e.derived_from ?? []).some((id) => ids.has(id)))
}

/** How a derived text joins its parts: an exchange's bar, a summary's semicolons, or nothing (one statement). */
function separatorOf(text: string): string | null {
  return ([' \u2016 ', '；', '; '] as const).find((s) => text.includes(s)) ?? null
}

/** A part's own words: the labels before it ("Session s (day, 3 episodes): Decided: ") and a cut's ellipsis left out. */
function wordsOf(part: string): string {
  return normalizeForHash(part.replace(/^(?:[^:：\n]{1,60}[:：]\s*){1,2}/u, '').replace(/(?:…|\.\.\.)$/u, ''))
}

function saidBy(part: string, sources: readonly IndexEntry[]): boolean {
  const words = wordsOf(part)
  return Array.from(words).length >= 2 && sources.some((s) => normalizeForHash(s.summary).includes(words))
}

/**
 * The text of a derived memory made again from `clean` once `dropped` are forgotten. Pure:
 * unchanged when no part of it came from a dropped source or repeats the value; else the parts a
 * clean source says; else the clean sources' words (the latest one for a one-statement text).
 */
export function rebuiltSummary(text: string, clean: readonly IndexEntry[], dropped: readonly IndexEntry[], repeats: (text: string) => boolean): string {
  const separator = separatorOf(text)
  const parts = separator === null ? [text] : text.split(separator)
  const tainted = (part: string) => saidBy(part, dropped) || repeats(part)
  if (!parts.some(tainted)) return text
  const kept = parts.filter((p) => !tainted(p) && saidBy(p, clean))
  if (separator !== null && kept.length > 0) return kept.join(separator)
  const words = clean.map((s) => s.summary)
  return separator === null ? (words.at(-1) as string) : words.join(separator)
}

export interface RebuildOptions {
  /** Whether a text repeats the value being forgotten (memory_forget); a session forget has none. */
  repeats: (text: string) => boolean
  /** A hard forget: the old version is removed from disk rather than kept as deleted_pending. */
  hard: boolean
}

/**
 * Makes `entry` again from `clean` (non-empty), `dropped` being the sources forgotten: a new file
 * that supersedes it, the old one forgotten. Null, writing nothing, when the rebuilt text would
 * still repeat the value: the caller forgets it instead.
 */
export async function rebuildDerived(txn: Txn, entry: IndexEntry, clean: readonly IndexEntry[], dropped: readonly IndexEntry[], options: RebuildOptions): Promise<RebuiltDerived | null> {
  const { repeats } = options
  const summary = rebuiltSummary(entry.summary, clean, dropped, repeats)
  if (repeats(summary)) return null
  const derivedFrom = clean.map((s) => s.id)
  const text = await txn.backend.readFile(entry.path)
  const stated = text === null ? {} : parseFile(text).data
  const title = summary === entry.summary || !(saidBy(entry.title, dropped) || repeats(entry.title)) ? entry.title : defaultTitle(summary)
  const id = newMemoryId()
  const sources = derivedSources(txn.index, derivedFrom, { session_id: null, kind: 'plugin' })
  const path = entry.type === 'episode' ? `episodes/${txn.now.slice(0, 10)}-${id}.md` : `topics/${slugify(title)}-${id}.md`
  await txn.create(
    path,
    {
      id,
      type: entry.type,
      title,
      time: txn.now,
      status: entry.status,
      session_id: sources.find((s) => s.session_id !== null)?.session_id ?? null,
      sources,
      confidence: entry.confidence,
      tags: entry.tags,
      entities: entry.entities,
      // A slot read from the old words may not be what the new ones say; a caller's key is kept.
      ...(entry.key !== null && entry.key_derived !== true ? { key: entry.key } : summary === entry.summary && typeof stated.slot === 'string' ? { slot: stated.slot } : {}),
      location: entry.location,
      derived_from: derivedFrom,
      supersedes: entry.id,
    },
    memoryBody(title, summary),
  )
  if (options.hard) await txn.remove(entry)
  else await txn.update(entry, { status: 'deleted_pending', deleted_from: entry.status, superseded_by: id, location: null })
  const dropping = dropped.map((s) => s.id)
  txn.log({ event: 'rebuild-derived', id, was: entry.id, ids: derivedFrom, dropped: dropping, via: 'forget', source: 'plugin' })
  return { id, was: entry.id, derived_from: derivedFrom, dropped: dropping }
}
