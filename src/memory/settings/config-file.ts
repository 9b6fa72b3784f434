/**
 * Writing the panel's settings to `<root>/config.json`. Only the fields of RuntimeConfig are
 * taken, each only when it has the right type, and numbers are clamped to their ranges (through
 * mergeConfig, the one place that knows them); anything else in the patch is ignored. Only the
 * fields given are written, over what the file already holds (fields this program does not know
 * are kept), so a value never set from the panel keeps following the host's configuration. A
 * setting this store does not take (refused.ts) is INVALID_INPUT naming it, and nothing is written.
 * Atomic, under the store lock, with a ledger event.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { CONFIG_FIELDS, acceptField, type RuntimeConfig } from './config.js'
import { refuseSettings } from './refused.js'

const CONFIG_FILE = 'config.json'

/** The RuntimeConfig fields of a patch, clamped; unknown fields and wrong types left out. Pure. */
export function configPatch(patch: unknown): Partial<RuntimeConfig> {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return {}
  const record = patch as Record<string, unknown>
  const out: Partial<Record<keyof RuntimeConfig, number | boolean>> = {}
  for (const key of CONFIG_FIELDS) {
    const value = acceptField(key, record[key])
    if (value !== undefined) out[key] = value
  }
  return out as Partial<RuntimeConfig>
}

function fileFields(text: string | null): Record<string, unknown> | null {
  if (text === null) return {}
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

export interface ConfigWrite {
  /** The fields written, as clamped. Empty when the patch held none: nothing was written. */
  written: Partial<RuntimeConfig>
  /** True when config.json did not hold a JSON object and was replaced. */
  replacedInvalid: boolean
}

export async function saveConfigPatch(backend: MemoryBackend, patch: unknown): Promise<ConfigWrite> {
  refuseSettings(patch)
  const written = configPatch(patch)
  if (Object.keys(written).length === 0) return { written, replacedInvalid: false }
  await backend.init()
  return backend.withLock(async () => {
    let existing: Record<string, unknown> | null = {}
    const render = (text: string | null) => {
      existing = fileFields(text)
      return `${JSON.stringify({ ...(existing ?? {}), ...written }, null, 2)}\n`
    }
    // A person may be editing config.json: a compare-and-swap keeps their other fields.
    if ((await backend.rewriteFile(CONFIG_FILE, render)) === null) await backend.writeFileAtomic(CONFIG_FILE, render(null))
    await backend.appendLedger({
      at: backend.now(),
      event: 'config',
      fields: Object.keys(written),
      source: 'user',
      ...(existing === null ? { replaced_invalid: true } : {}),
    })
    return { written, replacedInvalid: existing === null }
  })
}
