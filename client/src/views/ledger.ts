/**
 * The operation log: the latest events of the ledgers of the panel's scope (both stores merged,
 * newest first), filtered by kind, each with its store and, when it names a memory the store
 * still has, a link that opens that memory in the memories tab.
 */

import type { LedgerView } from '../api-types.js'
import { ResultLine, type PanelContext } from '../context.js'
import { formatTime, h, replaceChildren } from '../dom.js'
import type { MessageKey } from '../i18n.js'
import { eventLabel } from '../i18n-events.js'
import { storeBadge } from './memory-edit.js'
import type { View } from './view.js'

const LIMIT = 100
/** Fields of an event shown after its kind, at most this long. */
const DETAIL_CHARS = 160

export function ledgerView(ctx: PanelContext): View {
  const { t } = ctx
  const line = new ResultLine()
  let kind = ''
  const select = h('select', { class: 'dma-input', attrs: { 'data-role': 'ledger-kind', 'aria-label': t('ledgerKind') } })
  select.addEventListener('change', () => {
    kind = select.value
    void load()
  })
  const summary = h('p', { class: 'dma-hint', attrs: { 'data-role': 'ledger-summary' } })
  const list = h('ul', { class: 'dma-log', attrs: { 'data-role': 'ledger' } })

  function drawKinds(view: LedgerView): void {
    const all = view.kinds.reduce((n, k) => n + k.n, 0)
    replaceChildren(
      select,
      h('option', { attrs: { value: '' } }, t('ledgerAllKinds', { n: all })),
      ...view.kinds.map((k) => h('option', { attrs: { value: k.event } }, `${eventLabel(ctx.locale, k.event)} (${k.n})`)),
    )
    select.value = kind
  }

  function detailText(detail: Record<string, unknown>): string {
    const text = Object.entries(detail)
      .filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0))
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' · ')
    return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS)}…` : text
  }

  async function load(): Promise<void> {
    list.setAttribute('aria-busy', 'true')
    const view = await ctx.run('ledger', { store: ctx.scope(), limit: LIMIT, ...(kind !== '' ? { event: kind } : {}) }, line)
    list.removeAttribute('aria-busy')
    if (view === undefined) return
    drawKinds(view)
    list.dataset['kind'] = kind
    summary.textContent = t('ledgerShown', { shown: view.events.length, total: view.total })
    if (view.events.length === 0) {
      replaceChildren(list, h('li', { class: 'dma-empty' }, t('ledgerEmpty')))
      return
    }
    replaceChildren(
      list,
      ...view.events.map((e) => {
        const target =
          e.id === null
            ? null
            : e.memory !== null
              ? h('button', { class: 'dma-link', attrs: { type: 'button', 'data-action': 'open-memory', 'data-id': e.id, title: e.id }, on: { click: () => ctx.showMemory(e.id ?? '', e.store) } }, e.memory.title)
              : h('code', { attrs: { 'data-role': 'gone', title: t('ledgerGone') } }, e.id)
        return h(
          'li',
          { class: 'dma-logrow dma-ledgerrow', attrs: { 'data-event': e.event, 'data-store': e.store, 'data-id': e.id ?? undefined } },
          h('span', { class: 'dma-logtime' }, formatTime(e.at)),
          h('span', { class: 'dma-badge', attrs: { 'data-role': 'kind', title: e.event } }, eventLabel(ctx.locale, e.event)),
          storeBadge(ctx, e.store),
          target,
          e.memory !== null ? h('span', { class: 'dma-badge', attrs: { 'data-status': e.memory.status } }, t(`status_${e.memory.status}` as MessageKey)) : null,
          h('span', { class: 'dma-hint dma-logdetail' }, detailText(e.detail)),
        )
      }),
    )
  }

  const card = h(
    'section',
    { class: 'dma-card', attrs: { 'data-card': 'ledger' } },
    h('h3', null, t('ledgerTitle')),
    h('p', { class: 'dma-hint' }, t('ledgerHint')),
    h('div', { class: 'dma-inline' }, select, summary),
    line.el,
    list,
  )
  const offScope = ctx.onScope(() => void load())

  return {
    el: h('div', { class: 'dma-body', attrs: { 'data-view': 'ledger' } }, card),
    show() {
      void load()
    },
    dispose() {
      offScope()
    },
  }
}
