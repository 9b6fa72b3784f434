/**
 * Runtime configuration kept in `<root>/config.json` (written by the panel), merged over the
 * defaults with every value clamped to its range. A missing or broken file means the defaults:
 * a configuration mistake never stops memory from working.
 */

import type { MemoryBackend } from '../store/backend.js'

export interface RuntimeConfig {
  requireConfirmation: boolean
  redactSecrets: boolean
  defaultBudget: number
  maxTopK: number
  injectEnabled: boolean
  injectBudgetChars: number
  autoSettleEnabled: boolean
}

export const DEFAULT_CONFIG: Readonly<RuntimeConfig> = Object.freeze({
  requireConfirmation: false,
  redactSecrets: true,
  defaultBudget: 1200,
  maxTopK: 200,
  injectEnabled: true,
  injectBudgetChars: 1500,
  autoSettleEnabled: false,
})

const RANGES: Partial<Record<keyof RuntimeConfig, [number, number]>> = {
  defaultBudget: [50, 100_000],
  maxTopK: [1, 200],
  injectBudgetChars: [200, 8000],
}

/** Merges a partial configuration over base, ignoring unknown fields and clamping numbers. Pure. */
export function mergeConfig(base: RuntimeConfig, patch: unknown): RuntimeConfig {
  const out: RuntimeConfig = { ...base }
  if (typeof patch !== 'object' || patch === null) return out
  const record = patch as Record<string, unknown>
  for (const key of Object.keys(DEFAULT_CONFIG) as (keyof RuntimeConfig)[]) {
    const value = record[key]
    const range = RANGES[key]
    if (range !== undefined) {
      if (typeof value === 'number' && Number.isFinite(value))
        (out as unknown as Record<string, number>)[key] = Math.min(range[1], Math.max(range[0], Math.round(value)))
    } else if (typeof value === 'boolean') {
      ;(out as unknown as Record<string, boolean>)[key] = value
    }
  }
  return out
}

/** The configuration in a config.json text (null: no file); a broken file means the defaults. */
export function configFromText(text: string | null, root: string): RuntimeConfig {
  if (text === null) return { ...DEFAULT_CONFIG }
  try {
    return mergeConfig(DEFAULT_CONFIG, JSON.parse(text))
  } catch {
    console.warn(`dsh-memory-agent: ${root}/config.json is not valid JSON; using defaults`)
    return { ...DEFAULT_CONFIG }
  }
}

/** The last config.json read per backend, by its size and mtime: read again only when it changes. */
const cache = new WeakMap<MemoryBackend, { signature: string; config: RuntimeConfig }>()

export async function loadConfig(backend: MemoryBackend): Promise<RuntimeConfig> {
  const st = await backend.stat('config.json').catch(() => null)
  if (st === null) return { ...DEFAULT_CONFIG }
  const signature = `${st.size}:${st.mtimeMs}`
  const known = cache.get(backend)
  if (known?.signature === signature) return { ...known.config }
  const config = configFromText(await backend.readFile('config.json').catch(() => null), backend.root)
  cache.set(backend, { signature, config })
  return { ...config }
}
