/**
 * The standalone page of `memory-agent serve` (bundled as `client/panel.js`, an IIFE): takes the
 * key out of the address, picks the language (`?lang=`, then the last choice, then the browser's),
 * and mounts the panel under a small page bar. A new link opened in the same tab (only the
 * fragment changes) brings its key in without a reload.
 */

import { h } from './dom.js'
import { preferredLocale, type Locale } from './i18n.js'
import { browserKeyStore, captureKeyFromLocation } from './key.js'
import { mountPanel } from './panel.js'
import { installStyles } from './styles.js'
import { createTransport } from './transport.js'

const LOCALE_STORAGE = 'dsh-memory-agent:locale'

function initialLocale(): Locale {
  const asked = new URLSearchParams(location.search).get('lang')
  if (asked === 'zh' || asked === 'en') return asked
  try {
    const saved = localStorage.getItem(LOCALE_STORAGE)
    if (saved === 'zh' || saved === 'en') return saved
  } catch {
    // no storage: fall through to the browser's languages
  }
  return preferredLocale(navigator.languages.length > 0 ? navigator.languages : [navigator.language])
}

function boot(): void {
  const keys = browserKeyStore()
  captureKeyFromLocation(keys)
  const call = createTransport({ key: () => keys.get() })
  installStyles(document, 'adopted')
  document.body.classList.add('dma-page')
  const main = h('main', { class: 'dma-pagemain' })
  const host = document.getElementById('app') ?? document.body
  host.append(h('header', { class: 'dma-pagebar' }, h('h1', null, 'memory-agent'), h('span', null, 'dsh-memory-agent')), main)

  let locale = initialLocale()
  let dispose = (): void => undefined
  const mount = () => {
    dispose()
    document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en'
    dispose = mountPanel(main, {
      call,
      locale,
      keys,
      styles: 'adopted',
      onLocaleChange: (next) => {
        locale = next
        try {
          localStorage.setItem(LOCALE_STORAGE, next)
        } catch {
          // the choice lasts for this page
        }
        mount()
      },
    })
  }
  mount()
  window.addEventListener('hashchange', () => {
    if (captureKeyFromLocation(keys)) mount()
  })
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot, { once: true })
else boot()
