/**
 * The last gate before anything leaves the machine: a file about to be committed or pushed that
 * still holds a credential-shaped string (a hand edit, a file written with redaction off, a binary
 * file dropped into the store) stops the sync. Uses the same patterns as redaction, so whatever
 * `write_memory` would have replaced is what stops a push. One more rule needs no pattern: the
 * store's config.json with an `apiKey` in it (an embedder key of any shape, `sk-...` or not) is
 * never committed; the key belongs in the environment (`MEMORY_AGENT_EMBEDDER_KEY`). Pure.
 */

import { redactSecrets, type RedactionKind } from '../redact.js'

export interface SecretFinding {
  path: string
  /** 1-based line of the first match; 0 in a binary file. */
  line: number
  kinds: RedactionKind[]
  /** Set when the file holds NUL bytes (binary data, UTF-16 text). */
  binary?: true
}

/**
 * The first credential-shaped string in a file's text, or null. A file with NUL bytes (binary
 * data, UTF-16 text) is scanned too: as it is, since text inside binary data stays readable, and
 * with the NULs taken out, since UTF-16 puts one beside every ASCII character of a key.
 */
export function findSecret(path: string, text: string): SecretFinding | null {
  if (path === 'config.json') {
    const line = apiKeyLine(text)
    if (line > 0) return { path, line, kinds: ['api-key'] }
  }
  if (text.includes('\0')) {
    const { kinds } = redactSecrets(`${text}\n${text.replace(/\0/g, '')}`)
    return kinds.length === 0 ? null : { path, line: 0, kinds, binary: true }
  }
  const { kinds } = redactSecrets(text)
  if (kinds.length === 0) return null
  const lines = text.split('\n')
  let line = lines.findIndex((l) => redactSecrets(l).kinds.length > 0)
  // A match that spans lines (a private key block) is found from where it starts.
  if (line < 0) line = lines.findIndex((l) => /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/.test(l))
  return { path, line: line + 1, kinds }
}

/** Keys under which config.json may hold a credential whatever it looks like. */
const KEY_FIELDS = new Set(['apikey', 'api_key', 'key', 'token', 'authorization'])

/** The 1-based line of config.json where a non-empty key field (at any depth) is set, or 0. A file that does not parse is scanned by the patterns alone. */
function apiKeyLine(text: string): number {
  let found: string | null = null
  const walk = (v: unknown): void => {
    if (found !== null || typeof v !== 'object' || v === null) return
    for (const [k, item] of Object.entries(v)) {
      if (KEY_FIELDS.has(k.toLowerCase()) && typeof item === 'string' && item.trim() !== '') found = k
      else walk(item)
    }
  }
  try {
    walk(JSON.parse(text))
  } catch {
    return 0
  }
  if (found === null) return 0
  const at = text.split('\n').findIndex((l) => l.includes(`"${found}"`))
  return at + 1
}

/** The message a refused sync gives: which files, which kinds, what to do. */
export function refusalMessage(findings: readonly SecretFinding[], stage: 'commit' | 'push'): string {
  const shown = findings.slice(0, 10).map((f) => `${f.path}${f.line > 0 ? `:${f.line}` : ''} (${f.binary === true ? 'binary; ' : ''}${f.kinds.join(', ')})`)
  const more = findings.length > shown.length ? ` and ${findings.length - shown.length} more` : ''
  const head = `sync refused: ${shown.join('; ')}${more} ${findings.length === 1 ? 'holds' : 'hold'} what looks like a secret`
  const config = findings.some((f) => f.path === 'config.json') ? ' An embedder key belongs in the environment ($MEMORY_AGENT_EMBEDDER_KEY, or --embedder-key), not in config.json, which sync shares.' : ''
  if (stage === 'commit')
    return `${head}; nothing was committed or pushed. Remove it from the file (or replace it with a note such as [已脱敏:api-key]) and run sync again.${config}`
  return `${head} in a commit made outside sync that is not pushed yet; nothing was pushed. Remove it from the file and from that commit (git commit --amend, or git reset --soft to the remote branch and commit again), then run sync again.${config}`
}
