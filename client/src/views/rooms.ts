/**
 * The rooms tab: the memory palace as the model walks it (the `memory_rooms` tool through the
 * `rooms` op): every room in tour order with how many of its slots are used, and the current
 * memories standing in it by slot (room#slot, title, status). Each store is a palace of its own:
 * the personal store's when the panel's scope is Personal, else the project store's. Read-only: it
 * changes nothing and records no search.
 */

import type { RoomsListing, StoreName } from '../api-types.js'
import { ResultLine, type PanelContext } from '../context.js'
import { h, replaceChildren } from '../dom.js'
import type { MessageKey } from '../i18n.js'
import type { View } from './view.js'

type Room = RoomsListing['rooms'][number]
type Member = NonNullable<RoomsListing['members']>[number]

export function roomsView(ctx: PanelContext): View {
  const { t } = ctx
  const line = new ResultLine()
  const list = h('ol', { class: 'dma-rooms', attrs: { 'data-role': 'rooms' } })
  const unplacedEl = h('p', { class: 'dma-hint', attrs: { 'data-role': 'unplaced', hidden: true } })
  const whichEl = h('p', { class: 'dma-hint', attrs: { 'data-role': 'rooms-store', hidden: true } })
  const storeOf = (): StoreName => (ctx.scope() === 'user' ? 'user' : 'project')
  /** Bumped by every load: an answer to an older one is dropped. */
  let generation = 0

  function drawMember(m: Member): HTMLLIElement {
    return h(
      'li',
      { class: 'dma-slot', attrs: { 'data-id': m.id, 'data-location': m.location ?? '' } },
      h('code', { class: 'dma-slotloc' }, m.location ?? `#${m.slot}`),
      h('span', { class: 'dma-slottitle' }, m.title),
      h('span', { class: 'dma-badge', attrs: { 'data-status': m.status } }, t(`status_${m.status}` as MessageKey)),
    )
  }

  function drawRoom(room: Room, members: Member[], capacity: number): HTMLLIElement {
    return h(
      'li',
      { class: 'dma-room', attrs: { 'data-room': room.room } },
      h(
        'div',
        { class: 'dma-roomhead' },
        h('strong', { class: 'dma-roomname' }, room.room),
        h('span', { class: 'dma-hint' }, t('roomUsage', { current: room.current, used: room.used, capacity })),
      ),
      members.length > 0 ? h('ol', { class: 'dma-slots' }, ...members.map(drawMember)) : h('p', { class: 'dma-hint' }, t('roomEmpty')),
    )
  }

  async function load(): Promise<void> {
    const asked = ++generation
    list.setAttribute('aria-busy', 'true')
    const store = storeOf()
    whichEl.hidden = ctx.status()?.stores.user === undefined
    whichEl.dataset['store'] = store
    whichEl.textContent = t('roomsOf', { store: t(store === 'user' ? 'storeUser' : 'storeProject') })
    const top = await ctx.run('rooms', { store }, line)
    if (asked !== generation) return
    if (top === undefined) {
      list.removeAttribute('aria-busy')
      return
    }
    // One answer per room with memories in it; rooms are few (a room holds `capacity` slots).
    const members = await Promise.all(
      top.rooms.map(async (r) => (r.current > 0 ? ((await ctx.run('rooms', { room: r.room, store }, line))?.members ?? []) : [])),
    )
    if (asked !== generation) return
    if (top.rooms.length === 0) replaceChildren(list, h('li', { class: 'dma-empty' }, t('roomsEmpty')))
    else replaceChildren(list, ...top.rooms.map((r, i) => drawRoom(r, members[i] ?? [], top.capacity)))
    unplacedEl.hidden = top.unplaced === 0
    unplacedEl.textContent = t('roomsUnplaced', { n: top.unplaced })
    list.removeAttribute('aria-busy')
  }

  const card = h(
    'section',
    { class: 'dma-card', attrs: { 'data-card': 'rooms' } },
    h('h3', null, t('roomsTitle')),
    h('p', { class: 'dma-hint' }, t('roomsHint')),
    whichEl,
    line.el,
    list,
    unplacedEl,
  )

  const offScope = ctx.onScope(() => void load())

  return {
    el: h('div', { class: 'dma-body', attrs: { 'data-view': 'rooms' } }, card),
    show() {
      void load()
    },
    dispose() {
      offScope()
    },
  }
}
