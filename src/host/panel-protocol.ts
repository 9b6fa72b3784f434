/**
 * What the panel and its API agree on over the wire: the route, the two headers, the fragment
 * parameter that carries the key, and the key's form. Plain constants with no imports, so the
 * browser panel (client/src/) compiles the very same module into its bundle: one definition for
 * both ends.
 */

export const API_PATH = '/memory-agent/api'
/** `x-dsh-memory-agent: panel` marks a request as the panel's. */
export const PANEL_HEADER = 'x-dsh-memory-agent'
/** Carries the panel key. */
export const TOKEN_HEADER = 'x-dsh-memory-agent-token'
/** The fragment parameter of a panel link that carries the key (`#memory-agent-key=…`). */
export const PANEL_KEY_PARAM = 'memory-agent-key'
/** A panel key: base64url, at least 32 characters (the store makes 43). */
export const PANEL_KEY_PATTERN = /^[A-Za-z0-9_-]{32,}$/
