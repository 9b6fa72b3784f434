/**
 * The vector index against a naive float reference, its sign-code prefilter, a filter that the
 * prefilter would starve, the segment codec (a round trip, and damaged bytes read as nothing),
 * and reciprocal-rank fusion.
 */

import { describe, expect, it } from 'vitest'
import { reciprocalRankFusion, VectorIndex } from '../src/api.js'
import { decodeSegment, encodeSegment } from '../src/retrieve/vector-file.js'

function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const rand = rng(7)
const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand())
const dim = 48
const vectors = Array.from({ length: 600 }, (_, i) => Array.from({ length: dim }, (_, j) => (i % 20 === j % 20 ? 2 : 0) + gauss()))

function cosine(a: number[], b: number[]): number {
  let d = 0
  let na = 0
  let nb = 0
  a.forEach((x, i) => {
    d += x * (b[i] as number)
    na += x * x
    nb += (b[i] as number) ** 2
  })
  return d / Math.sqrt(na * nb)
}

function reference(q: number[], k: number, accept: (i: number) => boolean = () => true): string[] {
  return vectors
    .map((v, i) => ({ i, s: cosine(q, v) }))
    .filter(({ i }) => accept(i))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map(({ i }) => String(i))
}

function build(exactScanRows?: number): VectorIndex {
  const index = new VectorIndex(dim, 16, exactScanRows)
  vectors.forEach((v, i) => index.add(String(i), v))
  return index
}

describe('VectorIndex', () => {
  it('an exact int8 scan finds what a float scan finds, similarities within 2%', () => {
    const index = build()
    let agree = 0
    for (let t = 0; t < 30; t++) {
      const q = vectors[t * 7] as number[]
      const hits = index.search(q, 10)
      const want = reference(q, 10)
      agree += hits.filter((h) => want.includes(h.key)).length
      for (const h of hits) expect(Math.abs(h.similarity - cosine(q, vectors[Number(h.key)] as number[]))).toBeLessThan(0.02)
      expect(hits[0]?.key).toBe(String(t * 7))
      for (let i = 1; i < hits.length; i++) expect((hits[i - 1] as { similarity: number }).similarity).toBeGreaterThanOrEqual((hits[i] as { similarity: number }).similarity)
    }
    expect(agree / 300).toBeGreaterThan(0.95)
  })

  it('the sign-code prefilter keeps most true neighbours; a narrow filter falls back to scoring every row it takes', () => {
    const prefiltered = build(0)
    let agree = 0
    for (let t = 0; t < 30; t++) {
      const q = (vectors[t * 11] as number[]).map((x) => x + 0.3 * gauss())
      agree += prefiltered.search(q, 10).filter((h) => reference(q, 10).includes(h.key)).length
    }
    expect(agree / 300).toBeGreaterThan(0.9)
    // Only multiples of 97: far fewer than the candidates' share, found all the same, in order.
    const q = vectors[5] as number[]
    const accept = (key: string) => Number(key) % 97 === 0
    expect(prefiltered.search(q, 3, accept).map((h) => h.key)).toEqual(reference(q, 3, (i) => i % 97 === 0))
  })

  it('holds a key once; a zero vector is kept and similar to nothing', () => {
    const index = new VectorIndex(4)
    expect(index.add('a', [1, 0, 0, 0])).toBe(true)
    expect(index.add('a', [0, 1, 0, 0])).toBe(false)
    expect(index.add('z', [0, 0, 0, 0])).toBe(true)
    expect(index.has('z')).toBe(true)
    expect(index.search([1, 0, 0, 0], 5).map((h) => [h.key, Math.round(h.similarity * 100) / 100])).toEqual([
      ['a', 1],
      ['z', 0],
    ])
    expect(() => index.add('b', [1, 2])).toThrow(/2 dimensions in an index of 4/)
  })
})

describe('segment files', () => {
  it('round-trip, and damaged bytes decode to null, never to wrong vectors', () => {
    const keys = ['a'.repeat(40), 'b'.repeat(40), '0123456789abcdef0123456789abcdef01234567']
    const codes = Int8Array.from({ length: 3 * 5 }, (_, i) => i - 7)
    const bytes = encodeSegment({ embedderId: 'openai:模型:5', dim: 5, keys, scales: Float32Array.from([0.5, 0.25, 0.125]), codes })
    const back = decodeSegment(bytes)
    expect(back).not.toBeNull()
    expect(back?.embedderId).toBe('openai:模型:5')
    expect(back?.keys).toEqual(keys)
    expect([...(back?.scales ?? [])]).toEqual([0.5, 0.25, 0.125])
    expect([...(back?.codes ?? [])]).toEqual([...codes])
    expect(decodeSegment(bytes.subarray(0, bytes.length - 1))).toBeNull()
    const wrongMagic = Uint8Array.from(bytes)
    wrongMagic[0] = 0
    expect(decodeSegment(wrongMagic)).toBeNull()
    expect(decodeSegment(new Uint8Array(3))).toBeNull()
  })
})

describe('reciprocal-rank fusion', () => {
  it('sums 1/(k + rank) over the lists: high in one list and absent from the other ranks near the middle of both', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['c', 'd', 'b'],
    ])
    expect(fused.get('a')).toBeCloseTo(1 / 61)
    expect(fused.get('b')).toBeCloseTo(1 / 62 + 1 / 63)
    const order = [...fused.entries()].sort((x, y) => y[1] - x[1]).map(([id]) => id)
    expect(order).toEqual(['c', 'b', 'a', 'd'])
  })
})
