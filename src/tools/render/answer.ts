/** The text of memory_answer and memory_stats results (text.ts dispatches here). Pure. */

import type { memoryAnswerTool } from '../memory-answer.js'
import type { memoryStatsTool } from '../memory-stats.js'
import type { Infer } from '../declare/schema.js'
import { truncateUnits } from '../../text.js'
import { describeVectors } from '../../retrieve/vectors.js'

const oneLine = (text: string, max: number) => truncateUnits(text.replace(/\s+/g, ' ').trim(), max)

export function renderAnswer(v: Infer<(typeof memoryAnswerTool)['output']>): string {
  const cited = v.citations.map((c) => `- ${c.id} [${c.status}, ${c.time.slice(0, 10)}] ${c.path}: "${oneLine(c.quote, 300)}"`)
  const sides = (v.conflicting ?? []).map((c) => `- conflict side ${c.id} (${c.time.slice(0, 10)}): ${oneLine(c.summary, 200)}`)
  const old = (v.superseded ?? []).map((c) => `- replaced version ${c.id} (${c.time.slice(0, 10)})${c.superseded_by !== undefined ? `, replaced by ${c.superseded_by}` : ''}: ${oneLine(c.summary, 200)}`)
  const model = v.model?.refused !== undefined ? [`The model's answer was refused: ${v.model.refused}; the extracted answer stands.`] : v.model?.degraded !== undefined ? [`The model could not answer (${v.model.degraded}); the extracted answer stands.`] : []
  return [v.note, ...(v.asOf !== undefined ? [`As of ${v.asOf}.`] : []), ...cited, ...sides, ...old, ...model].join('\n')
}

export function renderStats(v: Infer<(typeof memoryStatsTool)['output']>): string {
  const counts = (label: string, m: Record<string, number>) => `${label}: ${Object.entries(m).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`
  return [
    `total          ${v.total}`,
    `searchable     ${v.searchable}`,
    counts('by status', v.byStatus),
    counts('by kind', v.byKind),
    ...(v.byStore !== undefined ? [counts('by store', v.byStore)] : []),
    `size: ${v.size.files} memory files, ${v.size.bytes} bytes (index ${v.size.indexBytes} bytes, ledger ${v.size.ledgerBytes} bytes)`,
    `last write: ${v.lastWrite ?? 'never'}`,
    `index: ${v.index.entries} entries, ${v.index.state}${v.index.changed > 0 ? ` (${v.index.changed} files changed by hand taken in)` : ''}${v.index.skippedLines > 0 ? `, ${v.index.skippedLines} unreadable lines skipped` : ''}`,
    ...(v.embeddings !== undefined ? [describeVectors(v.embeddings)] : []),
  ].join('\n')
}
