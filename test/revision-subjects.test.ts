/**
 * Revisions the rules catch on keyless free text (issue 27), English and Chinese: an older memory
 * stating several facts found by each fact's subject (front-matter `subjects`); preferences among
 * settings; owners named before the thing they own; Chinese future modals (会, 将, 计划) and
 * months in numerals; the day a change takes effect, written as `valid_from` and read by
 * verify; reported speech.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { deriveClaims, rebuildIndex, verifyHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { tempStores } from './store-kit.js'

const store = tempStores('mem-revision-subjects-')

async function statuses(b: MemoryBackend, ids: readonly string[]): Promise<Array<string | undefined>> {
  const view = await b.indexView()
  return ids.map((id) => view.get(id)?.status)
}

/** Writes each text keyless (no key, no title) into a fresh store; the final statuses and the store. */
async function history(texts: readonly string[]) {
  const { backend, root } = await store()
  const ids: string[] = []
  for (const summary of texts) ids.push((await writeHandler(backend, { summary })).id)
  return { backend, root, ids, statuses: await statuses(backend, ids) }
}

const first = (t: string) => deriveClaims(t).map((c) => [c.subject, c.value])[0]

describe('a memory stating several facts is found by each one', () => {
  it('records the subjects of the facts after the first in its front-matter', async () => {
    const h = await history(['The API server uses Postgres 15 and listens on port 8080.'])
    const view = await h.backend.indexView()
    const entry = view.get(h.ids[0] as string)
    expect(entry?.key).toBe('API server database')
    expect(entry?.subjects).toEqual(['API server port'])
    expect(await h.backend.readFile(entry?.path as string)).toMatch(/subjects:\s*\n\s*- API server port/u)
  })

  it('a later single-fact change of its second fact supersedes it, and the new memory keeps its own slot (English)', async () => {
    const h = await history(['The API server uses Postgres 15 and listens on port 8080.', 'The API server listens on port 9090 now.'])
    expect(h.statuses).toEqual(['superseded', 'active'])
    expect((await h.backend.indexView()).get(h.ids[1] as string)?.key).toBe('API server port')
    expect((await history(['The billing service runs on Node 18 and is owned by Alice.', 'Bob now owns the billing service.'])).statuses).toEqual(['superseded', 'active'])
  })

  it('the same in Chinese', async () => {
    expect((await history(['API 服务监听 8080 端口，数据库是 Postgres 15。', '数据库升级到 Postgres 16 了。'])).statuses).toEqual(['superseded', 'active'])
  })

  it('another fact about its second subject with no other value supersedes nothing', async () => {
    expect((await history(['The API server uses Postgres 15 and listens on port 8080.', 'The API server listens on port 8080.'])).statuses).not.toContain('superseded')
    expect((await history(['The API server uses Postgres 15 and listens on port 8080.', 'The admin server listens on port 9090 now.'])).statuses).toEqual(['active', 'active'])
  })

  it('a second part that opens with its predicate is read with the first part\'s subject', () => {
    expect(deriveClaims('The API server uses Postgres 15 and listens on port 8080.').map((c) => c.subject)).toEqual(['API server database', 'API server port'])
  })
})

describe('preferences among settings', () => {
  it('reads the setting as the attribute, in both languages', () => {
    expect(first('The user prefers dark mode.')).toEqual(['user mode', 'dark'])
    expect(first('I switched to light mode.')).toEqual(['user mode', 'light'])
    expect(first('The user prefers an aisle seat.')).toEqual(['user seat', 'aisle'])
    expect(first('用户偏好深色模式。')).toEqual(['用户 模式', '深色'])
    expect(first('我现在改用浅色主题了。')).toEqual(['用户 主题', '浅色'])
  })

  it('a preference said to change supersedes the old one; a preference for another setting stays apart', async () => {
    expect((await history(['The user prefers dark mode.', 'The user now prefers light mode.'])).statuses).toEqual(['superseded', 'active'])
    // Two plain values with no cue: nothing says which is current.
    expect((await history(['The user prefers dark mode.', 'The user prefers light mode.'])).statuses).toEqual(['conflict', 'conflict'])
    expect((await history(['I like dark mode.', 'I switched to light mode.'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['用户偏好深色模式。', '用户现在偏好浅色模式。'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['我喜欢深色主题。', '我现在改用浅色主题了。'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['The user prefers dark mode.', 'The user prefers an aisle seat.'])).statuses).toEqual(['active', 'active'])
    expect((await history(['用户偏好深色模式。', '用户喜欢靠窗的座位。'])).statuses).toEqual(['active', 'active'])
  })
})

describe('owners and Chinese attribute names', () => {
  it('"Dana owns the payments service" names the owner; "The team owns it" names none', () => {
    expect(first('Dana owns the payments service.')).toEqual(['payments service owner', 'Dana'])
    expect(first('Bob will take over the billing service next month.')).toEqual(['billing service owner', 'Bob'])
    expect(first('The billing service is owned by Alice.')).toEqual(['billing service owner', 'Alice'])
    expect(first('The team owns the payments service.')?.[0]).not.toBe('payments service owner')
  })

  it('an owner named as 负责人 and as 由…负责 is one attribute', async () => {
    expect(first('计费服务的负责人是张伟。')).toEqual(['计费服务 负责', '张伟'])
    expect(first('计费服务由李娜负责。')?.[0]).toBe('计费服务 负责')
    expect((await history(['计费服务的负责人是张伟。', '计费服务现在由李娜负责。'])).statuses).toEqual(['superseded', 'active'])
  })

  it('a weekday after 在 is a value', () => {
    expect(first('周会在周二。')).toEqual(['周会', '周二'])
  })
})

describe('a change that takes effect later, and reported speech', () => {
  it('会 / 将 / 计划 before a verb of change is read past; the 会 of 周会 is kept', () => {
    expect(first('下周 API 端口会改成 9090。')).toEqual(['API 端口', '9090'])
    expect(first('下周起会话超时将调整为15分钟。')).toEqual(['会话超时', '15分钟'])
    expect(first('周会改到周四。')).toEqual(['周会', '周四'])
    expect(first('从三月起办公室搬到苏州。')?.[0]).toBe('办公室 住址')
  })

  it('a change yet to come revises a value of one kind; of two plain values with no cue, neither is current', async () => {
    expect((await history(['The session timeout is 30 minutes.', 'Starting next week, the session timeout will be 15 minutes.'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['会话超时是30分钟。', '下周起会话超时将调整为15分钟。'])).statuses).toEqual(['superseded', 'active'])
    expect((await history(['The on-call lead is Alice.', 'The on-call lead is Bob.'])).statuses).toEqual(['conflict', 'conflict'])
  })

  it('a change yet to come keeps its day as valid_from, and verify answers "until <day>" from it (English and Chinese)', async () => {
    const en = await history(['The office is in Lisbon.', 'The office will move to Porto on March 1.'])
    expect(en.statuses).toEqual(['superseded', 'active'])
    const later = (await en.backend.indexView()).get(en.ids[1] as string)
    expect(later?.valid_from).toMatch(/^\d{4}-03-01$/u)
    expect(await en.backend.readFile(later?.path as string)).toMatch(/^valid_from: '?\d{4}-03-01'?$/mu)
    const held = await verifyHandler(en.backend, { claim: 'The office is in Lisbon' })
    expect(held.verdict).toBe('supported')
    expect(JSON.stringify(held)).toContain(`until ${later?.valid_from}`)
    expect((await verifyHandler(en.backend, { claim: 'The office is in Porto' })).verdict).not.toBe('supported')
    const zh = await history(['办公室在杭州。', '3月1日起办公室搬到苏州。'])
    expect(zh.statuses).toEqual(['superseded', 'active'])
    expect((await zh.backend.indexView()).get(zh.ids[1] as string)?.valid_from).toMatch(/^\d{4}-03-01$/u)
    // A day in the past, or a text of no change to come, writes none.
    const past = await history(['The release shipped on March 1.', 'The API listens on port 9090 now.'])
    const view = await past.backend.indexView()
    expect(past.ids.map((id) => view.get(id)?.valid_from)).toEqual([undefined, undefined])
  })

  it('a hand-written valid_from is what verify reads: once it has passed the change is current', async () => {
    const h = await history(['The API listens on port 8080.', 'Starting next week, the API will listen on port 9090.'])
    const view = await h.backend.indexView()
    const next = view.get(h.ids[1] as string)
    const file = path.join(h.root, next?.path as string)
    const text = await fs.readFile(file, 'utf8')
    expect(text).toMatch(/^valid_from: /mu)
    await fs.writeFile(file, text.replace(/^valid_from: .*$/mu, "valid_from: '2020-01-06'"))
    await rebuildIndex(h.root)
    expect((await h.backend.indexView()).get(next?.id as string)?.valid_from).toBe('2020-01-06')
    expect((await verifyHandler(h.backend, { claim: 'The API listens on port 9090' })).verdict).toBe('supported')
  })

  it('who said it is no part of the subject', () => {
    expect(first('Alice told me the API server listens on port 8080.')).toEqual(['API server port', '8080'])
    expect(first('Note to self: the API server listens on port 9090.')).toEqual(['API server port', '9090'])
  })
})
