/** What the bench scripts share: command-line flags (`--name value` pairs, read in order), where
 * figures go, and a seeded PRNG. */

import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The file a bench writes its figures to: bench/results/NAME, or NAME in the folder named by
 * MEMORY_AGENT_BENCH_RESULTS (the suite's smoke runs, which must not overwrite committed figures).
 */
export function resultsFile(name: string): string {
  const dir = process.env.MEMORY_AGENT_BENCH_RESULTS || join(dirname(fileURLToPath(import.meta.url)), 'results')
  return join(dir, name)
}

export interface Flag {
  name: string
  /** The value after the flag; throws when there is none. */
  value(): string
}

export function* flags(argv: readonly string[]): Generator<Flag> {
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i] as string
    yield {
      name,
      value: () => {
        const v = argv[++i]
        if (v === undefined) throw new Error(`${name} needs a value`)
        return v
      },
    }
  }
}

/** mulberry32: a small, fast, seeded PRNG; returns [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
