/**
 * A statement as a frame and its values, for when no subject can be read from it: the frame is
 * what it talks about (its words that are no value: "user", "bank"), the values are what it says
 * of that (numbers with units, and names: "Chase", "t3.large", "eu-west-1", "WireGuard"). Two
 * statements with much of one frame and different values of one kind say different things of
 * one subject. Used by verify (is a support contested or outdated?) and by revision of a write
 * that announces a change (revise.ts). Pure.
 */

import { isStrongTerm, tokenize } from '../../language/tokenizer.js'
import { kindMentions, kindOfValue } from './claim-extract.js'
import { atomsWithin, unitClass, valueAtoms, type ValueAtoms } from './claim-value.js'

/** Words that name a person: they never make two statements about one subject. */
const PERSON_TERMS = new Set(['user', 'team', 'we', '用户', '团队', '我们'])

/** Words of change and time: they say that something changed, not what (stems, as the tokenizer gives them). */
const CHANGE_TERMS = new Set(
  tokenize(
    'now no longer anymore moved move switched switch changed change migrated upgraded downgraded replaced update updated instead again ' +
      'started start these days today yesterday last week month year recently finally went up down back over onto off gone ' +
      '现在 如今 目前 已经 不再 改成 换成 改为 改用 迁移 切换 升级 变成 开始 最近 上周 去年 昨天',
  ),
)

export interface Frame {
  /** What the statement talks about. */
  terms: Set<string>
  /** Its numbers (with units) and words of value. */
  atoms: ValueAtoms
  /** Its names, lower-case. */
  names: Set<string>
}

/**
 * Value-like words of a text: names written with a capital inside a sentence, identifiers with
 * digits, dots or dashes, Latin words inside Chinese, and known kinds of thing ("WireGuard",
 * "t3.large", "eu-west-1", "redis"). Lower-case.
 */
export function valueNames(text: string): Set<string> {
  const out = new Set<string>()
  const t = ` ${text.normalize('NFKC')}`
  for (const m of t.matchAll(/(?<=[\s(（"'“]|[\p{Script=Han}])([\p{Lu}][\p{L}\p{N}]*(?:[.-][\p{L}\p{N}]+)*|[\p{L}]+\d[\p{L}\p{N}.-]*|[\p{Ll}]+[.-][\p{L}\p{N}.-]+)/gu)) {
    const name = m[1]?.toLowerCase()
    // A capital that starts a sentence names nothing.
    const before = t.slice(0, m.index).trimEnd()
    if (/^\p{Lu}\p{Ll}*$/u.test(m[1] ?? '') && (before === '' || /[.!?:;。！？：；]$/u.test(before))) continue
    if (name !== undefined && !/^(?:the|a|an|it|its|we|our|i|my|he|she|they|this|that|user|now)$/u.test(name)) out.add(name)
  }
  if (/\p{Script=Han}/u.test(t)) for (const m of t.matchAll(/[A-Za-z][A-Za-z0-9.+#-]*/gu)) out.add(m[0].toLowerCase())
  const kind = kindOfValue(t)
  if (kind !== null) for (const k of kindMentions(t, kind)) out.add(k)
  return out
}

/** The frame of a text; `subject` (when known) narrows what it talks about, `value` what it says. */
export function frameOf(text: string, subject?: string, value?: string): Frame {
  // A value without numbers is a name even in lower case ("postgres"); with numbers its words are units ("3 nodes").
  const plain = valueAtoms(value ?? '')
  const names = value === undefined ? valueNames(text) : new Set([...valueNames(value), ...(plain.numbers.length === 0 ? plain.words.filter((w) => /^[a-z]/u.test(w)) : [])])
  const atoms = valueAtoms(value ?? text)
  const valueTerms = new Set(tokenize([...names].join(' ')))
  const terms = new Set(
    tokenize(subject ?? text).filter((w) => isStrongTerm(w) && !valueTerms.has(w) && !/\d/u.test(w) && !PERSON_TERMS.has(w) && !CHANGE_TERMS.has(w)),
  )
  return { terms, atoms, names }
}

/** The text gives another value of the frame's kind: a number of one of its unit classes that it lacks, or a name it lacks where it gives names. */
export function otherValue(frame: Pick<Frame, 'atoms' | 'names'>, text: string): boolean {
  const theirs = valueAtoms(text).numbers
  const classes = new Set(frame.atoms.numbers.map(unitClass))
  if (frame.atoms.numbers.length > 0 && theirs.some((n) => classes.has(unitClass(n)) && !atomsWithin({ numbers: [n], words: [] }, frame.atoms))) return true
  if (frame.names.size === 0) return false
  const names = valueNames(text)
  return [...names].some((n) => !frame.names.has(n) && ![...frame.names].some((m) => m.includes(n) || n.includes(m)))
}

/** How many of `a`'s frame terms `b` holds. */
export function sharedTerms(a: Frame, b: ReadonlySet<string>): number {
  let n = 0
  for (const t of a.terms) if (b.has(t)) n++
  return n
}
