/**
 * Thirty days of one user, in the spirit of seed 003's evaluation, shared by the test that holds
 * the answers (test/scenario-30-days.test.ts) and the bench that compares arms
 * (bench/scenario.ts): 25 writes across daily sessions (stable facts, two values that change, a
 * three-hop chain, chit-chat, repeats), one forget request, and 12 questions answered only
 * through the tool handlers, with the store's clock moved day by day:
 *   3 stable facts, 2 current values after a change, 2 values as of an earlier day,
 *   1 multi-hop question, and 4 around the forget (answerable before; refused after, reworded,
 *   and as of a day before the forget).
 * The answerer is deliberately plain: the top search hit's summary, or a refusal when no hit
 * covers at least half of the question's words; the judge checks for the expected words (or a
 * refusal that does not leak the value).
 *
 * The library comes in as an argument (`ScenarioApi`: the test passes src/api.ts, the bench the
 * built lib/api.js), so this file imports nothing of the product.
 */

export const REFUSAL = '记忆里没有这件事。'
export const day = (n: number): string => `2026-04-${String(n).padStart(2, '0')}T10:00:00.000Z`
/** The day the user asks to forget the bank card password, and the last day (questions). */
export const FORGET_DAY = 25
export const LAST_DAY = 30
export const FORGET_QUERY = '银行卡密码'
export const FORGOTTEN_VALUE = '739105'

export interface ScenarioWrite {
  day: number
  summary: string
  title?: string
  raw?: string
  entities?: string[]
}

/** 25 writes. In the keyed arm facts are topics (title = slot) and chit-chat episodes with raw text. */
export const WRITES: readonly ScenarioWrite[] = [
  { day: 1, summary: '我叫李明。', title: '姓名' },
  { day: 1, summary: '我住在杭州。', title: '居住城市' },
  { day: 2, summary: '我的饮食是素食。', title: '饮食' },
  { day: 3, summary: '今天天气不错，随便聊了聊周末计划。', raw: '用户：今天天气真好。\n助手：周末有什么计划？' },
  { day: 4, summary: '我每天坐地铁上班。', title: '通勤方式' },
  { day: 5, summary: '我哥哥叫李强。', title: '哥哥', entities: ['李强'] },
  { day: 6, summary: '聊了一部新上映的电影，觉得还行。', raw: '用户：昨天看了新电影。\n助手：感觉怎么样？' },
  { day: 7, summary: '李强的生日是3月14日。', title: '李强生日', entities: ['李强'] },
  { day: 8, summary: '我在一家做支付的公司当后端工程师。', title: '职业' },
  { day: 9, summary: '用户说今天有点累，想早点睡。', raw: '用户：好累，想早点睡。' },
  { day: 10, summary: '李强喜欢摄影，最近在研究镜头。', title: '李强爱好', entities: ['李强'] },
  { day: 11, summary: '我的银行卡密码是 739105。', title: '银行卡密码' },
  { day: 12, summary: '聊了聊最近看的一本科幻小说。', raw: '用户：最近在看《三体》。' },
  { day: 13, summary: '我养了一只叫豆豆的猫。', title: '宠物' },
  { day: 14, summary: '今天天气不错，随便聊了聊周末计划。', raw: '用户：天气又不错。' },
  { day: 15, summary: '我最近开始吃鸡胸肉了，不再只吃素。', title: '饮食' },
  { day: 16, summary: '提醒：我对花生过敏。', title: '过敏' },
  { day: 17, summary: '用户问了下明天会不会下雨。', raw: '用户：明天会下雨吗？' },
  { day: 18, summary: '我现在改骑自行车上班了，不坐地铁。', title: '通勤方式' },
  { day: 19, summary: '我喜欢喝美式咖啡，不加糖。', title: '咖啡' },
  { day: 20, summary: '用户说卡的密码 739105 记在手机备忘录里。', raw: '用户：卡的密码 739105 我记在备忘录里了。' },
  { day: 21, summary: '随便聊了聊周末去西湖散步。', raw: '用户：周末去西湖走走。' },
  { day: 22, summary: '李强下个月要去云南旅游。', title: '李强旅行', entities: ['李强'] },
  { day: 23, summary: '我最喜欢的运动是羽毛球。', title: '运动' },
  { day: 24, summary: '用户说今天有点累，想早点睡。', raw: '用户：今天也好累。' },
]

export interface Question {
  /** The day it is asked on (the forget happens on FORGET_DAY). */
  day: number
  category: string
  question: string
  /** Words the answer must hold; null: the right answer is a refusal. */
  expect: string[] | null
  asOf?: string
  hops?: boolean
}

export const QUESTIONS: readonly Question[] = [
  { day: 30, category: 'stable', question: '用户的姓名', expect: ['李明'] },
  { day: 30, category: 'stable', question: '用户的居住城市', expect: ['杭州'] },
  { day: 30, category: 'stable', question: '用户的宠物', expect: ['豆豆'] },
  { day: 30, category: 'current value', question: '用户的饮食', expect: ['鸡胸肉'] },
  { day: 30, category: 'current value', question: '用户的通勤方式', expect: ['自行车'] },
  { day: 30, category: 'as of', question: '用户的饮食', asOf: day(10), expect: ['素食'] },
  { day: 30, category: 'as of', question: '用户的通勤方式', asOf: day(12), expect: ['地铁'] },
  { day: 30, category: 'multi-hop', question: '哥哥的生日送什么礼物', hops: true, expect: ['3月14日', '摄影'] },
  { day: 24, category: 'before forget', question: '用户的银行卡密码', expect: [FORGOTTEN_VALUE] },
  { day: 30, category: 'after forget', question: '用户的银行卡密码', expect: null },
  { day: 30, category: 'reworded probe', question: '卡的密码是多少', expect: null },
  { day: 30, category: 'as-of probe', question: '用户的银行卡密码', asOf: day(21), expect: null },
]

export function judge(q: Question, text: string): boolean {
  if (q.expect === null) return text === REFUSAL && !text.includes(FORGOTTEN_VALUE)
  return q.expect.every((w) => text.includes(w))
}

/** What the scenario needs of the library: the handlers it calls, by their API names. */
export interface ScenarioApi<B extends ScenarioBackend> {
  writeHandler(
    backend: B,
    input: { summary: string; session_id: string; type?: 'episode' | 'topic'; title?: string; raw?: string; entities?: string[] },
  ): Promise<{ dedupe?: 'exact' | 'near' }>
  searchHandler(backend: B, input: { query: string; top_k: number; asOf?: string }): Promise<{ hits: Array<{ id: string; title: string; summary: string }> }>
  forgetValueHandler(backend: B, input: { query: string }): Promise<{ forgotten: Array<{ reason: string }> }>
  consolidate(backend: B, options: { dryRun: boolean }): Promise<Record<ConsolidationStep, unknown[]>>
  memoryStats(backend: B): Promise<{ searchable: number; suggested: number; archived: number }>
  tokenize(text: string): string[]
  aliasTerms(backend: B, queryTokens: readonly string[]): Promise<string[]>
}

/** What a consolidation report lists, step by step (counted over the run's days). */
export const CONSOLIDATION_STEPS = ['promoted', 'reinforced', 'reflected', 'exchanges', 'merged', 'archived', 'decayed'] as const
export type ConsolidationStep = (typeof CONSOLIDATION_STEPS)[number]

export interface ScenarioBackend {
  indexView(): Promise<{ get(id: string): { entities: string[]; key: string | null } | undefined }>
}

/**
 * How the writes go in. `keyed`: as above (facts with a title, chit-chat as episodes). The free
 * text arms: every write a keyless, untitled episode of its day's session, as an agent or
 * auto-settle writes them; `consolidated` runs consolidation at the end of every day.
 */
export const ARMS = ['keyed', 'free text, naive', 'free text, consolidated'] as const
export type Arm = (typeof ARMS)[number]

export interface Answer {
  q: Question
  text: string
  right: boolean
}

export interface ScenarioRun {
  answers: Answer[]
  /** Writes the store recognised as repeats (not stored again). */
  dedupes: number
  /** Why each forgotten memory went (the query itself, or repeating its value). */
  forgotten: string[]
  /** Memories when the last questions are asked: searchable (active), waiting for confirmation, archived. */
  records: { searchable: number; suggested: number; archived: number }
  /** What consolidation did over the days it ran, by step. */
  consolidation: Record<ConsolidationStep, number>
}

/** When the consolidated arm consolidates: late on each day, after the day's session has ended. */
export const consolidationTime = (n: number): string => day(n).replace('T10:', 'T22:')

/** Sessions by day: `day-01` ... */
const sessionOf = (n: number) => `day-${String(n).padStart(2, '0')}`

/** Who answers a question: its text, REFUSAL for none. The plain answerer below by default; the eval bench passes memory_answer. */
export type Answerer<B> = (backend: B, q: Question) => Promise<string>

/** The 30 days of one arm in a store whose clock `at` moves; the questions asked on their days. */
export async function playScenario<B extends ScenarioBackend>(api: ScenarioApi<B>, backend: B, at: (iso: string) => void, arm: Arm, answerer?: Answerer<B>): Promise<ScenarioRun> {
  const ask: Answerer<B> = answerer ?? ((b, q) => answer(api, b, q))
  const consolidation = Object.fromEntries(CONSOLIDATION_STEPS.map((k) => [k, 0])) as Record<ConsolidationStep, number>
  const run: ScenarioRun = { answers: [], dedupes: 0, forgotten: [], records: { searchable: 0, suggested: 0, archived: 0 }, consolidation }
  for (let n = 1; n <= LAST_DAY; n++) {
    at(day(n))
    for (const w of WRITES.filter((x) => x.day === n)) {
      const keyed = arm === 'keyed'
      const out = await api.writeHandler(backend, {
        summary: w.summary,
        session_id: sessionOf(n),
        ...(keyed ? {} : { type: 'episode' as const }),
        ...(keyed && w.title !== undefined ? { title: w.title } : {}),
        ...(w.raw !== undefined ? { raw: w.raw } : {}),
        ...(w.entities !== undefined ? { entities: w.entities } : {}),
      })
      if (out.dedupe !== undefined) run.dedupes++
    }
    if (n === FORGET_DAY) run.forgotten = (await api.forgetValueHandler(backend, { query: FORGET_QUERY })).forgotten.map((f) => f.reason)
    if (n === LAST_DAY) {
      const { searchable, suggested, archived } = await api.memoryStats(backend)
      run.records = { searchable, suggested, archived }
    }
    for (const q of QUESTIONS.filter((x) => x.day === n)) {
      const text = await ask(backend, q)
      run.answers.push({ q, text, right: judge(q, text) })
    }
    if (arm === 'free text, consolidated' && n < LAST_DAY) {
      at(consolidationTime(n))
      const report = await api.consolidate(backend, { dryRun: false })
      for (const k of CONSOLIDATION_STEPS) consolidation[k] += report[k].length
    }
  }
  return run
}

/** One line per answer: right or not, category, question, what was answered. */
export function answerReport(answers: readonly Answer[]): string {
  return answers.map((a) => `${a.right ? 'ok  ' : 'FAIL'} [${a.q.category}] ${a.q.question}${a.q.asOf ? ` (as of ${a.q.asOf.slice(0, 10)})` : ''} -> ${a.text}`).join('\n')
}

/**
 * The top hit's summary, or a refusal. A hit that covers less than half of the question's words
 * (of two or more characters: CJK 2-grams, latin words) does not answer it (a memory that only
 * shares "用户" with a question about a password). A hit's words are its title, its summary and
 * the subject the store files it under (its slot: the title of a keyed write, the subject derived
 * from the text of a keyless one, "用户 饮食" for "我最近开始吃鸡胸肉了"), so that both arms are
 * judged by what the memory is about, not only by the keyed arm's titles. A question word counts
 * as covered when the hit has it or a word the store's synonym groups give it (`aliasTerms`, the
 * groups search itself uses): "居住" is covered by a hit filed under "用户 住址", as search found it.
 */
async function lookUp<B extends ScenarioBackend>(api: ScenarioApi<B>, backend: B, query: string, asOf?: string): Promise<{ text: string; entities: string[] }> {
  const strongTerms = (text: string) => new Set(api.tokenize(text).filter((t) => Array.from(t).length >= 2))
  const out = await api.searchHandler(backend, { query, top_k: 3, ...(asOf !== undefined ? { asOf } : {}) })
  const top = out.hits[0]
  const asked = strongTerms(query)
  const entry = top === undefined ? undefined : (await backend.indexView()).get(top.id)
  if (top === undefined) return { text: REFUSAL, entities: [] }
  const words = strongTerms(`${top.title} ${top.summary} ${entry?.key ?? ''}`)
  let covered = 0
  for (const t of asked) if (words.has(t) || (await api.aliasTerms(backend, [t])).some((a) => words.has(a))) covered++
  if (covered * 2 < asked.size) return { text: REFUSAL, entities: [] }
  return { text: top.summary, entities: entry?.entities ?? [] }
}

/** Three hops: who the brother is, his birthday, what he likes; each hop searches with the name found. */
async function answerByHops<B extends ScenarioBackend>(api: ScenarioApi<B>, backend: B): Promise<string> {
  const brother = await lookUp(api, backend, '哥哥')
  const name = brother.entities[0]
  if (name === undefined) return REFUSAL
  const birthday = await lookUp(api, backend, `${name} 生日`)
  const hobby = await lookUp(api, backend, `${name} 爱好`)
  if (birthday.text === REFUSAL || hobby.text === REFUSAL) return REFUSAL
  return `${name}：${birthday.text}${hobby.text}可以送和这个爱好有关的礼物。`
}

function answer<B extends ScenarioBackend>(api: ScenarioApi<B>, backend: B, q: Question): Promise<string> {
  if (q.hops === true) return answerByHops(api, backend)
  return lookUp(api, backend, q.question, q.asOf).then((r) => r.text)
}
