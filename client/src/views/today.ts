/**
 * The today tab: the store's health as one figure with its parts (the health op: memory_sweep,
 * the conflict list and memory_review_queue, each part's cost explained), and the review card:
 * the next memory due for review (memory_review_queue), its evidence (memory_review, with the
 * sources and last check from the details), and three answers: confirm (memory_report grade 5,
 * so its next review comes later), reject (memory_forget: soft-deleted, restorable), later
 * (the next one; nothing is written). Both follow the panel's scope.
 */

import type { Health, IndexEntry, StoreName, Tools } from '../api-types.js'
import { ResultLine, type PanelContext } from '../context.js'
import { storesOf } from '../counts.js'
import { button, formatTime, h, replaceChildren } from '../dom.js'
import type { MessageKey } from '../i18n.js'
import { sourcesText, storeBadge } from './memory-edit.js'
import type { View } from './view.js'

/** Cues fetched per store: the card shows one at a time. */
const QUEUE_LIMIT = 50

type Cue = Tools['memory_review_queue']['output']['items'][number] & { store: StoreName }

export function todayView(ctx: PanelContext): View {
  const { t } = ctx

  // ---- health ----------------------------------------------------------------------------------
  const healthLine = new ResultLine()
  const scoreEl = h('span', { class: 'dma-health-score', attrs: { 'data-role': 'health-score' } }, '…')
  const partsEl = h('ul', { class: 'dma-health-parts', attrs: { 'data-role': 'health-parts' } })
  const healthCard = h(
    'section',
    { class: 'dma-card', attrs: { 'data-card': 'health' } },
    h('h3', null, t('healthTitle')),
    h('div', { class: 'dma-health' }, scoreEl, h('p', { class: 'dma-hint' }, t('healthHint'))),
    partsEl,
    healthLine.el,
  )

  function drawHealth(health: Health): void {
    scoreEl.textContent = String(health.score)
    scoreEl.dataset['score'] = String(health.score)
    scoreEl.dataset['level'] = health.score >= 80 ? 'good' : health.score >= 50 ? 'fair' : 'poor'
    replaceChildren(
      partsEl,
      ...health.parts.map((p) =>
        h(
          'li',
          { class: 'dma-health-part', attrs: { 'data-part': p.name, 'data-count': p.count, 'data-penalty': p.penalty } },
          h('span', { class: 'dma-health-name' }, t(`health_${p.name}` as MessageKey)),
          h('span', { class: 'dma-health-n' }, p.count),
          h('span', { class: 'dma-health-cost' }, p.penalty > 0 ? `−${p.penalty}` : '0'),
          h('span', { class: 'dma-hint' }, t(`health_${p.name}_why` as MessageKey, { per: p.per, cap: p.cap })),
        ),
      ),
    )
  }

  async function loadHealth(): Promise<void> {
    partsEl.setAttribute('aria-busy', 'true')
    const health = await ctx.run('health', { store: ctx.scope() }, healthLine)
    partsEl.removeAttribute('aria-busy')
    if (health !== undefined) drawHealth(health)
  }

  // ---- review ----------------------------------------------------------------------------------
  const reviewLine = new ResultLine()
  const countEl = h('p', { class: 'dma-hint', attrs: { 'data-role': 'review-count' } })
  const itemEl = h('div', { class: 'dma-body', attrs: { 'data-role': 'review' } })
  const reviewCard = h('section', { class: 'dma-card', attrs: { 'data-card': 'review' } }, h('h3', null, t('reviewTitle')), h('p', { class: 'dma-hint' }, t('reviewHint')), countEl, itemEl, reviewLine.el)
  let cues: Cue[] = []
  let due = 0
  /** Put off with "later" while the panel is open. */
  const later = new Set<string>()

  async function loadQueue(): Promise<void> {
    const status = ctx.status()
    if (status === null) return
    itemEl.setAttribute('aria-busy', 'true')
    const stores = storesOf(status, ctx.scope()).filter((s) => status.stores[s]?.exists === true)
    const answers = await Promise.all(stores.map(async (store) => ({ store, queue: await ctx.tool('memory_review_queue', { limit: QUEUE_LIMIT, store }, reviewLine) })))
    cues = answers
      .flatMap(({ store, queue }) => (queue?.items ?? []).map((c): Cue => ({ ...c, store })))
      .sort((a, b) => b.days_overdue - a.days_overdue || a.due.localeCompare(b.due) || a.id.localeCompare(b.id))
    due = answers.reduce((n, a) => n + (a.queue?.due_total ?? 0), 0)
    await drawNext()
  }

  async function drawNext(): Promise<void> {
    const next = cues.find((c) => !later.has(c.id))
    countEl.textContent = t('reviewDue', { n: due, later: cues.filter((c) => later.has(c.id)).length })
    if (next === undefined) {
      replaceChildren(itemEl, h('p', { class: 'dma-empty', attrs: { 'data-role': 'review-empty' } }, t(cues.length > 0 ? 'reviewAllLater' : 'reviewNothing')))
      itemEl.removeAttribute('aria-busy')
      return
    }
    const shown = await ctx.tool('memory_review', { id: next.id, store: next.store }, reviewLine)
    const detail = await ctx.run('detail', { id: next.id, store: next.store }, reviewLine)
    itemEl.removeAttribute('aria-busy')
    if (shown === undefined) return
    replaceChildren(itemEl, itemNodes(next, shown, detail?.entry))
  }

  function itemNodes(cue: Cue, shown: Tools['memory_review']['output'], entry: IndexEntry | undefined): HTMLElement {
    const field = (label: MessageKey, value: string, name: string) => [h('dt', null, t(label)), h('dd', { attrs: { 'data-field': name } }, value)]
    const evidence = entry?.evidence
    const checked = evidence !== undefined && evidence.verified_at !== null ? t('reviewChecked', { result: evidence.result ?? '?', at: formatTime(evidence.verified_at), cmd: evidence.cmd ?? '' }) : t('reviewUnchecked')
    const act = (label: MessageKey, name: string, run: () => Promise<void>, variant: '' | 'primary' | 'danger' | 'ghost') => button(t(label), run, variant, { 'data-action': name })
    return h(
      'div',
      { class: 'dma-review', attrs: { 'data-role': 'review-item', 'data-id': cue.id, 'data-store': cue.store } },
      h('div', { class: 'dma-meta' }, h('span', { class: 'dma-badge' }, cue.location ?? t('reviewNoLocation')), storeBadge(ctx, cue.store), h('span', null, t('reviewOverdue', { n: cue.days_overdue, reps: cue.reps }))),
      h('strong', { class: 'dma-rowtitle', attrs: { 'data-field': 'review-title' } }, shown.title),
      // A title derived from the summary says the same thing: shown once.
      shown.summary !== shown.title ? h('p', { class: 'dma-summary', attrs: { 'data-field': 'review-summary' } }, shown.summary) : null,
      shown.details.trim() !== '' ? h('pre', { class: 'dma-pre', attrs: { 'data-field': 'review-details' } }, shown.details) : null,
      h(
        'dl',
        { class: 'dma-dl' },
        ...field('fieldSources', entry !== undefined ? sourcesText(entry.sources) : '—', 'review-sources'),
        ...field('fieldConfidence', entry !== undefined ? String(entry.confidence) : '—', 'review-confidence'),
        ...field('reviewEvidence', checked, 'review-evidence'),
      ),
      h(
        'div',
        { class: 'dma-actions' },
        act('reviewConfirm', 'review-confirm', () => confirmCue(cue), 'primary'),
        act('reviewReject', 'review-reject', () => rejectCue(cue), 'danger'),
        act('reviewLater', 'review-later', async () => {
          later.add(cue.id)
          reviewLine.ok(t('reviewPutOff', { title: shown.title }))
          await drawNext()
        }, 'ghost'),
      ),
    )
  }

  async function confirmCue(cue: Cue): Promise<void> {
    const r = await ctx.tool('memory_report', { id: cue.id, grade: 5, store: cue.store }, reviewLine)
    if (r === undefined) return
    reviewLine.ok(t('reviewConfirmed', { due: formatTime(r.next.due) }))
    await afterAnswer()
  }

  async function rejectCue(cue: Cue): Promise<void> {
    const r = await ctx.tool('memory_forget', { id: cue.id, store: cue.store }, reviewLine)
    if (r === undefined) return
    reviewLine.ok(t('reviewRejected', { n: r.forgotten.length }))
    await afterAnswer()
  }

  async function afterAnswer(): Promise<void> {
    await ctx.refreshStatus()
    await Promise.all([loadQueue(), loadHealth()])
  }

  const load = () => {
    void loadHealth()
    void loadQueue()
  }
  const offScope = ctx.onScope(load)

  return {
    el: h('div', { class: 'dma-body', attrs: { 'data-view': 'today' } }, healthCard, reviewCard),
    show: load,
    dispose() {
      offScope()
    },
  }
}
