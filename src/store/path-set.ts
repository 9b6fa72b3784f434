/**
 * A fingerprint of a set of paths that is kept up to date one path at a time: two 32-bit hashes
 * of each path (FNV-1a over its UTF-16 units, with two different offsets and multipliers),
 * summed apart modulo 2^32, and the count. Adding and removing commute, so the index view keeps
 * it as entries come and go (index-view.ts), the index snapshot saves its rows' one
 * (index-snapshot.ts), and the file stats save the one of the paths they hold (file-stats.ts):
 * the freshness check then knows that every indexed path is one whose stat it checks without
 * looking each up (freshness.ts). Two different sets agree with a chance of about 2^-64; the
 * check that trusts it also requires the same count.
 */

/** The two hashes of one path. */
function hashesOf(path: string): [number, number] {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ path.length
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return [a >>> 0, b >>> 0]
}

export class PathSetHash {
  constructor(
    public a = 0,
    public b = 0,
    public count = 0,
  ) {}

  add(path: string): void {
    const [x, y] = hashesOf(path)
    this.a = (this.a + x) >>> 0
    this.b = (this.b + y) >>> 0
    this.count++
  }

  remove(path: string): void {
    const [x, y] = hashesOf(path)
    this.a = (this.a - x) >>> 0
    this.b = (this.b - y) >>> 0
    this.count--
  }

  equals(other: PathSetHash): boolean {
    return this.a === other.a && this.b === other.b && this.count === other.count
  }

  /** Becomes a copy of `other`. */
  assign(other: PathSetHash): void {
    this.a = other.a
    this.b = other.b
    this.count = other.count
  }

  copy(): PathSetHash {
    return new PathSetHash(this.a, this.b, this.count)
  }

  static of(paths: Iterable<string>): PathSetHash {
    const out = new PathSetHash()
    for (const p of paths) out.add(p)
    return out
  }
}
