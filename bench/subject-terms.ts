/**
 * The subject term list (src/language/subject-terms.ts SUBJECT_TERM_GROUPS), measured on the
 * development claim sets (test/data/claims.dev.jsonl, claims.dev2.jsonl; never the holdout):
 * of the revision pairs (write i superseded, write i + 1 its revision) how many have subjects the
 * rules join (the same terms, or one term wider: revise.ts), and of the look-alike pairs (another
 * subject, another attribute, unrelated text: both stay active) how many they wrongly join, with
 * the list and without it. Pairs where either write states no claim are counted apart.
 *
 *   npm run bench:subject-terms            every development split
 *   npm run bench:subject-terms -- --pairs  also lists every pair the list joins or parts
 */

import { deriveClaim, nearSubjectTerms, sameSubjectTerms, subjectTerms } from '../lib/api.js'
import { flags } from './args.js'
import { loadCases, type ClaimCase, type Split } from './claim-set.js'

let listPairs = false
for (const f of flags(process.argv.slice(2))) {
  if (f.name === '--pairs') listPairs = true
  else throw new Error(`unknown flag ${f.name} (--pairs)`)
}

/** Kinds whose consecutive writes are about another subject or attribute: never one subject. */
const LOOKALIKE_KINDS = new Set(['other-subject-same-value', 'other-attribute', 'unrelated'])

interface Pair {
  id: string
  kind: 'revision' | 'look-alike'
  subjects: [string, string]
}

function pairsOf(c: ClaimCase): Pair[] {
  const out: Pair[] = []
  for (let i = 0; i + 1 < c.writes.length; i++) {
    const revision = c.expect[i] === 'superseded'
    const lookalike = LOOKALIKE_KINDS.has(c.kind) && c.expect[i] === 'active' && c.expect[i + 1] === 'active'
    if (!revision && !lookalike) continue
    const a = deriveClaim(c.writes[i]?.summary ?? '')
    const b = deriveClaim(c.writes[i + 1]?.summary ?? '')
    if (a === null || b === null) continue
    out.push({ id: c.id, kind: revision ? 'revision' : 'look-alike', subjects: [a.subject, b.subject] })
  }
  return out
}

function joined(p: Pair, withList: boolean): boolean {
  const [a, b] = p.subjects.map((s) => subjectTerms(s, withList)) as [string[], string[]]
  return sameSubjectTerms(a, b) || nearSubjectTerms(a, b)
}

console.log('| split | pairs | revision pairs | joined without list | joined with list | look-alike pairs | wrongly joined without | wrongly joined with |')
console.log('|---|---|---|---|---|---|---|---|')
for (const split of ['dev', 'dev2'] as Split[]) {
  const pairs = (await loadCases(split)).flatMap(pairsOf)
  const rev = pairs.filter((p) => p.kind === 'revision')
  const look = pairs.filter((p) => p.kind === 'look-alike')
  const count = (ps: Pair[], withList: boolean) => ps.filter((p) => joined(p, withList)).length
  console.log(`| ${split} | ${pairs.length} | ${rev.length} | ${count(rev, false)} | ${count(rev, true)} | ${look.length} | ${count(look, false)} | ${count(look, true)} |`)
  if (listPairs) {
    for (const p of pairs) {
      const [before, after] = [joined(p, false), joined(p, true)]
      if (before !== after) console.log(`  ${split} ${p.id} (${p.kind}) ${after ? 'joined' : 'parted'}: "${p.subjects[0]}" / "${p.subjects[1]}"`)
    }
  }
}
