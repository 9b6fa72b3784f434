import { describe, expect, it } from 'vitest'
import { isStrongTerm, stem, tokenize, wordCount } from '../src/language/tokenizer.js'

describe('tokenizer', () => {
  it('splits Chinese into single characters and 2-grams', () => {
    expect(tokenize('数据库')).toEqual(['数', '数据', '据', '据库', '库'])
  })

  it('drops stop characters and every 2-gram that contains one', () => {
    const t = tokenize('我的数据库是好的')
    expect(t).not.toContain('的')
    expect(t).not.toContain('我的')
    expect(t).not.toContain('库是')
    expect(t).toContain('数据')
    expect(t).toContain('据库')
  })

  it('drops Chinese function words as 2-grams but keeps their characters', () => {
    const t = tokenize('非常开心')
    expect(t).not.toContain('非常')
    expect(t).toContain('开心')
    expect(t).toContain('非')
  })

  it('lower-cases and stems English words and drops stop words', () => {
    expect(tokenize('The Databases were running and she painted studies')).toEqual(['databas', 'run', 'paint', 'study'])
    expect(tokenize('Caroline went to the LGBTQ support group')).toEqual(['carolin', 'went', 'lgbtq', 'support', 'group'])
  })

  it('folds inflections onto one stem', () => {
    for (const [a, b] of [
      ['paint', 'painting'],
      ['paint', 'painted'],
      ['run', 'running'],
      ['bake', 'baking'],
      ['bake', 'baked'],
      ['study', 'studies'],
      ['study', 'studied'],
      ['race', 'races'],
      ['box', 'boxes'],
      ['camp', 'camping'],
    ] as const) {
      expect(stem(a), `${a} ~ ${b}`).toBe(stem(b))
    }
  })

  it('splits mixed Chinese and Latin runs', () => {
    expect(tokenize('用pnpm管理依赖')).toEqual(['用', 'pnpm', '管', '管理', '理', '理依', '依', '依赖', '赖'])
    expect(tokenize('Redis缓存')).toEqual(['redis', '缓', '缓存', '存'])
  })

  it('normalises full-width forms (NFKC)', () => {
    expect(tokenize('Ｒｅｄｉｓ　８０８０')).toEqual(tokenize('Redis 8080'))
  })

  it('treats punctuation and spaces as separators', () => {
    expect(tokenize('a,b;c!d? e——f。')).toEqual(['b', 'c', 'e', 'f'])
    expect(tokenize('你好，世界')).toEqual(['好', '世', '世界', '界'])
  })

  it('can leave CJK single characters out of longer runs', () => {
    expect(tokenize('数据库 猫', { cjkUnigrams: 'isolated' })).toEqual(['数据', '据库', '猫'])
    expect(tokenize('数据库', { cjkUnigrams: false })).toEqual(['数据', '据库'])
  })

  it('calls CJK 2-grams and words of 2+ characters strong', () => {
    expect(isStrongTerm('数据')).toBe(true)
    expect(isStrongTerm('pg')).toBe(true)
    expect(isStrongTerm('数')).toBe(false)
    expect(isStrongTerm('x')).toBe(false)
  })

  it('counts words from strong terms: a word each, overlapping CJK 2-grams about two to a word', () => {
    expect(wordCount(['kayak', 'tahoe', 'saturday'])).toBe(3)
    // 周末去香山划船 -> 周末 末去 去香 香山 山划 划船: six 2-grams, about three words.
    expect(wordCount(tokenize('周末去香山划船').filter(isStrongTerm))).toBe(3)
    expect(wordCount(['香山', 'kayak'])).toBe(1.5)
    expect(wordCount([])).toBe(0)
  })
})
