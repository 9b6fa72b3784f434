/**
 * The note memory_verify returns: one paragraph the agent can quote, starting with the verdict in
 * capitals and naming every memory it rests on (the support, what contradicts or doubts it, a
 * change yet to come, old versions, retractions). Pure; split from verify.ts.
 */

import { describeConflict } from '../../store/premises.js'
import { truncate } from '../../text.js'
import type { IndexEntry } from '../../types.js'
import { evidenceSentence } from './evidence.js'
import type { Verdict } from './verify.js'

/** At most this many memories named per list. */
export const LIST_LIMIT = 5

/** `id "title": summary (date)`; the title is left out when the summary starts with it (a derived title). */
export const quote = (e: IndexEntry) =>
  `${e.id}${e.summary.startsWith(e.title.replace(/…$/, '')) ? '' : ` "${truncate(e.title, 60)}"`}: ${truncate(e.summary, 200)} (${e.time.slice(0, 10)})`

export interface Doubt {
  entry: IndexEntry
  why: string
}

export interface NoteParts {
  verdict: Verdict
  support: IndexEntry | null
  against: IndexEntry[]
  contested: IndexEntry[]
  /** Newer memories of the subject that say something changed. */
  changed: IndexEntry[]
  /** Current memories that give the subject another value of the same kind. */
  mentions: IndexEntry[]
  /** Memories at least as new that may say otherwise about the subject, and older ones still in conflict with the support, and why. */
  doubts: Doubt[]
  /** Changes yet to come on a known day. */
  until: Array<{ entry: IndexEntry; from: string }>
  superseded: IndexEntry[]
  retracted: IndexEntry[]
  newer: IndexEntry[]
  outOfScope: IndexEntry[]
  live: IndexEntry[]
  premises: string | null
  /** Share of the claim's words a memory states. */
  check: { coverage(e: IndexEntry): number }
  nowMs: number
}

export function noteFor(p: NoteParts): string {
  const parts: string[] = []
  switch (p.verdict) {
    case 'supported': {
      const s = p.support as IndexEntry
      if (p.until.length > 0) {
        const first = [...p.until].sort((a, b) => a.from.localeCompare(b.from))[0] as { entry: IndexEntry; from: string }
        parts.push(`SUPPORTED until ${first.from} by ${quote(s)}; then ${quote(first.entry)} takes effect, from ${first.from}.`, evidenceSentence(s, p.nowMs))
        break
      }
      parts.push(`SUPPORTED by ${quote(s)}.`, evidenceSentence(s, p.nowMs))
      break
    }
    case 'contradicted': {
      const retraction = p.against.find((e) => e.retracts !== undefined)
      const current = p.against.filter((e) => e.retracts === undefined)
      if (current.length > 0) parts.push(`CONTRADICTED: memory's current statement is ${current.map(quote).join('; ')}.`)
      if (retraction !== undefined) parts.push(`${current.length > 0 ? 'Also' : 'CONTRADICTED'}: ${retraction.retracts} said this but was retracted by ${quote(retraction)}.`)
      if (p.superseded.length > 0) parts.push(`The claim matches an older version: ${p.superseded.map((e) => e.id).join(', ')} (superseded), true once but not now.`)
      if (p.support !== null) parts.push(`${p.support.id} mentions it, but the slot's current statement overrides a mention.`)
      parts.push('Say the current statement instead, or that memory disagrees.')
      break
    }
    case 'unknown': {
      const s = p.support
      if (s !== null && p.contested.length === 0 && p.doubts.length > 0) {
        parts.push(
          `UNKNOWN (doubt): ${quote(s)} supports it, but ${p.doubts.map((d) => `${quote(d.entry)}, ${d.entry.time >= s.time ? 'at least as new, ' : ''}${d.why}`).join('; ')}. Rules cannot tell whether that is the same fact; ask, or read both, before asserting the claim, then write the current value.`,
        )
        break
      }
      if (p.support !== null && p.contested.length === 0 && p.changed.length === 0) {
        parts.push(
          `UNKNOWN (contested): ${quote(p.support)} supports it, but ${p.mentions.map(quote).join('; ')} gives the same subject another value; find out which holds before asserting either, then write it (or settle it with memory_resolve).`,
        )
        break
      }
      if (p.support !== null && p.contested.length === 0) {
        parts.push(
          `UNKNOWN (changed?): ${quote(p.support)} supports it, but newer memory says something changed: ${p.changed.map(quote).join('; ')}. Read it before asserting the claim; settle it with memory_resolve or write the current value.`,
        )
        break
      }
      if (p.support !== null) {
        parts.push(`UNKNOWN (contested): ${quote(p.support)} supports it, but ${p.contested.map(quote).join('; ')} says otherwise in an unresolved conflict; settle it with memory_resolve before asserting either.`)
        break
      }
      const closest = [...p.live].sort((a, b) => p.check.coverage(b) - p.check.coverage(a))[0]
      parts.push('UNKNOWN: no memory states this.')
      if (closest !== undefined) parts.push(`Closest: ${quote(closest)}, which states ${Math.round(p.check.coverage(closest) * 100)}% of the claim's words.`)
      if (p.superseded.length > 0) parts.push(`Older versions stated it: ${p.superseded.map((e) => e.id).join(', ')}.`)
      parts.push('Say it is not in memory rather than guessing.')
      break
    }
    case 'out_of_scope': {
      const e = p.outOfScope[0] as IndexEntry
      parts.push(
        `OUT_OF_SCOPE: ${quote(e)} holds under premises "${e.scope}", which disagree with yours on ${describeConflict(e.scope, p.premises)}. It neither supports nor contradicts the claim under your premises.`,
      )
      break
    }
  }
  const s = p.support
  if (s !== null && p.verdict !== 'out_of_scope') {
    if (p.premises === null && s.scope !== undefined) parts.push(`CONDITIONAL SCOPE: ${s.id} holds under "${s.scope}"; the claim named no premises, so they were not checked.`)
    else if (p.premises !== null && s.scope === undefined) parts.push(`Premises unchecked: ${s.id} records none, so whether it holds under "${p.premises}" is not known.`)
    if (p.newer.length > 0) parts.push(`STALE SUPPORT?: newer related memories exist (${p.newer.slice(0, LIST_LIMIT).map((e) => e.id).join(', ')}); read them before relying on ${s.id}.`)
  }
  if (p.retracted.length > 0 && p.verdict !== 'contradicted') parts.push(`Retracted, not used: ${p.retracted.map((e) => `${e.id} (by ${e.retracted_by})`).join(', ')}.`)
  return parts.join(' ')
}
