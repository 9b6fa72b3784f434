/**
 * The settings tab: the behaviour settings (injection with its character budget, automatic
 * consolidation with its threshold and interval) saved together with "save settings" through
 * `config.set`, which writes `<root>/config.json`; and the resident-injection preview, drawn
 * with the switch and budget as they stand in the form. The server clamps every number; the
 * form shows what it kept.
 */

import type { RuntimeConfig } from '../api-types.js'
import { ResultLine, type PanelContext } from '../context.js'
import { button, h, replaceChildren } from '../dom.js'
import type { MessageKey } from '../i18n.js'
import type { View } from './view.js'

interface FieldSpec {
  key: keyof RuntimeConfig
  label: MessageKey
  hint: MessageKey
  range?: [number, number]
}

const FIELDS: readonly FieldSpec[] = [
  { key: 'requireConfirmation', label: 'requireConfirmation', hint: 'requireConfirmationHint' },
  { key: 'defaultBudget', label: 'defaultBudget', hint: 'defaultBudgetHint', range: [50, 100_000] },
  { key: 'maxTopK', label: 'maxTopK', hint: 'maxTopKHint', range: [1, 200] },
  { key: 'redactSecrets', label: 'redactSecrets', hint: 'redactSecretsHint' },
  { key: 'injectEnabled', label: 'injectEnabled', hint: 'injectEnabledHint' },
  { key: 'injectBudgetChars', label: 'injectBudgetChars', hint: 'injectBudgetCharsHint', range: [200, 8000] },
  { key: 'autoSettleEnabled', label: 'autoSettleEnabled', hint: 'autoSettleEnabledHint' },
  { key: 'consolidateAfterEpisodes', label: 'consolidateAfterEpisodes', hint: 'consolidateAfterEpisodesHint', range: [0, 100_000] },
  { key: 'consolidateMinIntervalMinutes', label: 'consolidateMinIntervalMinutes', hint: 'consolidateMinIntervalMinutesHint', range: [0, 10_080] },
  { key: 'consolidateModelTokensPerRun', label: 'consolidateModelTokensPerRun', hint: 'consolidateModelTokensPerRunHint', range: [0, 10_000_000] },
  { key: 'consolidateModelTokensPerDay', label: 'consolidateModelTokensPerDay', hint: 'consolidateModelTokensPerDayHint', range: [0, 100_000_000] },
]

export function settingsView(ctx: PanelContext): View {
  const { t } = ctx
  const controls = new Map<keyof RuntimeConfig, HTMLInputElement>()
  const line = new ResultLine()

  const form = h('div', { class: 'dma-form' })
  for (const f of FIELDS) {
    const id = `dma-setting-${f.key}`
    const control =
      f.range === undefined
        ? h('input', { class: 'dma-switch', attrs: { type: 'checkbox', id, 'data-setting': f.key } })
        : h('input', { class: 'dma-input', attrs: { type: 'number', id, min: f.range[0], max: f.range[1], step: 1, inputmode: 'numeric', 'data-setting': f.key } })
    controls.set(f.key, control)
    form.append(
      h('label', { class: 'dma-field', attrs: { for: id } }, h('span', { class: 'dma-field-label' }, t(f.label)), h('span', { class: 'dma-hint' }, t(f.hint))),
      control,
    )
  }

  function fill(config: RuntimeConfig): void {
    for (const [key, control] of controls) {
      const value = config[key]
      if (typeof value === 'boolean') control.checked = value
      else control.value = String(value)
    }
    syncInjectBudget()
  }

  /** The budget means nothing while injection is off. */
  function syncInjectBudget(): void {
    const budget = controls.get('injectBudgetChars')
    if (budget !== undefined) budget.disabled = controls.get('injectEnabled')?.checked === false
  }
  controls.get('injectEnabled')?.addEventListener('change', syncInjectBudget)

  /** The form as a config patch: booleans as checked, numbers that parse (the server clamps them). */
  function patch(): Partial<RuntimeConfig> {
    const out: Record<string, boolean | number> = {}
    for (const f of FIELDS) {
      const control = controls.get(f.key)
      if (control === undefined) continue
      if (f.range === undefined) out[f.key] = control.checked
      else if (control.value.trim() !== '' && Number.isFinite(Number(control.value))) out[f.key] = Number(control.value)
    }
    return out as Partial<RuntimeConfig>
  }

  async function save(): Promise<void> {
    const r = await ctx.run('config.set', patch(), line)
    if (r === undefined) return
    fill(r.config)
    const parts = [Object.keys(r.written).length > 0 ? t('settingsSaved') : t('settingsUnchanged')]
    if (r.replaced_invalid_file === true) parts.push(` ${t('settingsReplaced')}`)
    line.ok(...parts)
    await ctx.refreshStatus()
  }

  const settingsCard = h(
    'section',
    { class: 'dma-card', attrs: { 'data-card': 'settings' } },
    h('h3', null, t('settingsTitle')),
    h('p', { class: 'dma-hint' }, t('settingsHint', { file: 'config.json' })),
    form,
    h('div', { class: 'dma-actions' }, button(t('saveSettings'), save, 'primary', { 'data-action': 'save-settings' })),
    line.el,
  )

  // ---- injection preview ---------------------------------------------------------------------

  const previewLine = new ResultLine()
  const previewOut = h('div', { class: 'dma-body', attrs: { 'data-role': 'inject-preview', hidden: true } })

  async function preview(): Promise<void> {
    const p = patch()
    const args = { enabled: p.injectEnabled ?? true, ...(p.injectBudgetChars !== undefined ? { budgetChars: Math.min(8000, Math.max(200, Math.round(p.injectBudgetChars))) } : {}) }
    const r = await ctx.run('injectPreview', args, previewLine)
    if (r === undefined) return
    previewLine.clear()
    replaceChildren(
      previewOut,
      h('p', { class: 'dma-hint', attrs: { 'data-role': 'inject-summary' } }, t('injectSummary', { chars: r.text.length, budget: r.budgetChars, included: r.included, omitted: r.omitted })),
      r.text === '' ? h('p', { class: 'dma-empty' }, t('injectEmpty')) : h('pre', { class: 'dma-pre', attrs: { 'data-role': 'inject-text' } }, r.text),
    )
    previewOut.hidden = false
  }

  const injectCard = h(
    'section',
    { class: 'dma-card', attrs: { 'data-card': 'inject' } },
    h('h3', null, t('injectTitle')),
    h('p', { class: 'dma-hint' }, t('injectHint')),
    h('div', { class: 'dma-actions' }, button(t('injectPreview'), preview, '', { 'data-action': 'inject-preview' })),
    previewLine.el,
    previewOut,
  )

  const status = ctx.status()
  if (status !== null) fill(status.config)

  return {
    el: h('div', { class: 'dma-body', attrs: { 'data-view': 'settings' } }, settingsCard, injectCard),
  }
}
