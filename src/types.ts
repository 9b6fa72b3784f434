/**
 * Shared domain types: index entries, ledger events, statuses, and the one token estimate.
 * Owns no behaviour beyond pure helpers; every layer may import it, it imports nothing.
 */

export const MEMORY_TYPES = ['summary', 'episode', 'raw', 'topic'] as const
export type MemoryType = (typeof MEMORY_TYPES)[number]

export const MEMORY_STATUSES = [
  'active',
  'suggested',
  'superseded',
  'conflict',
  'deleted_pending',
  'orphaned',
  // Decay: idle and unimportant, out of search and injection; reversible (src/memory/forgetting/decay.ts).
  'archived',
] as const
export type MemoryStatus = (typeof MEMORY_STATUSES)[number]

export const SOURCE_KINDS = ['session', 'plugin', 'user'] as const
export type SourceKind = (typeof SOURCE_KINDS)[number]

/** Where a memory came from. `forget_memories_by_session` reads only this array. */
export interface Source {
  session_id: string | null
  kind: SourceKind
}

export const ANCHOR_KINDS = ['env', 'tool-list', 'self-version', 'path-exists'] as const
export type AnchorKind = (typeof ANCHOR_KINDS)[number]

/**
 * A condition a memory depends on (an environment variable, a tool, the plugin version, a path).
 * When a probe says it no longer holds, the memory is withdrawn from resident injection.
 */
export interface Anchor {
  kind: AnchorKind
  name: string | null
  value: string
}

/** Version of the index entry shape written by this build (entries without one are version 1). */
export const SCHEMA_VERSION = 2

/** One line of `index.jsonl`: the summary layer of one memory file, derivable from the file alone. */
export interface IndexEntry {
  schema_version: number
  id: string
  path: string
  type: MemoryType
  title: string
  summary: string
  tags: string[]
  entities: string[]
  time: string
  sources: Source[]
  session_id: string | null
  confidence: number
  raw_ref: string | null
  /**
   * The key of the memory's vector under `.cache/vectors/` (the sha1 of the text embedded,
   * retrieve/vectors.ts), set in the index by the embedding queue once it has one; null before,
   * and always null without an embedder. Derived: never written to the memory file, so a rebuild
   * from the files sets it to null and the next drain sets it again without embedding anything.
   */
  vector_id: string | null
  status: MemoryStatus
  /**
   * Slot key: writes with the same key are versions of one fact. Either a caller's `key` (or a
   * title used as one), or the subject derived from free text at write time (front-matter `slot`).
   */
  key: string | null
  /** True when `key` is a derived subject (front-matter `slot`), not a caller's key: revised by evidence, not always. */
  key_derived?: true
  supersedes: string | null
  superseded_by: string | null
  /** Ids of the other sides of an unresolved conflict in this slot. */
  variants: string[]
  /** For a raw entry: the episode it belongs to. */
  episode: string | null
  /** Conditions this memory depends on (at most 8). */
  anchors: Anchor[]
  /** sha1 of type + normalised summary: the exact-duplicate key. */
  content_hash: string
  /** sha1 of the file's bytes as last written or read: tells a changed file from an unchanged one. */
  checksum: string
  // Claim fields (src/store/claim-fields.ts): present only when the file states them, so an
  // index line of an ordinary memory stays as short as before.
  /** Premises under which the memory holds: `key=value; key=value` (src/store/premises.ts). */
  scope?: string
  /** How to re-check the memory and what the last check gave. */
  evidence?: Evidence
  /** For a retraction: the id of the memory it withdraws. */
  retracts?: string
  /** The retraction that withdrew this memory. */
  retracted_by?: string
  /** For a guard: the situation to watch for and what to do then. */
  guard?: Guard
  // Place fields (src/store/place-fields.ts): present only when the file states them.
  /** Where the memory stands in the palace: `room#slot`, such as `topics-2#4` (src/memory/organisation/rooms.ts). */
  location?: string
  /** Locations this memory stood at before sync moved it (two clones had given one slot twice). */
  moved_from?: string[]
  /** Ids this memory links to: front-matter `links`, then `[[id]]` in the body. */
  links?: string[]
  /** For a memory consolidation made (a promoted topic, a session summary): the memories it was made from. */
  derived_from?: string[]
  /** Retrieval practice (src/store/review-fields.ts): the SM-2 schedule, or `off`; only when the file states it. */
  review?: ReviewState | 'off'
  /** How much the memory matters, 0-1, as the file states it (front-matter `importance`: a write's, or retrieval practice's); absent: the default, 0.5. */
  importance?: number
  /** Strength from use (repeats, search hits) as last folded into the file: front-matter `strength` at `strength_at` (src/memory/organisation/strength.ts). */
  strength?: { value: number; at: string }
  // Identity fields (src/store/identity.ts): present only when they apply.
  /** The id the file states when another file keeps that id: this one is indexed under an id of its own. */
  claimed_id?: string
  /** The file's front-matter does not parse: it is known by the id its name carries and kept out of search. */
  front_matter_error?: FrontMatterError
}

/** Where a front-matter block stops parsing (1-based line in the file) and what the parser said. */
export interface FrontMatterError {
  line: number
  reason: string
}

/** A memory's SM-2 schedule, as its front-matter states it (`review_due`, `review_interval`, ...). */
export interface ReviewState {
  /** When the memory is next due for recall (ISO-8601). */
  due: string
  /** Days between the last review and `due`. */
  interval: number
  /** SM-2 ease factor, at least 1.3. */
  ease: number
  /** Successful recalls in a row. */
  reps: number
  /** Failed recalls so far. */
  lapses: number
  /** The last review, null when never graded. */
  reviewed_at: string | null
  /** How much the memory matters, 0-1: recalls raise it, failures lower it. */
  importance: number
}

/** Evidence behind a memory: a command to re-run it, the output expected, the last result and when. */
export interface Evidence {
  cmd: string | null
  expect: string | null
  result: 'pass' | 'fail' | null
  verified_at: string | null
}

/** A guard: when a task or query matches `trigger`, `action` is put in front of the agent. */
export interface Guard {
  trigger: string
  action: string
}

/** A ledger event before it is stamped: `event` names what happened, the rest says to what. */
export interface LedgerEventDraft {
  event: string
  id?: string
  ids?: string[]
  session_id?: string | null
  source?: SourceKind
  [detail: string]: unknown
}

/** One line of `ledger.jsonl`, append-only. */
export interface LedgerEvent extends LedgerEventDraft {
  at: string
}

/** Characters per token: fixed, never a tokenizer call. 1.6 fits Chinese and is cautious for English. */
export const CHARS_PER_TOKEN = 1.6

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}

export function charsForBudget(budget: number): number {
  return Math.floor(budget * CHARS_PER_TOKEN)
}

/** Statuses a search may return: the rest are gated, replaced or forgotten. */
export const SEARCHABLE_STATUSES: ReadonlySet<MemoryStatus> = new Set(['active', 'conflict'])

/** The fields that name and summarise a memory in every answer that lists memories. */
export type MemoryBrief = Pick<IndexEntry, 'id' | 'path' | 'type' | 'title' | 'summary' | 'status' | 'time'>

export function briefOf(e: IndexEntry): MemoryBrief {
  return { id: e.id, path: e.path, type: e.type, title: e.title, summary: e.summary, status: e.status, time: e.time }
}
