/**
 * Folder memory/settings/, whose main file this is, owns the store's runtime configuration, read
 * and written. Imports from the other capability folders: none; below memory/ anything (retrieve,
 * store, language, ground); nothing above (tools, stores, adapters).
 *
 * Runtime configuration kept in `<root>/config.json` (written by the panel), merged over the
 * base with every value clamped to its range. The base is DEFAULT_CONFIG unless the adapter
 * that opened the store set another (the DSH plugin passes its cordis config): the panel's file
 * wins over the host's configuration, which wins over the defaults. A missing or broken file
 * means the base: a configuration mistake never stops memory from working.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { refusedInText } from './refused.js'

export interface RuntimeConfig {
  requireConfirmation: boolean
  redactSecrets: boolean
  defaultBudget: number
  maxTopK: number
  injectEnabled: boolean
  injectBudgetChars: number
  /** Resident injection: the most memories given a line of their own (seed 002's profileTopN); the next are listed by id. */
  profileTopN: number
  /** Resident injection: estimated tokens at most (1.5 a Han character, 4 other characters a token); 0: characters only. */
  injectTokenBudget: number
  autoSettleEnabled: boolean
  /** Strength from use: a search's or assemble's top 5 are recorded in usage.jsonl and rise a little. False: reads teach nothing (repeats still count). */
  learnFromSearches: boolean
  /** Decay: a low-importance memory without a hit for this many days is archived by memory_decay. */
  decayAfterDays: number
  /** Decay: a memory whose importance (retrieval practice moves it) is below this (0-1) counts as low importance. */
  decayImportanceBelow: number
  /** Retrieval practice: a new memory is first due for review a day after it is written. False: new memories are not scheduled. */
  reviewScheduling: boolean
  /**
   * Automatic revision (memory/writing/revise.ts): a keyless write derives its subject and value from its
   * text and revises current memories of the same subject. False: free text makes no versions.
   */
  autoRevise: boolean
  /** Two structured declarations (`X -> Y`, `X: Y`) of one subject with different values: the newer supersedes without a change cue. False: they conflict. */
  structuredRevises: boolean
  /** A write with confidence below this (percent) gets a `low-confidence` warning. */
  lowConfidencePercent: number
  /** Consolidation: sessions are folded, and idle memories of low importance leave search, after this many idle days. */
  consolidateIdleDays: number
  /** Consolidation: an episode whose statement a topic holds (and names it) leaves search after this many idle days. */
  consolidateArchiveDays: number
  /** Consolidation caps: memories one run may change, seconds it may take, changes per day. */
  consolidateMaxItems: number
  consolidateMaxSeconds: number
  consolidateDailyItems: number
  /** Automatic consolidation (heartbeat, idle MCP server): due after this many new episodes since the last run; 0 turns it off. */
  consolidateAfterEpisodes: number
  /** Automatic consolidation waits at least this many minutes after a run. */
  consolidateMinIntervalMinutes: number
  /** Consolidation with a model: tokens its requests may cost per run and per day; over a cap the run goes on without the model. */
  consolidateModelTokensPerRun: number
  consolidateModelTokensPerDay: number
}

export const DEFAULT_CONFIG: Readonly<RuntimeConfig> = Object.freeze({
  requireConfirmation: false,
  redactSecrets: true,
  defaultBudget: 1200,
  maxTopK: 200,
  injectEnabled: true,
  injectBudgetChars: 1500,
  profileTopN: 8,
  injectTokenBudget: 1024,
  autoSettleEnabled: false,
  learnFromSearches: true,
  decayAfterDays: 90,
  decayImportanceBelow: 0.3,
  reviewScheduling: true,
  autoRevise: true,
  structuredRevises: true,
  lowConfidencePercent: 30,
  consolidateIdleDays: 30,
  consolidateArchiveDays: 7,
  consolidateMaxItems: 500,
  consolidateMaxSeconds: 120,
  consolidateDailyItems: 5000,
  consolidateAfterEpisodes: 20,
  consolidateMinIntervalMinutes: 60,
  consolidateModelTokensPerRun: 20_000,
  consolidateModelTokensPerDay: 200_000,
})

/** Fields that are fractions in [0, 1], kept as given (not rounded like the counts of RANGES). */
const FRACTIONS: ReadonlySet<keyof RuntimeConfig> = new Set(['decayImportanceBelow'])

const RANGES: Partial<Record<keyof RuntimeConfig, [number, number]>> = {
  defaultBudget: [50, 100_000],
  maxTopK: [1, 200],
  injectBudgetChars: [200, 8000],
  profileTopN: [1, 64],
  injectTokenBudget: [0, 8192],
  decayAfterDays: [1, 3650],
  lowConfidencePercent: [0, 100],
  consolidateIdleDays: [1, 3650],
  consolidateArchiveDays: [1, 3650],
  consolidateMaxItems: [1, 100_000],
  consolidateMaxSeconds: [1, 3600],
  consolidateDailyItems: [1, 1_000_000],
  consolidateAfterEpisodes: [0, 100_000],
  consolidateMinIntervalMinutes: [0, 10_080],
  consolidateModelTokensPerRun: [0, 10_000_000],
  consolidateModelTokensPerDay: [0, 100_000_000],
}

/**
 * The value a configuration source gives for one field, as taken: a finite number clamped to the
 * field's range, or a boolean; undefined when the value has the wrong type. The one rule every
 * source (config.json, the panel, the host's configuration) goes through. Pure.
 */
export function acceptField<K extends keyof RuntimeConfig>(key: K, value: unknown): RuntimeConfig[K] | undefined {
  if (FRACTIONS.has(key)) return typeof value === 'number' && Number.isFinite(value) ? (Math.min(1, Math.max(0, value)) as RuntimeConfig[K]) : undefined
  const range = RANGES[key]
  if (range !== undefined) {
    return typeof value === 'number' && Number.isFinite(value) ? (Math.min(range[1], Math.max(range[0], Math.round(value))) as RuntimeConfig[K]) : undefined
  }
  return typeof value === 'boolean' ? (value as RuntimeConfig[K]) : undefined
}

export const CONFIG_FIELDS = Object.keys(DEFAULT_CONFIG) as (keyof RuntimeConfig)[]

/**
 * What is wrong with a value a person typed for one field (the panel's settings), or null: out of
 * the field's range or of the wrong type. A file or a host's value is clamped by acceptField
 * instead; a person is told, so that 5000 is not saved as 200 under "Settings saved". Pure.
 */
export function typedValueProblem(key: keyof RuntimeConfig, value: unknown): string | null {
  const range = RANGES[key]
  if (range === undefined) return typeof value === 'boolean' ? null : `${key}: expected true or false, got ${JSON.stringify(value)}`
  if (typeof value !== 'number' || !Number.isFinite(value)) return `${key}: expected a number from ${range[0]} to ${range[1]}, got ${JSON.stringify(value)}`
  return value < range[0] || value > range[1] ? `${key}: expected a number from ${range[0]} to ${range[1]}, got ${value}` : null
}

/** Merges a partial configuration over base, ignoring unknown fields and clamping numbers. Pure. */
export function mergeConfig(base: RuntimeConfig, patch: unknown): RuntimeConfig {
  const out: RuntimeConfig = { ...base }
  if (typeof patch !== 'object' || patch === null) return out
  const record = patch as Record<string, unknown>
  for (const key of CONFIG_FIELDS) {
    const value = acceptField(key, record[key])
    if (value !== undefined) (out as unknown as Record<string, number | boolean>)[key] = value
  }
  return out
}

/** The configuration in a config.json text (null: no file) over base; a broken file means the base. */
export function configFromText(text: string | null, root: string, base: RuntimeConfig = DEFAULT_CONFIG): RuntimeConfig {
  if (text === null) return { ...base }
  try {
    return mergeConfig(base, JSON.parse(text))
  } catch {
    console.warn(`dsh-memory-agent: ${root}/config.json is not valid JSON; using the configured defaults`)
    return { ...base }
  }
}

/** The last config.json read per backend, by its size and mtime: read again only when it changes. */
const cache = new WeakMap<MemoryBackend, { signature: string; config: RuntimeConfig }>()

/** The base an adapter set per backend (its own configuration); DEFAULT_CONFIG where none was set. */
const bases = new WeakMap<MemoryBackend, RuntimeConfig>()

/** Sets what config.json is merged over for this backend, clamped like any other source. */
export function setConfigBase(backend: MemoryBackend, base: Partial<RuntimeConfig>): void {
  bases.set(backend, mergeConfig(DEFAULT_CONFIG, base))
  cache.delete(backend)
}

function baseOf(backend: MemoryBackend): RuntimeConfig {
  return bases.get(backend) ?? DEFAULT_CONFIG
}

export async function loadConfig(backend: MemoryBackend): Promise<RuntimeConfig> {
  const st = await backend.stat('config.json').catch(() => null)
  if (st === null) return { ...baseOf(backend) }
  const signature = `${st.size}:${st.mtimeMs}`
  const known = cache.get(backend)
  if (known?.signature === signature) return { ...known.config }
  const text = await backend.readFile('config.json').catch(() => null)
  const config = configFromText(text, backend.root, baseOf(backend))
  // Once per change of the file: a setting this store does not take is said, not ignored.
  for (const r of text === null ? [] : refusedInText(text)) console.warn(`dsh-memory-agent: ${backend.root}/config.json: ${r.message}`)
  cache.set(backend, { signature, config })
  return { ...config }
}

/** loadConfig for synchronous callers (resident injection, the auto-settle heartbeat); may throw. */
export function loadConfigSync(backend: MemoryBackend): RuntimeConfig {
  const text = backend.sync === undefined ? null : backend.sync.readFile('config.json')
  return configFromText(text, backend.root, baseOf(backend))
}
