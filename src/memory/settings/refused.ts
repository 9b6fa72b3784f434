/**
 * Settings that other memory designs have and this project does not take, each with why and what
 * to use instead, so that setting one is refused with a clear message instead of being accepted
 * and ignored: the panel's save is INVALID_INPUT naming the field (config-file.ts), and a
 * config.json that holds one is warned about when read and listed by memory_sweep. Never changes
 * config.json: the field stays where a person wrote it.
 */

import { MemoryError } from '../../errors.js'
import type { MemoryBackend } from '../../store/backend.js'

/** Why each refused setting is refused, for the person who set it. */
export const REFUSED_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  evidenceTtlSec:
    'evidence freshness is fixed: a passing check is [VERIFIED] for 30 days after verified_at, then [ASSERTED]; write the memory again with a new result to refresh it',
  maxVersionsPerId:
    'every version is kept (memory files and the ledger are the truth, nothing is lost); memory_history lists the versions and memory_purge removes one for good',
  autoSlot: 'every topic and episode gets its room#slot when it is written (memory_rooms); placing cannot be turned off',
})

export interface RefusedSetting {
  field: string
  message: string
}

/** The refused settings a configuration object sets, in the order of REFUSED_SETTINGS. Pure. */
export function refusedSettings(record: unknown): RefusedSetting[] {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return []
  return Object.entries(REFUSED_SETTINGS)
    .filter(([field]) => Object.hasOwn(record, field))
    .map(([field, why]) => ({ field, message: `${field} is not a setting of this store: ${why}` }))
}

/** INVALID_INPUT naming the first refused setting a patch sets (the panel's save). */
export function refuseSettings(patch: unknown): void {
  const [first] = refusedSettings(patch)
  if (first !== undefined) throw new MemoryError('INVALID_INPUT', first.message, first.field)
}

/** The refused settings a config.json text holds (none when it is not JSON). Pure. */
export function refusedInText(text: string): RefusedSetting[] {
  try {
    return refusedSettings(JSON.parse(text))
  } catch {
    return []
  }
}

/** The refused settings config.json holds (none when it is missing or not JSON). */
export async function refusedInConfigFile(backend: MemoryBackend): Promise<RefusedSetting[]> {
  const text = await backend.readFile('config.json').catch(() => null)
  return text === null ? [] : refusedInText(text)
}
