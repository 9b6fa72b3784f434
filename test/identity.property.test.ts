/**
 * One identity rule for rebuild and for the freshness / sync planner, under random histories: a
 * handful of paths (names that carry an id, carry another, carry none; three folders) whose files
 * are written, copied, broken, emptied of front-matter and removed, several at a time. After
 * every step the index kept up to date by `planIndexChanges` must equal what `settleAll` (the
 * rebuild) derives from the files as they are, ids must be unique, and no file may be left out.
 * Pure: no disk, the real planner, rule and view.
 */

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { entryFromFile } from '../src/store/frontmatter.js'
import { copyId, settleAll, settleClaims } from '../src/store/identity.js'
import { planIndexChanges } from '../src/store/index-plan.js'
import { IndexView } from '../src/store/index-view.js'
import type { IndexEntry } from '../src/types.js'

const PATHS = [
  'topics/zebra-mem_x.md',
  'topics/dup-id-a.md',
  'topics/zebra-mem_x copy.md',
  'episodes/2026-01-01-mem_x.md',
  'episodes/dup.md',
  'topics/other-mem_y.md',
  'raw/mem_x.md',
  'topics/mem_y.md',
] as const
const IDS = ['mem_x', 'mem_y', 'mem_x-raw', 'dup-id-a'] as const
const TIMES = ['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'] as const

type Content = { kind: 'memory'; id: (typeof IDS)[number]; time: (typeof TIMES)[number]; word: number } | { kind: 'broken' } | { kind: 'plain'; word: number }

function render(c: Content): string {
  if (c.kind === 'broken') return `---\nid: mem_x\ntitle: [Broken\n---\n# Broken\n\nBroken text.\n`
  if (c.kind === 'plain') return `# Plain\n\nPlain text ${c.word}.\n`
  return `---\nid: ${c.id}\ntime: '${c.time}'\n---\n# T\n\nText ${c.word}.\n`
}

const content: fc.Arbitrary<Content> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('memory' as const), id: fc.constantFrom(...IDS), time: fc.constantFrom(...TIMES), word: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'broken' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('plain' as const), word: fc.nat(3) }) },
)
/** One step: several paths set to new content, or removed (null). */
const step = fc.array(fc.tuple(fc.constantFrom(...PATHS), fc.option(content, { nil: null, freq: 4 })), { minLength: 1, maxLength: 3 })

const byPath = (a: IndexEntry, b: IndexEntry) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

function rebuilt(files: ReadonlyMap<string, string>): IndexEntry[] {
  return settleAll([...files].map(([p, t]) => entryFromFile(p, t, 0))).entries.sort(byPath)
}

describe('identity: the planner settles ids as rebuild does', () => {
  it('after every step of 400 random histories, the index kept fresh equals the rebuilt one', () => {
    let steps = 0
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), fc.boolean(), (history, startIndexed) => {
        const files = new Map<string, string>()
        const view = new IndexView()
        for (const [i, changes] of history.entries()) {
          for (const [path, c] of changes) {
            if (c === null) files.delete(path)
            else files.set(path, render(c))
          }
          // As the freshness check hands them over: each changed path once, as it is now.
          const changed = [...new Set(changes.map(([path]) => path))].map((path) => {
            const text = files.get(path)
            return { path, stated: text === undefined ? null : entryFromFile(path, text, 0) }
          })
          if (i === 0 && startIndexed) {
            for (const e of rebuilt(files)) view.set(e)
          } else {
            const plan = planIndexChanges(view, changed)
            for (const e of plan.upserts) view.set(e)
            for (const id of plan.removed) view.delete(id)
            expect(plan.removed.filter((id) => plan.upserts.some((e) => e.id === id))).toEqual([])
          }
          const expected = rebuilt(files)
          expect([...view.values()].sort(byPath)).toEqual(expected)
          expect(expected).toHaveLength(files.size)
          steps++
        }
      }),
      { numRuns: 400 },
    )
    console.log(`[identity] ${steps} random steps: index kept fresh == rebuild after each`)
  })

  it('who keeps an id does not depend on the order the files are met in', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([...PATHS], { minLength: 2 }), fc.array(fc.constantFrom(...TIMES), { minLength: 8, maxLength: 8 }), (paths, times) => {
        const claimants = paths.map((p, i) => entryFromFile(p, `---\nid: mem_x\ntime: '${times[i]}'\n---\n# T\n\nText.\n`, 0))
        const forward = settleClaims(claimants).entries.sort(byPath)
        const backward = settleClaims([...claimants].reverse()).entries.sort(byPath)
        expect(backward).toEqual(forward)
        expect(forward.filter((e) => e.id === 'mem_x')).toHaveLength(1)
      }),
      { numRuns: 300 },
    )
  })

  it('the rule: the name that carries the id, else the earlier time, else the first path', () => {
    const at = (path: string, time: string) => entryFromFile(path, `---\nid: mem_x\ntime: '${time}'\n---\n# T\n\nText.\n`, 0)
    const keeper = (...es: IndexEntry[]) => settleClaims(es).entries.find((e) => e.claimed_id === undefined)?.path
    // The name wins over an earlier time.
    expect(keeper(at('topics/dup-id-a.md', TIMES[0]), at('topics/zebra-mem_x.md', TIMES[1]))).toBe('topics/zebra-mem_x.md')
    // Neither name carries it: the earlier time.
    expect(keeper(at('topics/b.md', TIMES[1]), at('topics/zebra-mem_x copy.md', TIMES[0]))).toBe('topics/zebra-mem_x copy.md')
    // Both carry it, same time: the first path.
    expect(keeper(at('topics/zebra-mem_x.md', TIMES[0]), at('episodes/2026-01-01-mem_x.md', TIMES[0]))).toBe('episodes/2026-01-01-mem_x.md')
    // raw/<episode>.md carries <episode>-raw.
    const raw = (path: string) => entryFromFile(path, `---\nid: mem_x-raw\ntime: '${TIMES[1]}'\n---\nRaw.\n`, 0)
    expect(settleClaims([raw('raw/copy.md'), raw('raw/mem_x.md')]).entries.map((e) => [e.path, e.id])).toEqual([
      ['raw/mem_x.md', 'mem_x-raw'],
      ['raw/copy.md', copyId('mem_x-raw', 'raw/copy.md')],
    ])
  })
})
