/**
 * Memory that stays true when nobody gives a key (issue 13): claims derived from free text,
 * automatic revision (supersede on a change cue, conflict otherwise), verify by value, slots in
 * search, the warnings a write earns, and everything downstream (history, as-of, digests,
 * injection, confirm) on keyless writes, in Chinese and English.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  confirmHandler,
  changeCues,
  deriveClaim,
  digestHandler,
  historyHandler,
  injectionText,
  memoryConfirmTool,
  memoryVerifyTool,
  outputViolation,
  rebuildIndex,
  searchHandler,
  verifyHandler,
  writeHandler,
  writeMemoryTool,
  type MemoryBackend,
} from '../src/api.js'
import { tempStores } from './store-kit.js'

const store = tempStores('mem-revision-')

async function write(b: MemoryBackend, input: Parameters<typeof writeHandler>[1]) {
  const out = await writeHandler(b, input)
  expect(outputViolation(writeMemoryTool.output, out)).toBeNull()
  return out
}
async function verify(b: MemoryBackend, claim: string) {
  const out = await verifyHandler(b, { claim })
  expect(outputViolation(memoryVerifyTool.output, out)).toBeNull()
  return out
}
async function statusOf(b: MemoryBackend, id: string): Promise<string | undefined> {
  return (await b.indexView()).get(id)?.status
}

/** Two keyless writes in a fresh store, the first statement and its restatement: episodes of two sessions, or plain topics. */
async function keylessPair(first: string, second: string, asEpisodes = true) {
  const { backend: b } = await store()
  const a = await write(b, { summary: first, ...(asEpisodes ? { type: 'episode' as const, session_id: 's1' } : {}) })
  const c = await write(b, { summary: second, ...(asEpisodes ? { type: 'episode' as const, session_id: 's2' } : {}) })
  return { b, a, c }
}

/** For each pair, the restatement revises nothing: the first memory stays active. */
async function expectUnrevised(pairs: ReadonlyArray<readonly [string, string]>, asEpisodes: boolean): Promise<void> {
  for (const [first, second] of pairs) {
    const { b, a, c } = await keylessPair(first, second, asEpisodes)
    expect(c.superseded, `${first} -> ${second}`).toEqual([])
    expect(await statusOf(b, a.id), `${first} -> ${second}`).toBe('active')
  }
}

/** Each text's derived claim has this subject and value. */
function expectClaims(cases: ReadonlyArray<readonly [text: string, subject: string, value: string]>): void {
  for (const [text, subject, value] of cases) {
    const c = deriveClaim(text)
    expect(c, text).not.toBeNull()
    expect(c?.subject, text).toBe(subject)
    expect(c?.value, text).toBe(value)
  }
}

describe('claims from free text', () => {
  it('reads a subject and a value from the forms the issue names, in English and Chinese', () => {
    const cases: Array<[string, string, string]> = [
      ['billing service database -> postgres', 'billing service database', 'postgres'],
      ['Region: eu-west-1', 'Region', 'eu-west-1'],
      ['The API server listens on port 8080.', 'API server port', '8080'],
      ['The billing service uses MySQL as its database.', 'billing service database', 'MySQL'],
      ['缓存服务用的是 redis 7', '缓存服务', 'redis 7'],
      ['数据库端口是 5432', '数据库端口', '5432'],
      ['用户是素食者，不吃肉。', '用户 饮食', '素食者'],
      ['The token TTL of the auth service is 15 min', 'auth service token TTL', '15 min'],
      ['部署目标从测试环境改成生产环境', '部署目标', '生产环境'],
    ]
    expectClaims(cases)
  })

  it('asserts nothing slot-like for questions, narration, chatter and a person outside every category', () => {
    for (const text of [
      'What is the API port?',
      '用户现在的饮食是什么',
      'fixed the flaky unit test in the billing invoice PDF export',
      'Caroline: Thanks!',
      'Caroline: A sunrise over the lake, with my kids.',
      '我在想这个问题',
      'Sounds like fun!',
    ])
      expect(deriveClaim(text), text).toBeNull()
  })

  it('finds change cues, negation and the values a text retires', () => {
    const diet = deriveClaim('用户现在开始吃鸡胸肉了，不再是素食。')
    expect(diet?.cues).toEqual(expect.arrayContaining(['现在', '不再']))
    expect(diet?.retired).toContain('素食')
    const tls = deriveClaim('The API server does not use TLS.')
    expect(tls?.negated).toBe(true)
    expect(deriveClaim('The deploy target changed from staging to production')?.retired).toContain('staging')
    // A saying repeated is not a fact changed; a fact back again is.
    expect(changeCues('The user said again that the queue lives in Redis.')).toEqual([])
    expect(changeCues('User asked again for 2-space indentation.')).toEqual([])
    expect(changeCues('The API is on port 9090 again.')).toContain('again')
  })
})

describe('automatic revision of keyless writes', () => {
  it('supersedes on a change cue: the API port, and search by subject puts the new value first', async () => {
    const { backend: b } = await store()
    const old = await write(b, { summary: 'The API server listens on port 8080.' })
    expect(old.slot).toBe('API server port')
    const now = await write(b, { summary: 'The API server now listens on port 9090.' })
    expect(now.superseded).toEqual([old.id])
    expect(now.status).toBe('active')
    expect(await statusOf(b, old.id)).toBe('superseded')
    const hits = (await searchHandler(b, { query: 'API server port' })).hits
    expect(hits[0]?.id).toBe(now.id)
    expect(hits.some((h) => h.id === old.id)).toBe(false)
    // The derived slot is in the file, where a person sees it.
    expect(await b.readFile(now.path)).toContain('slot: API server port')
  })

  it('the diet example of seed 003: 不再是素食 supersedes 素食, and verify contradicts the old value', async () => {
    const { backend: b } = await store()
    const veg = await write(b, { summary: '用户是素食者，不吃肉。' })
    const meat = await write(b, { summary: '用户现在开始吃鸡胸肉了，不再是素食。' })
    expect(meat.superseded).toEqual([veg.id])
    const found = (await searchHandler(b, { query: '用户现在的饮食是什么' })).hits
    expect(found[0]?.id).toBe(meat.id)
    expect((await verify(b, '用户是素食者')).verdict).toBe('contradicted')
    expect((await verify(b, '用户吃鸡胸肉')).verdict).toBe('supported')
  })

  it('a change of one attribute of the user leaves the others: 饮食 is no near subject of 名字, 住址, 哥哥 or 职业', async () => {
    const { backend: b } = await store()
    const others = []
    for (const summary of ['我叫李明。', '我住在杭州。', '我哥哥叫李强。', '我在一家做支付的公司当后端工程师。']) others.push(await write(b, { summary, type: 'episode', session_id: 'day-01' }))
    const veg = await write(b, { summary: '我的饮食是素食。', type: 'episode', session_id: 'day-02' })
    const meat = await write(b, { summary: '我最近开始吃鸡胸肉了，不再只吃素。', type: 'episode', session_id: 'day-15' })
    expect(meat.superseded).toEqual([veg.id])
    expect(meat.slot).toBe('用户 饮食')
    for (const o of others) expect(await statusOf(b, o.id), o.title).toBe('active')
  })

  it('the override example of seed 000: a correction of billing service database -> postgres', async () => {
    const { backend: b } = await store()
    const pg = await write(b, { summary: 'billing service database -> postgres' })
    const my = await write(b, { summary: 'billing service database -> mysql' })
    expect(my.superseded).toEqual([pg.id])
    expect((await verify(b, 'billing service database is postgres')).verdict).toBe('contradicted')
    const v = await verify(b, 'The billing service uses mysql as its database')
    expect(v.verdict).toBe('supported')
    expect(v.support?.id).toBe(my.id)
  })

  it('without a change cue, two values of one subject become a conflict with a warning, never two silent actives', async () => {
    const { backend: b } = await store()
    const a = await write(b, { summary: 'The deploy target is staging.' })
    const c = await write(b, { summary: 'The deploy target is production.' })
    expect(c.status).toBe('conflict')
    expect(c.variants).toEqual([a.id])
    expect(c.warnings?.some((w) => w.startsWith(`conflict: ${a.id}`))).toBe(true)
    expect(await statusOf(b, a.id)).toBe('conflict')
    expect((await verify(b, 'The deploy target is staging')).verdict).toBe('unknown')
  })

  it('without a change cue, the later of two typed values of one subject is its new version, with a versioned warning (issue 27)', async () => {
    const { backend: b } = await store()
    const a = await write(b, { summary: 'The build cache holds 20 GB.' })
    const c = await write(b, { summary: 'The build cache holds 50 GB.' })
    expect(c.status).toBe('active')
    expect(c.superseded).toEqual([a.id])
    expect(c.warnings?.some((w) => w.startsWith(`versioned: ${a.id}`))).toBe(true)
    expect(await statusOf(b, a.id)).toBe('superseded')
    expect((await verify(b, 'The build cache holds 20 GB')).verdict).toBe('contradicted')
    expect((await verify(b, 'The build cache holds 50 GB')).verdict).toBe('supported')
    const zh = await write(b, { summary: '日志服务的数据库是 MySQL。' })
    const zh2 = await write(b, { summary: '日志服务的数据库是 PostgreSQL。' })
    expect(zh2.superseded).toEqual([zh.id])
  })

  it('a restatement, another subject, another attribute, an added value and other premises change nothing', async () => {
    const { backend: b } = await store()
    const port = await write(b, { summary: 'The API server listens on port 8080.', scope: 'env=prod' })
    const same = await write(b, { summary: 'API server port: 8080', scope: 'env=prod' })
    const other = await write(b, { summary: 'The admin server now listens on port 9443.' })
    const timeout = await write(b, { summary: 'The API server request timeout is now 30 s.' })
    const app = await write(b, { summary: 'The desktop app supports Windows and macOS.' })
    const added = await write(b, { summary: 'The desktop app now supports Linux too.' })
    const staged = await write(b, { summary: 'The API server now listens on port 8081.', scope: 'env=staging' })
    for (const w of [port, same, other, timeout, app, added]) expect(await statusOf(b, w.id), w.title).toBe('active')
    expect(staged.superseded).toEqual([])
    expect(staged.status).toBe('active')
  })

  it('a near repeat with another value is a new statement, not a duplicate (8080 and 8081)', async () => {
    const { backend: b } = await store()
    const a = await write(b, { summary: 'remember: API port -> 8080' })
    const c = await write(b, { summary: 'remember: API port -> 8081' })
    expect(c.dedupe).toBeUndefined()
    expect(c.superseded).toEqual([a.id])
  })

  it('a change stated without a subject to read ("we moved X off A onto B") revises a memory of a neighbouring subject', async () => {
    const { backend: b } = await store()
    const old = await write(b, { summary: 'DNS for the marketing site is hosted at GoDaddy.' })
    const next = await write(b, { summary: "We moved the marketing site's DNS off GoDaddy onto Route 53." })
    expect(next.superseded).toEqual([old.id])
  })

  it('a change cue on another subject never revises by frame (silent loss of the first subject\'s value)', async () => {
    await expectUnrevised(
      [
        ['The API server listens on port 8080.', 'The admin server was moved to port 9443.'],
        ['The billing service database is postgres.', 'The search service database was migrated to opensearch.'],
        ['计费服务的数据库是 MySQL。', '搜索服务的数据库迁移到了 PostgreSQL。'],
      ],
      false,
    )
  })

  it('a subject read with 用的是 and one read with 是 are one subject: different values without a cue conflict', async () => {
    const { backend: b } = await store()
    const a = await write(b, { summary: '公司的企业邮箱用的是腾讯企业邮。' })
    const c = await write(b, { summary: '公司企业邮箱是网易企业邮。' })
    expect(c.status).toBe('conflict')
    expect(await statusOf(b, a.id)).toBe('conflict')
    expect((await verify(b, '公司企业邮箱是网易企业邮')).verdict).toBe('unknown')
  })

  it('"is in <place>" and "lives in / is located in <place>" are one subject; "is in June" and "is in progress" are not places', async () => {
    const { backend: b } = await store()
    const a = await write(b, { summary: 'The analytics warehouse is in us-central1.' })
    const c = await write(b, { summary: 'The analytics warehouse lives in europe-west4.' })
    expect(c.status).toBe('conflict')
    expect(await statusOf(b, a.id)).toBe('conflict')
    expect((await verify(b, 'The analytics warehouse is in us-central1')).verdict).toBe('unknown')
    const office = await write(b, { summary: 'Our office is located in Berlin.' })
    const moved = await write(b, { summary: 'Our office has moved, it is in Munich now.' })
    expect(moved.superseded).toEqual([office.id])
    expect(deriveClaim('The release is in June.')).toMatchObject({ subject: 'release', value: 'in June' })
    expect(deriveClaim('The migration is in progress.')).toMatchObject({ subject: 'migration', value: 'in progress' })
  })

  it('an explicit key wins over the derived subject, and a person may correct the derived slot by hand', async () => {
    const { backend: b, root } = await store()
    const keyed = await write(b, { summary: 'The API server listens on port 8080.', key: 'api port' })
    expect(keyed.slot).toBeUndefined()
    expect(await b.readFile(keyed.path)).toContain('key: api port')
    const free = await write(b, { summary: '每周例会在周三下午。' })
    const file = path.join(root, free.path)
    const text = await fs.readFile(file, 'utf8')
    const corrected = text.includes('slot:') ? text.replace(/^slot: .*$/m, 'slot: 例会时间') : text.replace(/^status: /m, 'slot: 例会时间\nstatus: ')
    await fs.writeFile(file, corrected)
    await rebuildIndex(root)
    expect((await b.indexView()).get(free.id)?.key).toBe('例会时间')
    const moved = await write(b, { summary: '例会时间改到周四上午了。' })
    expect(moved.superseded).toEqual([free.id])
  })

  it('a key given alone is searchable: a memory with key 饮食 is found by 饮食', async () => {
    const { backend: b } = await store()
    const m = await write(b, { summary: '不吃香菜，也不吃辣。', key: '饮食' })
    expect((await searchHandler(b, { query: '饮食' })).hits.map((h) => h.id)).toContain(m.id)
  })

  it('history and as-of read automatic versions like keyed ones', async () => {
    const { backend: b, at } = await store('2026-11-01T10:00:00.000Z')
    const first = await write(b, { summary: 'The cache service runs Redis 6.' })
    at('2026-11-10T10:00:00.000Z')
    const second = await write(b, { summary: 'The cache service was upgraded to Redis 7.' })
    expect(second.superseded).toEqual([first.id])
    const h = await historyHandler(b, { id: second.id })
    expect(h.versions.map((v) => v.id)).toEqual([first.id, second.id])
    expect(h.current).toEqual([second.id])
    const then = await searchHandler(b, { query: 'cache service Redis', asOf: '2026-11-05T00:00:00.000Z' })
    expect(then.hits[0]?.id).toBe(first.id)
  })

  it('digests and the resident injection present current belief by derived slot', async () => {
    const { backend: b } = await store()
    await write(b, { summary: 'search service index engine -> elasticsearch 8' })
    const now = await write(b, { summary: 'correction: search service index engine -> opensearch 2' })
    const d = await digestHandler(b, { key: now.slot as string })
    expect(d.text).toContain('opensearch 2')
    expect(d.text).not.toContain('elasticsearch 8')
    const injected = injectionText(b)
    expect(injected.text).toContain('opensearch 2')
    expect(injected.text).not.toContain('elasticsearch 8')
  })

  it('suggested writes (auto-settle, backfill) revise when confirmed', async () => {
    const { backend: b } = await store()
    const old = await write(b, { summary: 'The API server listens on port 8080.', session_id: 's1', raw: 'user: the API server listens on port 8080', requireConfirmation: true })
    await confirmHandler(b, { id: old.id })
    const next = await write(b, { summary: 'The API server now listens on port 9090.', session_id: 's2', raw: 'user: it listens on 9090 now', requireConfirmation: true })
    expect(next.status).toBe('suggested')
    expect(await statusOf(b, old.id)).toBe('active')
    const confirmed = await confirmHandler(b, { id: next.id })
    expect(confirmed.superseded).toEqual([old.id])
    expect(outputViolation(memoryConfirmTool.output, confirmed)).toBeNull()
  })

  it('a verified memory is not replaced by an unverified change: both conflict, with a shielded warning', async () => {
    const { backend: b } = await store()
    const ok = await write(b, { summary: 'The API server listens on port 8080.', verify_cmd: 'curl -s localhost:8080/health', verify_result: 'pass' })
    const next = await write(b, { summary: 'The API server now listens on port 9090.' })
    expect(next.superseded).toEqual([])
    expect(next.status).toBe('conflict')
    expect(next.warnings?.some((w) => w.startsWith(`shielded: ${ok.id}`))).toBe(true)
  })
})

describe('how someone gets to work: one attribute of a person, whatever the vehicle', () => {
  it('reads the vehicle as the value of the person\'s commute, in Chinese and English', () => {
    expectClaims([
      ['我平时坐公交去公司。', '用户 通勤', '公交'],
      ['我步行上班。', '用户 通勤', '步行'],
      ['她每天打车上班', '她 通勤', '车'],
      ['I usually take the bus into the office.', 'user commute', 'bus'],
      ['I commute by train.', 'user commute', 'train'],
      ['I walk to work.', 'user commute', 'walking'],
      ['Alice rides her scooter to school.', 'Alice commute', 'scooter'],
    ])
    // Another person is another subject; a workplace is another attribute.
    expect(deriveClaim('我哥哥每天开车上班。')?.subject).toBe('用户 哥哥 通勤')
    expect(deriveClaim('My brother drives to work.')?.subject).toBe('brother commute')
    expect(deriveClaim('我在阿里巴巴上班。')).toMatchObject({ subject: '用户 公司', value: '阿里巴巴' })
    // The 在 of 现在 is no "at": switching vehicles says nothing of the employer.
    expect(deriveClaim('我现在改坐公交上班')).toMatchObject({ subject: '用户 通勤', value: '公交' })
    expect(deriveClaim('I no longer drive to work.')).toMatchObject({ subject: 'user commute', value: 'car', negated: true })
    expect(deriveClaim('我不再开车上班了。')).toMatchObject({ subject: '用户 通勤', value: '车', negated: true })
    // Going to work is no way of going there.
    expect(deriveClaim('I went to work early today.')).toBeNull()
  })

  it('a new vehicle stated with a change cue supersedes the old one; the old stays in history and as-of', async () => {
    const pairs = [
      ['我平时坐公交上班。', '我改骑电动车上班了。'],
      ['我每天开车去公司。', '我现在坐地铁去公司，不开车了。'],
      ['I take the bus to work.', 'I cycle to work now.'],
      ['I commute by car.', 'These days I take the train to work instead.'],
    ]
    for (const [first, second] of pairs) {
      const { backend: b, at } = await store('2026-05-01T10:00:00.000Z')
      const a = await write(b, { summary: first as string, type: 'episode', session_id: 's1' })
      at('2026-05-20T10:00:00.000Z')
      const c = await write(b, { summary: second as string, type: 'episode', session_id: 's2' })
      expect(c.superseded, second).toEqual([a.id])
      expect(await statusOf(b, a.id), first).toBe('superseded')
      expect((await historyHandler(b, { id: c.id })).versions.map((v) => v.id)).toEqual([a.id, c.id])
      const query = (c.slot as string).replace(/^user /u, '')
      expect((await searchHandler(b, { query, asOf: '2026-05-10T00:00:00.000Z' })).hits[0]?.id, first).toBe(a.id)
      expect((await searchHandler(b, { query })).hits[0]?.id, second).toBe(c.id)
    }
  })

  it('another vehicle without a cue is a conflict; another person, the same vehicle said again, or a workplace change nothing', async () => {
    const { backend: b } = await store()
    const bus = await write(b, { summary: '我坐公交上班。', type: 'episode', session_id: 's1' })
    const brother = await write(b, { summary: '我哥哥骑车上班。', type: 'episode', session_id: 's2' })
    const again = await write(b, { summary: '我每天都坐公交上班。', type: 'episode', session_id: 's3' })
    const job = await write(b, { summary: '我现在在阿里巴巴上班。', type: 'episode', session_id: 's4' })
    for (const w of [brother, again, job]) expect(w.superseded, w.title).toEqual([])
    for (const w of [bus, brother, again, job]) expect(await statusOf(b, w.id), w.title).toBe('active')
    const metro = await write(b, { summary: '我坐地铁上班。', type: 'episode', session_id: 's5' })
    expect(metro.status).toBe('conflict')
    expect(metro.warnings?.some((w) => w.startsWith('conflict: '))).toBe(true)

    const { backend: e } = await store()
    const train = await write(e, { summary: 'I take the train to work.', type: 'episode', session_id: 's1' })
    const alice = await write(e, { summary: 'Alice now drives to work.', type: 'episode', session_id: 's2' })
    const said = await write(e, { summary: 'The user said again that they take the train to work.', type: 'episode', session_id: 's3' })
    expect(alice.superseded).toEqual([])
    expect(said.superseded).toEqual([])
    expect(await statusOf(e, train.id)).toBe('active')
  })
})

describe('a person\'s attribute restated with a new value, in the words people use', () => {
  it('contractions, more occupations and 跳槽 are read: the restatement supersedes the old value', async () => {
    const pairs = [
      ['I eat meat.', "I'm vegetarian now."],
      ['I use Vim.', "I'm using VS Code now."],
      ['I am a teacher.', 'I became a nurse last year.'],
      ['我是老师。', '我现在是护士了。'],
      ['我在阿里巴巴上班。', '我跳槽到腾讯了。'],
      ['I was vegetarian.', "I'm not vegetarian anymore."],
    ]
    for (const [first, second] of pairs) {
      const { a, c } = await keylessPair(first as string, second as string)
      expect(c.superseded, `${first} -> ${second}`).toEqual([a.id])
      expect(c.slot, second).toBe(a.slot)
    }
    expect(deriveClaim("Caroline: I'm vegetarian now.")).toMatchObject({ subject: 'Caroline diet', value: 'vegetarian' })
    expect(deriveClaim("I'm not vegetarian anymore.")).toMatchObject({ subject: 'user diet', value: 'vegetarian', negated: true })
  })

  it('a pet is the pet\'s, not the user\'s name; a new pet stands beside the old one; a pet given up by name is retired', async () => {
    expect(deriveClaim('I have a cat named Tom.')?.subject).toBe('user pet')
    for (const [name, cat, dog] of [
      ["I'm called Sam.", 'I have a cat named Tom.', 'I now have a dog named Rex.'],
      ['我叫李明。', '我养了一只猫。', '我现在养了一只狗。'],
    ]) {
      const { backend: b } = await store()
      const ids = []
      for (const [i, summary] of [name, cat, dog].entries()) ids.push(await write(b, { summary: summary as string, type: 'episode', session_id: `s${i}` }))
      for (const w of ids) {
        expect(w.superseded, w.title).toEqual([])
        expect(await statusOf(b, w.id), w.title).toBe('active')
      }
    }
    const { a: tom, c: gone } = await keylessPair('I have a cat named Tom.', 'I no longer have the cat named Tom.')
    expect(gone.superseded).toEqual([tom.id])
  })

  it('another person, another attribute, a visit and a saying repeated supersede nothing', async () => {
    await expectUnrevised(
      [
        ['I am a teacher.', 'My sister is a nurse now.'],
        ['我在阿里巴巴上班。', '我哥哥跳槽到腾讯了。'],
        ['我是老师。', '我现在住在上海。'],
        ['I live in Boston.', "I'm in Berlin this week."],
        ["I'm vegetarian.", 'The user said again that they are vegetarian.'],
        ["I'm vegetarian.", "I'm vegetarian."],
      ],
      true,
    )
  })
})

describe('warnings a write earns', () => {
  it('values outside their natural range, a low confidence, a verified memory replaced', async () => {
    const { backend: b } = await store()
    const pct = await write(b, { summary: 'Cache hit rate: 120%' })
    expect(pct.warnings?.some((w) => w.startsWith('value-range:') && w.includes('120%'))).toBe(true)
    const neg = await write(b, { summary: 'retry limit -> -3' })
    expect(neg.warnings?.some((w) => w.startsWith('value-range:') && w.includes('-3'))).toBe(true)
    const port = await write(b, { summary: 'The metrics port is 70000.' })
    expect(port.warnings?.some((w) => w.includes('65535'))).toBe(true)
    const low = await write(b, { summary: 'The staging cluster might have 3 nodes.', confidence: 0.1 })
    expect(low.warnings?.some((w) => w.startsWith('low-confidence:'))).toBe(true)
    const fine = await write(b, { summary: 'Cache hit rate went up by 150% after the fix.', confidence: 0.9 })
    expect(fine.warnings ?? []).toEqual([])
    const v = await write(b, { summary: 'Deploy window is 02:00 UTC.', key: 'deploy window', verify_cmd: 'cat deploy.cfg', verify_result: 'pass' })
    const replaced = await write(b, { summary: 'Deploy window is 03:00 UTC.', key: 'deploy window' })
    expect(replaced.superseded).toEqual([v.id])
    expect(replaced.warnings?.some((w) => w.startsWith(`verified-replaced: ${v.id}`))).toBe(true)
  })
})

describe('verify by value', () => {
  it('the three examples of the issue: another version, another subject, another number', async () => {
    const { backend: b } = await store()
    await write(b, { summary: 'search service index engine -> elasticsearch 8' })
    await write(b, { summary: 'correction: search service index engine -> opensearch 2' })
    await write(b, { summary: 'auth service token TTL -> 15 minutes' })
    await write(b, { summary: '缓存服务用 redis 6' })
    const es = await verify(b, 'The search service index engine is elasticsearch 8')
    expect(es.verdict).toBe('contradicted')
    expect(es.note).toContain('opensearch 2')
    expect((await verify(b, 'The gateway service token TTL is 15 minutes')).verdict).toBe('unknown')
    expect((await verify(b, 'The auth service token TTL is 15 min')).verdict).toBe('supported')
    expect((await verify(b, '缓存服务用的是 redis 7')).verdict).toBe('contradicted')
    expect((await verify(b, '缓存服务用的是 redis 6')).verdict).toBe('supported')
  })

  it('a newer memory that takes the value back, or announces a change to the subject, withholds support where no rule linked them', async () => {
    const cases = [
      ['Our accountant is Meera Shah at Shah & Co.', 'We no longer use Shah & Co; the books are done by Harlow Accounting.', 'Our accountant is Meera Shah'],
      ['The team tracks work in Jira.', 'The team dropped Jira and tracks everything in Linear now.', 'The team tracks work in Jira'],
      ['团队用 Jira 管理需求。', '团队不用 Jira 了，需求都放在 Linear 上。', '团队用 Jira 管理需求'],
    ]
    for (const [old, next, claim] of cases) {
      const { backend: b } = await store()
      await write(b, { summary: old as string })
      await write(b, { summary: next as string })
      const v = await verify(b, claim as string)
      expect(v.verdict, claim).not.toBe('supported')
    }
    // A later memory of another attribute that changed nothing else keeps the support.
    const { backend: b } = await store()
    await write(b, { summary: 'The company VPN client is OpenVPN.' })
    await write(b, { summary: 'The office printer is a Brother HL-L2350.' })
    expect((await verify(b, 'The company VPN client is OpenVPN')).verdict).toBe('supported')
  })

  it('the other polarity is never support: "has no roof rack" does not support "has a roof rack"', async () => {
    const { backend: b } = await store()
    await write(b, { summary: "The user's car has no roof rack." })
    expect((await verify(b, "The user's car has a roof rack")).verdict).not.toBe('supported')
    expect((await verify(b, "The user's car has no roof rack")).verdict).toBe('supported')
    await write(b, { summary: "The user's car has a roof rack." })
    // Both stated, neither said to replace the other: not known which holds.
    expect((await verify(b, "The user's car has a roof rack")).verdict).toBe('unknown')
    expect((await verify(b, "The user's car has no roof rack")).verdict).toBe('unknown')
  })

  it('words that only overlap are not support', async () => {
    const { backend: b } = await store()
    await write(b, { summary: 'The iOS team sprint length is two weeks.' })
    await write(b, { summary: 'The Android team also runs two-week sprints.' })
    expect((await verify(b, 'The web team runs two-week sprints')).verdict).not.toBe('supported')
    expect((await verify(b, 'The iOS team sprint length is three weeks')).verdict).toBe('contradicted')
  })
})
