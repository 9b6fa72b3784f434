/**
 * Lists of any length: `push(...list)` spreads every item onto the stack and threw `RangeError:
 * Maximum call stack size exceeded` from rebuild at about 130,000 files. No call in src/ spreads
 * an array any more (checked over the source), and the helper and the pure code paths that
 * appended unbounded lists take 200,000+ items. A real store of 130,000+ files (rebuild, timeline,
 * export) takes over two minutes on a loaded machine: that is `bench/rebuild-files.ts`.
 */

import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { groupBy, pushAll } from '../src/arrays.js'
import { allWithContext } from '../src/retrieve/session-context.js'
import { entryFromFile } from '../src/store/frontmatter.js'
import { settleAll } from '../src/store/identity.js'
import { IndexView } from '../src/store/index-view.js'
import type { IndexEntry } from '../src/types.js'

const BIG = 200_000

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

const BASE = entryFromFile('episodes/2026-01-01-mem_base.md', "---\nid: mem_base\ntype: episode\nsession_id: s1\ntime: '2026-01-01T00:00:00.000Z'\n---\n# Turn\n\nA turn.\n", 0)
/** n episodes of one session, one second apart, as their files would state them. */
function turns(n: number): IndexEntry[] {
  return range(n).map((i) => {
    const id = `mem_t${i.toString(36)}`
    return { ...BASE, id, path: `episodes/2026-01-01-${id}.md`, time: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), content_hash: id }
  })
}

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name)
    if (d.isDirectory()) pushAll(out, sourceFiles(p))
    else if (d.name.endsWith('.ts')) out.push(p)
  }
  return out
}

describe('unbounded lists', () => {
  it(`a spread of ${BIG.toLocaleString('en')} items into a call overflows the stack; pushAll does not`, () => {
    const items = range(BIG)
    expect(() => [].push(...(items as never[]))).toThrow(RangeError)
    const into = [-1]
    expect(pushAll(into, items)).toBe(into)
    expect(into).toHaveLength(BIG + 1)
    expect(into[BIG]).toBe(BIG - 1)
  })

  it('no call in src/ spreads an array into its arguments (push, unshift, splice, Math.max, Math.min, fromCharCode)', () => {
    const src = path.resolve(import.meta.dirname, '..', 'src')
    const spread = /\.(?:push|unshift)\(\s*\.\.\.|\.splice\([^)]*\.\.\.|Math\.(?:max|min)\(\s*\.\.\.|fromC(?:harCode|odePoint)\(\s*\.\.\./
    const found: string[] = []
    for (const file of sourceFiles(src)) {
      for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
        if (/^\s*(?:\*|\/\/)/.test(line)) continue
        if (spread.test(line)) found.push(`${path.relative(src, file)}:${i + 1}: ${line.trim()}`)
      }
    }
    expect(found).toEqual([])
  })

  it(`the search index's session context takes one session of ${BIG.toLocaleString('en')} turns`, () => {
    const view = new IndexView()
    for (const e of turns(BIG)) view.set(e)
    const withContext = allWithContext(view)
    expect(withContext).toHaveLength(BIG)
    expect(withContext[1]?.context).not.toBe('')
  })

  it(`rebuild settles the ids of ${BIG.toLocaleString('en')} files, and groups them`, () => {
    const files = turns(BIG)
    // Every tenth file a copy of the one before it (same id, another path).
    for (const i of range(BIG / 10)) files[i * 10 + 1] = { ...(files[i * 10] as IndexEntry), path: `episodes/copy-${i}.md` }
    expect(groupBy(files, (e) => e.id).size).toBe(BIG - BIG / 10)
    const settled = settleAll(files)
    expect(settled.entries).toHaveLength(BIG)
    expect(settled).toMatchObject({ reidentified: BIG / 10, skipped: 0 })
    expect(settled.warnings).toHaveLength(BIG / 10)
    expect(new Set(settled.entries.map((e) => e.id)).size).toBe(BIG)
  })
})
