/**
 * Identifiers in text: hex literals (0x6070), ticket ids (D-387, JIRA-1234), commit shas
 * (7 to 40 hex digits with at least one digit and one letter), versions (v1.2, 1.2.3, 0.1.0-rc.8),
 * UUIDs and memory ids. An identifier shared by a query and a memory is stronger evidence than
 * any word overlap, so search matches them exactly, as whole tokens, and ranks those hits first.
 *
 * The tokenizer cuts most of these apart (`D-387` is a stop letter and `387`, `1.2.3` three
 * single digits), so identifiers are extracted here, whole and lower-cased, and indexed in a
 * field of their own. Pure and deterministic: change what is extracted and bump
 * SEARCH_INDEX_FORMAT (a saved index holds this output).
 */

/** The identifier forms; longest alternatives first: a UUID is not read as five shas, a version not as a ticket. */
export const IDENTIFIER_FORMS: readonly string[] = [
  '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  'mem_[0-9a-z]+',
  '0x[0-9a-f]+',
  'v\\d+(?:\\.\\d+)+(?:-[0-9a-z]+(?:\\.[0-9a-z]+)*)?',
  '\\d+\\.\\d+\\.\\d+(?:\\.\\d+)?(?:-[0-9a-z]+(?:\\.[0-9a-z]+)*)?',
  '[a-z]{1,10}-\\d+',
  '[0-9a-f]{7,40}',
]
/** Not inside a word or a dotted or dashed name: what stands before and after an identifier. */
export const IDENTIFIER_BEFORE = '(?<![\\p{L}\\p{N}_.-])'
export const IDENTIFIER_AFTER = '(?![\\p{L}\\p{N}_]|[.-][\\p{L}\\p{N}])'
/**
 * One look-behind and one look-ahead around all the forms, not one pair per form: the same
 * matches (both look at the same position whichever form matched), and about a tenth of the
 * compile work, which a fresh process pays on its first search (the Unicode classes are large).
 */
const IDENTIFIER = new RegExp(`${IDENTIFIER_BEFORE}(?:${IDENTIFIER_FORMS.join('|')})${IDENTIFIER_AFTER}`, 'gu')

const HAS_DIGIT = /\d/
const HAS_HEX_LETTER = /[a-f]/

/** A bare hex run is an identifier (a sha) only with a digit and a letter in it: not `deadbeef`-like words, not plain numbers. */
function accepted(token: string): boolean {
  if (/^[0-9a-f]+$/.test(token)) return HAS_DIGIT.test(token) && HAS_HEX_LETTER.test(token)
  return true
}

/** The distinct identifiers of a text, lower-cased (NFKC first), in order of appearance. */
export function identifiersOf(text: string): string[] {
  const out = new Set<string>()
  const normal = text.normalize('NFKC').toLowerCase()
  IDENTIFIER.lastIndex = 0
  for (const m of normal.matchAll(IDENTIFIER)) if (accepted(m[0])) out.add(m[0])
  return [...out]
}
