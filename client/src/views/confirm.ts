/**
 * Two-step confirmation for what cannot be undone (or should be looked at first): the first
 * button only opens a box that says what will happen, with the real action and a cancel. The
 * action runs only from the box. With `preview`, the first button asks it first (a dry run) and
 * the box shows what it answered; when it answers nothing (it failed), the box stays closed.
 */

import { append, button, h, replaceChildren } from '../dom.js'
import type { Translate } from '../i18n.js'

export interface TwoStep {
  /** The first-step button and the (hidden) confirmation box, in that order. */
  nodes: [HTMLButtonElement, HTMLElement]
  close(): void
}

export interface TwoStepOptions {
  label: string
  question: string
  yes: string
  action: () => Promise<void>
  name: string
  preview?: () => Promise<ReadonlyArray<string | Node> | undefined>
}

export function twoStep(t: Translate, opts: TwoStepOptions): TwoStep {
  const box = h('div', { class: 'dma-confirm', attrs: { hidden: true, 'data-confirm': opts.name } })
  const preview = opts.preview === undefined ? null : h('div', { class: 'dma-body', attrs: { 'data-role': `${opts.name}-preview` } })
  const close = () => {
    box.hidden = true
    first.disabled = false
  }
  const yes = button(opts.yes, async () => {
    await opts.action()
    close()
  }, 'danger', { 'data-action': `${opts.name}-yes` })
  append(box, [h('p', null, opts.question), preview, h('div', { class: 'dma-actions' }, yes, button(t('cancel'), close, '', { 'data-action': `${opts.name}-cancel` }))])
  const first = h('button', { class: 'dma-btn dma-btn-danger', attrs: { type: 'button', 'data-action': opts.name } }, opts.label)
  first.addEventListener('click', async () => {
    first.disabled = true
    if (preview !== null && opts.preview !== undefined) {
      const shown = await opts.preview()
      if (shown === undefined) {
        first.disabled = false
        return
      }
      replaceChildren(preview, ...shown)
    }
    box.hidden = false
    yes.focus()
  })
  return { nodes: [first, box], close }
}
