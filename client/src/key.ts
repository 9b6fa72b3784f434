/**
 * The panel key in the browser. It arrives only out of band: in the `#memory-agent-key=…`
 * fragment of a link that `memory-agent serve` or the DSH host printed (a fragment never reaches
 * a server), or pasted by the user. It is kept in localStorage for this origin and taken out of
 * the address bar at once, so it does not linger in history, bookmarks or screenshots.
 */

import { PANEL_KEY_PARAM, PANEL_KEY_PATTERN } from '../../src/host/panel-protocol.js'

export const KEY_STORAGE = 'dsh-memory-agent:key'

export interface KeyStore {
  get(): string | null
  set(key: string): void
  forget(): void
}

/** A key as the server makes them (base64url, 32 bytes or more); pasted text is trimmed first. */
export function normalizeKey(text: string): string | null {
  const key = text.trim()
  return PANEL_KEY_PATTERN.test(key) ? key : null
}

/** localStorage when the browser allows it, else memory for this page. */
export function browserKeyStore(storage: Storage | null = safeLocalStorage()): KeyStore {
  let fallback: string | null = null
  return {
    get() {
      try {
        return storage?.getItem(KEY_STORAGE) ?? fallback
      } catch {
        return fallback
      }
    },
    set(key) {
      fallback = key
      try {
        storage?.setItem(KEY_STORAGE, key)
      } catch {
        // storage refused (private mode, quota): the key lasts for this page
      }
    },
    forget() {
      fallback = null
      try {
        storage?.removeItem(KEY_STORAGE)
      } catch {
        // nothing stored
      }
    },
  }
}

function safeLocalStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null
  } catch {
    return null
  }
}

/**
 * Takes `memory-agent-key` out of the location's fragment: stores it, and rewrites the address
 * without it (other fragment parameters stay). Returns whether a key was found.
 */
export function captureKeyFromLocation(store: KeyStore, loc: Location = location, hist: History = history): boolean {
  const hash = loc.hash.startsWith('#') ? loc.hash.slice(1) : loc.hash
  if (!hash.includes(`${PANEL_KEY_PARAM}=`)) return false
  const params = new URLSearchParams(hash)
  const key = normalizeKey(params.get(PANEL_KEY_PARAM) ?? '')
  params.delete(PANEL_KEY_PARAM)
  const rest = params.toString()
  const url = `${loc.pathname}${loc.search}${rest === '' ? '' : `#${rest}`}`
  try {
    hist.replaceState(hist.state, '', url)
  } catch {
    // a sandboxed page may refuse; the key is still taken
  }
  if (key === null) return false
  store.set(key)
  return true
}
