/**
 * Claims the rules can read (issue 27, item 2), on keyless free-text writes in English and
 * Chinese: one claim per fact, each revising its own slot; subjects that resolve through the
 * subject term list, the store's alias groups (aliases.json) and shared entities; "also / too /
 * 也" adding a value instead of replacing one; Chinese habits stated and denied.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { deriveClaims, subjectTerms, verifyHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { tempStores } from './store-kit.js'

const store = tempStores('mem-revision-facts-')

async function statuses(b: MemoryBackend, ids: readonly string[]): Promise<Array<string | undefined>> {
  const view = await b.indexView()
  return ids.map((id) => view.get(id)?.status)
}

/** Writes each text keyless (no key, no title) into a fresh store; the ids and final statuses. */
async function history(texts: readonly string[], extra: (i: number) => { entities?: string[] } = () => ({})) {
  const { backend, root } = await store()
  const ids: string[] = []
  for (const [i, summary] of texts.entries()) ids.push((await writeHandler(backend, { summary, ...extra(i) })).id)
  return { backend, root, ids, statuses: await statuses(backend, ids) }
}

describe('one claim per fact', () => {
  it('reads every fact of a sentence, with the subject of each, and keeps a joined value whole', () => {
    const facts = (t: string) => deriveClaims(t).map((c) => [c.subject, c.value])
    expect(facts('We moved the API to port 9090 and the database to Postgres 16.')).toEqual([
      ['API port', '9090'],
      ['database', 'Postgres 16'],
    ])
    expect(facts('The API listens on port 9090 and uses Postgres 16.')).toEqual([
      ['API port', '9090'],
      ['API database', 'Postgres 16'],
    ])
    expect(facts('The API now listens on port 9090; the cache is Redis 7.')).toEqual([
      ['API port', '9090'],
      ['cache', 'Redis 7'],
    ])
    expect(facts('API 端口改成 9090，数据库换成 Postgres 16。')).toEqual([
      ['API 端口', '9090'],
      ['数据库', 'Postgres 16'],
    ])
    // A second statement no form reads is no part of the first value; "and" inside one value is.
    expect(facts('Maple eats Purina and sleeps on the sofa.')).toEqual([['Maple diet', 'Purina']])
    expect(facts('Tom and Jerry live in Berlin.')).toEqual([['Tom and Jerry home', 'Berlin']])
  })

  it('a write stating two changes supersedes the memory of each fact, and each keeps its own slot (English)', async () => {
    const h = await history(['The API listens on port 8080.', 'The database is MySQL 8.', 'We moved the API to port 9090 and the database to Postgres 16.'])
    expect(h.statuses).toEqual(['superseded', 'superseded', 'active'])
    const view = await h.backend.indexView()
    expect(view.get(h.ids[2] as string)?.key).toBe('API port')
    expect(view.get(h.ids[1] as string)?.superseded_by).toBe(h.ids[2])
    expect((await verifyHandler(h.backend, { claim: 'The database is MySQL 8' })).verdict).not.toBe('supported')
  })

  it('a write stating two changes supersedes the memory of each fact (Chinese)', async () => {
    const h = await history(['API 端口是 8080。', '数据库是 MySQL 8。', 'API 端口改成 9090，数据库换成 Postgres 16。'])
    expect(h.statuses).toEqual(['superseded', 'superseded', 'active'])
    expect((await h.backend.indexView()).get(h.ids[2] as string)?.key).toBe('API 端口')
  })

  it('a fact added with "also" beside a changed one revises only the changed one', async () => {
    const h = await history(['The API listens on port 8080.', 'The cache is Redis 6.', 'The API now listens on port 9090, and the cache also uses Redis 7.'])
    expect(h.statuses).toEqual(['superseded', 'active', 'active'])
  })
})

describe('subjects that resolve', () => {
  it('the subject term list joins one subject worded two ways, in either language, and no more', () => {
    expect(subjectTerms('backend service port')).toEqual(subjectTerms('API port'))
    expect(subjectTerms('后端服务 端口')).toEqual(subjectTerms('API port'))
    expect(subjectTerms('数据库 版本')).toEqual(subjectTerms('DB version'))
    expect(subjectTerms('用户 老婆 单位')).toEqual(subjectTerms('用户 爱人 单位'))
    // Without the list the wordings stay apart; look-alikes stay apart with it.
    expect(subjectTerms('backend service port', false)).not.toEqual(subjectTerms('API port', false))
    expect(subjectTerms('admin server port')).not.toEqual(subjectTerms('API server port'))
  })

  it('"the API" and "our backend service" are one subject: the change supersedes (English and Chinese)', async () => {
    expect((await history(['The API listens on port 8080.', 'Our backend service now listens on port 9090.'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['API 服务监听 8080 端口。', '后端服务现在改成监听 9090 端口了。'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['我老婆在腾讯上班。', '我爱人现在在阿里上班了。'])).statuses).toEqual(['superseded', 'active'])
  })

  it('look-alikes stay apart: another server, and one fact said in two languages', async () => {
    expect((await history(['The API server listens on port 8080.', 'The admin server now listens on port 9443.'])).statuses).toEqual(['active', 'active'])
    expect((await history(['用户是素食者。', 'The user is vegetarian.'])).statuses).toEqual(['active', 'active'])
    // A relative's home or workplace is another subject, however one word names the relative.
    expect((await history(['The user lives in Berlin.', "The user's mother now lives in Munich."])).statuses).toEqual(['active', 'active'])
    expect((await history(['我在阿里上班。', '我老婆现在在腾讯上班。'])).statuses).toEqual(['active', 'active'])
  })

  it("the store's alias groups (aliases.json) join two wordings; without the group they stay apart", async () => {
    const texts = ['The gateway listens on port 8080.', 'The edge proxy now listens on port 9443.']
    expect((await history(texts)).statuses).toEqual(['active', 'active'])
    const { backend, root } = await store()
    await fs.writeFile(path.join(root, 'aliases.json'), JSON.stringify({ 'subject: gateway': ['gateway', 'edge proxy'] }))
    const a = await writeHandler(backend, { summary: texts[0] as string })
    const c = await writeHandler(backend, { summary: texts[1] as string })
    expect(c.superseded).toEqual([a.id])
    expect(await statuses(backend, [a.id, c.id])).toEqual(['superseded', 'active'])
  })

  it('memories of one entity whose subjects end in the same attribute are one subject; without the entity they stay apart', async () => {
    const texts = ['Orion listens on port 7000.', '搜索集群现在改成监听 7100 端口了。']
    expect((await history(texts)).statuses).toEqual(['active', 'active'])
    expect((await history(texts, () => ({ entities: ['orion-cluster'] }))).statuses).toEqual(['superseded', 'active'])
  })
})

describe('also / too / 也 add a value', () => {
  it('a value added beside the others replaces none, in English and Chinese', async () => {
    expect((await history(['The team uses React.', 'The team now uses Vue too.'])).statuses).toEqual(['active', 'active'])
    expect((await history(['The API runs on AWS.', 'The API also runs on GCP now.'])).statuses).toEqual(['active', 'active'])
    expect((await history(['团队用 Jira 管理需求。', '团队现在也用 Linear。'])).statuses).toEqual(['active', 'active'])
    // The control: the same change without the additive word replaces the old value.
    expect((await history(['The team uses React.', 'The team now uses Vue.'])).statuses).toEqual(['superseded', 'active'])
  })
})

describe('Chinese habits stated and denied', () => {
  it('不 / 不再 then 开始 / 现在 revise the habit; another habit of the same person stays apart', async () => {
    expect((await history(['老张不抽烟。', '老张最近又开始抽烟了。'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['女儿不喝牛奶。', '女儿现在每天早上都喝一杯牛奶。'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['测试环境不对外开放。', '测试环境现在对外开放了。'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['老张不抽烟。', '老张现在开始跑步了。'])).statuses).toEqual(['active', 'active'])
    expect((await history(['我每天喝两杯咖啡。', '我现在每天只喝一杯咖啡。'])).statuses).toEqual(['superseded', 'active'])
  })

  it('a title before a name ends no sentence: "Dr. Kim" is the whole value', async () => {
    expect(deriveClaims("The user's dentist is Dr. Kim.").map((c) => c.value)).toEqual(['Dr. Kim'])
    expect((await history(["The user's dentist is Dr. Kim.", "The user's dentist is now Dr. Lopez."])).statuses).toEqual(['superseded', 'active'])
  })
})

describe('a change that takes effect later', () => {
  it('reads the subject past "starting next Monday" / "下个月起" and "will", and the change revises the old value', () => {
    const read = (t: string) => deriveClaims(t).map((c) => [c.subject, c.value])[0]
    expect(read('Starting next Monday, the API will listen on port 9090.')).toEqual(['API port', '9090'])
    expect(read('From next week the API moves to port 9090.')).toEqual(['API port', '9090'])
    expect(read('Next month the team switches to Linear.')).toEqual(['team issue tracker', 'Linear'])
    expect(read('下个月起站会改到十点。')).toEqual(['站会', '十点'])
    expect(read('站会在早上九点半。')).toEqual(['站会 时间', '早上九点半'])
  })

  it('supersedes the old value in both languages; "goes to" a school is no change', async () => {
    expect((await history(['The API listens on port 8080.', 'Starting next Monday, the API will listen on port 9090.'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['团队用 Jira。', '从下个月开始团队改用 Linear。'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(["Priya's daughter goes to Hillcrest Elementary.", "Priya's daughter goes to Maple Grove Elementary."])).statuses).not.toContain('superseded')
  })
})
