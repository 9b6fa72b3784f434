/**
 * The promotion test set (test/data/promotion.*.jsonl, hand-written for issue 17; see
 * test/data/promotion.README.md) is well formed: every record has the documented fields, every
 * fact to promote is really said in two sessions or confirmed once (its `must` atoms are in the
 * text), every statement that must stay an episode is said in one session only, and both splits
 * have enough cases in both languages. This checks the data, not the consolidation engine.
 */

import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const DATA = path.resolve(import.meta.dirname, 'data')

const LANGS = ['en', 'zh', 'mixed'] as const
const KINDS = [
  'repeated-fact',
  'repeated-preference',
  'confirmed-once',
  'one-off-only',
  'changed-value',
  'near-miss',
  'chatter',
  'mixed-language',
] as const

interface Session {
  session: string
  time: string
  episodes: string[]
  confirmed?: number[]
}

interface PromoteFact {
  fact: string
  must: string[]
}

interface PromotionCase {
  id: string
  lang: (typeof LANGS)[number]
  kind: (typeof KINDS)[number]
  sessions: Session[]
  promote: PromoteFact[]
  stay: string[]
}

const SPLITS = { dev: 40, holdout: 20 } as const
type Split = keyof typeof SPLITS

/** Case-insensitive, width-folded form used to look for an atom in a text. */
function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase()
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string')
}

function load(split: Split): { cases: PromotionCase[]; problems: string[] } {
  const text = readFileSync(path.join(DATA, `promotion.${split}.jsonl`), 'utf8')
  const cases: PromotionCase[] = []
  const problems: string[] = []
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return
    try {
      cases.push(JSON.parse(line) as PromotionCase)
    } catch (e) {
      problems.push(`${split}:${i + 1}: not JSON (${(e as Error).message})`)
    }
  })
  return { cases, problems }
}

/** Every problem with one record's shape and content; empty when the record is right. */
function check(c: PromotionCase): string[] {
  const out: string[] = []
  const bad = (msg: string): void => {
    out.push(`${String(c.id)}: ${msg}`)
  }
  const keys = Object.keys(c).sort()
  const allowed = ['id', 'kind', 'lang', 'promote', 'sessions', 'stay']
  for (const k of keys) if (!allowed.includes(k)) bad(`unknown field ${k}`)
  if (typeof c.id !== 'string' || !/^(en|zh|mixed)-[a-z0-9-]+-\d{3}$/.test(c.id)) bad('id is not <lang>-<topic>-<nnn>')
  if (!LANGS.includes(c.lang)) bad(`lang ${String(c.lang)}`)
  else if (!c.id.startsWith(`${c.lang}-`)) bad('id does not start with its lang')
  if (!KINDS.includes(c.kind)) bad(`kind ${String(c.kind)}`)
  if (!Array.isArray(c.sessions) || c.sessions.length < 2 || c.sessions.length > 6) {
    bad('needs 2-6 sessions')
    return out
  }
  if (!Array.isArray(c.promote)) bad('promote is not an array')
  if (!isStringArray(c.stay)) bad('stay is not an array of strings')
  if (out.length > 0) return out

  // Sessions: ids unique, times valid and increasing, 1-6 non-empty episodes, confirmed in range.
  const sessionIds = new Set<string>()
  let lastTime = -Infinity
  const episodes: Array<{ session: string; text: string; confirmed: boolean }> = []
  for (const s of c.sessions) {
    const sKeys = Object.keys(s)
    for (const k of sKeys) if (!['session', 'time', 'episodes', 'confirmed'].includes(k)) bad(`session field ${k}`)
    if (typeof s.session !== 'string' || s.session === '') bad('session id missing')
    if (sessionIds.has(s.session)) bad(`session ${s.session} twice`)
    sessionIds.add(s.session)
    const t = Date.parse(s.time)
    if (typeof s.time !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(s.time) || Number.isNaN(t)) {
      bad(`session ${s.session}: time ${String(s.time)}`)
    } else {
      if (t <= lastTime) bad(`session ${s.session}: time not after the previous session`)
      lastTime = t
    }
    if (!isStringArray(s.episodes) || s.episodes.length < 1 || s.episodes.length > 6) {
      bad(`session ${s.session}: needs 1-6 episode strings`)
      continue
    }
    const confirmed = s.confirmed ?? []
    if (!Array.isArray(confirmed) || !confirmed.every((n) => Number.isInteger(n) && n >= 0 && n < s.episodes.length)) {
      bad(`session ${s.session}: confirmed holds an index outside its episodes`)
    }
    if (new Set(confirmed).size !== confirmed.length) bad(`session ${s.session}: confirmed repeats an index`)
    s.episodes.forEach((text, i) => {
      if (text.trim() === '' || text !== text.trim()) bad(`session ${s.session}: episode ${i} is empty or padded`)
      episodes.push({ session: s.session, text, confirmed: confirmed.includes(i) })
    })
  }
  const allTexts = episodes.map((e) => e.text)
  if (new Set(allTexts).size !== allTexts.length) bad('the same episode text appears twice in the case')

  // Promote: 1-3 atoms each, all found together in episodes of two sessions or in a confirmed one.
  const supports = new Set<string>()
  for (const p of c.promote) {
    if (typeof p.fact !== 'string' || p.fact.trim() === '') bad('promote fact missing')
    if (!isStringArray(p.must) || p.must.length < 1 || p.must.length > 3) {
      bad(`"${p.fact}": must needs 1-3 atoms`)
      continue
    }
    for (const a of p.must) {
      if (a.trim() === '' || a !== fold(a)) bad(`"${p.fact}": atom "${a}" is not lower-case NFKC`)
      if (!fold(p.fact).includes(fold(a))) bad(`"${p.fact}": atom "${a}" is not in the fact itself`)
    }
    const holding = episodes.filter((e) => p.must.every((a) => fold(e.text).includes(fold(a))))
    const sessionsHolding = new Set(holding.map((e) => e.session))
    if (sessionsHolding.size < 2 && !holding.some((e) => e.confirmed)) {
      bad(`"${p.fact}": atoms ${JSON.stringify(p.must)} are not in two sessions nor in a confirmed episode`)
    }
    for (const e of holding) supports.add(e.text)
  }
  const facts = c.promote.map((p) => p.fact)
  if (new Set(facts).size !== facts.length) bad('a promote fact is listed twice')

  // Stay: verbatim episode texts, each in one session, never confirmed, never support for a promote.
  if (new Set(c.stay).size !== c.stay.length) bad('a stay statement is listed twice')
  for (const s of c.stay) {
    const found = episodes.filter((e) => e.text === s)
    if (found.length === 0) bad(`stay "${s}" is not an episode of the case`)
    if (new Set(found.map((e) => e.session)).size > 1) bad(`stay "${s}" is said in more than one session`)
    if (found.some((e) => e.confirmed)) bad(`stay "${s}" is confirmed`)
    if (supports.has(s)) bad(`stay "${s}" holds every atom of a fact to promote`)
  }

  // Every episode is accounted for: it supports a promoted fact or it stays. Only a changed-value
  // case may leave out the episodes that state a value that no longer holds.
  if (c.kind !== 'changed-value') {
    for (const e of episodes) {
      if (!supports.has(e.text) && !c.stay.includes(e.text)) bad(`episode "${e.text}" neither supports a fact nor stays`)
    }
  }

  // The kinds say what the case is about.
  if (c.kind === 'one-off-only' && c.promote.length > 0) {
    bad('a one-off-only case promotes nothing')
  }
  if (['repeated-fact', 'repeated-preference', 'confirmed-once', 'mixed-language'].includes(c.kind) && c.promote.length === 0) {
    bad(`a ${c.kind} case promotes at least one fact`)
  }
  if (c.kind === 'confirmed-once') {
    const viaConfirm = c.promote.some((p) => {
      const holding = episodes.filter((e) => p.must.every((a) => fold(e.text).includes(fold(a))))
      return holding.some((e) => e.confirmed) && new Set(holding.map((e) => e.session)).size === 1
    })
    if (!viaConfirm) bad('a confirmed-once case promotes a fact said in one session and confirmed there')
  }
  if (c.kind === 'mixed-language' || c.lang === 'mixed') {
    const han = episodes.some((e) => /\p{Script=Han}/u.test(e.text))
    const latinOnly = episodes.some((e) => !/\p{Script=Han}/u.test(e.text))
    if (!han || !latinOnly) bad('a mixed case has episodes in Chinese and in English')
  }
  if (c.lang === 'zh' && !episodes.every((e) => /\p{Script=Han}/u.test(e.text))) bad('a zh case has an episode without Chinese')
  if (c.lang === 'en' && episodes.some((e) => /\p{Script=Han}/u.test(e.text))) bad('an en case has Chinese text')
  if (c.stay.length === 0 && c.promote.length === 0) bad('the case checks nothing')
  return out
}

describe('promotion test set (test/data/promotion.*.jsonl)', () => {
  const loaded = { dev: load('dev'), holdout: load('holdout') }

  for (const split of ['dev', 'holdout'] as const) {
    it(`${split}: every line is a well-formed case`, () => {
      const { cases, problems } = loaded[split]
      expect(problems).toEqual([])
      expect(cases.flatMap(check)).toEqual([])
    })

    it(`${split}: at least ${SPLITS[split]} cases, in both languages, with facts to promote and to keep`, () => {
      const { cases } = loaded[split]
      expect(cases.length).toBeGreaterThanOrEqual(SPLITS[split])
      const byLang = (lang: string): number => cases.filter((c) => c.lang === lang).length
      expect(byLang('en')).toBeGreaterThanOrEqual(cases.length / 3)
      expect(byLang('zh')).toBeGreaterThanOrEqual(cases.length / 3)
      expect(byLang('mixed')).toBeGreaterThanOrEqual(1)
      for (const kind of KINDS) expect(cases.some((c) => c.kind === kind), kind).toBe(true)
      expect(cases.reduce((n, c) => n + c.promote.length, 0)).toBeGreaterThanOrEqual(SPLITS[split])
      expect(cases.reduce((n, c) => n + c.stay.length, 0)).toBeGreaterThanOrEqual(SPLITS[split])
    })
  }

  it('the README table gives the counts of both files', () => {
    const readme = readFileSync(path.join(DATA, 'promotion.README.md'), 'utf8')
    for (const split of ['dev', 'holdout'] as const) {
      const { cases } = loaded[split]
      const by = (lang: string): number => cases.filter((c) => c.lang === lang).length
      const facts = cases.reduce((n, c) => n + c.promote.length, 0)
      const stays = cases.reduce((n, c) => n + c.stay.length, 0)
      const row = `| ${split} | ${cases.length} | ${by('en')} | ${by('zh')} | ${by('mixed')} | ${facts} | ${stays} |`
      expect(readme).toContain(row)
    }
  })

  it('ids are unique across both files', () => {
    const ids = [...loaded.dev.cases, ...loaded.holdout.cases].map((c) => c.id)
    const seen = new Set<string>()
    const twice = ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)))
    expect(twice).toEqual([])
  })
})
