/**
 * Seed 003's evaluation protocol (bench/eval.ts, issue 29): the judges on their own (extractive
 * match, token F1, the model judge's prompt and reading), then the bench on the 30-day scenario
 * with a model judge: a scripted chat-completions server on 127.0.0.1 that the bench reaches
 * through `--model`. It prints a row per arm and answerer with every judge's column, meets its
 * target and writes its figures where MEMORY_AGENT_BENCH_RESULTS says. Run `npm run build`
 * before this file alone (the bench reads lib/).
 */

import { spawn } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { answerTokens, f1Judge, matchJudge, modelJudge, modelJudgePrompt, tally, tokenF1 } from '../bench/eval-judges.js'
import { chatCompletionsModel } from '../src/lifecycle/chat-model.js'
import { startMockLlm, type MockLlm } from './host/mock-llm.js'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const mocks: MockLlm[] = []
const dirs: string[] = []
afterAll(async () => {
  for (const m of mocks) await m.close()
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true })
})

/** The scripted judge: right when the answer line holds the gold's first part, or both abstain. */
function scriptedJudge(prompt: string): string {
  const gold = /^Gold: (.*)$/mu.exec(prompt)?.[1] ?? ''
  const answer = /^Answer: (.*)$/mu.exec(prompt)?.[1] ?? ''
  const abstainGold = gold.startsWith('ABSTAIN')
  const first = abstainGold ? '' : (JSON.parse(gold) as string).split('; ')[0] ?? ''
  const correct = abstainGold ? answer === 'ABSTAIN' : answer !== 'ABSTAIN' && answer.includes(first)
  return JSON.stringify({ correct })
}

describe('the judges', () => {
  it('match: every gold part in the normalised answer; an abstention is right only where the gold abstains', () => {
    expect(matchJudge({ gold: ['Mental Health'], answer: 'The race raised awareness for mental health.' })).toBe(true)
    expect(matchJudge({ gold: ['3月14日', '摄影'], answer: '李强的生日是3月14日。' })).toBe(false)
    expect(matchJudge({ gold: null, answer: null })).toBe(true)
    expect(matchJudge({ gold: null, answer: '739105' })).toBe(false)
    expect(matchJudge({ gold: ['杭州'], answer: null })).toBe(false)
  })

  it('token F1: words and Han characters, articles and punctuation out', () => {
    expect(answerTokens('The user lives in 杭州!')).toEqual(['user', 'lives', 'in', '杭', '州'])
    expect(tokenF1('mental health', 'Mental health.')).toBe(1)
    expect(tokenF1('Caroline: I ran for mental health', 'mental health')).toBeCloseTo((2 * (2 / 6) * 1) / (2 / 6 + 1), 6)
    expect(f1Judge({ gold: null, answer: null })).toBe(1)
    expect(f1Judge({ gold: ['x'], answer: null })).toBe(0)
  })

  it('the model judge reads JSON from the endpoint; an unreadable answer leaves the question unjudged', async () => {
    const m = await startMockLlm({ script: [], complete: (p) => (p.includes('"unreadable"') ? 'maybe' : scriptedJudge(p)), maxRequests: 10 })
    mocks.push(m)
    const model = chatCompletionsModel({ baseUrl: m.baseUrl, model: 'judge' })
    expect(modelJudgePrompt('Q?', { gold: null, answer: null })).toContain('Gold: ABSTAIN')
    expect(await modelJudge(model, 'Where?', { gold: ['杭州'], answer: '我住在杭州。' })).toBe(true)
    expect(await modelJudge(model, 'Where?', { gold: ['杭州'], answer: null })).toBe(false)
    expect(await modelJudge(model, 'unreadable', { gold: ['杭州'], answer: '杭州' })).toBeNull()
    const t = tally([{ match: true, f1: 0.8, model: true }, { match: false, f1: 0.6, model: null }])
    expect(t).toEqual({ n: 2, match: 1, f1: 0.7, model: { right: 1, judged: 1 }, agreement: 0.5 })
  })
})

describe('bench:eval on the 30-day scenario', () => {
  it('prints every arm and answerer with the match, F1 and model judges, meets its target, writes eval.json', async () => {
    const m = await startMockLlm({ script: [], complete: scriptedJudge, maxRequests: 200 })
    mocks.push(m)
    const results = await fs.mkdtemp(path.join(os.tmpdir(), 'eval-bench-'))
    dirs.push(results)
    const child = spawn(path.join(repo, 'node_modules/.bin/tsx'), ['bench/eval.ts', '--only', 'scenario', '--model', `${m.baseUrl}#judge`], {
      cwd: repo,
      env: { ...process.env, MEMORY_AGENT_BENCH_RESULTS: results },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code, `${out}\n${err}`).toBe(0)
    expect(out).toContain('| set | arm | answerer | questions | match judge | token F1 | model judge | match/F1 agree |')
    for (const arm of ['keyed', 'free text, naive', 'free text, consolidated']) {
      for (const who of ['memory_answer', 'baseline']) expect(out).toMatch(new RegExp(`^\\| scenario all \\| ${arm} \\| ${who} \\| 12 \\| \\d+/12 .* \\| \\d\\.\\d{3} \\| \\d+/12 .*\\| \\d+% \\|$`, 'm'))
    }
    // 12 questions, 6 runs: the model judged every answer.
    expect(m.requests.filter((r) => r.answer === 'complete')).toHaveLength(72)
    const saved = JSON.parse(await fs.readFile(path.join(results, 'eval.json'), 'utf8')) as { model: string; rows: Array<{ arm: string; answerer: string; group: string; tally: { match: number } }> }
    expect(saved.model).toBe(`${m.baseUrl}#judge`)
    const ours = saved.rows.find((r) => r.arm === 'free text, consolidated' && r.answerer === 'memory_answer' && r.group === 'all')
    expect(ours?.tally.match).toBeGreaterThanOrEqual(11)
  }, 120_000)
})
