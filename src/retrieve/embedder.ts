/**
 * The embedder plug: what a store needs from a model that turns text into vectors
 * (`{ kind, id, dim, embed(texts) }`), which embedder a store uses, and what of a memory is
 * embedded. A store has an embedder when a caller set one (`setEmbedder`: the library, an
 * adapter from its flags or environment) or when its `config.json` has an `embedder` block (the
 * OpenAI-compatible adapter, openai-embedder.ts); otherwise none, and retrieval is keyword-only,
 * exactly as without this module.
 *
 * It never embeds on the write path and reads no environment: adapters decide.
 */

import { createHash } from 'node:crypto'
import { invalidInput } from '../errors.js'
import type { MemoryBackend } from '../store/backend.js'
import { isDerivedTitle } from '../text.js'
import type { IndexEntry } from '../types.js'
import { MAX_DIM, openAiEmbedder, openAiOptionsFrom } from './openai-embedder.js'

export interface Embedder {
  /** What produces the vectors: `openai` (an /v1/embeddings endpoint), `custom` (a library caller's function)... */
  readonly kind?: string
  /** Names the model and its settings: vectors of two ids are never mixed (a new id re-embeds). */
  readonly id: string
  /** Where the vectors come from (an endpoint URL), when it matters: a failure memo is of one id at one endpoint. */
  readonly endpoint?: string
  /** The length of every vector `embed` returns. */
  readonly dim: number
  /**
   * Milliseconds a search waits for its query's vector, every attempt included (default
   * QUERY_DEADLINE_MS, vectors.ts); past it the search goes by keywords.
   */
  readonly queryDeadlineMs?: number
  /** One vector per text, in order; `signal` aborts when the caller stops waiting (a search's deadline). */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<ArrayLike<number>[]>
}

const chosen = new WeakMap<MemoryBackend, Embedder | null>()
const fromConfig = new WeakMap<MemoryBackend, { signature: string; embedder: Embedder | null }>()

/** The embedder's fields checked: INVALID_INPUT naming the field when one is wrong. */
export function checkEmbedder(embedder: Embedder): Embedder {
  if (typeof embedder !== 'object' || embedder === null) throw invalidInput('embedder', 'an object { id, dim, embed(texts) }')
  if (typeof embedder.id !== 'string' || embedder.id.trim() === '' || embedder.id.length > 200) throw invalidInput('embedder.id', 'a non-empty string of at most 200 characters')
  if (!Number.isInteger(embedder.dim) || embedder.dim < 1 || embedder.dim > MAX_DIM) throw invalidInput('embedder.dim', `an integer from 1 to ${MAX_DIM}`)
  if (embedder.queryDeadlineMs !== undefined && (!Number.isInteger(embedder.queryDeadlineMs) || embedder.queryDeadlineMs < 100 || embedder.queryDeadlineMs > 600_000)) {
    throw invalidInput('embedder.queryDeadlineMs', 'an integer from 100 to 600000')
  }
  if (typeof embedder.embed !== 'function') throw invalidInput('embedder.embed', 'a function (texts: string[]) => Promise<number[][]>')
  return embedder
}

/**
 * Sets the embedder of this store for this process, over what config.json says; null turns
 * vectors off for it (keyword-only), undefined goes back to config.json.
 */
export function setEmbedder(backend: MemoryBackend, embedder: Embedder | null | undefined): void {
  if (embedder === undefined) chosen.delete(backend)
  else chosen.set(backend, embedder === null ? null : checkEmbedder(embedder))
}

/** The embedder of this store: the one set for it, else config.json's `embedder` block, else null. */
export async function embedderOf(backend: MemoryBackend): Promise<Embedder | null> {
  const set = chosen.get(backend)
  if (set !== undefined) return set
  const st = await backend.stat('config.json').catch(() => null)
  if (st === null) return null
  const signature = `${st.size}:${st.mtimeMs}`
  const known = fromConfig.get(backend)
  if (known?.signature === signature) return known.embedder
  let embedder: Embedder | null = null
  const text = await backend.readFile('config.json').catch(() => null)
  try {
    const block = text === null ? undefined : (JSON.parse(text) as { embedder?: unknown }).embedder
    if (block !== undefined && block !== null) embedder = openAiEmbedder(openAiOptionsFrom(block, 'config.json embedder'))
  } catch (err) {
    // A mistake in the file never stops memory: keyword search goes on, and the cause is said.
    console.warn(`dsh-memory-agent: ${backend.root}/config.json: ${err instanceof Error ? err.message : String(err)}; vectors are off until it is fixed`)
  }
  fromConfig.set(backend, { signature, embedder })
  return embedder
}

/** The text of a memory that is embedded: its title (unless made from the summary), summary and tags. Pure. */
export function embeddingText(entry: IndexEntry): string {
  const parts = isDerivedTitle(entry.title, entry.summary) ? [entry.summary] : [entry.title, entry.summary]
  if (entry.tags.length > 0) parts.push(entry.tags.join(' '))
  return parts.join('\n')
}

/** The key of a text's vector (the embedder id is the other half of the key: vectors live per embedder). Pure. */
export function vectorKey(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

/** A folder-safe name for an embedder id: readable prefix plus a hash, so two ids never share a folder. */
export function embedderSlug(id: string): string {
  const readable = id.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40)
  return `${readable === '' ? 'embedder' : readable}-${createHash('sha1').update(id).digest('hex').slice(0, 10)}`
}
