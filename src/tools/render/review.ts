/**
 * What the model reads of the retrieval-practice and evidence-gate tools (text.ts dispatches
 * here). A queue shows cues only: never a memory's summary. Pure.
 */

import type { memoryAssessTool } from '../memory-assess.js'
import type { memoryReportTool } from '../memory-report.js'
import type { memoryReviewQueueTool } from '../memory-review-queue.js'
import type { memoryReviewTool } from '../memory-review.js'
import type { Infer } from '../declare/schema.js'

type Output<T extends { output: unknown }> = Infer<T['output']>

export function renderReviewQueue(v: Output<typeof memoryReviewQueueTool>): string {
  const lines = v.items.map(
    (c) =>
      `- ${c.id}${c.location !== null ? ` @${c.location}` : ''} ${c.cue_kind === 'placard' ? 'placard' : 'title'}: ${c.cue}` +
      ` (${c.days_overdue === 0 ? 'due today' : `${c.days_overdue} day(s) overdue`}${c.reps > 0 ? `, ${c.reps} recall(s) in a row` : ''})`,
  )
  return [`${v.due_total} memory(ies) due for recall${v.has_more ? `, ${v.items.length} listed` : ''}.`, ...lines, v.guidance].join('\n')
}

export function renderReview(v: Output<typeof memoryReviewTool>): string {
  const r = v.review
  return [
    `${v.id}${v.location !== null ? ` @${v.location}` : ''}${v.placard !== null ? ` [${v.placard}]` : ''} ${v.title} (${v.path})`,
    v.summary,
    ...(v.details !== '' ? ['', v.details] : []),
    '',
    `Schedule: due ${r.due}, interval ${r.interval} day(s), ease ${r.ease}, ${r.reps} recall(s) in a row, ${r.lapses} lapse(s), importance ${r.importance}.`,
    v.guidance,
  ].join('\n')
}

export function renderReport(v: Output<typeof memoryReportTool>): string {
  return `${v.id} graded ${v.grade} (${v.recalled ? 'recalled' : 'forgotten'}): next review in ${v.next.interval} day(s), on ${v.next.due.slice(0, 10)}; ease ${v.next.ease}, importance ${v.next.importance}.`
}

export function renderAssess(v: Output<typeof memoryAssessTool>): string {
  return [
    `Verdict: ${v.verdict} (batch ${v.batchId}${v.batchKnown ? '' : ', unknown'}); next: ${v.nextStrategy}.`,
    ...v.accepted.map((a) => `- evidence ${a.ref}: ${a.id}`),
    ...v.refused.map((r) => `- refused ${r.ref}: ${r.reason === 'other-batch' ? `belongs to batch ${r.batchId ?? '?'}` : 'not a ref of this session'}`),
    v.guidance,
  ].join('\n')
}
