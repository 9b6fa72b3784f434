/**
 * memory_answer (seed 003's answer(), issue 29 item 8): an answer from memory that cites the
 * memories it used, or an abstention that says why. On keyless free-text writes in Chinese and
 * English: the current value answers and a replaced one never does; as of a date (ISO or unix
 * seconds) the value current then answers; an unresolved conflict, nothing relevant, and only
 * replaced versions each abstain with their reason. Extractive answers are the cited memories'
 * own sentences. With a model (the real chat-completions adapter against a scripted server on
 * 127.0.0.1), the answer is the model's only when every cited id was retrieved and every fact in
 * it is in the cited text. Through the library, the built CLI and the built MCP server over stdio
 * (run `npm run build` before this file alone).
 */

import { execFileSync, spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, navHandler, outputViolation, searchHandler, signalsSettled, verifyHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { chatCompletionsModel } from '../src/lifecycle/chat-model.js'
import { setConsolidationModel } from '../src/memory/consolidation/model.js'
import { factUnits, readModelAnswer, unstatedFacts } from '../src/memory/truth/answer-model.js'
import { questionTerms, sentencesOf } from '../src/memory/truth/answer.js'
import { ANSWER_EVENT } from '../src/memory/writing/write-judge.js'
import { answerHandler, memoryAnswerTool } from '../src/tools/memory-answer.js'
import { renderValue } from '../src/tools/render/text.js'
import { startMockLlm, type MockLlm } from './host/mock-llm.js'
import { commandsOf, fencedBlocks } from './readme-kit.js'
import { BUILT_CLI, mcpClients } from './mcp-kit.js'
import { tempStores } from './store-kit.js'

const CLI = BUILT_CLI
const connect = mcpClients('answer-test')
const store = tempStores('answer-')
const mocks: MockLlm[] = []
afterAll(async () => {
  for (const m of mocks) await m.close()
})

const APRIL_2 = '2026-04-02T10:00:00.000Z'
const APRIL_10 = '2026-04-10T00:00:00.000Z'
const APRIL_20 = '2026-04-20T10:00:00.000Z'
const unix = (iso: string) => String(Date.parse(iso) / 1000)

type Answer = Awaited<ReturnType<typeof answerHandler>>

/** Every citation was retrieved, and an extractive answer is its citations' own sentences. */
function expectGrounded(a: Answer): void {
  expect(outputViolation(memoryAnswerTool.output, a)).toBeNull()
  for (const c of a.citations) {
    expect(a.retrieved).toContain(c.id)
    if (a.mode === 'extractive') expect(c.summary).toContain(c.quote)
  }
  if (a.mode === 'extractive' && a.answer !== null) expect(a.answer).toBe(a.citations.map((c) => c.quote).join(' '))
}

/** A store with a diet that changed on April 20 and a few unrelated facts, all keyless and untitled. */
async function dietStore(): Promise<{ backend: MemoryBackend; old: string; now: string }> {
  const { backend, at } = await store(APRIL_2)
  const old = (await writeHandler(backend, { summary: '我的饮食是素食。' })).id
  await writeHandler(backend, { summary: '我养了一只叫豆豆的猫。' })
  await writeHandler(backend, { summary: 'The billing service uses PostgreSQL 16. It runs on port 5432.' })
  at(APRIL_20)
  const now = await writeHandler(backend, { summary: '我最近开始吃鸡胸肉了，不再只吃素。' })
  expect(now.superseded).toEqual([old])
  await writeHandler(backend, { summary: 'The billing service moved to MySQL 8.' })
  return { backend, old, now: now.id }
}

describe('answers from keyless free text, Chinese and English', () => {
  it('the current value answers, citing its memory; the replaced one is never cited', async () => {
    const { backend, old, now } = await dietStore()
    const zh = await answerHandler(backend, { question: '用户现在的饮食是什么？' })
    expectGrounded(zh)
    expect(zh).toMatchObject({ abstained: false, mode: 'extractive', answer: '我最近开始吃鸡胸肉了，不再只吃素。' })
    expect(zh.citations.map((c) => c.id)).toEqual([now])
    expect(zh.retrieved).not.toContain(old)
    expect(zh.note).toBe(`ANSWER (extracted word for word, from ${now}): 我最近开始吃鸡胸肉了，不再只吃素。`)

    const en = await answerHandler(backend, { question: 'What database does the billing service use?' })
    expectGrounded(en)
    expect(en.answer).toBe('The billing service moved to MySQL 8.')
    expect(en.answer).not.toContain('PostgreSQL')
  })

  it('as of a date, ISO or unix seconds, the value current then answers', async () => {
    const { backend, old } = await dietStore()
    for (const asOf of [APRIL_10, unix(APRIL_10), '2026-04-10']) {
      const then = await answerHandler(backend, { question: '用户的饮食', asOf })
      expectGrounded(then)
      expect(then.answer, asOf).toBe('我的饮食是素食。')
      expect(then.citations.map((c) => c.id)).toEqual([old])
      expect(then.asOf).toBe(APRIL_10)
    }
    const en = await answerHandler(backend, { question: 'What database does the billing service use?', asOf: unix(APRIL_10) })
    expect(en.answer).toBe('The billing service uses PostgreSQL 16.')
    // Before anything was written: nothing answers.
    expect((await answerHandler(backend, { question: '用户的饮食', asOf: unix('2026-03-01T00:00:00Z') })).reason).toBe('nothing-relevant')
    await expect(answerHandler(backend, { question: '用户的饮食', asOf: 'last tuesday' })).rejects.toThrow(/asOf.*unix seconds/)
  })

  it('unix seconds are as-of times everywhere there is one: search, nav, verify and answer agree with the ISO date', async () => {
    const { backend, old } = await dietStore()
    for (const asOf of [APRIL_10, unix(APRIL_10), ` ${unix(APRIL_10)}.5 `]) {
      expect((await searchHandler(backend, { query: '饮食', asOf })).hits.map((h) => h.id), asOf).toEqual([old])
      expect((await navHandler(backend, { asOf })).entries.map((e) => e.summary).sort(), asOf).toEqual(['The billing service uses PostgreSQL 16. It runs on port 5432.', '我养了一只叫豆豆的猫。', '我的饮食是素食。'].sort())
      expect((await verifyHandler(backend, { claim: '我的饮食是素食。', asOf })).verdict, asOf).toBe('supported')
    }
    expect((await verifyHandler(backend, { claim: '我的饮食是素食。', asOf: unix(APRIL_20) })).verdict).not.toBe('supported')
    for (const bad of ['-5', '123456789012', '1e9']) await expect(searchHandler(backend, { query: '饮食', asOf: bad })).rejects.toThrow(/asOf/)
  })

  it('abstains when only a replaced version states it, naming what replaced it', async () => {
    const { backend } = await dietStore()
    const port = await answerHandler(backend, { question: 'What port does billing run on?' })
    expectGrounded(port)
    expect(port).toMatchObject({ abstained: true, reason: 'only-superseded', answer: null, citations: [] })
    expect(port.superseded?.map((s) => s.summary)).toEqual(['The billing service uses PostgreSQL 16. It runs on port 5432.'])
    expect(port.superseded?.[0]?.superseded_by).toMatch(/^mem_/)
    expect(renderValue('memory_answer', port)).toContain('replaced version')
    // As of before the move, the port was current: it answers.
    expect((await answerHandler(backend, { question: 'What port does billing run on?', asOf: APRIL_10 })).answer).toBe('It runs on port 5432.')
  })

  it('abstains on nothing relevant, and on an unresolved conflict listing both sides', async () => {
    const { backend } = await dietStore()
    for (const question of ['用户的银行卡密码是多少？', 'Which airline does the user fly with?']) {
      const none = await answerHandler(backend, { question })
      expectGrounded(none)
      expect(none).toMatchObject({ abstained: true, reason: 'nothing-relevant', answer: null })
      expect(none.note).toMatch(/^ABSTAIN \(nothing-relevant\)/)
    }
    await writeHandler(backend, { summary: '报表服务的负责人是王芳。' })
    const clash = await writeHandler(backend, { summary: '报表服务的负责人是李雷。' })
    expect(clash.status).toBe('conflict')
    const contested = await answerHandler(backend, { question: '报表服务的负责人是谁？' })
    expectGrounded(contested)
    expect(contested).toMatchObject({ abstained: true, reason: 'conflicting', answer: null })
    expect(contested.conflicting?.map((c) => c.summary).sort()).toEqual(['报表服务的负责人是李雷。', '报表服务的负责人是王芳。'].sort())
  })

  it('cites two memories when the question needs both: one that names the person, one about them', async () => {
    const { backend } = await store(APRIL_2)
    const brother = await writeHandler(backend, { summary: '我哥哥叫李强。', entities: ['李强'] })
    const birthday = await writeHandler(backend, { summary: '李强的生日是3月14日。', entities: ['李强'] })
    await writeHandler(backend, { summary: '我每天坐地铁上班。' })
    const a = await answerHandler(backend, { question: '哥哥的生日是哪天？' })
    expectGrounded(a)
    expect(a.citations.map((c) => c.id).sort()).toEqual([brother.id, birthday.id].sort())
    expect(a.answer).toContain('3月14日')
  })

  it('pieces: question terms, sentences, fact units', () => {
    expect([...questionTerms('用户现在的饮食是什么？')]).toEqual(expect.arrayContaining(['用户', '饮食']))
    expect([...questionTerms('用户现在的饮食是什么？')]).not.toContain('什么')
    expect(sentencesOf('It uses v3.5 on example.com. It runs nightly! 然后呢？好的')).toEqual(['It uses v3.5 on example.com.', 'It runs nightly!', '然后呢？', '好的'])
    expect([...factUnits('用户吃鸡胸肉，port 5432')].sort()).toEqual(['5432', 'port', '吃', '户', '用', '肉', '胸', '鸡'].sort())
    expect(unstatedFacts('用户现在吃牛肉', ['用户现在的饮食', '我最近开始吃鸡胸肉了'])).toEqual(['牛'])
    expect(readModelAnswer('```json\n{"answer":"x","cited":["mem_b"]}\n```', ['mem_a'])).toEqual({ refused: 'it cites mem_b, which the store did not retrieve (mem_a)' })
  })
})

describe('answers written by a model, within the cited memories', () => {
  /** The diet store with a scripted model that answers each answer prompt with `reply(ids shown)`. */
  async function modelStore(reply: (ids: string[], prompt: string) => string) {
    const s = await dietStore()
    const m = await startMockLlm({ script: [], complete: (prompt) => reply([...prompt.matchAll(/^Memory (mem_\w+)/gmu)].map((x) => x[1] as string), prompt), maxRequests: 10 })
    mocks.push(m)
    setConsolidationModel(s.backend, chatCompletionsModel({ baseUrl: m.baseUrl, model: 'mock-chat' }))
    return { ...s, m }
  }
  const events = async (b: MemoryBackend) => (await b.readLedger()).filter((e) => e.event === ANSWER_EVENT)

  it('takes an answer whose ids were retrieved and whose facts the cited memory states, and logs it with the prompt version', async () => {
    const { backend, now, m } = await modelStore((ids) => JSON.stringify({ answer: '用户现在吃鸡胸肉，不再只吃素。', cited: [ids[0]] }))
    const a = await answerHandler(backend, { question: '用户现在的饮食是什么？', model: true })
    expectGrounded(a)
    expect(a).toMatchObject({ abstained: false, mode: 'generative', answer: '用户现在吃鸡胸肉，不再只吃素。', model: { prompt: 'answer@1', cited: [now] } })
    expect(a.citations.map((c) => c.id)).toEqual([now])
    expect(m.requests.filter((r) => r.answer === 'complete')).toHaveLength(1)
    await signalsSettled(backend)
    const [event] = await events(backend)
    expect(event).toMatchObject({ prompt: 'answer@1', ids: [now], model: `${m.baseUrl}#mock-chat` })
    expect(event?.model_tokens).toBeGreaterThan(0)
  })

  it('refuses an answer citing a memory it was not shown, or stating a value no cited memory states: the extracted answer stands', async () => {
    const foreign = await modelStore(() => JSON.stringify({ answer: '用户吃鸡胸肉。', cited: ['mem_notretrieved'] }))
    const a = await answerHandler(foreign.backend, { question: '用户现在的饮食是什么？', model: true })
    expectGrounded(a)
    expect(a).toMatchObject({ mode: 'extractive', answer: '我最近开始吃鸡胸肉了，不再只吃素。' })
    expect(a.model?.refused).toMatch(/cites mem_notretrieved, which the store did not retrieve/)
    expect(renderValue('memory_answer', a)).toContain("The model's answer was refused")

    const invented = await modelStore((ids) => JSON.stringify({ answer: 'The billing service uses Oracle 19c.', cited: [ids[0]] }))
    const b = await answerHandler(invented.backend, { question: 'What database does the billing service use?', model: true })
    expectGrounded(b)
    expect(b).toMatchObject({ mode: 'extractive', answer: 'The billing service moved to MySQL 8.' })
    expect(b.model?.refused).toMatch(/states "oracl.*which no cited memory states/)
    await signalsSettled(invented.backend)
    expect((await events(invented.backend))[0]?.refused).toMatch(/no cited memory states/)
  })

  it('the model may abstain; a model that fails leaves the extracted answer, saying why', async () => {
    const shy = await modelStore(() => JSON.stringify({ abstain: true }))
    const a = await answerHandler(shy.backend, { question: '用户现在的饮食是什么？', model: true })
    expectGrounded(a)
    expect(a).toMatchObject({ abstained: true, reason: 'nothing-relevant', mode: 'generative', answer: null })

    const s = await dietStore()
    setConsolidationModel(s.backend, chatCompletionsModel({ baseUrl: 'http://127.0.0.1:9/v1', model: 'gone' }))
    const b = await answerHandler(s.backend, { question: '用户现在的饮食是什么？', model: true })
    expect(b).toMatchObject({ mode: 'extractive', answer: '我最近开始吃鸡胸肉了，不再只吃素。' })
    expect(b.model?.degraded).toEqual(expect.any(String))
    // Without a model set, model: true is the extractive answer.
    const plain = await dietStore()
    expect(await answerHandler(plain.backend, { question: '用户现在的饮食是什么？', model: true })).toEqual(await answerHandler(plain.backend, { question: '用户现在的饮食是什么？' }))
  })
})

describe('memory_answer through the CLI and MCP', () => {
  it('CLI: `answer QUESTION` cites ids, `--as-of` takes unix seconds, a question nothing answers exits 0 abstaining', async () => {
    const { backend, old } = await dietStore()
    await flushCaches(backend)
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--root', backend.root], { encoding: 'utf8' })
    const now = run('answer', '用户现在的饮食是什么？')
    expect(now.status, now.stderr).toBe(0)
    expect(now.stdout).toMatch(/^ANSWER \(extracted word for word, from mem_\w+\): 我最近开始吃鸡胸肉了，不再只吃素。$/m)
    const then = JSON.parse(run('answer', '用户的饮食', '--as-of', unix(APRIL_10), '--json').stdout) as Answer
    expect(then.citations.map((c) => c.id)).toEqual([old])
    const none = run('answer', 'Which airline does the user fly with?')
    expect(none.status).toBe(0)
    expect(none.stdout).toMatch(/^ABSTAIN \(nothing-relevant\)/)
    const bad = run('search', '饮食', '--as-of', 'soon')
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/asOf.*unix seconds/)
    const searched = JSON.parse(run('search', '饮食', '--as-of', unix(APRIL_10), '--json').stdout) as { hits: { id: string }[] }
    expect(searched.hits.map((h) => h.id)).toEqual([old])
  }, 60_000)

  it('README: the answer block as written, in a fresh project, does what its comments say', async () => {
    const block = fencedBlocks('bash').find((b) => b.includes('lib/cli/main.js answer')) ?? ''
    const commands = commandsOf(block)
    expect(commands).toHaveLength(6)
    const cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'answer-readme-'))
    const env = { ...process.env }
    delete env['MEMORY_AGENT_ROOT']
    try {
      const outs = commands.map((c) => execFileSync('bash', ['-c', c.replace(/^node lib\/cli\/main\.js/, `node '${CLI}'`)], { cwd, env, encoding: 'utf8' }))
      expect(outs[2]).toMatch(/^ANSWER \(extracted word for word, from mem_\w+\): 我最近开始吃鸡胸肉了，不再只吃素。$/m)
      expect(outs[3]).toMatch(/^ANSWER .*: 我的饮食是素食。$/m)
      expect(outs[3]).toContain('As of 2026-04-10T00:00:00.000Z.')
      expect(outs[4]).toMatch(/^ABSTAIN \(nothing-relevant\)/)
      expect(outs[5]).toMatch(/^by status: active 1, suggested 0, superseded 1/m)
    } finally {
      await fs.rm(cwd, { recursive: true, force: true })
    }
  }, 60_000)

  it('MCP: memory_answer answers and abstains over stdio; a default root not written yet answers nothing-stored', async () => {
    const { backend, now } = await dietStore()
    await flushCaches(backend)
    const call = await connect(['--root', backend.root, '--tools', 'all'])
    const r = await call('memory_answer', { question: '用户现在的饮食是什么？' })
    expect(r.isError).toBeFalsy()
    expect((r.structuredContent as unknown as Answer).citations.map((c) => c.id)).toEqual([now])
    expect(r.content[0]?.text).toContain(`from ${now}`)
    const asOf = await call('memory_answer', { question: '用户的饮食', asOf: unix(APRIL_10) })
    expect((asOf.structuredContent as unknown as Answer).answer).toBe('我的饮食是素食。')
    const fresh = createFileBackend(path.join(backend.root, 'not-yet', '.agent', 'memory'), { missingStore: 'empty' })
    const first = await answerHandler(fresh, { question: '用户的饮食' })
    expect(first).toMatchObject({ abstained: true, reason: 'nothing-stored' })
    expect(first.note).toContain('nothing stored yet')
    expect(outputViolation(memoryAnswerTool.output, first)).toBeNull()
  }, 60_000)
})
