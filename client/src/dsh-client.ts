/**
 * The DSH client half (bundled as `client/client.js`, a ModuleLoader artifact): registers the
 * memory panel as a page of the web settings (`settings.section`, id `memory-agent`), labelled in
 * the active locale, and follows locale switches by remounting the panel. React is the host's
 * (shell-seeded, left external by the bundler). The key is taken from the page address when the
 * client boots (the host prints a link that carries it) and whenever the fragment changes.
 */

import { createElement, useEffect, useRef, useSyncExternalStore } from 'react'
import type { Call } from './api-types.js'
import { DICTIONARIES, type Locale } from './i18n.js'
import { browserKeyStore, captureKeyFromLocation, type KeyStore } from './key.js'
import { mountPanel } from './panel.js'
import { createTransport } from './transport.js'

/** The slice of the client context this plugin uses (services `slots` and `locale`). */
interface ClientContext {
  effect(execute: () => () => void, label?: string): void
  slots: {
    inject(slot: string, callback: () => () => void): void
    register(options: Record<string, unknown>, component: (props: SectionProps) => unknown): () => void
  }
  locale: {
    register(ns: string, dicts: Record<Locale, Record<string, string>>): () => void
    bind(ns: string): (key: string) => string
    getLocale(): { active: string }
    subscribe(listener: () => void): () => void
  }
}

/** What the section component gets besides the shell's own props: the panel's wiring. */
interface PanelFace {
  call: Call
  keys: KeyStore
  subscribe(listener: () => void): () => void
  getLocale(): Locale
}

interface SectionProps {
  memoryAgent: PanelFace
}

export const inject = ['slots', 'locale']

const NS = 'memory-agent'
/** After the host's own sections (Models 10, Plugins 15). */
const ORDER = 60

function MemorySection({ memoryAgent: face }: SectionProps): unknown {
  const ref = useRef<HTMLDivElement>(null)
  const locale = useSyncExternalStore(face.subscribe, face.getLocale)
  useEffect(() => {
    const el = ref.current
    if (el === null) return undefined
    return mountPanel(el, { call: face.call, keys: face.keys, locale, styles: 'tag' })
  }, [face, locale])
  return createElement('div', { ref, 'data-plugin': 'dsh-memory-agent' })
}

export function apply(ctx: ClientContext): void {
  ctx.effect(() => ctx.locale.register(NS, { zh: { nav: DICTIONARIES.zh.sectionLabel }, en: { nav: DICTIONARIES.en.sectionLabel } }), 'memory-agent: dictionaries')
  const t = ctx.locale.bind(NS)
  const keys = browserKeyStore()
  captureKeyFromLocation(keys)
  ctx.effect(() => {
    const onHash = () => void captureKeyFromLocation(keys)
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, 'memory-agent: panel key from the address')
  const face: PanelFace = {
    call: createTransport({ key: () => keys.get() }),
    keys,
    subscribe: (listener) => ctx.locale.subscribe(listener),
    getLocale: () => (ctx.locale.getLocale().active.toLowerCase().startsWith('zh') ? 'zh' : 'en'),
  }
  const injected = { memoryAgent: face }
  ctx.slots.inject('settings.section', () =>
    ctx.slots.register({ name: 'settings.section', id: 'memory-agent', order: ORDER, label: () => t('nav'), inject: () => injected }, MemorySection),
  )
}
