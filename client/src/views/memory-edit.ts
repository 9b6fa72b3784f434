/**
 * The parts of the memories tab that know there are two stores and that memories have versions:
 * a row's store badge, the write card's store choice, the edit form (a new version through
 * write_memory with `supersedes`, as every surface writes one: the old version stays in the
 * history, the ledger records it, and a refusal, such as the confirmation gate's, is shown with
 * its code), and the history list of a memory's details (memory_history).
 */

import type { IndexEntry, StoreName, Tools } from '../api-types.js'
import { ResultLine, type PanelContext } from '../context.js'
import { button, formatTime, h } from '../dom.js'
import type { MessageKey } from '../i18n.js'
import type { Row } from './memories.js'

/** Who said a memory, in which session: `session: s-1, user`; a dash for none. */
export function sourcesText(sources: IndexEntry['sources']): string {
  const text = sources.map((s) => (s.session_id !== null ? `${s.kind}: ${s.session_id}` : s.kind)).join(', ')
  return text === '' ? '—' : text
}

/** Which store a row is in; shown only while a personal store is served beside the project store. */
export function storeBadge(ctx: PanelContext, store: StoreName | undefined): HTMLElement | null {
  if (store === undefined || ctx.status()?.stores.user === undefined) return null
  return h('span', { class: 'dma-badge dma-badge-store', attrs: { 'data-role': 'store', 'data-store': store } }, ctx.t(store === 'user' ? 'storeUser' : 'storeProject'))
}

/** The write card's "where": by kind (write_memory's default), the project store or the personal one. */
export function storeChoice(ctx: PanelContext): { el: HTMLSelectElement; value(): StoreName | undefined; draw(): void } {
  const { t } = ctx
  const el = h(
    'select',
    { class: 'dma-input', attrs: { 'data-role': 'write-store', 'aria-label': t('writeStore'), title: t('writeStore') } },
    h('option', { attrs: { value: '' } }, t('writeStoreAuto')),
    h('option', { attrs: { value: 'project' } }, t('storeProject')),
    h('option', { attrs: { value: 'user' } }, t('storeUser')),
  )
  const draw = () => {
    el.hidden = ctx.status()?.stores.user === undefined
  }
  draw()
  return { el, value: () => (el.hidden || el.value === '' ? undefined : (el.value as StoreName)), draw }
}

export interface EditHandlers {
  /** Closed without saving. */
  done(): void
  /** Saved: what to say, then the list is refreshed. */
  saved(message: string): Promise<void>
}

/**
 * The inline form that edits a memory's text and title. Saving writes a new version that
 * supersedes this one: the memory's own key is kept (its slot stays the same), a memory without
 * one gets the title only when the person changed it, and tags, type and session go along.
 */
export function editForm(ctx: PanelContext, row: Row, on: EditHandlers): HTMLElement {
  const { t } = ctx
  const formLine = new ResultLine()
  const title = h('input', { class: 'dma-input', attrs: { type: 'text', 'aria-label': t('editTitle'), 'data-role': 'edit-title' }, props: { value: row.title } })
  const summary = h('textarea', { class: 'dma-textarea', attrs: { rows: 3, 'aria-label': t('editSummary'), 'data-role': 'edit-summary' }, props: { value: row.summary } })
  const store = row.store !== undefined ? { store: row.store } : {}

  async function save(): Promise<void> {
    const text = summary.value.trim()
    const newTitle = title.value.trim()
    if (text === '') {
      formLine.fail(t('writeEmpty'))
      return
    }
    const d = await ctx.run('detail', { id: row.id, ...store }, formLine)
    if (d === undefined) return
    const e = d.entry
    const ownKey = e.key !== null && e.key_derived !== true ? e.key : null
    const input: Tools['write_memory']['input'] = {
      summary: text,
      supersedes: [row.id],
      source: 'user',
      ...(ownKey !== null ? { key: ownKey } : {}),
      ...(ownKey !== null || newTitle !== row.title ? (newTitle !== '' ? { title: newTitle } : {}) : {}),
      ...(e.tags.length > 0 ? { tags: e.tags } : {}),
      ...(e.type === 'episode' && e.session_id !== null ? { type: 'episode' as const, session_id: e.session_id } : {}),
      ...store,
    }
    const r = await ctx.tool('write_memory', input, formLine)
    if (r === undefined) return
    const kept = r.superseded.includes(row.id)
    await on.saved(r.dedupe !== undefined ? t('writeDuplicate', { id: r.id }) : t(kept ? 'edited' : 'editedNotReplaced', { title: r.title }))
  }

  return h(
    'div',
    { class: 'dma-edit', attrs: { 'data-role': 'edit' } },
    h('p', { class: 'dma-hint' }, t('editHint')),
    title,
    summary,
    h('div', { class: 'dma-actions' }, button(t('editSave'), save, 'primary', { 'data-action': 'edit-save' }), button(t('cancel'), () => on.done(), 'ghost', { 'data-action': 'edit-cancel' })),
    formLine.el,
  )
}

/** A memory's versions, oldest first, the current ones marked. */
export function historyNodes(ctx: PanelContext, history: Tools['memory_history']['output']): Node[] {
  const { t } = ctx
  if (history.versions.length <= 1) return []
  return [
    h('p', { class: 'dma-sub' }, t('historyTitle', { n: history.versions.length })),
    h(
      'ol',
      { class: 'dma-variants', attrs: { 'data-field': 'history' } },
      ...history.versions.map((v) =>
        h(
          'li',
          { attrs: { 'data-version': v.id, 'data-status': v.status } },
          h('span', { class: 'dma-badge', attrs: { 'data-status': v.status } }, t(`status_${v.status}` as MessageKey)),
          ` ${formatTime(v.time)} `,
          h('strong', null, v.title ?? v.id),
          v.summary !== null && v.summary !== v.title ? ` — ${v.summary}` : '',
        ),
      ),
    ),
  ]
}
