/**
 * Rooms and placards: locations given at write time (by kind, 9 a room, overflow rooms, slots
 * never reused, a new version where the old one stood), rooms.json rebuilt from the ledger when
 * lost, the tour order, and the placard check with its score and hint.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  TOOLS,
  outputViolation,
  forgetValueHandler,
  navHandler,
  purgeHandler,
  rebuildIndex,
  roomsHandler,
  writeHandler,
  type MemoryBackend,
} from '../src/api.js'
import { allocate, checkPlacard, claimWing, Palace, parseLocation, reconcile, roomCollisions, tourKey, WING_FILE } from '../src/memory/organisation/rooms.js'
import { mergeMemoryText } from '../src/sync/merge.js'
import { IndexView } from '../src/store/index-view.js'
import type { IndexEntry } from '../src/types.js'
import { entryFromFile } from '../src/store/frontmatter.js'
import { renderValue } from '../src/tools/render/text.js'
import { expectCode, tempStores } from './store-kit.js'

const store = tempStores('dsh-rooms-')

function checked(name: string, value: unknown): void {
  const tool = TOOLS.find((t) => t.name === name)
  expect(tool).toBeDefined()
  expect(outputViolation(tool!.output, value)).toBeNull()
  expect(renderValue(name, value).length).toBeGreaterThan(0)
}

async function writeTopics(backend: MemoryBackend, n: number, from = 0): Promise<Array<{ id: string; location?: string }>> {
  const out = []
  for (let i = from; i < from + n; i++) out.push(await writeHandler(backend, { summary: `Fact number ${i}: the build uses cache layer ${i * 7}.` }))
  return out
}

describe('allocation (pure)', () => {
  it('fills a room to 9, then opens the next; kinds have rooms of their own', () => {
    const palace = new Palace()
    const got: string[] = []
    for (let i = 0; i < 10; i++) {
      const r = allocate(palace.last('topics'), 'topics')
      palace.raise(r.change)
      got.push(r.location)
    }
    expect(got.slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, i) => `topics#${i + 1}`))
    expect(got[9]).toBe('topics-2#1')
    const ep = allocate(palace.last('episodes'), 'episodes')
    expect(ep.location).toBe('episodes#1')
    palace.raise(ep.change)
    expect(palace.rooms.map((r) => r.room)).toEqual(['topics', 'topics-2', 'episodes'])
    // A mark never falls: an old log line replayed over a newer snapshot changes nothing.
    palace.raise({ room: 'topics', kind: 'topics', used: 4 })
    expect(palace.get('topics')?.used).toBe(9)
  })

  it('reconcile raises marks and appends unknown rooms; parseLocation reads overflow rooms', () => {
    const s = reconcile({ rooms: [{ room: 'topics', kind: 'topics', used: 3 }] }, ['topics#7', 'episodes-2#4', 'bad', undefined, 'episodes#2'])
    expect(s.rooms).toEqual([
      { room: 'topics', kind: 'topics', used: 7 },
      { room: 'episodes', kind: 'episodes', used: 2 },
      { room: 'episodes-2', kind: 'episodes', used: 4 },
    ])
    expect(parseLocation('topics-12#3')).toEqual({ room: 'topics-12', slot: 3, kind: 'topics', number: 12 })
    expect(parseLocation('topics#0')).toBeNull()
    expect(tourKey(s, 'episodes#1')).toEqual([1, 1])
    expect(tourKey(s, undefined)).toBeNull()
  })
})

describe('locations at write time', () => {
  it('gives topics and episodes their own rooms, in front-matter and index, and opens topics-2 after 9', async () => {
    const { backend, root } = await store()
    const written = await writeTopics(backend, 10)
    expect(written.map((w) => w.location)).toEqual([...Array.from({ length: 9 }, (_, i) => `topics#${i + 1}`), 'topics-2#1'])
    const ep = await writeHandler(backend, { summary: 'We paired on the flaky test today.', raw: 'log...', session_id: 's1' })
    expect(ep.location).toBe('episodes#1')
    checked('write_memory', ep)
    const text = await fs.readFile(path.join(root, ep.path), 'utf8')
    expect(text).toMatch(/^location: episodes#1$/m)
    const raw = await fs.readFile(path.join(root, ep.raw_ref!), 'utf8')
    expect(raw).not.toMatch(/location:/)
    const index = [...(await backend.indexView()).values()]
    expect(index.find((e) => e.id === ep.id)?.location).toBe('episodes#1')
    expect(index.find((e) => e.id === `${ep.id}-raw`)?.location).toBeUndefined()
    await rebuildIndex(root)
    const again = [...(await backend.indexView()).values()]
    expect(again.find((e) => e.id === ep.id)?.location).toBe('episodes#1')
    const ledger = await backend.readLedger()
    expect(ledger.filter((e) => e.event === 'write').map((e) => e.location)).toContain('topics-2#1')
  })

  it('a new version stands where the old one stood; a duplicate gets no new slot', async () => {
    const { backend } = await store()
    const a = await writeHandler(backend, { summary: 'The API listens on port 8080.', key: 'API port' })
    const b = await writeHandler(backend, { summary: 'Other fact.' })
    const a2 = await writeHandler(backend, { summary: 'The API now listens on port 9090.', key: 'API port' })
    expect(a2.superseded).toEqual([a.id])
    expect(a2.location).toBe(a.location)
    expect(b.location).toBe('topics#2')
    const dup = await writeHandler(backend, { summary: 'Other fact.' })
    expect(dup.dedupe).toBe('exact')
    expect(dup.location).toBeUndefined()
    expect((await writeHandler(backend, { summary: 'A third fact.' })).location).toBe('topics#3')
  })

  it('never reuses a slot, not even after a purge or with rooms.json deleted (rebuilt from the ledger)', async () => {
    const { backend, root } = await store()
    const w = await writeTopics(backend, 3)
    await forgetValueHandler(backend, { id: w[2]!.id })
    await purgeHandler(backend, { id: w[2]!.id })
    await fs.rm(path.join(root, 'rooms.json'))
    const next = await writeHandler(backend, { summary: 'After the purge.' })
    expect(next.location).toBe('topics#4')
    const state = JSON.parse(await fs.readFile(path.join(root, 'rooms.json'), 'utf8'))
    expect(state.rooms).toEqual([{ room: 'topics', kind: 'topics', used: 4 }])
  })

  it('a location a person wrote into a file is respected: the next slot comes after it', async () => {
    const { backend, root } = await store()
    await writeTopics(backend, 1)
    await fs.writeFile(path.join(root, 'topics/hand.md'), '---\nid: hand-1\nlocation: topics#6\n---\n# Hand\n\nWritten by hand.\n')
    // A read notices the hand edit (as any read after an edit or a git pull does).
    await navHandler(backend, {})
    const next = await writeHandler(backend, { summary: 'After the hand-written one.' })
    expect(next.location).toBe('topics#7')
  })
})

describe('placards', () => {
  it('scores unique 0.4 + dated 0.3 + differentiated 0.3 and hints at what to fix when the score is low', async () => {
    const { backend } = await store()
    const good = await writeHandler(backend, { summary: 'Moved CI to GitHub Actions.', title: 'CI moved to Actions (2026-03)' })
    expect(good.placard).toEqual({ score: 1, unique: true, differentiated: true, dated: true })
    const undated = await writeHandler(backend, { summary: 'Deploys go through Argo.', title: 'Deploy pipeline' })
    // Unique and distinct but undated: 0.7, no advice (a fact such as a port needs no month).
    expect(undated.placard).toEqual({ score: 0.7, unique: true, differentiated: true, dated: false })
    const lookalike = await writeHandler(backend, { summary: 'Deploy windows are Tuesdays.', title: 'Deploy windows 2026' })
    expect(lookalike.placard).toMatchObject({ differentiated: false, dated: true, score: 0.7 })
    expect(lookalike.placard?.hint).toBeUndefined()
    // Below 0.7 the hint names every fix, the date among them.
    const twin = await writeHandler(backend, { summary: 'Deploys are on Tuesdays now.', title: 'Deploy windows' })
    expect(twin.placard).toMatchObject({ unique: true, differentiated: false, dated: false, score: 0.4 })
    expect(twin.placard?.hint).toContain(undated.id)
    expect(twin.placard?.hint).toMatch(/add when it holds, such as \(\d{4}-\d{2}\)/)
    checked('write_memory', lookalike)
  })

  it('a title shared with another memory is not unique; its own older version does not count', () => {
    const base = entryFromFile('topics/a.md', '---\nid: a\ntitle: Port\nlocation: topics#1\nstatus: active\n---\n# Port\n\nx\n', 0)
    const other = entryFromFile('topics/b.md', '---\nid: b\ntitle: port\nlocation: episodes#1\nstatus: active\n---\n# port\n\ny\n', 0)
    const viewOf = (...entries: IndexEntry[]) => {
      const view = new IndexView()
      for (const e of entries) view.set(e)
      return view
    }
    expect(checkPlacard(base, viewOf(base, other), () => false)).toMatchObject({ unique: false, score: 0.3 })
    expect(checkPlacard(base, viewOf(base, other), (e) => e.id === 'b')).toMatchObject({ unique: true, score: 0.7 })
    const gone = { ...other, status: 'deleted_pending' as const }
    expect(checkPlacard(base, viewOf(base, gone), () => false).unique).toBe(true)
  })
})

describe('memory_rooms', () => {
  it('lists rooms in tour order with their latest memory, and one room by slot', async () => {
    const { backend } = await store()
    const w = await writeTopics(backend, 10)
    await writeHandler(backend, { summary: 'An episode.', raw: 'r', session_id: 's' })
    const all = await roomsHandler(backend, {})
    checked('memory_rooms', all)
    expect(all.rooms.map((r) => [r.room, r.used, r.free, r.current])).toEqual([
      ['topics', 9, 0, 9],
      ['topics-2', 1, 8, 1],
      ['episodes', 1, 8, 1],
    ])
    expect(all.rooms[1]?.latest?.id).toBe(w[9]!.id)
    const one = await roomsHandler(backend, { room: 'topics' })
    checked('memory_rooms', one)
    expect(one.members?.map((m) => m.slot)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    await expectCode(roomsHandler(backend, { room: 'kitchen' }), 'NOT_FOUND')
  })
})

describe('clones: wings and collisions', () => {
  const placed = (id: string, location: string, over: string = '') =>
    entryFromFile(`topics/${id}.md`, `---\nid: ${id}\ntime: '2026-01-0${id.length}T00:00:00.000Z'\nlocation: ${location}\n${over}---\n# ${id}\n\n${id} text\n`, 0)

  it('finds slots held by memories that are not versions of one fact; the one placed first keeps it (pure)', () => {
    const a = placed('a', 'topics#1')
    const b = placed('bb', 'topics#1')
    const v1 = placed('ccc', 'topics#2', 'key: api port\n')
    const v2 = placed('dddd', 'topics#2', 'key: api port\nstatus: superseded\n')
    const e = placed('eeeee', 'topics#2')
    const at = (x: IndexEntry) => x.time
    expect(roomCollisions([a, b, v1, v2, e], at)).toEqual([
      { location: 'topics#1', keeper: 'a', moving: [b] },
      { location: 'topics#2', keeper: 'ccc', moving: [e] },
    ])
    // Versions of one fact moving together; the write that gave the slot decides, then the id.
    expect(roomCollisions([e, v1, v2], (x) => (x.id === 'eeeee' ? '2020-01-01T00:00:00.000Z' : x.time))).toEqual([{ location: 'topics#2', keeper: 'eeeee', moving: [v1, v2] }])
    expect(roomCollisions([placed('x', 'topics#3'), placed('y', 'topics#3')], () => 'same')).toEqual([{ location: 'topics#3', keeper: 'x', moving: [placed('y', 'topics#3')] }])
    expect(roomCollisions([v1, v2], at)).toEqual([])
  })

  it('a store on its own gives the plain rooms; a clone, a store with a repository in its root, or one whose .cache/ is gone gets a wing', async () => {
    const { backend, root } = await store()
    expect((await writeHandler(backend, { summary: 'First fact.' })).location).toBe('topics#1')
    expect(JSON.parse(await fs.readFile(path.join(root, WING_FILE), 'utf8'))).toEqual({ wing: null })
    await fs.rm(path.join(root, '.cache'), { recursive: true })
    const after = await writeHandler(backend, { summary: 'Second fact.' })
    const wing = (JSON.parse(await fs.readFile(path.join(root, WING_FILE), 'utf8')) as { wing: string }).wing
    expect(wing).toMatch(/^[bcdfghjkmnpqrstvwxz]{5}$/)
    expect(after.location).toBe(`topics-${wing}#1`)
    expect(await claimWing(backend)).toBe(wing)

    const repo = await store()
    await fs.mkdir(path.join(repo.root, '.git'))
    expect((await writeHandler(repo.backend, { summary: 'In a repository.' })).location).toMatch(/^topics-[a-z]{5}#1$/)

    const alone = await store()
    await writeHandler(alone.backend, { summary: 'Alone.' })
    const claimed = await claimWing(alone.backend)
    expect((await writeHandler(alone.backend, { summary: 'After the first sync.' })).location).toBe(`topics-${claimed}#1`)
    // The plain rooms stay in the tour, before the wing.
    expect((await roomsHandler(alone.backend, {})).rooms.map((r) => r.room)).toEqual(['topics', `topics-${claimed}`])
  })

  it('a location both clones changed merges to the smaller one on every clone; moved_from merges as a set', () => {
    const file = (location: string, moved: string) => `---\nid: m\nlocation: ${location}\n${moved}---\n# m\n\nText.\n`
    const base = file('topics#1', '')
    const ours = file('topics-bcdfg#1', 'moved_from:\n  - topics#1\n')
    const theirs = file('topics-zxwvt#4', 'moved_from:\n  - topics#1\n')
    for (const [x, y] of [
      [ours, theirs],
      [theirs, ours],
    ] as const) {
      const merged = mergeMemoryText(base, x, y)
      expect(merged.kind).toBe('merged')
      const entry = entryFromFile('topics/m.md', merged.kind === 'merged' ? merged.text : '', 0)
      expect(entry.location).toBe('topics-bcdfg#1')
      expect(entry.moved_from).toEqual(['topics#1'])
    }
  })
})
