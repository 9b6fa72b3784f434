/**
 * Folder memory/forgetting/, whose main file this is, owns taking memory away: forgetting a
 * memory (with what repeats it) or a session, soft delete and restore, purging for good, decay,
 * clearing digests after a forget. Imports from the other capability folders: organisation,
 * reading, settings, writing; below memory/ anything (retrieve, store, language, ground); nothing
 * above (tools, stores, adapters).
 *
 * memory_forget: forgetting one memory (by id) or every memory a query names, and with it every
 * other memory that repeats the forgotten value (its statement, or the value it gives the same
 * thing; raw text and details included), so the value is not said again by another route.
 * Forgotten memories become deleted_pending (files kept, restorable, until memory_purge); a side
 * of a conflict leaves the conflict first. A derived memory (a summary, an exchange, a promoted
 * topic) that drew on a forgotten one, or repeats its value, is made again from its sources left
 * clean (rebuild-derived.ts), and forgotten only when none is. Afterwards the digests that repeated
 * the value are rebuilt or removed; resident injection and search follow the index and drop them at once.
 * A dry run plans the same and changes nothing.
 */

import { pushAll } from '../../arrays.js'
import { invalidInput } from '../../errors.js'
import { isSearchable } from '../../retrieve/search-index.js'
import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import type { MemoryBackend } from '../../store/backend.js'
import { ensureFresh } from '../../store/freshness.js'
import { parseFile } from '../../store/frontmatter.js'
import { slotOf, type IndexLookup } from '../../store/index-view.js'
import type { IndexEntry, MemoryStatus, MemoryType } from '../../types.js'
import { memories } from '../../text.js'
import { sweepDigests, type DigestChange } from './digest-sweep.js'
import { cleanSources, derivedFromAny, droppedSources, rebuildDerived, type RebuiltDerived } from './rebuild-derived.js'
import { requireEntry } from '../reading/lookup.js'
import { releaseVariants } from '../writing/resolve.js'
import { markDeleted } from './soft-delete.js'
import { transact } from '../writing/txn.js'
import { anchorOf, repeatsValue, type ValueAnchor } from '../writing/value.js'

export interface ForgetValueRequest {
  id?: string
  query?: string
  dryRun: boolean
}

export interface ForgottenMemory {
  id: string
  path: string
  type: MemoryType
  title: string
  /** Status before the forget. */
  from: MemoryStatus
  /**
   * Named by id, found by the query, forgotten because it repeats one of those (`via`), or
   * (`lineage`) derived from one of those with nothing it was made from left (`via`).
   */
  reason: 'id' | 'query' | 'repeats' | 'lineage'
  via: string | null
}

export interface ForgetValueResult {
  dry_run: boolean
  forgotten: ForgottenMemory[]
  /** Raw text forgotten with its episode. */
  raw: string[]
  /** Named or found, but forgotten already. */
  already: string[]
  /** Other sides of a conflict left alone by the forget, now active. */
  activated: string[]
  digests: DigestChange[]
  /** Derived memories that drew on a forgotten one: each made again from its clean sources, a new version (id null in a dry run). */
  rebuilt: RebuiltDerived[]
  /** Forgotten memories that resident injection and search could show before. */
  injection_cleared: number
  guidance: string
}

/** The terms a forget query must all match: its strong terms, or every term when it has none. */
export function forgetQueryTerms(query: string): string[] {
  const tokens = [...new Set(tokenize(query))]
  const strong = tokens.filter(isStrongTerm)
  const terms = strong.length > 0 ? strong : tokens
  if (terms.length === 0) throw invalidInput('query', 'words that name what to forget (this query has none that can be matched)')
  return terms
}

function matchesQuery(entry: IndexEntry, terms: readonly string[]): boolean {
  const have = new Set(tokenize([entry.title, entry.summary, ...entry.tags, ...entry.entities].join('\n')))
  return terms.every((t) => have.has(t))
}

/** Raw text reached through its episode; only a raw file without one is a candidate of its own. */
function standsAlone(entry: IndexEntry, view: IndexLookup): boolean {
  return entry.type !== 'raw' || entry.episode === null || view.get(entry.episode) === undefined
}

interface Plan {
  chosen: Array<{ entry: IndexEntry; reason: ForgottenMemory['reason']; via: string | null }>
  already: string[]
  anchors: ValueAnchor[]
}

type ReadFile = (relPath: string) => Promise<string | null>

/**
 * Everything a memory and its raw text say, for the repeat check: its words, never its
 * front-matter (whose ids and times hold digits that would pass for a value by chance).
 */
async function fullText(entry: IndexEntry, readFile: ReadFile): Promise<string> {
  const file = await readFile(entry.path)
  const said = [entry.title, entry.summary, ...entry.tags, ...entry.entities, file === null ? '' : parseFile(file).body].join('\n')
  const raw = entry.raw_ref !== null ? await readFile(entry.raw_ref) : null
  return raw === null ? said : `${said}\n${parseFile(raw).body}`
}

/**
 * Splits the plan's derived memories (a summary, an exchange, a promoted topic) from the rest:
 * each one that repeats the value or drew on a memory the plan forgets is made again from its
 * sources left clean, and goes only when none is left (`lineage` when only its lineage took it).
 */
function planDerived(view: IndexLookup, plan: Plan): { rebuild: Array<{ entry: IndexEntry; clean: IndexEntry[] }>; lineage: Plan['chosen'] } {
  const derivedRepeat = (c: Plan['chosen'][number]) => c.reason === 'repeats' && c.entry.derived_from !== undefined
  const going = new Set(plan.chosen.filter((c) => !derivedRepeat(c)).map((c) => c.entry.id))
  const candidates = new Map<string, IndexEntry>()
  for (const c of plan.chosen) if (derivedRepeat(c)) candidates.set(c.entry.id, c.entry)
  for (const e of derivedFromAny(view, going)) if (!candidates.has(e.id)) candidates.set(e.id, e)
  const rebuild: Array<{ entry: IndexEntry; clean: IndexEntry[] }> = []
  const lineage: Plan['chosen'] = []
  for (const entry of candidates.values()) {
    const clean = cleanSources(view, entry, going)
    if (clean.length > 0) rebuild.push({ entry, clean })
    else if (!plan.chosen.some((c) => c.entry.id === entry.id)) lineage.push({ entry, reason: 'lineage', via: (entry.derived_from ?? []).find((id) => going.has(id)) ?? null })
  }
  plan.chosen = [...plan.chosen.filter((c) => !rebuild.some((r) => r.entry.id === c.entry.id)), ...lineage]
  return { rebuild, lineage }
}

async function planForget(view: IndexLookup, readFile: ReadFile, req: { id?: string; query?: string; terms: string[] }): Promise<Plan> {
  const targets =
    req.id !== undefined
      ? [requireEntry({ index: view }, req.id, 'forget')]
      : [...view.values()].filter((e) => standsAlone(e, view) && e.status !== 'deleted_pending' && matchesQuery(e, req.terms))
  const reason = req.id !== undefined ? 'id' : 'query'
  const anchors = targets.map((t) => anchorOf(t, req.query ?? ''))
  const plan: Plan = { chosen: [], already: [], anchors }
  const named = new Set(targets.map((t) => t.id))
  for (const t of targets) {
    if (t.status === 'deleted_pending') plan.already.push(t.id)
    else plan.chosen.push({ entry: t, reason, via: null })
  }
  // One hop: what repeats a named memory's value goes too (even when that memory went earlier).
  for (const e of view.values()) {
    if (named.has(e.id) || e.status === 'deleted_pending' || !standsAlone(e, view)) continue
    const text = await fullText(e, readFile)
    const by = anchors.find((a) => repeatsValue(a, text))
    if (by !== undefined) plan.chosen.push({ entry: e, reason: 'repeats', via: by.id })
  }
  plan.chosen.sort((a, b) => a.entry.time.localeCompare(b.entry.time) || a.entry.id.localeCompare(b.entry.id))
  return plan
}

function describe(plan: Plan): ForgottenMemory[] {
  return plan.chosen.map(({ entry, reason, via }) => ({ id: entry.id, path: entry.path, type: entry.type, title: entry.title, from: entry.status, reason, via }))
}

function guidanceOf(dryRun: boolean, forgotten: ForgottenMemory[], already: string[]): string {
  const repeats = forgotten.filter((f) => f.reason === 'repeats').length
  const count = memories(forgotten.length)
  const spread = repeats > 0 ? ` (${repeats} of them because they repeat the forgotten value)` : ''
  if (forgotten.length === 0) {
    return already.length > 0
      ? 'Already forgotten; nothing else repeats its value. memory_purge removes it from disk for good.'
      : 'Nothing matched, so nothing was forgotten. A query must contain every word it names; try fewer words, or find the id with memory_search_hybrid or memory_nav.'
  }
  if (dryRun) return `Dry run: ${count} would be forgotten${spread}. Nothing changed; call again without dryRun to forget them.`
  return (
    `Forgot ${count}${spread}: search, resident injection and digests no longer say them, at any as-of time. ` +
    'The files stay on disk as deleted_pending (restorable) until memory_purge removes them and their text in the ledger for good.'
  )
}

export async function forgetValue(backend: MemoryBackend, req: ForgetValueRequest): Promise<ForgetValueResult> {
  const id = req.id?.trim() || undefined
  const query = req.query?.trim() || undefined
  if ((id === undefined) === (query === undefined)) throw invalidInput(id === undefined ? 'id' : 'query', 'exactly one of id and query')
  const target = { id, query, terms: query !== undefined ? forgetQueryTerms(query) : [] }
  await ensureFresh(backend)

  if (req.dryRun) {
    const view = await backend.indexView()
    const plan = await planForget(view, (p) => backend.readFile(p), target)
    const { rebuild } = planDerived(view, plan)
    const rebuilt = rebuild.map(({ entry, clean }) => ({ id: null, was: entry.id, derived_from: clean.map((c) => c.id), dropped: (entry.derived_from ?? []).filter((id) => !clean.some((c) => c.id === id)) }))
    const forgotten = describe(plan)
    return { dry_run: true, forgotten, raw: [], already: plan.already, activated: [], digests: [], rebuilt, injection_cleared: 0, guidance: guidanceOf(true, forgotten, plan.already) }
  }

  const outcome = await transact(backend, async (txn) => {
    const plan = await planForget(txn.index, (p) => txn.backend.readFile(p), target)
    const { rebuild } = planDerived(txn.index, plan)
    const changed: string[] = []
    const activated: string[] = []
    /** What this forget took, as it was: a derived memory made again tells their words from the rest. */
    const taken = new Map<string, IndexEntry>()
    for (const { entry } of plan.chosen) {
      const current = txn.index.get(entry.id) ?? entry
      taken.set(current.id, current)
      if (current.status === 'conflict') pushAll(activated, await releaseVariants(txn, current))
      pushAll(changed, await markDeleted(txn, txn.index.get(entry.id) ?? current))
    }
    const repeats = (text: string) => plan.anchors.some((a) => repeatsValue(a, text))
    const rebuilt: RebuiltDerived[] = []
    for (const { entry, clean } of rebuild) {
      const current = txn.index.get(entry.id) ?? entry
      const made = await rebuildDerived(txn, current, clean, droppedSources(txn.index, current, clean, taken), { repeats, hard: false })
      if (made !== null) {
        rebuilt.push(made)
        continue
      }
      // Made again it would still say the value: forgotten whole.
      plan.chosen.push({ entry: current, reason: 'repeats', via: plan.anchors[0]?.id ?? null })
      pushAll(changed, await markDeleted(txn, current))
    }
    if (changed.length > 0) {
      txn.log({
        event: 'forget',
        scope: 'memory',
        by: id !== undefined ? 'id' : 'query',
        ...(id !== undefined ? { id } : { query }),
        ids: changed,
        matched: plan.chosen.filter((c) => c.reason !== 'repeats').map((c) => c.entry.id),
        propagated: plan.chosen.filter((c) => c.reason === 'repeats' || c.reason === 'lineage').map((c) => c.entry.id),
        ...(activated.length > 0 ? { activated } : {}),
        ...(rebuilt.length > 0 ? { rebuilt: rebuilt.map((r) => r.id) } : {}),
        source: 'user',
      })
    }
    return { plan, changed, rebuilt, activated: activated.filter((a) => !changed.includes(a)) }
  })

  const { plan, changed, rebuilt, activated } = outcome
  const slots = plan.chosen.filter(({ entry }) => entry.key !== null).map(({ entry }) => slotOf(entry))
  const digests = await sweepDigests(backend, await backend.indexView(), slots, (text) => plan.anchors.some((a) => repeatsValue(a, text)))
  const forgotten = describe(plan)
  const chosenIds = new Set(forgotten.map((f) => f.id))
  return {
    dry_run: false,
    forgotten,
    raw: changed.filter((c) => !chosenIds.has(c)),
    already: plan.already,
    activated,
    digests,
    rebuilt,
    injection_cleared: plan.chosen.filter(({ entry }) => isSearchable(entry)).length,
    guidance: guidanceOf(false, forgotten, plan.already),
  }
}
