/**
 * The panel's DOM helper: `h(tag, props, ...children)` builds an element. Text always goes in as
 * text nodes (memory content is data and never becomes markup), and no inline `style` attribute
 * is ever set (the standalone page's CSP forbids them): looks come from classes only.
 */

export type Child = Node | string | number | null | undefined | false

export interface Props {
  class?: string
  /** Any attribute (aria-*, data-*, type, placeholder, ...); false or undefined leaves it out. */
  attrs?: Record<string, string | number | boolean | undefined>
  /** Element properties set directly (value, checked, disabled, ...). */
  props?: Record<string, unknown>
  on?: Partial<Record<keyof HTMLElementEventMap, (event: Event) => void>>
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, p: Props | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  if (p?.class !== undefined) el.className = p.class
  for (const [name, value] of Object.entries(p?.attrs ?? {})) {
    if (value === undefined || value === false) continue
    el.setAttribute(name, value === true ? '' : String(value))
  }
  for (const [name, value] of Object.entries(p?.props ?? {})) (el as unknown as Record<string, unknown>)[name] = value
  for (const [event, listener] of Object.entries(p?.on ?? {})) if (listener !== undefined) el.addEventListener(event, listener)
  append(el, children)
  return el
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child)
  }
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.textContent = ''
  append(parent, children)
}

/** A button; `busy` while its action runs, so a double click cannot start it twice. */
export function button(label: string, onClick: () => unknown, variant: '' | 'primary' | 'danger' | 'ghost' = '', extra: Props['attrs'] = {}): HTMLButtonElement {
  const b = h('button', { class: `dma-btn${variant === '' ? '' : ` dma-btn-${variant}`}`, attrs: { type: 'button', ...extra } }, label)
  b.addEventListener('click', () => {
    if (b.disabled) return
    b.disabled = true
    b.setAttribute('aria-busy', 'true')
    Promise.resolve()
      .then(onClick)
      .catch(() => undefined)
      .finally(() => {
        b.disabled = false
        b.removeAttribute('aria-busy')
      })
  })
  return b
}

/** A translated template whose `{name}` placeholders become the given nodes (commands as code, say). */
export function withNodes(template: string, nodes: Record<string, Node>): Node[] {
  return template.split(/(\{\w+\})/).map((part) => {
    const node = /^\{(\w+)\}$/.exec(part)?.[1]
    return node !== undefined && nodes[node] !== undefined ? nodes[node] : document.createTextNode(part)
  })
}

/** `2026-03-01 14:05` in the browser's time zone; the text as given if it is no date. */
export function formatTime(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}
