/**
 * The embedder of a command, from its flags and the environment (flags win), over config.json's
 * `embedder` block: `--embedder-url` / `$MEMORY_AGENT_EMBEDDER_URL` and so on. Given none, the
 * store's config.json alone decides (retrieve/embedder.ts), and without that block search stays
 * keyword-only. The key is best kept in the environment: config.json may be synced.
 */

import type { MemoryBackend } from '../store/backend.js'
import { openAiEmbedder, openAiOptionsFrom } from '../retrieve/openai-embedder.js'
import { setEmbedder, type Embedder } from '../retrieve/embedder.js'
import { usageError } from './tool-commands.js'

/** Each setting: its flag, its variable, and whether it is a number. */
const SETTINGS = [
  { field: 'baseUrl', flag: '--embedder-url', env: 'MEMORY_AGENT_EMBEDDER_URL', numeric: false },
  { field: 'model', flag: '--embedder-model', env: 'MEMORY_AGENT_EMBEDDER_MODEL', numeric: false },
  { field: 'dimensions', flag: '--embedder-dimensions', env: 'MEMORY_AGENT_EMBEDDER_DIMENSIONS', numeric: true },
  { field: 'apiKey', flag: '--embedder-key', env: 'MEMORY_AGENT_EMBEDDER_KEY', numeric: false },
  { field: 'batchSize', flag: '--embedder-batch-size', env: 'MEMORY_AGENT_EMBEDDER_BATCH_SIZE', numeric: true },
  { field: 'timeoutMs', flag: '--embedder-timeout-ms', env: 'MEMORY_AGENT_EMBEDDER_TIMEOUT_MS', numeric: true },
  { field: 'retries', flag: '--embedder-retries', env: 'MEMORY_AGENT_EMBEDDER_RETRIES', numeric: true },
] as const

export const EMBEDDER_HELP = `An embedder adds search by meaning (memory-agent embed fills the vectors): --embedder-url URL
(up to /v1), --embedder-model NAME, --embedder-dimensions N, --embedder-key KEY, --embedder-batch-size N,
--embedder-timeout-ms MS, --embedder-retries N; or $MEMORY_AGENT_EMBEDDER_URL, _MODEL, _DIMENSIONS, _KEY,
_BATCH_SIZE, _TIMEOUT_MS, _RETRIES; or an "embedder" block in the store's config.json. Without one,
search is by keywords only.`

export type EmbedderSettings = Record<string, string | number>

/** The embedder flags taken out of args (the rest go to the command), over the variables of env. */
export function takeEmbedderSettings(args: readonly string[], env: Readonly<Record<string, string | undefined>>): { rest: string[]; settings: EmbedderSettings } {
  const given = new Map<string, string>()
  for (const s of SETTINGS) {
    const value = env[s.env]
    if (value !== undefined && value !== '') given.set(s.field, value)
  }
  const rest: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    const eq = arg.indexOf('=')
    const name = eq > 0 ? arg.slice(0, eq) : arg
    const setting = SETTINGS.find((s) => s.flag === name)
    if (setting === undefined) {
      rest.push(arg)
      continue
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i]
    if (value === undefined || value === '') throw usageError(`${name} needs a value`)
    given.set(setting.field, value)
  }
  const settings: EmbedderSettings = {}
  for (const s of SETTINGS) {
    const value = given.get(s.field)
    if (value !== undefined) settings[s.field] = s.numeric && /^\d+$/.test(value) ? Number(value) : value
  }
  return { rest, settings }
}

/** The embedder the settings describe over the store's config.json block; undefined when none were given. */
export async function embedderFromSettings(backend: MemoryBackend, settings: EmbedderSettings): Promise<Embedder | undefined> {
  if (Object.keys(settings).length === 0) return undefined
  let block: unknown = {}
  try {
    const parsed = JSON.parse((await backend.readFile('config.json').catch(() => null)) ?? '{}') as { embedder?: unknown }
    if (typeof parsed.embedder === 'object' && parsed.embedder !== null) block = parsed.embedder
  } catch {
    // a broken config.json: the flags alone
  }
  return openAiEmbedder(openAiOptionsFrom({ ...(block as Record<string, unknown>), ...settings }, 'embedder'))
}

/** Sets the embedder of these stores when the settings describe one. */
export async function applyEmbedderSettings(settings: EmbedderSettings, ...backends: MemoryBackend[]): Promise<void> {
  for (const backend of backends) {
    const embedder = await embedderFromSettings(backend, settings)
    if (embedder !== undefined) setEmbedder(backend, embedder)
  }
}
