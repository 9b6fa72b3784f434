/**
 * Traditional and Simplified Chinese are one language to the store: a memory written in one form
 * is found, verified and deduplicated by the other (issue 15 item 7), through the real file
 * backend. The conversion is OpenCC's, phrases included (資料庫 is 数据库, not 资料库).
 */

import { readFileSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { Converter, Locale } from 'opencc-js/t2cn'
import { describe, expect, it } from 'vitest'
import { duplicatesHandler, searchHandler, verifyHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { simplifyHan } from '../src/language/han-variants.js'
import { tokenize } from '../src/language/tokenizer.js'
import { subjectTerms } from '../src/language/subject-terms.js'
import { tempStores } from './store-kit.js'

const tempStore = tempStores('mem-han-')
const store = async (): Promise<MemoryBackend> => (await tempStore()).backend

const PAIRS: ReadonlyArray<readonly [traditional: string, simplified: string]> = [
  ['資料庫備份', '数据库备份'],
  ['軟體版本', '软件版本'],
  ['發票生成', '发票生成'],
  ['頭髮乾淨', '头发干净'],
]

describe('Chinese variants', () => {
  it('tokenize and subject terms read both forms as one', () => {
    for (const [t, s] of PAIRS) {
      expect(tokenize(t), t).toEqual(tokenize(s))
      expect(subjectTerms(t), t).toEqual(subjectTerms(s))
    }
    // Only Han runs change: Latin, digits, kana and punctuation keep their bytes.
    expect(simplifyHan('API port 8080, ポート: 資料庫')).toBe('API port 8080, ポート: 数据库')
  })

  it('search finds a memory written in either form from the other', async () => {
    const b = await store()
    const simplified = await writeHandler(b, { summary: '数据库备份在每天凌晨三点运行', title: '数据库备份' })
    const traditional = await writeHandler(b, { summary: '發票生成在每月一號執行', title: '發票生成' })
    const found = async (query: string) => (await searchHandler(b, { query })).hits.map((h) => h.id)
    expect(await found('資料庫備份')).toContain(simplified.id)
    expect(await found('数据库备份')).toContain(simplified.id)
    expect(await found('发票生成')).toContain(traditional.id)
    expect(await found('發票生成')).toContain(traditional.id)
  })

  it('verify supports a claim in the other form', async () => {
    const b = await store()
    const m = await writeHandler(b, { summary: '数据库备份 -> 每天凌晨三点', key: '数据库备份' })
    const v = await verifyHandler(b, { claim: '資料庫備份 -> 每天凌晨三點' })
    expect(v.verdict).toBe('supported')
    expect(v.support?.id).toBe(m.id)
  })

  it('a change said in Traditional supersedes the Simplified memory, and verify in either form contradicts the old value', async () => {
    const b = await store()
    const old = await writeHandler(b, { summary: '用户是素食者，不吃肉。' })
    const cur = await writeHandler(b, { summary: '用戶現在開始吃雞胸肉了，不再是素食。' })
    expect(cur.superseded).toEqual([old.id])
    for (const claim of ['用户是素食者', '用戶是素食者']) expect((await verifyHandler(b, { claim })).verdict, claim).toBe('contradicted')
    expect((await verifyHandler(b, { claim: '用户现在吃鸡胸肉' })).support?.id).toBe(cur.id)
  })

  it('a write in the other form is a repeat, and the duplicates report groups the two forms', async () => {
    const b = await store()
    const first = await writeHandler(b, { summary: '数据库备份在每天凌晨三点运行', title: '数据库备份' })
    const again = await writeHandler(b, { summary: '資料庫備份在每天凌晨三點運行', title: '資料庫備份' })
    expect(again.dedupe).toBe('near')
    expect(again.id).toBe(first.id)

    const other = await writeHandler(b, { summary: '软件版本升级在每周五晚上进行', title: '升级时间' })
    const twin = await writeHandler(b, { summary: '軟體版本升級在每週五晚上進行', title: '週五升級' })
    expect(twin.id).not.toBe(other.id)
    const report = await duplicatesHandler(b, {})
    const groups = report.groups.map((g) => g.members.map((m) => m.id).sort())
    console.log(`duplicates across variants: ${report.total_groups} group(s) of ${report.scanned} memories`)
    expect(groups).toContainEqual([other.id, twin.id].sort())
  })

  it('converts as opencc-js\'s own twp -> cn Converter does (whose dictionaries load whole), key by key, phrase pairs, memories and random text', () => {
    const reference = Converter({ from: 'twp', to: 'cn' })
    const whole = (text: string) => text.replace(/\p{Script=Han}+/gu, (run) => reference(run))
    const preset = Locale.configs['tw2sp'] as { normalizationChain: string[][]; segmentation: string[]; conversionChain: string[][] }
    const dicts = [...new Set([...preset.normalizationChain.flat(), ...preset.segmentation, ...preset.conversionChain.flat()])]
    const keys = dicts.flatMap((d) => d.split('|').map((e) => e.split(' ')[0] as string)).filter((k) => /^\p{Script=Han}/u.test(k))
    expect(keys.length).toBeGreaterThan(5_000)
    for (const key of keys) expect(simplifyHan(key), key).toBe(whole(key))
    // Neighbouring keys run into each other: segmentation and the longest match across them.
    const rand = fc.sample(fc.tuple(fc.constantFrom(...keys), fc.constantFrom(...keys), fc.constantFrom(...keys)), { numRuns: 5000, seed: 18 })
    for (const parts of rand) expect(simplifyHan(parts.join('')), parts.join('')).toBe(whole(parts.join('')))
    const memories = readFileSync(path.join(import.meta.dirname, '..', 'bench', 'data', 'madial-zh', 'memories.jsonl'), 'utf8')
    for (const line of memories.split('\n').slice(0, 2000)) expect(simplifyHan(line)).toBe(whole(line))
    const chars = [...new Set(keys.join(''))]
    fc.assert(fc.property(fc.array(fc.constantFrom(...chars, '，', ' ', 'a'), { maxLength: 12 }), (cs) => simplifyHan(cs.join('')) === whole(cs.join(''))), { numRuns: 3000, seed: 18 })
  })
})
