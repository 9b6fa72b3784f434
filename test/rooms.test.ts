/**
 * Rooms and placards: locations given at write time (by kind, 9 a room, overflow rooms, slots
 * never reused, a new version where the old one stood), rooms.json rebuilt from the ledger when
 * lost, the tour order, and the placard check with its score and hint.
 */

import { existsSync, promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  TOOLS,
  createFileBackend,
  flushCaches,
  outputViolation,
  forgetValueHandler,
  navHandler,
  purgeHandler,
  rebuildIndex,
  roomsHandler,
  writeHandler,
  type MemoryBackend,
} from '../src/api.js'
import {
  allocate,
  checkPlacard,
  claimWing,
  COMPACT_MIN,
  Palace,
  parseLocation,
  reconcile,
  ROOM_CAPACITY,
  ROOMS_FILE,
  ROOMS_LOG_FILE,
  roomCollisions,
  tourKey,
  WING_FILE,
} from '../src/memory/organisation/rooms.js'
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

  it('the wing is read once, not per write; a wing file changed on disk is taken up by the next keyless write', async () => {
    const { backend, root } = await store()
    let wingReads = 0
    // The real backend, counting the reads of the wing file that go through it.
    const counting: MemoryBackend = Object.create(backend, {
      readFile: { value: (rel: string) => ((wingReads += rel === WING_FILE ? 1 : 0), backend.readFile(rel)) },
    }) as MemoryBackend
    expect((await writeHandler(counting, { summary: '周一的例会改到十点 first' })).location).toBe('topics#1')
    for (let i = 0; i < 5; i++) await writeHandler(counting, { summary: `Standup notes number ${i} are kept in the wiki` })
    expect(wingReads).toBe(0)
    // Another wing written by hand (as a sync of another clone would not, but a person might).
    await fs.writeFile(path.join(root, WING_FILE), '{"wing":"zzqqx"}\n')
    expect((await writeHandler(counting, { summary: '新的一条：周五下午发布' })).location).toBe('topics-zzqqx#1')
    expect(wingReads).toBe(1)
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

describe('the room state: a snapshot and a log', () => {
  const ROOM_STATE = new Set([ROOMS_FILE, ROOMS_LOG_FILE])

  /** The backend with every byte of room state it writes or reads counted. */
  function counting(backend: MemoryBackend): { backend: MemoryBackend; io: { written: number; read: number } } {
    const io = { written: 0, read: 0 }
    const wrapped = new Proxy(backend, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown
        if (typeof value !== 'function') return value
        if (prop === 'writeFileAtomic' || prop === 'appendText') {
          return (relPath: string, text: string, options?: unknown) => {
            if (ROOM_STATE.has(relPath)) io.written += Buffer.byteLength(text)
            return (value as (...a: unknown[]) => unknown).call(target, relPath, text, options)
          }
        }
        if (prop === 'readFile') {
          return async (relPath: string) => {
            const text = (await (value as (p: string) => Promise<string | null>).call(target, relPath)) as string | null
            if (ROOM_STATE.has(relPath) && text !== null) io.read += Buffer.byteLength(text)
            return text
          }
        }
        return (value as (...a: unknown[]) => unknown).bind(target)
      },
    })
    return { backend: wrapped, io }
  }

  /** A palace of `rooms` full rooms, in rooms.json alone: as older versions left a store of rooms * 9 memories. */
  async function palaceOf(root: string, rooms: number, used = ROOM_CAPACITY): Promise<void> {
    const list = Array.from({ length: rooms }, (_, i) => ({ room: i === 0 ? 'topics' : `topics-${i + 1}`, kind: 'topics', used }))
    await fs.writeFile(path.join(root, ROOMS_FILE), `${JSON.stringify({ capacity: ROOM_CAPACITY, rooms: list }, null, 2)}\n`)
  }

  async function perWrite(rooms: number): Promise<{ written: number; read: number }> {
    const { backend, root } = await store()
    await palaceOf(root, rooms)
    const c = counting(backend)
    // The first write reads the snapshot once, as a process does once.
    await writeTopics(c.backend, 1)
    c.io.written = 0
    c.io.read = 0
    const n = 20
    await writeTopics(c.backend, n, 1)
    return { written: c.io.written / n, read: c.io.read / n }
  }

  it('a write writes and reads as many bytes of room state at 5,000 rooms as at 50', async () => {
    const small = await perWrite(50)
    const large = await perWrite(5000)
    console.log(`room state per write: ${small.written} B written, ${small.read} B read at 50 rooms; ${large.written} B written, ${large.read} B read at 5,000`)
    expect(small.written).toBeGreaterThan(0)
    expect(small.written).toBeLessThan(100)
    expect(large.written).toBeLessThanOrEqual(small.written)
    expect(large.read).toBe(0)
  })

  it('reads rooms.json as older versions left it; the log is folded into it once it is long', async () => {
    const { root } = await store()
    await palaceOf(root, 1, 5)
    await fs.mkdir(path.join(root, '.cache'), { recursive: true })
    await fs.writeFile(path.join(root, WING_FILE), '{"wing":null}\n')
    const backend = createFileBackend(root)
    expect((await writeHandler(backend, { summary: 'After the old rooms.json.' })).location).toBe('topics#6')
    expect(await fs.readFile(path.join(root, ROOMS_LOG_FILE), 'utf8')).toBe('{"room":"topics","used":6}\n')
    // A log one line short of COMPACT_MIN: the next write folds it into the snapshot.
    await fs.appendFile(path.join(root, ROOMS_LOG_FILE), '{"room":"topics","used":6}\n'.repeat(COMPACT_MIN - 2))
    const next = createFileBackend(root)
    expect((await writeHandler(next, { summary: 'The write that folds the log.' })).location).toBe('topics#7')
    expect(existsSync(path.join(root, ROOMS_LOG_FILE))).toBe(false)
    expect(JSON.parse(await fs.readFile(path.join(root, ROOMS_FILE), 'utf8')).rooms).toEqual([{ room: 'topics', kind: 'topics', used: 7 }])
    await flushCaches(next)
    await flushCaches(backend)
  })

  it('after a crash (a torn log line, a lost one, a log left beside its snapshot) no slot is given twice', async () => {
    const { backend, root } = await store()
    const w = await writeTopics(backend, 4)
    expect(w.map((x) => x.location)).toEqual(['topics#1', 'topics#2', 'topics#3', 'topics#4'])
    const log = path.join(root, ROOMS_LOG_FILE)
    const lines = (await fs.readFile(log, 'utf8')).split('\n').filter((l) => l !== '')
    expect(lines).toHaveLength(3)
    // The last line torn, the one before lost: only the files know topics#3 and #4 were given.
    await fs.writeFile(log, `${lines[0]}\n${lines[2]!.slice(0, 9)}`)
    const after = createFileBackend(root)
    expect((await writeHandler(after, { summary: 'After the torn log.' })).location).toBe('topics#5')
    // The purged memory of the last slot leaves no trace in the files: the record of its slot does.
    await forgetValueHandler(after, { id: (await writeHandler(after, { summary: 'Soon purged.' })).id })
    const purged = [...(await after.indexView()).values()].find((e) => e.location === 'topics#6')!
    await purgeHandler(after, { id: purged.id })
    // A crash after the snapshot was written and before the log was removed: replayed, it changes nothing.
    const snapshot = JSON.parse(await fs.readFile(path.join(root, ROOMS_FILE), 'utf8')) as { rooms: Array<{ room: string; used: number }> }
    const logText = await fs.readFile(log, 'utf8')
    await fs.writeFile(path.join(root, ROOMS_FILE), JSON.stringify({ capacity: ROOM_CAPACITY, rooms: [{ room: 'topics', kind: 'topics', used: 6 }] }))
    expect(snapshot.rooms).toEqual([{ room: 'topics', kind: 'topics', used: 1 }])
    expect(logText.split('\n').filter((l) => l !== '').length).toBeGreaterThan(0)
    const again = createFileBackend(root)
    expect((await writeHandler(again, { summary: 'After the fold.' })).location).toBe('topics#7')
    expect((await roomsHandler(again, {})).rooms.map((r) => [r.room, r.used])).toEqual([['topics', 7]])
    for (const b of [after, again]) await flushCaches(b)
  })
})
