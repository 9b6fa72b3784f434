/**
 * The last gate before anything leaves the machine: a file about to be committed or pushed that
 * still holds a credential-shaped string (a hand edit, a file written with redaction off, a binary
 * file dropped into the store) stops the sync. Uses the same patterns as redaction, so whatever
 * `write_memory` would have replaced is what stops a push. Pure.
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

/** The message a refused sync gives: which files, which kinds, what to do. */
export function refusalMessage(findings: readonly SecretFinding[], stage: 'commit' | 'push'): string {
  const shown = findings.slice(0, 10).map((f) => `${f.path}${f.line > 0 ? `:${f.line}` : ''} (${f.binary === true ? 'binary; ' : ''}${f.kinds.join(', ')})`)
  const more = findings.length > shown.length ? ` and ${findings.length - shown.length} more` : ''
  const head = `sync refused: ${shown.join('; ')}${more} ${findings.length === 1 ? 'holds' : 'hold'} what looks like a secret`
  if (stage === 'commit')
    return `${head}; nothing was committed or pushed. Remove it from the file (or replace it with a note such as [已脱敏:api-key]) and run sync again.`
  return `${head} in a commit made outside sync that is not pushed yet; nothing was pushed. Remove it from the file and from that commit (git commit --amend, or git reset --soft to the remote branch and commit again), then run sync again.`
}
