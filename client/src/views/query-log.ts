/**
 * The query-log tab: the latest searches (the model's and the panel's go through the same
 * handler), newest first, with their hit counts; zero hits stand out, since they show what the
 * store lacks. A query can be searched again in the memories tab.
 */

import { ResultLine, type PanelContext } from '../context.js'
import { button, formatTime, h, replaceChildren } from '../dom.js'
import type { View } from './view.js'

export function queryLogView(ctx: PanelContext): View {
  const { t } = ctx
  const line = new ResultLine()
  const list = h('ul', { class: 'dma-log', attrs: { 'data-role': 'query-log' } })

  async function load(): Promise<void> {
    const r = await ctx.run('queryLog', {}, line)
    if (r === undefined) return
    if (r.queries.length === 0) {
      replaceChildren(list, h('li', { class: 'dma-empty' }, t('queryLogEmpty')))
      return
    }
    replaceChildren(
      list,
      ...r.queries.map((q) => {
        const again = button(t('searchAgain'), () => ctx.searchFor(q.query), 'ghost', { 'data-action': 'search-again' })
        again.classList.add('dma-btn-sm')
        return h(
          'li',
          { class: 'dma-logrow', attrs: { 'data-query': q.query } },
          h('span', { class: 'dma-logtime' }, formatTime(q.at)),
          h('span', { class: 'dma-logq', attrs: { title: q.query } }, q.query),
          h('span', { class: 'dma-loghits', attrs: { 'data-zero': String(q.hits === 0) } }, q.hits === 0 ? t('queryZero') : t('queryHits', { n: q.hits })),
          again,
        )
      }),
    )
  }

  const card = h(
    'section',
    { class: 'dma-card', attrs: { 'data-card': 'query-log' } },
    h('div', { class: 'dma-inline' }, h('h3', null, t('queryLogTitle'))),
    h('p', { class: 'dma-hint' }, t('queryLogHint')),
    line.el,
    list,
  )

  return {
    el: h('div', { class: 'dma-body', attrs: { 'data-view': 'query-log' } }, card),
    show() {
      void load()
    },
  }
}
