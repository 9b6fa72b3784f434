/**
 * Renderings of the history, lineage, forget and purge results for the model (see text.ts,
 * which dispatches here). Pure; values reach them only after they satisfy the tool's schema.
 */

import { memories, truncateUnits } from '../../text.js'
import type { memoryForgetTool } from '../memory-forget.js'
import type { memoryHistoryTool } from '../memory-history.js'
import type { memoryLineageTool } from '../memory-lineage.js'
import type { memoryPurgeTool } from '../memory-purge.js'
import type { Infer } from '../declare/schema.js'

type Output<T extends { output: unknown }> = Infer<T['output']>

const oneLine = (text: string, max: number) => truncateUnits(text.replace(/\s+/g, ' ').trim(), max)
const day = (iso: string | null) => (iso === null ? '…' : iso.slice(0, 10))

/** One line per version, oldest first: when it was stated, where from, when it was current, what it said. */
export function renderHistory(v: Output<typeof memoryHistoryTool>): string {
  const lines = v.versions.map((x) => {
    const span = x.current_from === null ? 'never current' : `current ${day(x.current_from)} → ${x.current_until === null ? 'now' : day(x.current_until)}`
    const said = x.forgotten ? '(forgotten; text withheld)' : oneLine(x.text ?? '', 200)
    return `- ${x.id} [${x.status}] stated ${day(x.time)} by ${x.source.session_id ?? x.source.kind}, ${span}: ${said}`
  })
  const purged = v.purged.map((p) => `- ${p.id} purged ${day(p.at)}`)
  return [`History of ${v.slot ?? v.id}:`, ...lines, ...purged, v.guidance].join('\n')
}

export function renderLineage(v: Output<typeof memoryLineageTool>): string {
  const chain = v.chain.map((c) => `${c.relation === 'self' ? '*' : ''}${c.id} (${c.status}, ${day(c.time)})`).join(' → ')
  const merges = v.merges.merged_from.length > 0 || v.merges.merged_into !== null
    ? [`Merges: ${v.merges.merged_from.length > 0 ? `absorbed ${v.merges.merged_from.join(', ')}` : ''}${v.merges.merged_into !== null ? ` merged into ${v.merges.merged_into}` : ''}`.trim()]
    : []
  const events = v.events.map((e) => `- ${e.at} ${e.event}${e.role === 'related' ? ' (names it)' : ''}`)
  return [
    `${v.id} [${v.type}, ${v.status}] ${v.forgotten ? '(forgotten)' : oneLine(v.title ?? '', 80)} at ${v.path}`,
    `Sessions: ${v.sessions.length > 0 ? v.sessions.join(', ') : 'none'}; sources: ${v.sources.map((s) => `${s.session_id ?? '-'}:${s.kind}`).join(', ') || 'none'}${v.raw_ref !== null ? `; raw: ${v.raw_ref}` : ''}`,
    `Chain: ${chain}`,
    ...merges,
    `Ledger (${v.events_total}):`,
    ...events,
    v.guidance,
  ].join('\n')
}

export function renderForget(v: Output<typeof memoryForgetTool>): string {
  const lines = v.forgotten.map((f) => `- ${f.id} [${f.type}, was ${f.from}] ${oneLine(f.title, 80)}${f.reason === 'repeats' ? ` (repeats ${f.via ?? 'it'})` : ''}`)
  const digests = v.digests.map((d) => `- digest ${d.path} ${d.action}`)
  return [
    `${v.dry_run ? 'Would forget' : 'Forgot'} ${memories(v.forgotten.length)}${v.raw.length > 0 ? ` and ${v.raw.length} raw text(s)` : ''}.`,
    ...lines,
    ...digests,
    ...(v.already.length > 0 ? [`Forgotten before: ${v.already.join(', ')}.`] : []),
    ...(v.activated.length > 0 ? [`Left their conflict and are active now: ${v.activated.join(', ')}.`] : []),
    v.guidance,
  ].join('\n')
}

export function renderPurge(v: Output<typeof memoryPurgeTool>): string {
  if (v.already_purged) return v.guidance
  return [
    `Purged ${v.purged.join(', ')}: ${v.removed_paths.length} file(s) removed, ${v.redacted_events} ledger event(s) redacted, ` +
      `${v.scrubbed.usage_lines} usage and ${v.scrubbed.query_lines} query-log line(s) dropped, ${v.scrubbed.digests.length} digest(s) cleared.`,
    ...(v.remaining.length > 0 ? [`Still holding the value: ${v.remaining.join(', ')}.`] : []),
    v.guidance,
  ].join('\n')
}
