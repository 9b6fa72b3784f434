/**
 * The revision invariant under random keyless writes: whatever free text arrives, in whatever
 * order (facts, corrections with and without cues, restatements, other subjects, Chinese and
 * English, scoped and not), the store never ends with two active memories of one type that give
 * one subject different values under agreeing premises, and index.jsonl equals what rebuildIndex
 * derives from the files. `compareValues` and `deriveClaim` are total: they never throw.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { compareValues, createFileBackend, deriveClaim, flushCaches, rebuildIndex, valueAtoms, writeHandler, type IndexEntry } from '../src/api.js'
import { premisesConflict } from '../src/store/premises.js'
import { entryClaim, relateClaims } from '../src/memory/writing/revise.js'
import { normalizeSlot } from '../src/text.js'
import { Overlay } from '../src/memory/writing/txn.js'
import { rarestTerms, subjectWords, type IndexLookup } from '../src/store/index-view.js'

const roots: string[] = []
afterAll(async () => {
  for (const r of roots) await fs.rm(r, { recursive: true, force: true })
})

const SUBJECTS_EN = ['The API server port', 'The billing service database', 'The deploy target', 'The auth service token TTL', 'The cache size']
const SUBJECTS_ZH = ['缓存服务', 'API 服务端口', '部署目标', '数据库', '会议室']
const VALUES = ['8080', '9090', 'postgres', 'mysql', 'staging', 'production', '15 minutes', '30 minutes', '512 MB', '2 GB', 'redis 6', 'redis 7', '3楼', '5楼']

/** A free-text write as an agent might make it: a form, a subject, a value, maybe a cue or a scope. */
const writeArb = fc.record({
  zh: fc.boolean(),
  subject: fc.nat(4),
  value: fc.constantFrom(...VALUES),
  form: fc.constantFrom('copula', 'arrow', 'colon', 'cue', 'retire', 'noise'),
  old: fc.constantFrom(...VALUES),
  scope: fc.constantFrom(undefined, 'env=prod', 'env=staging'),
})

function textOf(w: fc.RecordValue<typeof writeArb extends fc.Arbitrary<infer T> ? T : never>): string {
  const s = (w.zh ? SUBJECTS_ZH : SUBJECTS_EN)[w.subject] as string
  const plain = w.zh ? s : s.replace(/^The /, '')
  switch (w.form) {
    case 'copula':
      return w.zh ? `${s}是 ${w.value}。` : `${s} is ${w.value}.`
    case 'arrow':
      return `${plain} -> ${w.value}`
    case 'colon':
      return `${plain}: ${w.value}`
    case 'cue':
      return w.zh ? `${s}现在改成 ${w.value} 了。` : `${s} is now ${w.value}.`
    case 'retire':
      return w.zh ? `${s}不再是 ${w.old}，改成 ${w.value}。` : `${s} is ${w.value}, no longer ${w.old}.`
    default:
      return w.zh ? `今天和同事讨论了${s}的问题。` : `Talked with the team about ${plain.toLowerCase()} today.`
  }
}

describe('revision under random keyless writes', () => {
  it('never leaves two active memories giving one subject different values; index == rebuild', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(writeArb, { minLength: 1, maxLength: 8 }), async (writes) => {
        const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-revision-prop-'))
        roots.push(root)
        const b = createFileBackend(root)
        try {
          for (const w of writes) await writeHandler(b, { summary: textOf(w), ...(w.scope !== undefined ? { scope: w.scope } : {}) })
          // Group by what the text itself says (not by the stored slot, which revision writes).
          const active = [...(await b.indexView()).values()].filter((e) => e.status === 'active')
          const bySlot = new Map<string, IndexEntry[]>()
          for (const e of active) {
            const said = deriveClaim(e.summary)
            if (said === null) continue
            const slot = `${e.type}\n${normalizeSlot(said.subject)}`
            bySlot.set(slot, [...(bySlot.get(slot) ?? []), e])
          }
          for (const group of bySlot.values()) {
            for (const a of group) {
              for (const c of group) {
                if (a.id >= c.id || premisesConflict(a.scope, c.scope)) continue
                const x = entryClaim(a)
                const y = entryClaim(c)
                if (x === null || y === null) continue
                expect(relateClaims(x, y), `${a.summary} | ${c.summary}`).not.toBe('different')
              }
            }
          }
          const indexed = (await b.readIndex()).map((e) => `${e.id}:${e.status}:${e.key ?? ''}`).sort()
          await flushCaches(b)
          await rebuildIndex(root)
          const rebuilt = (await createFileBackend(root).readIndex()).map((e) => `${e.id}:${e.status}:${e.key ?? ''}`).sort()
          expect(rebuilt).toEqual(indexed)
        } finally {
          await flushCaches(b)
        }
      }),
      { numRuns: 100 },
    )
  }, 120_000)

  it('the counted lookups (countWithTerm, rarestTerms, subjectWordsOf) agree with the lists they stand for, in the view and under a transaction overlay', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(writeArb, { minLength: 2, maxLength: 10 }), fc.nat(), fc.nat(4), async (writes, pick, rekey) => {
        const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-revision-count-'))
        roots.push(root)
        const b = createFileBackend(root)
        try {
          for (const w of writes) await writeHandler(b, { summary: textOf(w) })
          const view = await b.indexView()
          const entries = [...view.values()]
          // An overlay that drops one memory and re-keys another, as a revision does.
          const overlay = new Overlay(view)
          const dropped = entries[pick % entries.length] as IndexEntry
          const changed = entries[(pick + 1) % entries.length] as IndexEntry
          overlay.drop(dropped.id)
          if (changed.id !== dropped.id) overlay.put({ ...changed, key: SUBJECTS_EN[rekey] as string, key_derived: true })
          const terms = [...new Set([...view.values(), ...overlay.values()].flatMap((e) => subjectWords(e)))].concat('no-such-term')
          for (const index of [view, overlay] as IndexLookup[]) {
            for (const e of index.values()) expect(index.subjectWordsOf(e)).toEqual(subjectWords(e))
            for (const statement of [false, true]) {
              const list = (t: string) => (statement ? index.withStatementTerm(t) : index.withSubjectTerm(t))
              for (const t of terms) {
                for (const except of [[], [dropped.id], [changed.id, changed.id]]) {
                  expect(index.countWithTerm(t, statement, except)).toBe(list(t).filter((e) => !except.includes(e.id)).length)
                }
              }
              // The two rarest as a stable sort of the built lists would give them.
              const byLists = terms
                .map((t) => ({ t, n: list(t).filter((e) => e.id !== changed.id).length }))
                .filter((x) => x.n > 0)
                .sort((x, y) => x.n - y.n)
                .slice(0, 2)
                .map((x) => x.t)
              expect(rarestTerms(index, terms, statement, 2, { except: changed.id, nonEmpty: true })).toEqual(byLists)
            }
          }
        } finally {
          await flushCaches(b)
        }
      }),
      { numRuns: 40 },
    )
  }, 120_000)

  it('deriveClaim and compareValues never throw, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ maxLength: 60 }), (text, other) => {
        const c = deriveClaim(text)
        if (c !== null) {
          expect(c.subject.trim()).not.toBe('')
          expect(c.value.trim()).not.toBe('')
        }
        const r = compareValues(valueAtoms(text), valueAtoms(other))
        expect(['same', 'different', 'empty']).toContain(r)
      }),
      { numRuns: 2000 },
    )
  })
})
