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
