/**
 * A model's background judgement of free-text writes (src/memory/writing/write-judge.ts, issue
 * 27 item 4): the real chat-completions adapter talking HTTP to the scripted model server
 * (test/host/mock-llm.ts) on 127.0.0.1. The write answers first; the judgement lands after it,
 * only among the candidates the store retrieved, as a ledger event with its prompt version, and
 * one call undoes it. Caps and a failing model degrade it to nothing changed, said in the ledger.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { outputViolation, signalsSettled, writeHandler, type MemoryBackend } from '../src/api.js'
import { chatCompletionsModel } from '../src/lifecycle/chat-model.js'
import { setConsolidationModel } from '../src/memory/consolidation/model.js'
import { JUDGE_EVENT, UNDO_EVENT, VERIFY_EVENT, readDecision } from '../src/memory/writing/write-judge.js'
import { verifyHandler, memoryVerifyTool } from '../src/tools/memory-verify.js'
import { memoryUndoJudgementTool, undoJudgementHandler } from '../src/tools/memory-undo-judgement.js'
import { startMockLlm, type MockLlm } from './host/mock-llm.js'
import { tempStores } from './store-kit.js'

const store = tempStores('write-judge-')
const mocks: MockLlm[] = []
afterAll(async () => {
  for (const m of mocks) await m.close()
})

/**
 * One subject in words the rules leave apart (no term of the subject list joins "gateway" and
 * "proxy", 网关 and 代理), so only the model's judgement can relate the two: the rules alone keep
 * both active and offer the old one as a candidate (`may_revise`).
 */
const PAIRS = {
  en: { OLD: 'The gateway listens on port 8080.', NEW: 'Our proxy now listens on port 9090.' },
  zh: { OLD: '网关监听 8080 端口。', NEW: '我们的代理现在监听 9090 端口。' },
} as const
const { OLD, NEW } = PAIRS.en

/** A store whose model answers each judgement prompt with `answer(first candidate id)`. */
async function judgedStore(answer: (candidate: string, prompt: string) => string, maxRequests = 10) {
  const m = await startMockLlm({ script: [], complete: (prompt) => answer(/(?:Stored memory|Memory) (mem_\w+)/u.exec(prompt)?.[1] ?? '', prompt), maxRequests })
  mocks.push(m)
  const s = await store()
  setConsolidationModel(s.backend, chatCompletionsModel({ baseUrl: m.baseUrl, model: 'mock-chat' }))
  return { ...s, m }
}

const statusOf = async (b: MemoryBackend, id: string) => (await b.indexView()).get(id)?.status
const judgements = async (b: MemoryBackend) => (await b.readLedger()).filter((e) => e.event === JUDGE_EVENT)
const asked = (m: MockLlm) => m.requests.filter((r) => r.answer === 'complete').length

describe('background judgement of a free-text write', () => {
  it.each(Object.entries(PAIRS))('never blocks the write, supersedes the candidate the model names, logs it with the prompt version, and one call undoes it (%s)', async (_, { OLD, NEW }) => {
    const { backend, m } = await judgedStore((id) => JSON.stringify({ decision: 'update', id }))
    const old = await writeHandler(backend, { summary: OLD })
    const now = await writeHandler(backend, { summary: NEW })
    expect(now.may_revise?.map((c) => c.id)).toContain(old.id)
    // The write has answered; the judgement has not landed yet.
    expect(await statusOf(backend, old.id)).toBe('active')
    await signalsSettled(backend)
    expect(asked(m)).toBe(1)
    expect(await statusOf(backend, old.id)).toBe('superseded')
    const [event] = await judgements(backend)
    expect(event).toMatchObject({ id: now.id, ids: [old.id], decision: 'update', applied: true, prompt: 'judge-write@1', model: `${m.baseUrl}#mock-chat` })
    expect(event?.model_tokens).toBeGreaterThan(0)

    const undo = await undoJudgementHandler(backend, { ids: [now.id, old.id] })
    expect(outputViolation(memoryUndoJudgementTool.output, undo)).toBeNull()
    expect(undo).toEqual({ undone: [{ id: now.id, decision: 'update', other: old.id }], unchanged: [old.id] })
    expect(await statusOf(backend, old.id)).toBe('active')
    expect(await statusOf(backend, now.id)).toBe('active')
    expect((await backend.readLedger()).some((e) => e.event === UNDO_EVENT && e.id === now.id && e.prompt === 'judge-write@1')).toBe(true)
    // Undone once: a second call finds nothing to undo.
    expect((await undoJudgementHandler(backend, { ids: [now.id] })).unchanged).toEqual([now.id])
  })

  it.each(Object.entries(PAIRS))('declares a conflict between the two, and undo makes both active again (%s)', async (_, { OLD, NEW }) => {
    const { backend } = await judgedStore((id) => JSON.stringify({ decision: 'conflict', id }))
    const old = await writeHandler(backend, { summary: OLD })
    const now = await writeHandler(backend, { summary: NEW })
    await signalsSettled(backend)
    expect([await statusOf(backend, old.id), await statusOf(backend, now.id)]).toEqual(['conflict', 'conflict'])
    await undoJudgementHandler(backend, { ids: [now.id] })
    expect([await statusOf(backend, old.id), await statusOf(backend, now.id)]).toEqual(['active', 'active'])
  })
})

describe('the guards', () => {
  it('refuse an id the store did not retrieve: nothing changes, the refusal is logged', async () => {
    const { backend } = await judgedStore(() => JSON.stringify({ decision: 'update', id: 'mem_invented' }))
    const old = await writeHandler(backend, { summary: OLD })
    const now = await writeHandler(backend, { summary: NEW })
    await signalsSettled(backend)
    expect(await statusOf(backend, old.id)).toBe('active')
    const [event] = await judgements(backend)
    expect(event).toMatchObject({ id: now.id, applied: false })
    expect(String(event?.refused)).toMatch(/"mem_invented" is not among the candidates/)
    expect(readDecision('not json', [])).toEqual({ refused: 'the answer is not JSON' })
    expect(readDecision('{"decision":"delete-all"}', [])).toMatchObject({ refused: expect.stringMatching(/not one of add, update, conflict, none/) })
  })
})

describe('caps and the degraded state', () => {
  it('a token cap reached sends nothing and logs the degraded judgement', async () => {
    const { backend, root, m } = await judgedStore((id) => JSON.stringify({ decision: 'update', id }))
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ consolidateModelTokensPerRun: 10 }))
    const old = await writeHandler(backend, { summary: OLD })
    await writeHandler(backend, { summary: NEW })
    await signalsSettled(backend)
    expect(asked(m)).toBe(0)
    expect(await statusOf(backend, old.id)).toBe('active')
    expect(String((await judgements(backend))[0]?.degraded)).toMatch(/token cap per run \(10\)/)
  })

  it('a failing model leaves the write as it is and logs why', async () => {
    const { backend } = await judgedStore(() => '{}', 0)
    const old = await writeHandler(backend, { summary: OLD })
    const now = await writeHandler(backend, { summary: NEW })
    expect(now.status).toBe('active')
    await signalsSettled(backend)
    expect(await statusOf(backend, old.id)).toBe('active')
    expect(String((await judgements(backend))[0]?.degraded)).toMatch(/failed: HTTP 503/)
  })
})

describe('verify with a model', () => {
  /** Every retrieved memory judged `supports`, plus one id the store never retrieved. */
  const yesToAll = (_: string, prompt: string) =>
    prompt.startsWith('Judge whether')
      ? JSON.stringify({ judgements: [...[...prompt.matchAll(/Memory (mem_\w+)/gu)].map((x) => ({ id: x[1], relation: 'supports' })), { id: 'mem_invented', relation: 'contradicts' }] })
      : JSON.stringify({ decision: 'add' })

  it("takes a supports whose memory states the value, refuses one whose memory does not, drops ids not retrieved, and logs each answer", async () => {
    const { backend } = await judgedStore(yesToAll)
    const current = await writeHandler(backend, { summary: 'The API listens on port 9090.' })
    await signalsSettled(backend)
    const right = await verifyHandler(backend, { claim: 'The API listens on port 9090', model: true })
    expect(outputViolation(memoryVerifyTool.output, right)).toBeNull()
    expect(right.verdict).toBe('supported')
    expect(right.model?.judgements).toEqual([{ id: current.id, relation: 'supports' }])
    const wrong = await verifyHandler(backend, { claim: 'The API listens on port 7070', model: true })
    expect(wrong.verdict).toBe('unknown')
    expect(wrong.model?.judgements[0]).toMatchObject({ id: current.id, relation: 'supports', refused: expect.stringMatching(/does not state the claim's value/) })
    await signalsSettled(backend)
    const events = (await backend.readLedger()).filter((e) => e.event === VERIFY_EVENT)
    expect(events.map((e) => [e.prompt, e.verdict])).toEqual([['judge-verify@1', 'supported'], ['judge-verify@1', 'unknown']])
    // Without the option, the rules answer alone.
    expect((await verifyHandler(backend, { claim: 'The API listens on port 7070' })).model).toBeUndefined()
  })
})
