/**
 * Secret redaction before anything reaches the disk. Only shapes that are almost certainly
 * credentials are touched (API keys, tokens, private keys, passwords in connection strings,
 * high-entropy values assigned to a `*_KEY` / `*_TOKEN` / `*_SECRET` name, 18-digit Chinese ID
 * numbers); phone numbers and e-mail addresses are left alone, since people usually want those
 * remembered.
 *
 * One pass serves every writer: `redactRecord` walks a whole request or record, redacts every
 * string in it (object keys included) and refuses a credential where an identifier is expected,
 * since an identifier is stored and compared as given and a rewritten one would merge distinct
 * sessions or break the lookups that name it. Pure.
 */

import { invalidInput } from './errors.js'

export const REDACTION_KINDS = [
  'private-key',
  'jwt',
  'bearer-token',
  'api-key',
  'github-token',
  'aws-access-key',
  'connection-password',
  'cn-id-number',
  'slack-token',
  'slack-webhook',
  'google-api-key',
  'stripe-key',
  'secret-assignment',
] as const
export type RedactionKind = (typeof REDACTION_KINDS)[number]

interface Rule {
  kind: RedactionKind
  pattern: RegExp
  /** Replaces only this capture group's text when set (the rest of the match is kept). */
  group?: number
  /** Whether the text to replace really is a secret; without it every match is. */
  accept?: (secret: string) => boolean
}

/** Shannon entropy of a string, in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>()
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length)
  return bits
}

/**
 * A value that looks generated, not written: varied enough (at least 3.2 bits a character) and
 * mixed like a key (upper and lower case and digits; or 32+ hex digits; or 32+ characters with
 * letters and digits). Keeps out placeholders (`your-api-key-here`, `xxxx…`), variable
 * references and ordinary names (`user_profile_12345`).
 */
function looksGenerated(value: string): boolean {
  if (value.length < 16 || entropy(value) < 3.2) return false
  const upper = /[A-Z]/.test(value)
  const lower = /[a-z]/.test(value)
  const digit = /[0-9]/.test(value)
  return (upper && lower && digit) || /^[0-9a-f]{32,}$/i.test(value) || (value.length >= 32 && (upper || lower) && digit)
}

// Every quantifier that can run long is bounded: a rule must stay linear on any input (a raw
// text may be a megabyte of one token). Rules run in order over the text the previous ones left,
// so a value a specific rule has already replaced is not claimed again by the generic last one.
const RULES: readonly Rule[] = [
  { kind: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[\s\S]{0,20000}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|[\s\S]{0,20000})/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'bearer-token', pattern: /\b(Bearer\s+)([A-Za-z0-9\-._~+/]{16,}=*)/gi, group: 2 },
  { kind: 'api-key', pattern: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  // scheme://user:password@host, the user possibly empty (redis://:pw@host) and the password
  // holding `/` or `@`: it ends at the first `@` whose host runs to the end of the authority (a
  // `/`, a quote, a space or the end), so a later `@` in the path is not taken for it. A port
  // before a path (`http://host:8080/@name`) is no password.
  {
    kind: 'connection-password',
    pattern: /(\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}:\/\/[^\s:/@]{0,256}:)([^\s"'<>`]{1,256}?)(@)(?=[^\s@/"'<>`]{1,256}(?:[/\s"'<>`]|$))/g,
    group: 2,
    accept: (password) => !/^\d{1,5}\//.test(password),
  },
  {
    kind: 'cn-id-number',
    pattern: /(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])/g,
  },
  // Bot, user, app, refresh, session and rotating tokens (xoxb- xoxp- xoxa- xoxr- xoxs- xoxe-
  // xoxe.xoxp-) and app-level tokens (xapp-).
  { kind: 'slack-token', pattern: /\b(?:xox(?:e\.xox)?[abeoprs]-[0-9A-Za-z-]{10,250}|xapp-\d-[0-9A-Za-z-]{10,250})/g },
  { kind: 'slack-webhook', pattern: /\bhttps?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,300}/g },
  { kind: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  // Secret and restricted keys, live or test, and webhook signing secrets; publishable keys
  // (pk_) are public.
  { kind: 'stripe-key', pattern: /\b(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,250}|whsec_[0-9A-Za-z]{20,250})/g },
  // NAME_KEY=value, NAME_TOKEN: "value", "name_secret": "value" (env files, YAML, JSON, headers).
  {
    kind: 'secret-assignment',
    // Found by its suffix, not by the name before it: trying every word as the start of a name
    // would cost a backtrack of up to the name's length at every word.
    pattern: /((?<=[A-Za-z0-9])[_-](?:KEY|TOKEN|SECRET)["']?[ \t]*[:=][ \t]*["']?)([A-Za-z0-9+/_.~-]{16,256}={0,2})/gi,
    group: 2,
    accept: looksGenerated,
  },
]

export function redactionMarker(kind: RedactionKind): string {
  return `[已脱敏:${kind}]`
}

export interface Redacted {
  text: string
  kinds: RedactionKind[]
}

/** Replaces every credential-shaped span with `[已脱敏:<kind>]` and says which kinds it found. */
export function redactSecrets(text: string): Redacted {
  const kinds: RedactionKind[] = []
  let out = text
  for (const rule of RULES) {
    out = out.replace(rule.pattern, (...args: unknown[]) => {
      const match = args[0] as string
      const groups = args.slice(1, -2) as (string | undefined)[]
      const secret = rule.group === undefined ? match : (groups[rule.group - 1] ?? '')
      // A marker left by an earlier pass (a password group takes any characters) is not a new find.
      if (secret === redactionMarker(rule.kind) || (rule.accept !== undefined && !rule.accept(secret))) return match
      if (!kinds.includes(rule.kind)) kinds.push(rule.kind)
      if (rule.group === undefined) return redactionMarker(rule.kind)
      return groups.map((g, i) => (i + 1 === rule.group ? redactionMarker(rule.kind) : (g ?? ''))).join('') || match
    })
  }
  return { text: out, kinds }
}

/**
 * Refuses a credential as an identifier (a session id, a link, an anchor's value): INVALID_INPUT
 * naming the field and the kind, never the value.
 */
export function checkIdentifier(field: string, value: string): void {
  const [kind] = redactSecrets(value).kinds
  if (kind === undefined) return
  const article = /^[aeiou]/.test(kind) ? 'an' : 'a'
  throw invalidInput(field, `an identifier, not a credential (it looks like ${article} ${kind}); identifiers are stored and compared as given, so one is never redacted`)
}

export interface RedactedRecord<T> {
  value: T
  kinds: RedactionKind[]
}

const NO_IDENTIFIERS: ReadonlySet<string> = new Set()

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * Every string in a JSON-like value redacted, object keys included; anything else (numbers,
 * dates) kept. A string below a key named in `identifiers`, at any depth, is checked instead of
 * redacted (`checkIdentifier`), its field named from that key down (`anchors[0].value`).
 */
export function redactRecord<T>(value: T, identifiers: ReadonlySet<string> = NO_IDENTIFIERS): RedactedRecord<T> {
  const kinds: RedactionKind[] = []
  const text = (s: string): string => {
    const r = redactSecrets(s)
    for (const k of r.kinds) if (!kinds.includes(k)) kinds.push(k)
    return r.text
  }
  /** `field` is the path from the nearest identifier key, or null outside one. */
  const walk = (v: unknown, field: string | null): unknown => {
    if (typeof v === 'string') {
      if (field === null) return text(v)
      checkIdentifier(field, v)
      return v
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, field === null ? null : `${field}[${i}]`))
    if (!isPlainObject(v)) return v
    return Object.fromEntries(
      Object.entries(v).map(([k, item]) => (field !== null ? [k, walk(item, `${field}.${k}`)] : [text(k), walk(item, identifiers.has(k) ? k : null)])),
    )
  }
  return { value: walk(value, null) as T, kinds }
}

/**
 * A record as one line of a JSONL file the store appends to (ledger, usage, query log, evidence
 * batches): redacted, then serialised.
 */
export function jsonLine(record: object): string {
  return JSON.stringify(redactRecord(record).value)
}
