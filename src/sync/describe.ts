/**
 * A sync result as text for a person: what was committed, pulled, settled and pushed, and what
 * to do next. Pure; the CLI prints it, a panel may show it.
 */

import type { SyncResult } from './sync.js'

const short = (sha: string | null) => (sha === null ? '(none)' : sha.slice(0, 7))
const n = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`

export function describeSync(r: SyncResult): string {
  const out: string[] = []
  const where = r.remote === null ? 'no remote' : `origin ${r.remote.url} (${r.remote.branch})`
  out.push(`${r.initialized ? 'Created a git repository and synced' : 'Synced'} ${r.root} with ${where}.`)
  out.push(
    r.repository !== r.root
      ? `Commits go to branch ${r.branch} of the project's repository at ${r.repository}; only the store's own files are committed.`
      : `Commits go to branch ${r.branch} of the store's own repository.`,
  )
  if (r.untracked.length > 0) out.push(`No longer committed (derived, rebuilt on each machine): ${r.untracked.join(', ')}.`)
  for (const c of r.committed) out.push(`Committed ${n(c.files, 'file')} (${n(c.events, 'ledger event')}) as ${short(c.commit)}: ${c.subject}`)
  if (r.pulled !== null) {
    const how = r.pulled.fastForward ? 'fast-forward' : 'merge'
    const re = r.reindexed === null ? '' : `; re-indexed ${n(r.reindexed.files, 'memory file')}${r.reindexed.full ? ' (the whole store)' : ''} in ${Math.round(r.reindexed.ms)} ms`
    out.push(`Pulled ${n(r.pulled.files, 'changed file')} (${how}, ${short(r.pulled.from)}..${short(r.pulled.to)})${re}.`)
  } else if (r.reindexed !== null) {
    out.push(`Made the index from ${n(r.reindexed.files, 'memory file')} in ${Math.round(r.reindexed.ms)} ms.`)
  }
  if (r.conflicts.length > 0) {
    out.push(`${n(r.conflicts.length, 'conflict')} kept as variants; settle each with memory_resolve (memory-agent resolve ID --action keep|drop):`)
    for (const c of r.conflicts) out.push(`  ${c.ids.join(' / ')}: ${c.reason}`)
  }
  for (const x of r.reidentified) out.push(`Gave a pulled file an id of its own: ${x.path}: states id ${x.was}, which ${x.holder} holds here; it is ${x.id} now.`)
  for (const m of r.moved) out.push(`Moved ${m.id} from ${m.from} to ${m.to}: another clone had given ${m.from} to ${m.kept} first.`)
  for (const k of r.kept) out.push(`Kept ${k.kept === 'both' ? 'both versions of' : `${k.kept === 'ours' ? 'this side' : 'their side'} of`} ${k.path}: ${k.reason}.`)
  for (const w of r.warnings) out.push(`warning: ${w}`)
  if (r.pushed !== null) out.push(`Pushed ${short(r.pushed.from)}..${short(r.pushed.to)}.`)
  if (r.remote === null) out.push('No remote is configured, so nothing was pulled or pushed; add one with `memory-agent sync --remote URL`.')
  else if (r.committed.length === 0 && r.pulled === null && r.pushed === null) out.push('Already in sync: nothing to commit, pull or push.')
  return `${out.join('\n')}\n`
}
