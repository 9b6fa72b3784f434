/**
 * Which store a write belongs in when the caller does not say: its kind, read from its tags.
 * Preferences and identity follow the person (the personal store); conventions, decisions and
 * environment follow the repository (the project store); anything else stays with the project,
 * where a teammate can see and correct it. Pure; a small fixed word list, never a guess from the text.
 */

export type StoreName = 'project' | 'user'

/** Tag words of each kind, English and Chinese (the auto-settle signal classes use the Chinese ones). */
export const KIND_TAGS = {
  preference: ['preference', 'preferences', '偏好'],
  identity: ['identity', 'persona', 'profile', '身份'],
  convention: ['convention', 'conventions', '约定', '规范'],
  decision: ['decision', 'decisions', '决策', '决定'],
  environment: ['environment', 'env', '环境'],
} as const

export type MemoryKind = keyof typeof KIND_TAGS

const KIND_STORE: Readonly<Record<MemoryKind, StoreName>> = {
  preference: 'user',
  identity: 'user',
  convention: 'project',
  decision: 'project',
  environment: 'project',
}

/** The kinds a write's tags name, in KIND_TAGS order. */
export function kindsOf(tags: readonly string[] | undefined): MemoryKind[] {
  const words = new Set((tags ?? []).map((t) => t.normalize('NFKC').trim().toLowerCase()))
  return (Object.keys(KIND_TAGS) as MemoryKind[]).filter((k) => KIND_TAGS[k].some((w) => words.has(w)))
}

/**
 * The store of a write by its tags: a project kind wins over a personal one (a convention tagged
 * as a preference is still the repository's rule); no kind means the project store.
 */
export function storeForKinds(kinds: readonly MemoryKind[]): StoreName {
  if (kinds.length === 0 || kinds.some((k) => KIND_STORE[k] === 'project')) return 'project'
  return 'user'
}
