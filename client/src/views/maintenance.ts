/**
 * The maintenance tab: rebuild the index; consolidate (a dry run shown first, run on
 * confirmation, with the report's guidance); purge soft-deleted files (topics only through their
 * own button, shown only when soft-deleted topics exist); forget what a session wrote; sync
 * through git; backfill memories from the host's past sessions (estimate, then run); download the
 * export bundle. Everything that deletes files asks twice.
 */

import type { Bundle, Ops } from '../api-types.js'
import { ResultLine, type PanelContext, type Status } from '../context.js'
import { button, formatTime, h, replaceChildren, type Child } from '../dom.js'
import type { View } from './view.js'
import { twoStep } from './confirm.js'

export function maintenanceView(ctx: PanelContext): View {
  const { t } = ctx

  // ---- rebuild -------------------------------------------------------------------------------
  const rebuildLine = new ResultLine()
  const rebuildCard = card(
    'rebuild',
    t('rebuildTitle'),
    t('rebuildHint'),
    h(
      'div',
      { class: 'dma-actions' },
      button(t('rebuild'), async () => {
        const r = await ctx.run('rebuild', {}, rebuildLine)
        if (r === undefined) return
        rebuildLine.ok(t('rebuilt', { entries: r.entries, scanned: r.scanned, skipped: r.skipped }), ...r.warnings.map((w) => h('span', { class: 'dma-hint' }, ` ${w}`)))
        await ctx.refreshStatus()
      }, '', { 'data-action': 'rebuild' }),
    ),
    rebuildLine.el,
  )

  // ---- consolidate ---------------------------------------------------------------------------
  const consolidateLine = new ResultLine()
  /** The report in the panel's language, then its guidance as the server wrote it. */
  const report = (r: Ops['consolidate']['result'], lead: string): Array<string | Node> => [
    h('strong', null, lead),
    t('consolidateCounts', {
      promoted: r.promoted.length,
      reinforced: r.reinforced.length,
      reflected: r.reflected.length,
      exchanges: r.exchanges.length,
      merged: r.merged.length,
      archived: r.archived.length,
      decayed: r.decayed.length,
      stale: r.stale.length,
    }),
    ...(r.model !== undefined ? [' ', t('consolidateModel', { id: r.model.id, calls: r.model.calls, cached: r.model.cached, tokens: r.model.tokens, fallbacks: r.model.fallbacks.length })] : []),
    ...(r.degraded !== undefined ? [' ', h('span', { attrs: { 'data-role': 'consolidate-degraded' } }, t('consolidateDegraded', { reason: r.degraded.reason }))] : []),
    h('span', { class: 'dma-hint', attrs: { 'data-role': 'consolidate-guidance' } }, ` ${r.guidance}`),
  ]
  const consolidate = twoStep(t, {
    name: 'consolidate',
    label: t('consolidate'),
    question: t('consolidateConfirm'),
    yes: t('consolidateYes'),
    preview: async () => {
      consolidateLine.clear()
      const r = await ctx.run('consolidate', { dryRun: true }, consolidateLine)
      return r === undefined ? undefined : report(r, t('consolidatePreviewed'))
    },
    action: async () => {
      const r = await ctx.run('consolidate', { dryRun: false }, consolidateLine)
      if (r === undefined) return
      consolidateLine.ok(...report(r, t('consolidateDone')))
      await ctx.refreshStatus()
    },
  })
  const consolidateCard = card(
    'consolidate',
    t('consolidateTitle'),
    t('consolidateHint'),
    h('div', { class: 'dma-actions' }, consolidate.nodes[0]),
    consolidate.nodes[1],
    consolidateLine.el,
  )

  // ---- purge ---------------------------------------------------------------------------------
  const purgeLine = new ResultLine()
  const purgeHint = h('p', { class: 'dma-hint' })
  const purge = twoStep(t, {
    name: 'purge',
    label: t('purge'),
    question: t('purgeConfirm'),
    yes: t('purgeYes'),
    action: async () => {
      const r = await ctx.run('purgeDeleted', { includeTopics: false }, purgeLine)
      if (r === undefined) return
      purgeLine.ok(t('purged', { episodes: r.removed_episode_count, raw: r.removed_raw_count, skipped: r.skipped_topics }))
      await ctx.refreshStatus()
    },
  })
  const topicsHint = h('p', { class: 'dma-hint' })
  const topics = twoStep(t, {
    name: 'purge-topics',
    label: t('purgeTopics'),
    question: t('purgeTopicsConfirm'),
    yes: t('purgeTopicsYes'),
    action: async () => {
      const r = await ctx.run('purgeDeleted', { includeTopics: true }, purgeLine)
      if (r === undefined) return
      purgeLine.ok(t('purgedTopics', { episodes: r.removed_episode_count, raw: r.removed_raw_count, topics: r.removed_topic_count }))
      await ctx.refreshStatus()
    },
  })
  const topicsBox = h('div', { class: 'dma-body', attrs: { 'data-role': 'purge-topics' } }, topicsHint, h('div', { class: 'dma-actions' }, topics.nodes[0]), topics.nodes[1])
  const purgeCard = card(
    'purge',
    t('purgeTitle'),
    purgeHint,
    h('div', { class: 'dma-actions' }, purge.nodes[0]),
    purge.nodes[1],
    topicsBox,
    purgeLine.el,
  )

  function drawPurge(status: Status): void {
    const { pendingCleanup, pendingTopics } = status.stats
    purgeHint.textContent = pendingCleanup > 0 ? t('purgeHint', { n: pendingCleanup }) : t('nothingToPurge')
    topicsHint.textContent = t('purgeTopicsHint', { n: pendingTopics })
    // "Purge topics too" exists only while there are soft-deleted topics to purge.
    topicsBox.hidden = pendingTopics === 0
    if (topicsBox.hidden) topics.close()
  }

  // ---- forget by session ---------------------------------------------------------------------
  const sessionsLine = new ResultLine()
  const sessionsList = h('ul', { class: 'dma-sessions', attrs: { 'data-role': 'sessions' } })

  async function loadSessions(): Promise<void> {
    const r = await ctx.run('listSessions', {}, sessionsLine)
    if (r === undefined) return
    if (r.sessions.length === 0) {
      replaceChildren(sessionsList, h('li', { class: 'dma-empty' }, t('sessionsEmpty')))
      return
    }
    replaceChildren(
      sessionsList,
      ...r.sessions.map((s) => {
        const forget = twoStep(t, {
          name: 'forget',
          label: t('forget'),
          question: t('forgetConfirm', { id: s.session_id }),
          yes: t('forgetYes'),
          action: async () => {
            const f = await ctx.run('forgetSession', { session_id: s.session_id, scope: 'include_shared_unlink' }, sessionsLine)
            if (f === undefined) return
            sessionsLine.ok(t('forgotten', { id: s.session_id, episodes: f.deleted_episode_count, raw: f.deleted_raw_count, unlinked: f.unlinked_topic_count }))
            await ctx.refreshStatus()
            await loadSessions()
          },
        })
        forget.nodes[0].classList.add('dma-btn-sm')
        return h(
          'li',
          { class: 'dma-session', attrs: { 'data-session': s.session_id } },
          h(
            'div',
            { class: 'dma-sessiontop' },
            h('div', null, h('code', null, s.session_id), h('p', { class: 'dma-hint' }, t('sessionCounts', { episodes: s.episodes, raw: s.raw, topics: s.topics, latest: formatTime(s.latest) }))),
            forget.nodes[0],
          ),
          forget.nodes[1],
        )
      }),
    )
  }

  const sessionsCard = card(
    'sessions',
    t('sessionsTitle'),
    t('sessionsHint'),
    sessionsList,
    sessionsLine.el,
  )

  // ---- sync ----------------------------------------------------------------------------------
  const syncLine = new ResultLine()
  const syncCard = card(
    'sync',
    t('syncTitle'),
    t('syncHint'),
    h(
      'div',
      { class: 'dma-actions' },
      button(t('sync'), async () => {
        const r = await ctx.run('sync', {}, syncLine)
        if (r === undefined) return
        const committed = r.committed.length
        const parts: Array<string | Node> = [
          r.remote === null
            ? t('syncLocal', { committed, branch: r.branch, repository: r.repository })
            : t('synced', { committed, branch: r.branch, repository: r.repository, pulled: r.pulled?.files ?? 0, pushed: t(r.pushed !== null ? 'syncPushed' : 'syncNotPushed') }),
        ]
        if (r.conflicts.length > 0) parts.push(' ', h('strong', null, t('syncConflicts', { n: r.conflicts.length })))
        for (const w of r.warnings) parts.push(h('span', { class: 'dma-hint' }, ` ${w}`))
        syncLine.ok(...parts)
        await ctx.refreshStatus()
      }, '', { 'data-action': 'sync' }),
    ),
    syncLine.el,
  )

  // ---- backfill from the host's sessions ------------------------------------------------------
  const backfillLine = new ResultLine()
  let backfillEstimate: HTMLButtonElement | null = null
  const backfillAbsent = h('p', { class: 'dma-hint', attrs: { 'data-role': 'backfill-unavailable' } }, t('backfillUnavailable'))
  /** Outside DSH there are no sessions to read: the buttons are disabled and say why, instead of answering 409. */
  function drawBackfill(status: Status): void {
    for (const b of [backfillEstimate, backfillRun.nodes[0]]) if (b instanceof HTMLButtonElement) b.disabled = !status.backfill
    backfillAbsent.hidden = status.backfill
  }
  const backfillRun = twoStep(t, {
    name: 'backfill-run',
    label: t('backfillRun'),
    question: t('backfillConfirm'),
    yes: t('backfillYes'),
    action: async () => {
      const r = await ctx.run('backfill', { dryRun: false }, backfillLine)
      if (r === undefined) return
      const parts: Array<string | Node> = [t('backfillDone', { turns: r.turnsDone, written: r.written.length, duplicates: r.duplicates, failed: r.failed, remaining: r.remaining })]
      if (r.interrupted) parts.push(' ', h('strong', null, t('backfillInterrupted')))
      for (const e of r.errors) parts.push(h('span', { class: 'dma-hint' }, ` ${e}`))
      backfillLine.ok(...parts)
      await ctx.refreshStatus()
    },
  })
  const backfillCard = card(
    'backfill',
    t('backfillTitle'),
    t('backfillHint'),
    h(
      'div',
      { class: 'dma-actions' },
      backfillEstimate = button(t('backfillEstimate'), async () => {
        const r = await ctx.run('backfill', { dryRun: true }, backfillLine)
        if (r === undefined) return
        backfillLine.ok(t('backfillEstimated', { sessions: r.sessions, turns: r.turns, done: r.alreadyDone, planned: r.planned, candidates: r.candidates, remaining: r.remaining }))
      }, '', { 'data-action': 'backfill-estimate' }),
      backfillRun.nodes[0],
    ),
    backfillRun.nodes[1],
    backfillAbsent,
    backfillLine.el,
  )

  // ---- export --------------------------------------------------------------------------------
  const exportLine = new ResultLine()
  const exportCard = card(
    'export',
    t('exportTitle'),
    t('exportHint'),
    h(
      'div',
      { class: 'dma-actions' },
      button(t('export'), async () => {
        const bundle = await ctx.run('export', {}, exportLine)
        if (bundle === undefined) return
        download(bundle)
        const parts: Array<string | Node> = [t('exported', { n: bundle.files.length })]
        if (bundle.truncated) parts.push(' ', h('strong', { attrs: { 'data-role': 'truncated' } }, t('exportTruncated', { n: bundle.omitted_files })))
        exportLine.ok(...parts)
      }, '', { 'data-action': 'export' }),
    ),
    exportLine.el,
  )

  const draw = (s: Status) => {
    drawPurge(s)
    drawBackfill(s)
  }
  const offStatus = ctx.onStatus(draw)
  const status = ctx.status()
  if (status !== null) draw(status)

  return {
    el: h('div', { class: 'dma-body', attrs: { 'data-view': 'maintenance' } }, rebuildCard, consolidateCard, purgeCard, sessionsCard, syncCard, backfillCard, exportCard),
    show() {
      void loadSessions()
    },
    dispose() {
      offStatus()
    },
  }
}

/** One card of the tab: its title, a hint (text, or an element the tab rewrites), then its controls. */
function card(name: string, title: string, hint: string | HTMLElement, ...controls: Child[]): HTMLElement {
  return h('section', { class: 'dma-card', attrs: { 'data-card': name } }, h('h3', null, title), typeof hint === 'string' ? h('p', { class: 'dma-hint' }, hint) : hint, ...controls)
}

/** Hands the bundle to the browser as a file download. */
function download(bundle: Bundle): void {
  const blob = new Blob([JSON.stringify(bundle, null, 2)], { type: 'application/json' })
  const url = URL.createObjectURL(blob)
  const stamp = bundle.exported_at.replace(/[:.]/g, '-')
  const a = h('a', { attrs: { href: url, download: `${bundle.root_name || 'memory'}-${stamp}.json`, hidden: true } })
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}
