/**
 * Secret redaction before anything reaches the disk. Only shapes that are almost certainly
 * credentials are touched (API keys, tokens, private keys, passwords in connection strings,
 * 18-digit Chinese ID numbers); phone numbers and e-mail addresses are left alone, since people
 * usually want those remembered. Pure.
 */

export const REDACTION_KINDS = [
  'private-key',
  'jwt',
  'bearer-token',
  'api-key',
  'github-token',
  'aws-access-key',
  'connection-password',
  'cn-id-number',
] as const
export type RedactionKind = (typeof REDACTION_KINDS)[number]

interface Rule {
  kind: RedactionKind
  pattern: RegExp
  /** Replaces only this capture group's text when set (the rest of the match is kept). */
  group?: number
}

// Every quantifier that can run long is bounded: a rule must stay linear on any input (a raw
// text may be a megabyte of one token).
const RULES: readonly Rule[] = [
  { kind: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[\s\S]{0,20000}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|[\s\S]{0,20000})/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'bearer-token', pattern: /\b(Bearer\s+)([A-Za-z0-9\-._~+/]{16,}=*)/gi, group: 2 },
  { kind: 'api-key', pattern: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'connection-password', pattern: /(\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}:\/\/[^\s:/@]{1,256}:)([^\s@/]{1,256})(@)/g, group: 2 },
  {
    kind: 'cn-id-number',
    pattern: /(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])/g,
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
    const next = out.replace(rule.pattern, (...args: unknown[]) => {
      if (!kinds.includes(rule.kind)) kinds.push(rule.kind)
      const match = args[0] as string
      if (rule.group === undefined) return redactionMarker(rule.kind)
      const groups = args.slice(1, -2) as (string | undefined)[]
      return groups.map((g, i) => (i + 1 === rule.group ? redactionMarker(rule.kind) : (g ?? ''))).join('') || match
    })
    out = next
  }
  return { text: out, kinds }
}
