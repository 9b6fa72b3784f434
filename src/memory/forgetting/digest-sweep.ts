/**
 * Clearing digests after a forget or a purge. A digest is a cache that would go on repeating a
 * forgotten value until it is next read; this rebuilds, now, the digest of every slot that lost a
 * memory and of every other slot whose digest repeats the value, and removes a digest whose slot
 * holds nothing a digest speaks of any more. Digests that do not exist are not created.
 */

import type { MemoryBackend } from '../../store/backend.js'
import { parseFile } from '../../store/frontmatter.js'
import type { IndexLookup } from '../../store/index-view.js'
import { digestPath, findSlot, writeDigest } from '../organisation/digest.js'

export interface DigestChange {
  path: string
  action: 'rebuilt' | 'removed'
}

/**
 * Rebuilds or removes the digests of `slots` (normalised slot names) and of any digest whose
 * text `repeats` says holds the value. `view` is the index after the change.
 */
export async function sweepDigests(
  backend: MemoryBackend,
  view: IndexLookup,
  slots: Iterable<string>,
  repeats: (text: string) => boolean,
): Promise<DigestChange[]> {
  /** digest path -> the slot it is about (as its file or the caller names it). */
  const targets = new Map<string, string>()
  for (const slot of slots) targets.set(digestPath(slot), slot)
  for (const path of await backend.listFiles('digests')) {
    if (!path.endsWith('.md') || path.endsWith('/_index.md') || targets.has(path)) continue
    const text = await backend.readFile(path)
    if (text === null) continue
    // What the digest says, not its front-matter (times and fingerprints hold digits by chance).
    const { data, body } = parseFile(text)
    if (!repeats(body)) continue
    const named = data.slot
    targets.set(path, typeof named === 'string' ? named : '')
  }
  const changes: DigestChange[] = []
  for (const [path, slot] of [...targets].sort((a, b) => a[0].localeCompare(b[0]))) {
    if ((await backend.readFile(path)) === null) continue
    const state = slot === '' ? null : findSlot(view, slot)
    // A digest of another slot is rebuilt only if it is the file that slot would write.
    if (state !== null && digestPath(state.slot) === path) {
      await writeDigest(backend, state)
      changes.push({ path, action: 'rebuilt' })
    } else {
      await backend.removeFile(path)
      changes.push({ path, action: 'removed' })
    }
  }
  return changes
}
