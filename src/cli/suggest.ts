/** "Did you mean": the nearest known word to a mistyped one, by edit distance. Pure. */

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1)
      row.push(best)
    }
    rows.push(row)
  }
  return rows[a.length]?.[b.length] ?? 0
}

/**
 * The known word nearest to `word`, when it is near enough to be a typo (one edit for short words,
 * two from five characters on, three from twelve), or one that `word` begins; else undefined.
 */
export function nearest(word: string, known: readonly string[]): string | undefined {
  const bare = word.replace(/^--/, '')
  const allowed = bare.length >= 12 ? 3 : bare.length >= 5 ? 2 : 1
  let best: { word: string; distance: number } | undefined
  for (const candidate of known) {
    const distance = editDistance(word, candidate)
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { word: candidate, distance }
  }
  if (best !== undefined) return best.word
  const prefixed = known.filter((k) => bare.length >= 3 && k.replace(/^--/, '').startsWith(bare))
  return prefixed.length === 1 ? prefixed[0] : undefined
}

/** `; did you mean X?` to end a message with, or nothing. */
export function didYouMean(word: string, known: readonly string[]): string {
  const near = nearest(word, known)
  return near !== undefined ? `; did you mean ${near}?` : ''
}
