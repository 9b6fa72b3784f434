/**
 * One written form for Chinese: Traditional text (Taiwan phrasing included, 資料庫 -> 数据库) is
 * read as Simplified, so both forms of one word are one term for search, verify and dedupe.
 * The conversion is OpenCC's (opencc-js, `twp` -> `cn`: its dictionaries, its trie, its
 * segmentation and chain), never a hand-kept table. Pure: only runs of Han characters go through
 * the converter, each run converted once and cached, so Latin text costs one regular-expression
 * scan. Output feeds persisted indexes: changing the conversion means bumping TOKENIZER_VERSION
 * (language/tokenizer.ts).
 */

import { Locale, Trie } from 'opencc-js/t2cn'

const HAN_RUN = /\p{Script=Han}+/gu
/** Runs remembered; past this the cache starts over (a store's vocabulary fits many times). */
const CACHE_LIMIT = 100_000

/**
 * opencc-js's preset for `twp` -> `cn` as its Converter reads it: the text normalised by one
 * chain, cut into segments by one dictionary group, each segment converted by every group of the
 * chain in turn. (Its published types leave out the normalisation chain, which it has.)
 */
interface Preset {
  normalizationChain?: ReadonlyArray<readonly string[]>
  segmentation: string | readonly string[]
  conversionChain: ReadonlyArray<readonly string[]>
}

/** OpenCC's trie as opencc-js's core declares it (its `t2cn` entry's types do not resolve under NodeNext). */
interface OpenCcTrie {
  addWord(source: string, replacement: string): void
  matchPrefix(text: string, offset: number): { end: number; value: string } | null
  segment(text: string): string[]
  convert(text: string): string
}
const TrieClass = Trie as unknown as new () => OpenCcTrie

/** Where each entry of one `key value|key value` dictionary starts, by the first code point of its key. */
function entryStarts(dict: string): Map<number, number[]> {
  const starts = new Map<number, number[]>()
  for (let at = 0; at < dict.length; ) {
    const cp = dict.codePointAt(at) as number
    const list = starts.get(cp)
    if (list === undefined) starts.set(cp, [at])
    else list.push(at)
    const bar = dict.indexOf('|', at)
    at = bar === -1 ? dict.length : bar + 1
  }
  return starts
}

/**
 * OpenCC's trie over one dictionary group, filled one first character at a time: a match starting
 * with a character loads the group's entries for it first, in the order `loadDictGroup` loads
 * them (the group's last dictionary first, each in its order), so the same entry wins a repeated
 * key. Building the whole trie up front cost a fresh process tens of milliseconds, most of them
 * for characters it never met; finding where entries start is one pass over the text.
 */
class CharByCharTrie extends TrieClass {
  private readonly loaded = new Set<number>()
  private starts: Array<Map<number, number[]>> | null = null

  constructor(private readonly group: readonly string[]) {
    super()
  }

  override matchPrefix(text: string, offset: number): { end: number; value: string } | null {
    const cp = text.codePointAt(offset)
    if (cp !== undefined && !this.loaded.has(cp)) {
      this.loaded.add(cp)
      const starts = (this.starts ??= this.group.map(entryStarts))
      for (let d = this.group.length - 1; d >= 0; d--) {
        const dict = this.group[d] as string
        for (const at of starts[d]?.get(cp) ?? []) {
          const bar = dict.indexOf('|', at)
          const [key, value] = dict.slice(at, bar === -1 ? undefined : bar).split(' ')
          if (key !== undefined && value !== undefined) this.addWord(key, value)
        }
      }
    }
    return super.matchPrefix(text, offset)
  }
}

/** The `twp` -> `cn` conversion, composed as opencc-js's Converter composes its preset. */
function traditionalToSimplified(): (text: string) => string {
  const preset = Locale.configs['tw2sp'] as Preset | undefined
  if (preset === undefined) throw new Error('opencc-js has no tw2sp preset')
  const trieOf = (group: string | readonly string[]) => new CharByCharTrie(typeof group === 'string' ? [group] : group)
  const normalizers = (preset.normalizationChain ?? []).map(trieOf)
  const segmenter = trieOf(preset.segmentation)
  const chain = preset.conversionChain.map(trieOf)
  return (text) => {
    const normal = normalizers.reduce((t, trie) => trie.convert(t), text)
    return chain.reduce((segments, trie) => segments.map((s) => trie.convert(s)), segmenter.segment(normal)).join('')
  }
}

let convert: ((text: string) => string) | null = null
const cache = new Map<string, string>()

function simplifyRun(run: string): string {
  const known = cache.get(run)
  if (known !== undefined) return known
  const toSimplified = (convert ??= traditionalToSimplified())
  const simplified = toSimplified(run)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(run, simplified)
  return simplified
}

/** The text with every Han run in Simplified form; everything else untouched. */
export function simplifyHan(text: string): string {
  return text.replace(HAN_RUN, simplifyRun)
}
