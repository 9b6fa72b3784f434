/**
 * Anti-hallucination bench, after the protocol of the reference design (shared/seeds/000): one
 * long session in which 8 service facts are stated early, 2 of them are corrected by the user
 * midway, 60 turns of unrelated work follow, and then 8 questions ask for the facts. Three arms
 * answer with the same deterministic reader (a stand-in for the model, below):
 *
 *   window   the model sees only the last 25 lines of the session (a bounded context);
 *   naive    plain BM25 (./plain-bm25.ts) over every line of the session, the top 3 lines read;
 *   memory   this project: facts written with write_memory (a key per fact, so a correction is
 *            a new version), every noise turn stored as an episode too; the question goes to
 *            memory_search_hybrid, the reader picks an answer from the hits, and the answer is
 *            restated as a claim for memory_verify: only a `supported` claim is said, anything
 *            else is a refusal.
 *   keyless  the same, but every line (facts, corrections, noise) is written as an agent or
 *            auto-settle writes it: the message text as a free-text episode, with no key and no
 *            title. Revision comes only from what the text says (memory/writing/revise.ts).
 *
 * An answer is correct when it names the current value, wrong when it names anything else (a
 * hallucination: an old value or another subject's), refused when the arm says it does not know.
 * Two control questions about facts never stated are reported apart (refusing is right there).
 *
 *   npm run bench:anti-hallucination      (builds lib/, then runs this file with tsx)
 *   npm run bench:anti-hallucination -- --model <base URL>#<model>   the memory arms again with that model
 *
 * The table goes to stdout, per-question detail to stderr, figures to
 * bench/results/anti-hallucination.json. Deterministic: no model, no network, no randomness.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createFileBackend, flushCaches, searchHandler, setConsolidationModel, signalsSettled, tokenize, verifyHandler, writeHandler, type ConsolidationModel } from '../lib/api.js'
import { flags, resultsFile } from './args.js'
import { endpointModel } from './model-endpoint.js'
import { PlainBM25, wordTokens } from './plain-bm25.js'

// ---------------------------------------------------------------------------------------------
// The session

interface Fact {
  subject: string
  value: string
}
interface Question {
  text: string
  /** The answer restated as a claim, as a model would say it; `{v}` is the answer. */
  claim: string
  /** The current value (null: never stated, refusing is right). */
  expected: string | null
}

const FACTS: Fact[] = [
  { subject: 'billing service database', value: 'postgres' },
  { subject: 'auth service token TTL', value: '15 minutes' },
  { subject: 'search service index engine', value: 'elasticsearch 8' },
  { subject: 'payments service message queue', value: 'rabbitmq' },
  { subject: 'notification service email provider', value: 'postmark' },
  { subject: 'inventory service cache', value: 'redis 7' },
  { subject: 'gateway service rate limit', value: '200 rps' },
  { subject: 'reports service cron schedule', value: '02:00 UTC' },
]
const CORRECTIONS: Fact[] = [
  { subject: 'billing service database', value: 'mysql' },
  { subject: 'search service index engine', value: 'opensearch 2' },
]
const QUESTIONS: Question[] = [
  { text: 'Which database does the billing service use?', claim: 'The billing service uses {v} as its database', expected: 'mysql' },
  { text: 'What is the token TTL of the auth service?', claim: 'The auth service token TTL is {v}', expected: '15 minutes' },
  { text: 'Which engine does the search service index run on?', claim: 'The search service index engine is {v}', expected: 'opensearch 2' },
  { text: 'Which message queue does the payments service use?', claim: 'The payments service message queue is {v}', expected: 'rabbitmq' },
  { text: 'Which email provider does the notification service use?', claim: 'The notification service email provider is {v}', expected: 'postmark' },
  { text: 'What cache does the inventory service use?', claim: 'The inventory service cache is {v}', expected: 'redis 7' },
  { text: 'What is the rate limit of the gateway service?', claim: 'The gateway service rate limit is {v}', expected: '200 rps' },
  { text: 'When does the reports service cron schedule run?', claim: 'The reports service cron schedule is {v}', expected: '02:00 UTC' },
]
/** Facts never stated: the only right answer is a refusal. */
const CONTROLS: Question[] = [
  { text: 'Which database does the reports service use?', claim: 'The reports service uses {v} as its database', expected: null },
  { text: 'What is the token TTL of the gateway service?', claim: 'The gateway service token TTL is {v}', expected: null },
]

/** 60 turns of other work on the same services: other attributes, other tasks. */
function noiseTurns(): string[] {
  const attributes = [
    'billing service currency -> EUR',
    'billing dashboard theme -> dark',
    'auth service log level -> debug',
    'auth login page footer -> updated copyright year',
    'search service replica count -> 3',
    'search results page size -> 20',
    'payments service retry limit -> 5',
    'payments webhook timeout -> 10 s',
    'notification service sms provider -> twilio',
    'notification templates folder -> templates/mail',
    'inventory service owner -> team kestrel',
    'inventory import batch size -> 500',
    'gateway service request timeout -> 30 s',
    'gateway access log format -> json',
    'reports service output format -> csv',
    'reports archive bucket -> reports-archive-eu',
  ]
  const tasks = [
    'fixed the flaky unit test in the billing invoice PDF export',
    'bumped eslint to 9 in the web app and fixed the new warnings',
    'renamed the staging kubernetes namespace for the auth service',
    'wrote a migration to add an index on orders.created_at',
    'reviewed the pull request that adds dark mode to the billing dashboard',
    'profiled the search results page, the slow part is the facet count',
    'added retries with jitter to the payments webhook client',
    'cleaned up unused feature flags in the notification service',
    'moved the inventory CSV import to a background job',
    'documented the gateway service deployment steps in the wiki',
    'triaged three bug reports about the reports service export',
    'paired on the onboarding checklist for the new engineer',
  ]
  const out: string[] = []
  for (let i = 0; i < 60; i++) {
    // Every third turn states another attribute of some service; the rest are tasks.
    out.push(i % 3 === 0 ? `user: note that ${attributes[(i / 3) % attributes.length]}` : `assistant: ${tasks[i % tasks.length]} (step ${i + 1})`)
  }
  return out
}

function sessionLines(): string[] {
  return [
    ...FACTS.map((f) => `user: remember: ${f.subject} -> ${f.value}`),
    'assistant: noted, I will keep those in mind.',
    ...CORRECTIONS.map((f) => `user: correction: ${f.subject} -> ${f.value} (we migrated last week)`),
    'assistant: updated.',
    ...noiseTurns(),
  ]
}

// ---------------------------------------------------------------------------------------------
// The reader: a deterministic stand-in for the model, the same for every arm

const WINDOW_LINES = 25
const NAIVE_TOP = 3
const MEMORY_TOP = 5
/** Share of a line's subject terms the question must name before the reader trusts the line. */
const SUBJECT_MATCH = 0.6

const terms = (text: string) => new Set(tokenize(text).filter((t) => Array.from(t).length >= 2))

/**
 * From lines of the form `subject -> value`, the value of the line whose subject the question
 * names best (the earliest among equals: the order the context gives); null when no line's
 * subject is named well enough. A model answers from what it reads the same way.
 */
function readAnswer(question: string, lines: readonly string[]): string | null {
  const q = terms(question)
  let best: { value: string; score: number } | null = null
  for (const line of lines) {
    const m = /([^:>]+?)\s*->\s*([^()]+?)\s*(?:\(|$)/.exec(line.replace(/^(user|assistant): (remember|note that|correction): /, ''))
    if (m === null) continue
    const subject = terms(m[1] ?? '')
    if (subject.size === 0) continue
    const score = [...subject].filter((t) => q.has(t)).length / subject.size
    if (score >= SUBJECT_MATCH && (best === null || score > best.score)) best = { value: (m[2] ?? '').trim(), score }
  }
  return best?.value ?? null
}

type Outcome = 'correct' | 'wrong' | 'refused'

function judge(q: Question, answer: string | null): Outcome {
  if (answer === null) return 'refused'
  if (q.expected === null) return 'wrong'
  return answer.toLowerCase() === q.expected.toLowerCase() ? 'correct' : 'wrong'
}

interface ArmResult {
  arm: string
  correct: number
  wrong: number
  refused: number
  controls: { refused: number; wrong: number }
  answers: { question: string; answer: string | null; outcome: Outcome; detail?: string }[]
}

function tally(arm: string, rows: ArmResult['answers'], controls: ArmResult['answers']): ArmResult {
  const count = (o: Outcome) => rows.filter((r) => r.outcome === o).length
  return {
    arm,
    correct: count('correct'),
    wrong: count('wrong'),
    refused: count('refused'),
    controls: { refused: controls.filter((r) => r.outcome === 'refused').length, wrong: controls.filter((r) => r.outcome === 'wrong').length },
    answers: [...rows, ...controls],
  }
}

// ---------------------------------------------------------------------------------------------
// Arms

function windowArm(lines: readonly string[]): ArmResult {
  const visible = lines.slice(-WINDOW_LINES)
  const ask = (q: Question) => {
    const answer = readAnswer(q.text, visible)
    return { question: q.text, answer, outcome: judge(q, answer) }
  }
  return tally('window (last 25 lines)', QUESTIONS.map(ask), CONTROLS.map(ask))
}

function naiveArm(lines: readonly string[]): ArmResult {
  const bm25 = new PlainBM25<number>(wordTokens)
  lines.forEach((line, i) => bm25.add(i, line))
  const ask = (q: Question) => {
    const top = bm25.search(q.text, NAIVE_TOP).map((r) => lines[r.key] as string)
    const answer = readAnswer(q.text, top)
    return { question: q.text, answer, outcome: judge(q, answer) }
  }
  return tally('naive retrieval (BM25, all lines)', QUESTIONS.map(ask), CONTROLS.map(ask))
}

/**
 * This project, and the same run without the verify step (an ablation: what verify adds).
 * `keyed`: facts are written under their subject as key; otherwise every line is free text.
 */
async function memoryArms(lines: readonly string[], keyed: boolean, model: ConsolidationModel | null = null): Promise<[ArmResult, ArmResult]> {
  const root = await mkdtemp(join(tmpdir(), 'anti-hallucination-'))
  const backend = createFileBackend(root)
  setConsolidationModel(backend, model)
  try {
    for (const line of lines) {
      const fact = /^user: (?:remember|correction): (.+?) -> (.+?)(?: \(.*\))?$/.exec(line)
      // Keyed: each fact under its subject as key (so a correction is a new version). Keyless: the
      // message as said, as auto-settle keeps it. Every other turn is an episode of the session.
      if (keyed && fact !== null) await writeHandler(backend, { summary: `${fact[1]} -> ${fact[2]}`, key: fact[1] as string, session_id: 'bench', source: 'user' })
      else await writeHandler(backend, { summary: line.replace(/^(user|assistant): /, ''), raw: line, session_id: 'bench' })
    }
    await signalsSettled(backend)
    const ask = async (q: Question) => {
      const found = await searchHandler(backend, { query: q.text, top_k: MEMORY_TOP })
      const answer = readAnswer(q.text, found.hits.map((h) => h.summary))
      const unverified = { question: q.text, answer, outcome: judge(q, answer) }
      if (answer === null) return { verified: { ...unverified, detail: 'no hit names the subject' }, unverified }
      const v = await verifyHandler(backend, { claim: q.claim.replace('{v}', answer), model: model !== null })
      const said = v.verdict === 'supported' ? answer : null
      return { verified: { question: q.text, answer: said, outcome: judge(q, said), detail: `${v.verdict}: ${v.note}` }, unverified }
    }
    const rows = []
    for (const q of QUESTIONS) rows.push(await ask(q))
    const controls = []
    for (const q of CONTROLS) controls.push(await ask(q))
    await signalsSettled(backend)
    const name = `${keyed ? 'this project, keyed writes (search + verify)' : 'this project, keyless free text (search + verify)'}${model !== null ? ', with the model' : ''}`
    return [
      tally(name, rows.map((r) => r.verified), controls.map((r) => r.verified)),
      tally('  ablation: search only, no verify', rows.map((r) => r.unverified), controls.map((r) => r.unverified)),
    ]
  } finally {
    await flushCaches(backend)
    await rm(root, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------

const log = (line: string): void => void process.stderr.write(line + '\n')

async function main(): Promise<void> {
  const started = Date.now()
  const lines = sessionLines()
  // --model <base URL>#<model>: the memory arms again, writes judged and verify asked by that model.
  const spec = [...flags(process.argv.slice(2))].find((f) => f.name === '--model')
  const model = spec === undefined ? null : endpointModel(spec.value())
  const modelArms = model === null ? [] : [...(await memoryArms(lines, true, model)), ...(await memoryArms(lines, false, model))]
  const arms = [windowArm(lines), naiveArm(lines), ...(await memoryArms(lines, true)), ...(await memoryArms(lines, false)), ...modelArms]
  for (const a of arms) {
    log(`\n[${a.arm}]`)
    for (const r of a.answers) log(`  ${r.outcome.padEnd(7)} ${r.question} -> ${r.answer ?? '(refused)'}${r.detail !== undefined ? `  [${r.detail.slice(0, 160)}]` : ''}`)
  }
  const n = QUESTIONS.length
  console.log(`Anti-hallucination bench: ${FACTS.length} facts, ${CORRECTIONS.length} corrections, ${lines.length - FACTS.length - CORRECTIONS.length - 2} noise turns, ${n} questions (+${CONTROLS.length} never-stated controls)`)
  console.log('')
  console.log('| arm | correct | wrong (hallucinated) | refused | controls refused (of 2) |')
  console.log('|---|---|---|---|---|')
  for (const a of arms) console.log(`| ${a.arm} | ${a.correct}/${n} | ${a.wrong} | ${a.refused} | ${a.controls.refused} |`)
  console.log('')
  console.log(`(${Date.now() - started} ms)`)
  const out = resultsFile('anti-hallucination.json')
  await mkdir(dirname(out), { recursive: true })
  await writeFile(out, `${JSON.stringify({ at: new Date().toISOString(), arms }, null, 2)}\n`)
  for (const memory of [arms[2], arms[4], arms[6], arms[8]].filter((a): a is ArmResult => a !== undefined)) {
    if (memory.correct !== n || memory.wrong !== 0 || memory.controls.refused !== CONTROLS.length) {
      console.error(`acceptance not met: ${memory.arm} answered ${memory.correct}/${n} correctly with ${memory.wrong} wrong, ${memory.controls.refused}/${CONTROLS.length} controls refused`)
      process.exitCode = 1
    }
  }
}

await main()
