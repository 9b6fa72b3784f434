/**
 * The memories tab, over the stores of the panel's scope: search (the model's own search, alias
 * hits marked, common tags offered on zero hits), the list by status when no search is active
 * (each chip's count that list's rows, counts.ts), or one memory opened from the operation log;
 * one row per memory with its store, its details (its place in the palace, its versions) and the
 * actions its status allows (confirm, keep / drop, soft delete, restore, restore from the
 * archive, edit: memory-edit.ts), and the form to write a memory. A row action patches the rows
 * it changed instead of searching again, so the query log records only what a person searched.
 */

import type { Detail, ListedMemory, MemoryStatus, SearchHit, StoreName } from '../api-types.js'
import { ResultLine, type PanelContext } from '../context.js'
import { countsIn, FILTERS, type Filter } from '../counts.js'
import { button, formatTime, h, replaceChildren } from '../dom.js'
import type { MessageKey } from '../i18n.js'
import { editForm, historyNodes, sourcesText, storeBadge, storeChoice } from './memory-edit.js'
import type { View } from './view.js'

const PAGE = 20
const SEARCH_TOP_K = 20
const PREVIEW_CHARS = 4000

/** A row of the list, with the store it is in (absent only from a search without a personal store). */
export type Row = (ListedMemory | SearchHit) & { store?: StoreName }

type Mode = { kind: 'browse'; filter: Filter } | { kind: 'search'; query: string; tag: string | null } | { kind: 'one'; id: string; store: StoreName }

export function memoriesView(ctx: PanelContext): View {
  const { t } = ctx
  let mode: Mode = { kind: 'browse', filter: 'all' }
  let rows: Row[] = []
  let total = 0
  /** Bumped by every new list or search: an answer to an older one is dropped. */
  let generation = 0
  const open = new Set<string>()
  /** Rows whose edit form is open. */
  const editing = new Set<string>()
  const line = new ResultLine()

  const input = h('input', {
    class: 'dma-input',
    attrs: { type: 'search', placeholder: t('searchPlaceholder'), 'aria-label': t('searchPlaceholder'), 'data-role': 'search-input', enterkeyhint: 'search' },
  })
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') void runSearch(input.value.trim(), null)
  })
  const filtersEl = h('div', { class: 'dma-filters', attrs: { role: 'group' } })
  const summaryEl = h('div', { class: 'dma-meta', attrs: { 'data-role': 'search-summary', hidden: true } })
  const listEl = h('ul', { class: 'dma-list', attrs: { 'data-role': 'memory-list' } })
  const moreEl = h('div', { class: 'dma-actions' })

  const searchCard = h(
    'section',
    { class: 'dma-card', attrs: { 'data-card': 'memories' } },
    h('div', { class: 'dma-inline' }, input, button(t('search'), () => runSearch(input.value.trim(), null), 'primary', { 'data-action': 'search' })),
    filtersEl,
    summaryEl,
    line.el,
    listEl,
    moreEl,
  )

  // ---- the list -------------------------------------------------------------------------

  function drawFilters(): void {
    const status = ctx.status()
    const counts = status !== null ? countsIn(status, ctx.scope()) : undefined
    replaceChildren(
      filtersEl,
      ...FILTERS.map(({ id, label }) =>
        h(
          'button',
          {
            class: 'dma-chip',
            attrs: { type: 'button', 'data-filter': id, 'aria-pressed': String(mode.kind === 'browse' && mode.filter === id) },
            on: { click: () => void browse(id) },
          },
          t(label),
          counts !== undefined ? h('span', { class: 'dma-chip-n' }, counts[id]) : null,
        ),
      ),
    )
  }

  function drawList(): void {
    replaceChildren(listEl, ...rows.map(drawRow))
    // What the list shows, for anyone (a test, an assistive tool) waiting for it to settle.
    listEl.dataset['mode'] = mode.kind === 'browse' ? `browse:${mode.filter}` : mode.kind === 'one' ? `memory:${mode.id}` : `search:${mode.tag ?? mode.query}`
    listEl.removeAttribute('aria-busy')
    listEl.hidden = rows.length === 0
    const browsing = mode.kind === 'browse'
    if (browsing && rows.length === 0) replaceChildren(moreEl, h('p', { class: 'dma-empty' }, t('emptyList')))
    else if (browsing && rows.length < total)
      replaceChildren(
        moreEl,
        h('span', { class: 'dma-hint' }, t('shownOf', { shown: rows.length, total })),
        button(t('more', { n: Math.min(PAGE, total - rows.length) }), () => loadPage(rows.length), '', { 'data-action': 'more' }),
      )
    else replaceChildren(moreEl)
  }

  async function loadPage(offset: number): Promise<void> {
    if (mode.kind !== 'browse') return
    const status = mode.filter === 'all' ? undefined : (mode.filter as MemoryStatus)
    const asked = offset === 0 ? ++generation : generation
    listEl.setAttribute('aria-busy', 'true')
    const page = await ctx.run('list', { ...(status !== undefined ? { status } : {}), limit: PAGE, offset, store: ctx.scope() }, line)
    if (asked !== generation) return
    if (page === undefined) {
      listEl.removeAttribute('aria-busy')
      return
    }
    rows = offset === 0 ? page.entries : [...rows, ...page.entries]
    total = page.total
    drawList()
  }

  async function browse(filter: Filter): Promise<void> {
    mode = { kind: 'browse', filter }
    summaryEl.hidden = true
    line.clear()
    drawFilters()
    await loadPage(0)
  }

  async function runSearch(query: string, tag: string | null): Promise<void> {
    if (query === '' && tag === null) {
      await browse('all')
      return
    }
    line.clear()
    const asked = ++generation
    listEl.setAttribute('aria-busy', 'true')
    const result = await ctx.run('search', { query, ...(tag !== null ? { tags: [tag] } : {}), top_k: SEARCH_TOP_K, store: ctx.scope() }, line)
    if (asked !== generation) return
    if (result === undefined) {
      listEl.removeAttribute('aria-busy')
      return
    }
    mode = { kind: 'search', query, tag }
    rows = result.hits
    total = result.hits.length
    drawFilters()
    const back = button(t('clearSearch'), () => {
      input.value = ''
      return browse('all')
    }, 'ghost', { 'data-action': 'clear-search' })
    const head = tag !== null ? t('resultsForTag', { tag, n: result.hits.length }) : t('resultsFor', { query, n: result.hits.length })
    const parts: Array<Node | string> = [h('strong', null, head)]
    if (result.alias_hits > 0) parts.push(h('span', { class: 'dma-badge dma-badge-alias' }, t('alias')), t('aliasInferred', { n: result.alias_hits }))
    if (result.hits.length === 0) {
      const searchable = ctx.status()?.stats.searchable ?? result.eligible
      const tags = result.common_tags ?? []
      parts.push(h('span', { attrs: { 'data-role': 'zero-hits' } }, t(tags.length > 0 ? 'zeroHits' : 'zeroHitsNoTags', { n: searchable })))
      for (const common of tags)
        parts.push(h('button', { class: 'dma-chip', attrs: { type: 'button', 'data-tag-chip': common }, on: { click: () => void runSearch('', common) } }, `#${common}`))
    }
    parts.push(back)
    replaceChildren(summaryEl, ...parts)
    summaryEl.hidden = false
    drawList()
  }

  /** One memory alone, its details open (a link from the operation log). */
  async function reveal(id: string, store: StoreName): Promise<void> {
    line.clear()
    const asked = ++generation
    listEl.setAttribute('aria-busy', 'true')
    const d = await ctx.run('detail', { id, store }, line)
    if (asked !== generation) return
    if (d === undefined) {
      listEl.removeAttribute('aria-busy')
      return
    }
    const e = d.entry
    mode = { kind: 'one', id, store }
    rows = [{ id: e.id, path: e.path, type: e.type, title: e.title, summary: e.summary, time: e.time, status: e.status, tags: e.tags, hits: d.usage.hits, last_used_at: d.usage.last_used_at, store }]
    total = 1
    open.add(id)
    drawFilters()
    const back = button(t('clearSearch'), () => browse('all'), 'ghost', { 'data-action': 'clear-search' })
    replaceChildren(summaryEl, h('strong', null, t('oneMemory', { title: e.title })), back)
    summaryEl.hidden = false
    drawList()
  }

  // ---- one row ------------------------------------------------------------------------------

  function drawRow(row: Row): HTMLLIElement {
    const li = h('li', { class: 'dma-row', attrs: { 'data-id': row.id, 'data-status': row.status } })
    const isOpen = open.has(row.id)
    const toggle = button(isOpen ? t('hideDetails') : t('details'), () => toggleDetails(row), 'ghost', { 'data-action': 'details', 'aria-expanded': String(isOpen) })
    const actions = h('div', { class: 'dma-rowactions' }, toggle, ...rowActions(row))
    const meta = h(
      'div',
      { class: 'dma-meta' },
      h('span', { class: 'dma-badge', attrs: { 'data-status': row.status } }, t(`status_${row.status}` as MessageKey)),
      h('span', { class: 'dma-badge' }, t(`type_${row.type}` as MessageKey)),
      storeBadge(ctx, row.store),
      'reason' in row && row.reason === 'alias' ? h('span', { class: 'dma-badge dma-badge-alias', attrs: { 'data-role': 'alias-mark' } }, t('alias')) : null,
      'warning' in row && row.warning !== undefined ? h('span', { class: 'dma-badge dma-badge-warning', attrs: { 'data-role': 'front-matter-warning', title: row.warning } }, t('brokenFrontMatter')) : null,
      h('span', null, formatTime(row.time)),
      'hits' in row ? h('span', { attrs: { 'data-role': 'usage' } }, row.hits > 0 ? t('hits', { n: row.hits }) : t('neverHit')) : null,
      ...row.tags.map((tag) => h('span', { class: 'dma-tag' }, tag)),
    )
    // A title derived from the summary says the same thing: shown once.
    const summary = row.summary !== row.title ? h('p', { class: 'dma-summary' }, row.summary) : null
    li.append(h('div', { class: 'dma-rowtop' }, h('span', { class: 'dma-rowtitle' }, row.title), actions), ...(summary !== null ? [summary] : []), meta)
    if (editing.has(row.id))
      li.append(
        editForm(ctx, row, {
          done: () => {
            editing.delete(row.id)
            redrawRow(row.id)
          },
          saved: async (message) => {
            editing.delete(row.id)
            line.ok(message)
            await settle()
          },
        }),
      )
    if (isOpen) {
      const box = h('div', { class: 'dma-details', attrs: { 'data-role': 'details' } }, t('loading'))
      li.append(box)
      void fillDetails(row, box)
    }
    return li
  }

  function rowActions(row: Row): HTMLButtonElement[] {
    const act = (label: MessageKey, name: string, run: () => unknown, variant: '' | 'danger' | 'primary' = '') => {
      const b = button(t(label), run, variant, { 'data-action': name })
      b.classList.add('dma-btn-sm')
      return b
    }
    // A current memory is edited into a new version (write_memory with supersedes).
    const edit = act('edit', 'edit', () => toggleEdit(row))
    switch (row.status) {
      case 'suggested':
        return [act('confirm', 'confirm', () => confirm(row), 'primary'), act('softDelete', 'soft-delete', () => softDelete(row), 'danger')]
      case 'conflict':
        return [edit, act('keep', 'keep', () => resolve(row, 'keep'), 'primary'), act('drop', 'drop', () => resolve(row, 'drop'), 'danger')]
      case 'deleted_pending':
        return [act('restore', 'restore', () => restore(row))]
      case 'archived':
        return [act('restore', 'restore-archived', () => restoreArchived(row), 'primary')]
      case 'active':
        return [edit, act('softDelete', 'soft-delete', () => softDelete(row), 'danger')]
      default:
        return [act('softDelete', 'soft-delete', () => softDelete(row), 'danger')]
    }
  }

  function toggleDetails(row: Row): void {
    if (open.has(row.id)) open.delete(row.id)
    else open.add(row.id)
    redrawRow(row.id)
  }

  function toggleEdit(row: Row): void {
    if (editing.has(row.id)) editing.delete(row.id)
    else editing.add(row.id)
    redrawRow(row.id)
  }

  async function fillDetails(row: Row, box: HTMLElement): Promise<void> {
    const d = await ctx.run('detail', { id: row.id, ...storeArg(row) }, line)
    if (d === undefined) {
      box.remove()
      return
    }
    replaceChildren(box, ...detailNodes(d))
    // Every version of the memory, as memory_history gives it: an edit keeps the old one here.
    const history = await ctx.tool('memory_history', { id: row.id, ...storeArg(row) }, line)
    if (history !== undefined) box.append(...historyNodes(ctx, history))
  }

  function detailNodes(d: Detail): Node[] {
    const e = d.entry
    const field = (label: MessageKey, value: Node | string, name: string) => [h('dt', null, t(label)), h('dd', { attrs: { 'data-field': name } }, value)]
    const usage = d.usage.hits > 0 ? `${t('hits', { n: d.usage.hits })} · ${formatTime(d.usage.last_used_at ?? '')}` : t('neverHit')
    const dl = h(
      'dl',
      { class: 'dma-dl' },
      ...field('fieldId', h('code', null, e.id), 'id'),
      ...field('fieldPath', h('code', null, e.path), 'path'),
      ...(e.location !== undefined ? field('fieldLocation', h('code', null, e.location), 'location') : []),
      ...field('fieldStatus', t(`status_${e.status}` as MessageKey), 'status'),
      ...field('fieldTime', formatTime(e.time), 'time'),
      ...field('fieldConfidence', String(e.confidence), 'confidence'),
      ...field('fieldSources', sourcesText(e.sources), 'sources'),
      ...field('fieldTags', e.tags.length > 0 ? e.tags.join(', ') : t('noTags'), 'tags'),
      ...field('fieldUsage', usage, 'usage'),
    )
    const nodes: Node[] = [dl]
    const flagged = d.injectionWarnings ?? []
    if (flagged.length > 0) {
      const kinds = [...new Set(flagged.flatMap((w) => w.kinds))].join(', ')
      nodes.unshift(h('p', { class: 'dma-injection', attrs: { 'data-field': 'injection', role: 'alert' } }, t('injectionWarning', { kinds })))
    }
    if (d.variants.length > 0) {
      nodes.push(
        h('p', { class: 'dma-sub' }, t('fieldVariants')),
        h(
          'ul',
          { class: 'dma-variants', attrs: { 'data-field': 'variants' } },
          ...d.variants.map((v) => h('li', { attrs: { 'data-variant': v.id } }, h('strong', null, v.title), ` — ${v.summary} `, h('span', { class: 'dma-badge', attrs: { 'data-status': v.status } }, t(`status_${v.status}` as MessageKey)))),
        ),
      )
    }
    const text = d.raw ?? d.text
    const preview = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text
    nodes.push(h('p', { class: 'dma-sub' }, t(d.raw !== null ? 'rawPreview' : 'filePreview')), h('pre', { class: 'dma-pre', attrs: { 'data-field': 'preview' } }, preview))
    return nodes
  }

  function redrawRow(id: string): void {
    const row = rows.find((r) => r.id === id)
    const old = listEl.querySelector(`li[data-id="${CSS.escape(id)}"]`)
    if (row !== undefined && old !== null) old.replaceWith(drawRow(row))
  }

  function patch(id: string, status: MemoryStatus): void {
    const row = rows.find((r) => r.id === id)
    if (row === undefined) return
    row.status = status
    redrawRow(id)
  }

  /** After an action: new counters; in browse mode the list again (the row may have left the filter). */
  async function settle(): Promise<void> {
    await ctx.refreshStatus()
    if (mode.kind === 'browse') await loadPage(0)
  }

  /** The store a row's action goes to, when the row says it. */
  function storeArg(row: Row): { store?: StoreName } {
    return row.store !== undefined ? { store: row.store } : {}
  }

  async function confirm(row: Row): Promise<void> {
    const r = await ctx.run('confirm', { id: row.id, ...storeArg(row) }, line)
    if (r === undefined) return
    patch(r.id, r.status)
    for (const id of r.superseded) patch(id, 'superseded')
    line.ok(t('confirmed', { id: row.title }))
    await settle()
  }

  async function resolve(row: Row, action: 'keep' | 'drop'): Promise<void> {
    const r = await ctx.run('resolve', { id: row.id, action, ...storeArg(row) }, line)
    if (r === undefined) return
    patch(r.id, r.status)
    for (const id of r.superseded) patch(id, 'superseded')
    for (const id of r.activated) patch(id, 'active')
    line.ok(t(action === 'keep' ? 'resolvedKeep' : 'resolvedDrop', { id: row.title }))
    await settle()
  }

  async function softDelete(row: Row): Promise<void> {
    const r = await ctx.run('softDelete', { id: row.id, ...storeArg(row) }, line)
    if (r === undefined) return
    patch(r.id, r.status)
    line.ok(t('deleted', { id: row.title }))
    await settle()
  }

  async function restore(row: Row): Promise<void> {
    const r = await ctx.run('restore', { id: row.id, ...storeArg(row) }, line)
    if (r === undefined) return
    patch(r.id, r.status)
    line.ok(t('restored', { id: row.title, status: t(`status_${r.status}` as MessageKey) }))
    await settle()
  }

  /** Archived by decay: back through memory_restore (active, or superseded if a newer version came meanwhile). */
  async function restoreArchived(row: Row): Promise<void> {
    const r = await ctx.run('restoreArchived', { ids: [row.id], ...storeArg(row) }, line)
    if (r === undefined) return
    const back = r.restored.find((x) => x.id === row.id)
    if (back === undefined) line.fail(t('restoreNotArchived', { id: row.title }))
    else {
      patch(back.id, back.status)
      line.ok(t('restored', { id: row.title, status: t(`status_${back.status}` as MessageKey) }))
    }
    await settle()
  }

  // ---- write ----------------------------------------------------------------------------------

  const writeLine = new ResultLine()
  const summaryInput = h('textarea', { class: 'dma-textarea', attrs: { rows: 3, placeholder: t('writeSummary'), 'aria-label': t('writeSummary'), 'data-role': 'write-summary' } })
  const titleInput = h('input', { class: 'dma-input', attrs: { type: 'text', placeholder: t('writeTitleField'), 'aria-label': t('writeTitleField'), 'data-role': 'write-title' } })
  const tagsInput = h('input', { class: 'dma-input', attrs: { type: 'text', placeholder: t('writeTags'), 'aria-label': t('writeTags'), 'data-role': 'write-tags' } })
  const where = storeChoice(ctx)

  async function write(): Promise<void> {
    const summary = summaryInput.value.trim()
    if (summary === '') {
      writeLine.fail(t('writeEmpty'))
      return
    }
    const title = titleInput.value.trim()
    const tags = tagsInput.value
      .split(/[,，、]/)
      .map((s) => s.trim())
      .filter((s) => s !== '')
    const store = where.value()
    const r = await ctx.run('create', { summary, ...(title !== '' ? { title } : {}), ...(tags.length > 0 ? { tags } : {}), ...(store !== undefined ? { store } : {}) }, writeLine)
    if (r === undefined) return
    const parts = [r.dedupe !== undefined ? t('writeDuplicate', { id: r.id }) : t('writeSaved', { title: r.title })]
    if (r.store === 'user' || r.store === 'project') parts.push(` ${t(r.store === 'user' ? 'writeInUser' : 'writeInProject')}`)
    if (r.redactions.length > 0) parts.push(` ${t('writeRedacted', { kinds: r.redactions.join(', ') })}`)
    writeLine.ok(...parts)
    summaryInput.value = ''
    titleInput.value = ''
    tagsInput.value = ''
    await settle()
  }

  const writeCard = h(
    'section',
    { class: 'dma-card', attrs: { 'data-card': 'write' } },
    h('h3', null, t('writeTitle')),
    h('p', { class: 'dma-hint' }, t('writeHint')),
    summaryInput,
    h('div', { class: 'dma-inline' }, titleInput, tagsInput, where.el),
    h('div', { class: 'dma-actions' }, button(t('writeSave'), write, 'primary', { 'data-action': 'write' })),
    writeLine.el,
  )

  const el = h('div', { class: 'dma-body', attrs: { 'data-view': 'memories' } }, searchCard, writeCard)
  const offStatus = ctx.onStatus(() => {
    drawFilters()
    where.draw()
  })
  // Another scope: the list of that scope (a search is run again in it).
  const offScope = ctx.onScope(() => {
    if (mode.kind === 'search') void runSearch(mode.query, mode.tag)
    else void browse(mode.kind === 'browse' ? mode.filter : 'all')
  })
  let shown = false

  return {
    el,
    show() {
      drawFilters()
      // The first showing loads the list; later ones reload it (a search stays as it was).
      if (!shown || mode.kind === 'browse') void loadPage(0)
      shown = true
    },
    search(query) {
      input.value = query
      void runSearch(query, null)
    },
    reveal(id, store) {
      void reveal(id, store)
    },
    dispose() {
      offStatus()
      offScope()
    },
  }
}
