/**
 * List helpers that hold at any length. Appending one list to another must not spread it into a
 * call: `push(...items)` passes every item as an argument on the stack and throws `RangeError:
 * Maximum call stack size exceeded` at about 120,000 of them (a store's file listing, a session's
 * turns). Every unbounded append in src/ goes through `pushAll`.
 */

/** Appends every item to `into`, in order, and returns `into`. */
export function pushAll<T>(into: T[], items: Iterable<T>): T[] {
  for (const item of items) into.push(item)
  return into
}

/** The items grouped by a key, groups in order of first appearance, items in order. */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [item])
    else group.push(item)
  }
  return groups
}
