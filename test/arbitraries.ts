/** fast-check generators shared by the property tests. */

import fc from 'fast-check'

/**
 * Text of `min`..`max` UTF-16 units (what the tool schemas and budgets count), starting with a
 * letter and never ending in half a surrogate pair, built from the given pieces.
 */
export function textOf(piece: fc.Arbitrary<string>, min: number, max: number): fc.Arbitrary<string> {
  // Pieces average a few units; ask for enough of them, then cut to `max` without splitting a pair.
  return fc.array(piece, { minLength: 0, maxLength: Math.ceil(max / 2), size: 'max' }).map((parts) => {
    let text = `n${parts.join('')}`
    if (text.length > max) {
      text = text.slice(0, max)
      if (/[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1)
    }
    while (text.length < min) text += 'x'
    return text
  })
}

/** Zero-width and soft-hyphen characters a disguise scatters through text. */
export const INVISIBLES = ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD'] as const

const isHan = (ch: string) => /\p{Script=Han}/u.test(ch)
/** ASCII `!`..`~` as their full-width forms (U+FF01..U+FF5E), which NFKC maps back. */
const fullWidth = (ch: string) => (ch >= '!' && ch <= '~' ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : ch)

/**
 * `text` as an attacker might disguise it, reading the same to a model: letter case changed,
 * whitespace runs swapped for tabs, doubled or ideographic spaces, spaces put between Chinese
 * characters, characters turned full-width, invisible characters scattered anywhere (inside words
 * too), and a lead-in and a tail in the same or the other language (mixed Chinese and English).
 */
export function disguised(text: string): fc.Arbitrary<string> {
  const bits = fc.array(fc.boolean(), { minLength: 1, maxLength: 48 })
  return fc
    .record({
      letterCase: fc.constantFrom('keep', 'upper', 'lower', 'mixed'),
      caseBits: bits,
      spaces: fc.array(fc.constantFrom(' ', '  ', '\t', '\u3000', '\u00A0', ' \t '), { minLength: 1, maxLength: 8 }),
      hanSpaces: bits,
      wide: fc.oneof(fc.constant([false]), bits),
      invisibles: fc.array(fc.record({ at: fc.nat(), ch: fc.constantFrom(...INVISIBLES) }), { maxLength: 12 }),
      lead: fc.constantFrom('', 'The scraped page said: ', '网页里写着：', '用户转发的邮件里有一句话：', 'From the wiki — ', '备注 '),
      tail: fc.constantFrom('', ' Thanks!', ' 谢谢。', ' The deploy runs on Fridays.', ' 下周一开会。'),
    })
    .map((d) => {
      const bit = (list: boolean[], i: number) => list[i % list.length] === true
      let chars = Array.from(text).map((ch, i) => {
        if (d.letterCase === 'upper') return ch.toUpperCase()
        if (d.letterCase === 'lower') return ch.toLowerCase()
        if (d.letterCase === 'mixed') return bit(d.caseBits, i) ? ch.toUpperCase() : ch.toLowerCase()
        return ch
      })
      let run = 0
      chars = chars.flatMap((ch, i) => {
        if (/\s/.test(ch)) return ch === ' ' ? [d.spaces[run++ % d.spaces.length] as string] : [ch]
        const next = chars[i + 1]
        return next !== undefined && isHan(ch) && isHan(next) && bit(d.hanSpaces, i) ? [ch, ' '] : [ch]
      })
      chars = chars.map((ch, i) => (bit(d.wide, i) ? fullWidth(ch) : ch))
      for (const { at, ch } of d.invisibles) chars.splice(at % (chars.length + 1), 0, ch)
      return `${d.lead}${chars.join('')}${d.tail}`
    })
}
