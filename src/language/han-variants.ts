/**
 * One written form for Chinese: Traditional text (Taiwan phrasing included, 資料庫 -> 数据库) is
 * read as Simplified, so both forms of one word are one term for search, verify and dedupe.
 * The conversion is OpenCC's (opencc-js, `twp` -> `cn`), never a hand-kept table. Pure: only runs
 * of Han characters go through the converter, each run converted once and cached, so Latin text
 * costs one regular-expression scan. Output feeds persisted indexes: changing the conversion
 * means bumping TOKENIZER_VERSION (language/tokenizer.ts).
 */

import { Converter } from 'opencc-js/t2cn'

const HAN_RUN = /\p{Script=Han}+/gu
/** Runs remembered; past this the cache starts over (a store's vocabulary fits many times). */
const CACHE_LIMIT = 100_000

/** Built on first use: the dictionaries take tens of milliseconds to load, and English text never needs them. */
let convert: ((text: string) => string) | null = null
const cache = new Map<string, string>()

function simplifyRun(run: string): string {
  const known = cache.get(run)
  if (known !== undefined) return known
  const toSimplified = (convert ??= Converter({ from: 'twp', to: 'cn' }))
  const simplified = toSimplified(run)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(run, simplified)
  return simplified
}

/** The text with every Han run in Simplified form; everything else untouched. */
export function simplifyHan(text: string): string {
  return text.replace(HAN_RUN, simplifyRun)
}
