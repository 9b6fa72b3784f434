/**
 * The vector arm of the scale bench: nearest-neighbour search over N synthetic vectors of D
 * dimensions (default 100 000 x 384, the target: p95 <= 10 ms), three ways in one run:
 *   - float32 exact scan (the reference: what the recall is measured against);
 *   - int8 exact scan (the product's VectorIndex with the prefilter off);
 *   - sign-code prefilter + int8 rerank (the product's VectorIndex as it runs above 16 384 rows).
 * Bytes per vector are what each keeps in memory. No approximate-nearest-neighbour library is
 * installed here (hnswlib-node, usearch and faiss-node are not in node_modules), so none is timed.
 *
 * The vectors are clustered like sentence embeddings (a vector is one of N/100 centres plus
 * noise; cosine within a cluster about 0.7) and a query is a stored vector plus noise, so a query
 * has true neighbours; on structureless random vectors every method's recall means little.
 */

import { mulberry32 } from './args.js'
import { VectorIndex } from '../lib/api.js'

export interface VectorArmResult {
  size: number
  dim: number
  queries: number
  k: number
  methods: Array<{ method: string; p50: number; p95: number; bytesPerVector: number; recallAt10: number }>
}

function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand())
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN
}

function unit(v: Float32Array): Float32Array {
  let s = 0
  for (const x of v) s += x * x
  const inv = 1 / Math.sqrt(s)
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv
  return v
}

/** The float32 reference: every row scored, the k best kept. */
function floatTopK(data: Float32Array, dim: number, q: Float32Array, k: number): number[] {
  const n = data.length / dim
  const best: Array<[number, number]> = []
  for (let r = 0; r < n; r++) {
    let dot = 0
    const base = r * dim
    for (let i = 0; i < dim; i++) dot += (q[i] as number) * (data[base + i] as number)
    if (best.length < k || dot > (best[best.length - 1] as [number, number])[1]) {
      best.push([r, dot])
      best.sort((a, b) => b[1] - a[1])
      if (best.length > k) best.pop()
    }
  }
  return best.map(([r]) => r)
}

export function runVectorArm(size: number, dim: number, queryCount: number, seed: number, log: (line: string) => void): VectorArmResult {
  const rand = mulberry32(seed ^ 0x5eed)
  const k = 10
  const centres = Math.max(1, Math.round(size / 100))
  const centre: Float32Array[] = []
  for (let c = 0; c < centres; c++) centre.push(unit(Float32Array.from({ length: dim }, () => gaussian(rand))))
  const data = new Float32Array(size * dim)
  const t0 = performance.now()
  const noise = 0.65 / Math.sqrt(dim)
  for (let r = 0; r < size; r++) {
    const c = centre[Math.floor(rand() * centres)] as Float32Array
    const v = new Float32Array(dim)
    for (let i = 0; i < dim; i++) v[i] = (c[i] as number) + noise * gaussian(rand)
    data.set(unit(v), r * dim)
  }
  const exact = new VectorIndex(dim, size, Number.MAX_SAFE_INTEGER)
  const prefiltered = new VectorIndex(dim, size)
  for (let r = 0; r < size; r++) {
    const row = data.subarray(r * dim, (r + 1) * dim)
    exact.add(String(r), row)
    prefiltered.add(String(r), row)
  }
  log(`  vectors: ${size.toLocaleString('en')} x ${dim} generated and indexed in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  const queries: Float32Array[] = []
  for (let i = 0; i < queryCount; i++) {
    const r = Math.floor(rand() * size)
    const q = new Float32Array(dim)
    for (let j = 0; j < dim; j++) q[j] = (data[r * dim + j] as number) + 0.5 * noise * gaussian(rand)
    queries.push(unit(q))
  }
  const reference = queries.map((q) => new Set(floatTopK(data, dim, q, k).map(String)))
  const timeFloat: number[] = []
  for (const q of queries) {
    const t = performance.now()
    floatTopK(data, dim, q, k)
    timeFloat.push(performance.now() - t)
  }
  const measure = (method: string, index: VectorIndex) => {
    const ms: number[] = []
    let found = 0
    index.search(queries[0] as Float32Array, k) // warm-up
    queries.forEach((q, i) => {
      const t = performance.now()
      const hits = index.search(q, k)
      ms.push(performance.now() - t)
      for (const h of hits) if ((reference[i] as Set<string>).has(h.key)) found++
    })
    const sorted = ms.sort((a, b) => a - b)
    return { method, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), bytesPerVector: index.bytesPerVector, recallAt10: found / (k * queries.length) }
  }
  const floatSorted = timeFloat.sort((a, b) => a - b)
  return {
    size,
    dim,
    queries: queryCount,
    k,
    methods: [
      { method: 'float32 exact scan', p50: percentile(floatSorted, 0.5), p95: percentile(floatSorted, 0.95), bytesPerVector: dim * 4, recallAt10: 1 },
      measure('int8 exact scan', exact),
      measure('sign prefilter + int8 rerank', prefiltered),
    ],
  }
}

export function printVectorArm(r: VectorArmResult, targetP95Ms: number): void {
  console.log(`\nVector search, ${r.size.toLocaleString('en')} x ${r.dim} dimensions, ${r.queries} queries, top ${r.k} (target p95 <= ${targetP95Ms} ms):`)
  console.log(`  ${'method'.padEnd(30)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'bytes/vector'.padStart(13)} ${'recall@10'.padStart(10)}`)
  for (const m of r.methods) {
    console.log(`  ${m.method.padEnd(30)} ${m.p50.toFixed(2).padStart(8)} ${m.p95.toFixed(2).padStart(8)} ${String(m.bytesPerVector).padStart(13)} ${m.recallAt10.toFixed(3).padStart(10)}`)
  }
}
