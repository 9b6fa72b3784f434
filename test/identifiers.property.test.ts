/**
 * identifiersOf reads one look-behind and one look-ahead around all its forms; a saved index holds
 * its output, so it must extract exactly what one pair around each form does. The reference here
 * is that per-form pattern, run over random text made of the pieces identifiers are built from
 * (hex runs, digits, dots, dashes, `v`, `0x`, `mem_`), words, Chinese and full-width forms.
 */

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { IDENTIFIER_AFTER, IDENTIFIER_BEFORE, IDENTIFIER_FORMS, identifiersOf } from '../src/retrieve/identifiers.js'
import { textOf } from './arbitraries.js'

const PER_FORM = new RegExp(IDENTIFIER_FORMS.map((form) => `${IDENTIFIER_BEFORE}(?:${form})${IDENTIFIER_AFTER}`).join('|'), 'gu')

/** The reference: each form with its own look-behind and look-ahead; a bare hex run needs a digit and a letter. */
function perFormIdentifiers(text: string): string[] {
  const found = [...text.normalize('NFKC').toLowerCase().matchAll(PER_FORM)].map((m) => m[0])
  return [...new Set(found.filter((t) => !/^[0-9a-f]+$/.test(t) || (/\d/.test(t) && /[a-f]/.test(t))))]
}

const PIECES = ['0', '7', '42', '2026', 'a', 'F', 'c3', 'deadbeef', '3ae214cc', '-', '.', '_', ' ', 'v', 'V', '0x', 'mem_', 'rc', 'JIRA', 'd', '版本', '号', '，', '１', 'ｖ', 'é', '\n']

describe('identifiersOf', () => {
  it('extracts what one look-behind and one look-ahead per form extracts', () => {
    fc.assert(
      fc.property(textOf(fc.constantFrom(...PIECES), 0, 120), (text) => {
        expect(identifiersOf(text)).toEqual(perFormIdentifiers(text))
      }),
      { numRuns: 5000 },
    )
  })

  it('finds every form, in Chinese and English text', () => {
    const text = '发布 v1.2.3 修复了 D-387；commit 3AE214CC7F8A045A, 0x6070, mem_01jabc and 0.1.0-rc.8 for 123e4567-e89b-12d3-a456-426614174000'
    expect(identifiersOf(text)).toEqual(['v1.2.3', 'd-387', '3ae214cc7f8a045a', '0x6070', 'mem_01jabc', '0.1.0-rc.8', '123e4567-e89b-12d3-a456-426614174000'])
    expect(identifiersOf(text)).toEqual(perFormIdentifiers(text))
  })
})
