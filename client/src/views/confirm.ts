/**
 * Two-step confirmation for what cannot be undone: the first button only opens a box that says
 * what will happen, with the real action and a cancel. The action runs only from the box.
 */

import { button, h } from '../dom.js'
import type { Translate } from '../i18n.js'

export interface TwoStep {
  /** The first-step button and the (hidden) confirmation box, in that order. */
  nodes: [HTMLButtonElement, HTMLElement]
  close(): void
}

export function twoStep(t: Translate, opts: { label: string; question: string; yes: string; action: () => Promise<void>; name: string }): TwoStep {
  const box = h('div', { class: 'dma-confirm', attrs: { hidden: true, 'data-confirm': opts.name } })
  const close = () => {
    box.hidden = true
    first.disabled = false
  }
  const yes = button(opts.yes, async () => {
    await opts.action()
    close()
  }, 'danger', { 'data-action': `${opts.name}-yes` })
  box.append(h('p', null, opts.question), h('div', { class: 'dma-actions' }, yes, button(t('cancel'), close, '', { 'data-action': `${opts.name}-cancel` })))
  const first = h('button', { class: 'dma-btn dma-btn-danger', attrs: { type: 'button', 'data-action': opts.name } }, opts.label)
  first.addEventListener('click', () => {
    box.hidden = false
    first.disabled = true
    yes.focus()
  })
  return { nodes: [first, box], close }
}
