/**
 * memory_verify on rules alone, keyless free text in English and Chinese: the doubts that keep a
 * stale value from being called supported when the memory that changed it words the subject
 * otherwise (issue 27, first acceptance item), and the older memory a support is in conflict with.
 */

import { describe, expect, it } from 'vitest'
import { verifyHandler, writeHandler } from '../src/api.js'
import { frameOf } from '../src/memory/truth/claim-frame.js'
import { movedElsewhere, moverNamedOtherwise, type DoubtClaim } from '../src/memory/truth/doubt-values.js'
import { tempStores } from './store-kit.js'

const store = tempStores('mem-doubt-')

/** Writes the texts in order into a fresh store and verifies the claim; the ids of the writes are returned with the verdict. */
async function after(writes: readonly string[], claim: string) {
  const { backend: b } = await store()
  const ids: string[] = []
  for (const summary of writes) ids.push((await writeHandler(b, { summary })).id)
  return { ids, v: await verifyHandler(b, { claim }) }
}

const claimOf = (text: string, subject: string, value: string): DoubtClaim => ({ text, subject, value, frame: frameOf(text, subject, value) })

describe('a stale value is never supported when the change words the subject otherwise (issue 27)', () => {
  it.each([
    ['en', ['The company office is in Wangjing SOHO.', 'We moved our headquarters to Zhongguancun last month.'], 'The company office is in Wangjing SOHO'],
    ['zh', ['公司办公室在望京 SOHO。', '我们上个月搬到了中关村软件园。'], '公司办公室在望京 SOHO'],
    ['zh', ['我们的服务器在北京机房。', '后端机器已经迁到上海了。'], '我们的服务器在北京机房'],
  ])('a move to another place doubts where the claim puts its subject (%s)', async (_, writes, claim) => {
    const { ids, v } = await after(writes, claim)
    expect(v.verdict).toBe('unknown')
    expect(v.note).toContain(ids[1])
    expect(v.note).toContain('moved to another place')
  })

  it.each([
    ['en', ['The user likes green tea.', 'The user recently moved to a new flat.'], 'The user likes green tea'],
    ['zh', ['公司办公室在望京 SOHO。', '我们把周会挪到了周四下午。'], '公司办公室在望京 SOHO'],
    ['zh', ['用户喜欢喝绿茶。', '用户最近搬到了杭州。'], '用户喜欢喝绿茶'],
  ])('a move of another named thing, a move to a time, and a move beside a claim of no place leave a support alone (%s)', async (_, writes, claim) => {
    const { ids, v } = await after(writes, claim)
    expect(v.verdict).toBe('supported')
    expect(v.support?.id).toBe(ids[0])
  })

  it('a move is of another named thing when the text names one before it that the claim does not', () => {
    const claim = claimOf('Our office is in Berlin', 'our office', 'Berlin')
    expect(movedElsewhere(claim, 'We moved into a bigger space downtown.')).toBe(true)
    expect(moverNamedOtherwise(claim, 'We moved into a bigger space downtown.')).toBe(false)
    expect(moverNamedOtherwise(claim, 'Alice moved into a bigger flat downtown.')).toBe(true)
    expect(movedElsewhere(claim, 'We moved the standup to 10am.')).toBe(false)
    expect(movedElsewhere(claimOf('Lucia prefers green tea', 'Lucia', 'green tea'), 'The team moved to floor 4.')).toBe(false)
  })

  it.each([
    ['en', ['Maria is the office manager.', 'The person running the front office is now Daniel.'], 'Maria is the office manager'],
    ['zh', ['前台的负责人是王芳。', '现在管前台的是李强。'], '前台的负责人是王芳'],
    ['zh', ['项目经理是张伟。', '这个项目现在由刘洋负责。'], '项目经理是张伟'],
  ])('another person said to hold the role by what they do doubts the one the claim names (%s)', async (_, writes, claim) => {
    const { ids, v } = await after(writes, claim)
    expect(v.verdict).toBe('unknown')
    expect(v.note).toContain(ids[1])
  })

  it.each([
    ['en', ['My son goes to Maple Elementary.', 'The kid transferred to Oakwood Primary this fall.'], 'My son goes to Maple Elementary'],
    ['zh', ['儿子在枫叶小学读书。', '孩子这学期转到了橡树小学。'], '儿子在枫叶小学读书'],
  ])('a transfer to another school doubts the school the claim names (%s)', async (_, writes, claim) => {
    const { ids, v } = await after(writes, claim)
    expect(v.verdict).toBe('unknown')
    expect(v.note).toContain(ids[1])
  })
})

describe('an older memory no write superseded, with another value of the same kind, contests a support that says nothing changed (issue 27)', () => {
  it.each([
    ['en', ['Design specs are written in Google Docs.', 'Design specs are written in Notion.'], 'Design specs are written in Notion'],
    ['zh', ['项目文档放在石墨文档里。', '项目文档放在语雀上。'], '项目文档放在语雀上'],
  ])('both current, no cue: unknown, naming the older one (%s)', async (_, writes, claim) => {
    const { ids, v } = await after(writes, claim)
    expect(v.verdict).toBe('unknown')
    expect(v.note).toContain(ids[0])
  })

  it.each([
    ['en', ['The billing service database is MySQL.', 'The search service database is Elasticsearch.'], 'The search service database is Elasticsearch'],
    ['zh', ['市场部的周报用石墨文档写。', '研发团队的需求文档写在语雀上。'], '研发团队的需求文档写在语雀上'],
  ])('an older memory about another subject leaves a support alone (%s)', async (_, writes, claim) => {
    const { ids, v } = await after(writes, claim)
    expect(v.verdict).toBe('supported')
    expect(v.support?.id).toBe(ids[1])
  })
})
