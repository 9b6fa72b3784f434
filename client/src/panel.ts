/**
 * The settings panel, framework-free: `mountPanel(container, { call, locale })` draws it into the
 * container and returns its disposer. The same core serves the DSH settings section (mounted by a
 * React component) and the standalone page of `memory-agent serve`. It owns the frame: the store
 * path and counters, the tabs, and the locked state; each tab is a view in `views/`.
 *
 * Locked: without a key, or when the API answers FORBIDDEN, the panel shows how to get the key
 * and a box to paste it; nothing else is drawn until a key works.
 */

import type { Call, ListCounts, OpName, Ops, PanelScope } from './api-types.js'
import { ResultLine, type PanelContext, type Status } from './context.js'
import { countsIn } from './counts.js'
import { button, h, replaceChildren, withNodes } from './dom.js'
import { translator, type Locale, type MessageKey } from './i18n.js'
import { browserKeyStore, normalizeKey, type KeyStore } from './key.js'
import { installStyles, type StyleMode } from './styles.js'
import { isLockError } from './transport.js'
import { ledgerView } from './views/ledger.js'
import { maintenanceView } from './views/maintenance.js'
import { memoriesView } from './views/memories.js'
import { queryLogView } from './views/query-log.js'
import { roomsView } from './views/rooms.js'
import { settingsView } from './views/settings.js'
import { todayView } from './views/today.js'
import type { View } from './views/view.js'

export interface PanelOptions {
  call: Call
  locale: Locale
  /** Where the key lives (default: this origin's localStorage). */
  keys?: KeyStore
  /** When given, the panel offers a language switch that calls it (the standalone page). */
  onLocaleChange?: (locale: Locale) => void
  /** How the style sheet goes into the document (default: a constructed sheet where supported). */
  styles?: StyleMode
}

type TabId = 'memories' | 'today' | 'rooms' | 'settings' | 'maintenance' | 'queryLog' | 'ledger'

const TABS: ReadonlyArray<{ id: TabId; label: MessageKey; make: (ctx: PanelContext) => View }> = [
  { id: 'memories', label: 'tabMemories', make: memoriesView },
  { id: 'today', label: 'tabToday', make: todayView },
  { id: 'rooms', label: 'tabRooms', make: roomsView },
  { id: 'settings', label: 'tabSettings', make: settingsView },
  { id: 'maintenance', label: 'tabMaintenance', make: maintenanceView },
  { id: 'queryLog', label: 'tabQueryLog', make: queryLogView },
  { id: 'ledger', label: 'tabLedger', make: ledgerView },
]

/** The head's counters: lists of the memories tab, counted as the list counts its rows (counts.ts). */
const STATS: ReadonlyArray<{ key: keyof ListCounts; label: MessageKey; alert?: boolean }> = [
  { key: 'all', label: 'statTotal' },
  { key: 'suggested', label: 'statSuggested', alert: true },
  { key: 'conflict', label: 'statConflict', alert: true },
  { key: 'deleted_pending', label: 'statPendingCleanup' },
  { key: 'orphaned', label: 'statOrphaned' },
  { key: 'archived', label: 'statArchived' },
]

const SCOPES: ReadonlyArray<{ id: PanelScope; label: MessageKey }> = [
  { id: 'all', label: 'scopeAll' },
  { id: 'user', label: 'scopeUser' },
  { id: 'project', label: 'scopeProject' },
]

export function mountPanel(container: HTMLElement, options: PanelOptions): () => void {
  const doc = container.ownerDocument
  installStyles(doc, options.styles ?? 'adopted')
  const keys = options.keys ?? browserKeyStore()
  const t = translator(options.locale)
  const root = h('div', { class: 'dma', attrs: { lang: options.locale === 'zh' ? 'zh-CN' : 'en', 'data-locale': options.locale } })
  container.appendChild(root)

  let disposed = false
  let status: Status | null = null
  const listeners = new Set<(s: Status) => void>()
  const notice = new ResultLine()
  const views = new Map<TabId, View>()
  let activeTab: TabId = 'memories'
  let tabButtons = new Map<TabId, HTMLButtonElement>()
  const body = h('div', { class: 'dma-body', attrs: { role: 'tabpanel' } })
  let pathEl: HTMLElement | null = null
  let statsEl: HTMLElement | null = null
  let vectorsEl: HTMLElement | null = null
  let scopeEl: HTMLElement | null = null
  let userPathEl: HTMLElement | null = null
  let locked = false
  let scope: PanelScope = 'all'
  const scopeListeners = new Set<(scope: PanelScope) => void>()

  const ctx: PanelContext = {
    t,
    locale: options.locale,
    async run<K extends OpName>(op: K, args?: Ops[K]['args'], line?: ResultLine): Promise<Ops[K]['result'] | undefined> {
      try {
        return await options.call(op, args)
      } catch (err) {
        if (disposed) return undefined
        if (isLockError(err)) lock(keys.get() !== null)
        else (line ?? notice).error(err, t('errorPrefix'))
        return undefined
      }
    },
    async tool(name, input, line) {
      // The op answers what the tool answers; Tools declares it per name from the tool's own types.
      return (await ctx.run('tool', { name, input: input as Record<string, unknown> }, line)) as never
    },
    status: () => status,
    scope: () => scope,
    onScope(listener) {
      scopeListeners.add(listener)
      return () => scopeListeners.delete(listener)
    },
    showMemory(id, store) {
      selectTab('memories')
      views.get('memories')?.reveal?.(id, store)
    },
    async refreshStatus() {
      const next = await ctx.run('status')
      if (next === undefined || disposed) return
      status = next
      drawStatus()
      for (const listener of listeners) listener(next)
    },
    onStatus(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    searchFor(query) {
      selectTab('memories')
      const view = views.get('memories')
      view?.search?.(query)
    },
  }

  function drawStatus(): void {
    if (status === null || pathEl === null || statsEl === null) return
    pathEl.textContent = status.root
    pathEl.title = status.root
    const user = status.stores.user
    if (userPathEl !== null) {
      userPathEl.hidden = user === undefined
      replaceChildren(userPathEl, h('span', { class: 'dma-pathlabel' }, t('userStorePath')), h('code', { class: 'dma-path', attrs: { title: user?.root } }, user?.root ?? ''))
    }
    drawScopes()
    const s = countsIn(status, scope)
    replaceChildren(
      statsEl,
      ...STATS.map(({ key, label, alert }) =>
        h(
          'li',
          { class: 'dma-stat', attrs: { 'data-stat': key, 'data-alert': alert === true && s[key] > 0 ? 'true' : undefined } },
          h('span', { class: 'dma-stat-n' }, s[key]),
          h('span', { class: 'dma-stat-l' }, t(label)),
        ),
      ),
    )
    drawVectors()
  }

  /** The personal / project switch: shown only when a personal store is served beside the project store. */
  function drawScopes(): void {
    if (scopeEl === null || status === null) return
    const current = status
    scopeEl.hidden = current.stores.user === undefined
    if (scopeEl.hidden) return
    replaceChildren(
      scopeEl,
      ...SCOPES.map(({ id, label }) =>
        h(
          'button',
          { class: 'dma-chip', attrs: { type: 'button', 'data-scope': id, 'aria-pressed': String(scope === id) }, on: { click: () => setScope(id) } },
          t(label),
          h('span', { class: 'dma-chip-n' }, countsIn(current, id).all),
        ),
      ),
    )
  }

  function setScope(next: PanelScope): void {
    if (next === scope) return
    scope = next
    drawStatus()
    for (const listener of scopeListeners) listener(next)
  }

  /** The embedder's line under the counters: shown only when the store has one. */
  function drawVectors(): void {
    const v = status?.embeddings
    if (vectorsEl === null) return
    vectorsEl.hidden = v === undefined
    if (v === undefined) return
    const migrating = v.completedEmbedder !== null && v.completedEmbedder !== v.embedder ? t('vectorsMigrating', { from: v.completedEmbedder }) : ''
    vectorsEl.textContent =
      t('vectorsLine', { kind: v.kind, embedder: v.embedder, dim: v.dim, embedded: v.embedded, searchable: v.searchable, pending: v.pending, mismatches: v.dimensionMismatches }) + migrating
    vectorsEl.setAttribute('data-alert', v.pending > 0 || v.dimensionMismatches > 0 ? 'true' : 'false')
  }

  function selectTab(id: TabId): void {
    activeTab = id
    for (const [tab, b] of tabButtons) {
      b.setAttribute('aria-selected', String(tab === id))
      b.tabIndex = tab === id ? 0 : -1
    }
    let view = views.get(id)
    if (view === undefined) {
      const spec = TABS.find((x) => x.id === id)
      if (spec === undefined) return
      view = spec.make(ctx)
      views.set(id, view)
    }
    replaceChildren(body, view.el)
    body.setAttribute('aria-labelledby', `dma-tab-${id}`)
    view.show?.()
  }

  function drawUnlocked(): void {
    locked = false
    pathEl = h('code', { class: 'dma-path', attrs: { 'data-role': 'store-path' } }, t('loading'))
    statsEl = h('ul', { class: 'dma-stats' })
    vectorsEl = h('p', { class: 'dma-vectors', attrs: { 'data-role': 'vectors', hidden: true } })
    scopeEl = h('div', { class: 'dma-filters dma-scopes', attrs: { role: 'group', 'data-role': 'scope', 'aria-label': t('scopeLabel'), hidden: true } })
    userPathEl = h('div', { class: 'dma-pathrow', attrs: { 'data-role': 'user-store-path', hidden: true } })
    const actions = h(
      'div',
      { class: 'dma-headactions' },
      button(t('refresh'), () => refreshAll(), 'ghost', { 'data-action': 'refresh' }),
      options.onLocaleChange !== undefined ? button(t('language'), () => options.onLocaleChange?.(options.locale === 'zh' ? 'en' : 'zh'), 'ghost', { 'data-action': 'language' }) : null,
      button(t('forgetKey'), () => {
        keys.forget()
        lock(false)
      }, 'ghost', { 'data-action': 'forget-key' }),
    )
    tabButtons = new Map(
      TABS.map(({ id, label }) => [
        id,
        h('button', { class: 'dma-tab', attrs: { type: 'button', role: 'tab', id: `dma-tab-${id}`, 'data-tab': id }, on: { click: () => selectTab(id) } }, t(label)),
      ]),
    )
    replaceChildren(
      root,
      h('div', { class: 'dma-head' }, h('div', { class: 'dma-pathrow' }, h('span', { class: 'dma-pathlabel' }, t('storePath')), pathEl, actions), userPathEl, scopeEl, statsEl, vectorsEl),
      notice.el,
      h('div', { class: 'dma-tabs', attrs: { role: 'tablist' } }, ...tabButtons.values()),
      body,
    )
    selectTab(activeTab)
  }

  async function refreshAll(): Promise<void> {
    notice.clear()
    await ctx.refreshStatus()
    views.get(activeTab)?.show?.()
  }

  function lock(refused: boolean): void {
    locked = true
    for (const view of views.values()) view.dispose?.()
    views.clear()
    const input = h('input', {
      class: 'dma-input',
      attrs: { type: 'password', autocomplete: 'off', spellcheck: 'false', placeholder: t('keyPlaceholder'), 'aria-label': t('keyPlaceholder'), 'data-role': 'key-input' },
    })
    const line = new ResultLine()
    if (refused) line.fail(t('lockedRefused'))
    const unlock = async () => {
      const key = normalizeKey(input.value)
      if (key === null) {
        line.fail(t('keyInvalid'))
        return
      }
      keys.set(key)
      await start()
    }
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') void unlock()
    })
    replaceChildren(
      root,
      h(
        'div',
        { class: 'dma-card dma-lock', attrs: { 'data-view': 'locked' } },
        h('h3', null, t('lockedTitle')),
        h('p', { class: 'dma-hint' }, ...withNodes(t('lockedBody'), { serve: h('code', null, 'memory-agent serve'), panelKey: h('code', null, 'memory-agent panel-key') })),
        h('div', { class: 'dma-inline' }, input, button(t('unlock'), unlock, 'primary', { 'data-action': 'unlock' })),
        line.el,
        options.onLocaleChange !== undefined ? h('div', null, button(t('language'), () => options.onLocaleChange?.(options.locale === 'zh' ? 'en' : 'zh'), 'ghost', { 'data-action': 'language' })) : null,
      ),
    )
  }

  async function start(): Promise<void> {
    locked = false
    if (keys.get() === null) {
      lock(false)
      return
    }
    const line = new ResultLine()
    const first = await ctx.run('status', undefined, line)
    if (disposed) return
    if (first === undefined) {
      // Locked already when the key was the problem; otherwise say what failed and offer a retry.
      if (!locked) replaceChildren(root, h('div', { class: 'dma-card', attrs: { 'data-view': 'failed' } }, line.el, h('div', null, button(t('refresh'), start, 'primary'))))
      return
    }
    status = first
    drawUnlocked()
    drawStatus()
    for (const listener of listeners) listener(first)
  }

  void start()

  return () => {
    disposed = true
    for (const view of views.values()) view.dispose?.()
    views.clear()
    listeners.clear()
    scopeListeners.clear()
    root.remove()
  }
}
