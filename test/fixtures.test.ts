/**
 * The fixture suite: every case of test/cases.json as its own test (engine in fixture-runner.ts).
 * `CASE_FILTER=06 npx vitest run test/fixtures.test.ts` (or `bash verify.sh 06`) runs only the
 * cases whose name contains "06". Set KEEP_FIXTURE_STORES=1 to keep every temp store; a failing
 * case always keeps its store and prints where it is.
 */

import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { caseFormatProblems, casePrefix, filterCases, loadCases, runCase } from './fixture-runner.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const cases = await loadCases(path.join(here, 'cases.json'))
const filter = process.env.CASE_FILTER ?? ''
const selected = filterCases(cases, filter)

describe('test/cases.json', () => {
  it('is well-formed: unique names and number prefixes, known ops, expectations on existing steps', () => {
    const problems: string[] = []
    const names = new Set<string>()
    const prefixes = new Map<string, string>()
    for (const c of cases) {
      for (const p of caseFormatProblems(c)) problems.push(`${c.name}: ${p}`)
      if (names.has(c.name)) problems.push(`${c.name}: duplicate name`)
      names.add(c.name)
      // By value: "07-…" and "007-…" would be the same number.
      const prefix = String(Number(casePrefix(c.name)))
      if (prefixes.has(prefix)) problems.push(`${c.name}: number ${prefix} already used by ${prefixes.get(prefix)}`)
      prefixes.set(prefix, c.name)
    }
    expect(problems, problems.join('\n')).toEqual([])
  })

  it(`CASE_FILTER ${JSON.stringify(filter)} selects at least one case`, () => {
    expect(selected.length, `no case name contains ${JSON.stringify(filter)}`).toBeGreaterThan(0)
  })
})

describe('fixture cases', () => {
  for (const c of selected) {
    it(c.name, async () => {
      const outcome = await runCase(c, {
        fixturesDir: path.join(here, 'fixtures'),
        keepStore: process.env.KEEP_FIXTURE_STORES === '1',
      })
      if (outcome.failures.length > 0) {
        const header = `case ${c.name} — ${c.description}\n(store kept at ${outcome.root})`
        throw new Error(`${header}\n\n${outcome.failures.join('\n\n')}`)
      }
    })
  }
})
