/**
 * History and time travel: memory_history (every version with its time, source, text and span),
 * asOf on memory_search_hybrid and memory_nav (the store as it was then, from the files still on
 * disk and the ledger), memory_lineage (sources, sessions, supersede chain, merges, events), and
 * the as-of replay itself: at or after now it gives today's statuses, whatever happened before.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  MemoryError,
  confirmHandler,
  forgetValueHandler,
  historyHandler,
  lineageHandler,
  mergeHandler,
  navHandler,
  rebuildIndex,
  resolveHandler,
  restore,
  searchHandler,
  signalsSettled,
  softDelete,
  viewAsOf,
  writeHandler,
} from '../src/api.js'
import { renderValue } from '../src/tools/render/text.js'
import { asOfView } from '../src/memory/time/as-of.js'
import { expectCode, tempStores } from './store-kit.js'

const newStore = tempStores('history-')
/** A store whose clock the test moves: ledger times and default memory times follow it. */
const clockedStore = (start = '2026-03-01T09:00:00.000Z') => newStore(start)

const day = (n: number) => `2026-03-${String(n).padStart(2, '0')}T09:00:00.000Z`

describe('memory_history', () => {
  it('lists every version oldest first with time, source, text and when each was current', async () => {
    const { backend, at } = await clockedStore()
    at(day(2))
    const v1 = await writeHandler(backend, { summary: '编辑器用 VS Code。', title: '编辑器', session_id: 's-2' })
    at(day(9))
    const v2 = await writeHandler(backend, { summary: '编辑器换成了 Neovim。', title: '编辑器', session_id: 's-9', source: 'session' })
    at(day(20))
    const v3 = await writeHandler(backend, { summary: '编辑器又换回 VS Code，配 Vim 插件。', title: '编辑器', source: 'user' })
    at(day(25))

    for (const asked of [v1.id, v2.id, v3.id]) {
      const h = await historyHandler(backend, { id: asked })
      expect(h.versions.map((v) => v.id)).toEqual([v1.id, v2.id, v3.id])
      expect(h.current).toEqual([v3.id])
    }
    const h = await historyHandler(backend, { id: v1.id })
    expect(h.slot).toBe('编辑器')
    const [a, b, c] = h.versions
    expect(a).toMatchObject({ status: 'superseded', time: day(2), recorded_at: day(2), source: { session_id: 's-2', kind: 'session' }, text: '编辑器用 VS Code。' })
    expect(a).toMatchObject({ current_from: day(2), current_until: day(9), superseded_by: v2.id, forgotten: false })
    expect(b).toMatchObject({ current_from: day(9), current_until: day(20), supersedes: v1.id, superseded_by: v3.id })
    expect(c).toMatchObject({ status: 'active', current_from: day(20), current_until: null, source: { session_id: null, kind: 'user' } })
    expect(h.omitted).toBe(0)

    expect(renderValue('memory_history', h).split('\n').slice(0, 2)).toEqual([
      'History of 编辑器:',
      `- ${v1.id} [superseded] stated 2026-03-02 by s-2, current 2026-03-02 → 2026-03-09: 编辑器用 VS Code。`,
    ])
    const limited = await historyHandler(backend, { id: v1.id, limit: 2 })
    expect(limited.versions.map((v) => v.id)).toEqual([v2.id, v3.id])
    expect(limited.omitted).toBe(1)
    expect(limited.guidance).toContain('raise limit')
  })

  it('keeps details below the summary in the text, and withholds the text of a forgotten version', async () => {
    const { backend, root, at } = await clockedStore()
    const v1 = await writeHandler(backend, { summary: 'The API listens on 8080.', title: 'API port' })
    // A person adds details below the summary paragraph.
    const file = path.join(root, v1.path)
    await fs.appendFile(file, '\nBehind nginx; health check on /healthz.\n')
    at(day(3))
    const v2 = await writeHandler(backend, { summary: 'The API listens on 9090 now.', title: 'API port' })
    await forgetValueHandler(backend, { id: v2.id })
    const h = await historyHandler(backend, { id: v1.id })
    expect(h.versions[0]?.text).toBe('The API listens on 8080.\n\nBehind nginx; health check on /healthz.')
    expect(h.versions[1]).toMatchObject({ id: v2.id, status: 'deleted_pending', forgotten: true, title: null, summary: null, text: null })
    expect(JSON.stringify(h)).not.toContain('9090')
    expect(h.current).toEqual([])
  })

  it('a raw id leads to its episode; an unknown id is NOT_FOUND; a bad limit is INVALID_INPUT', async () => {
    const { backend } = await clockedStore()
    const ep = await writeHandler(backend, { summary: 'Debugged the login page.', raw: 'user: login 500s', session_id: 's1' })
    const h = await historyHandler(backend, { id: `${ep.id}-raw` })
    expect(h.id).toBe(ep.id)
    expect(h.versions).toHaveLength(1)
    expect(h.versions[0]?.raw_ref).toBe(ep.raw_ref)
    await expectCode(historyHandler(backend, { id: 'mem_nope' }), 'NOT_FOUND')
    await expectCode(historyHandler(backend, { id: ep.id, limit: 0 }), 'INVALID_INPUT')
  })
})

describe('asOf on search and nav', () => {
  it('answers with the version current then (clock-controlled ledger)', async () => {
    const { backend, at } = await clockedStore()
    at(day(2))
    const veg = await writeHandler(backend, { summary: '我的饮食是素食。', title: '饮食' })
    at(day(15))
    const meat = await writeHandler(backend, { summary: '我最近开始吃鸡胸肉了，不再只吃素。', title: '饮食' })
    at(day(30))

    const now = await searchHandler(backend, { query: '饮食' })
    expect(now.hits.map((h) => h.id)).toEqual([meat.id])
    const then = await searchHandler(backend, { query: '饮食', asOf: day(10) })
    expect(then.hits.map((h) => h.id)).toEqual([veg.id])
    expect(then.hits[0]?.status).toBe('active')
    const before = await searchHandler(backend, { query: '饮食', asOf: day(1) })
    expect(before.hits).toEqual([])
    // Not "no searchable memories yet": the store has two, both written after that day.
    expect(before.guidance).toBe(`No memory was searchable as of ${day(1)}: what the store holds was written, or became active, later. Search without asOf for what is known now.`)
    // The boundary: a version is current from the moment it was stated.
    expect((await searchHandler(backend, { query: '饮食', asOf: day(15) })).hits.map((h) => h.id)).toEqual([meat.id])

    const page = await navHandler(backend, { asOf: day(10) })
    expect(page.entries.map((e) => [e.id, e.status])).toEqual([[veg.id, 'active']])
    const later = await navHandler(backend, { asOf: day(20), sort: 'oldest' })
    expect(later.entries.map((e) => [e.id, e.status])).toEqual([
      [veg.id, 'superseded'],
      [meat.id, 'active'],
    ])
    // A memory that did not exist yet cannot be opened as of then; one that did can.
    await expectCode(navHandler(backend, { path: meat.id, asOf: day(10) }), 'NOT_FOUND')
    await expectCode(navHandler(backend, { path: meat.path, asOf: day(10) }), 'NOT_FOUND')
    expect((await navHandler(backend, { path: veg.id, asOf: day(10) })).entries[0]?.status).toBe('active')
  })

  it("uses the memory's stated time when writes are back-dated (ledger times are all today)", async () => {
    const { backend } = await newStore()
    const v1 = await writeHandler(backend, { summary: 'Standup is at 9:30.', title: 'Standup time', time: '2026-01-05T08:00:00Z' })
    const v2 = await writeHandler(backend, { summary: 'Standup moved to 10:00.', title: 'Standup time', time: '2026-02-01T08:00:00Z' })
    const hits = async (asOf: string) => (await searchHandler(backend, { query: 'standup', asOf })).hits.map((h) => h.id)
    expect(await hits('2026-01-20T00:00:00Z')).toEqual([v1.id])
    expect(await hits('2026-02-02T00:00:00Z')).toEqual([v2.id])
    expect(await hits('2025-12-31T00:00:00Z')).toEqual([])
    const h = await historyHandler(backend, { id: v2.id })
    expect(h.versions.map((v) => [v.current_from, v.current_until])).toEqual([
      ['2026-01-05T08:00:00.000Z', '2026-02-01T08:00:00.000Z'],
      ['2026-02-01T08:00:00.000Z', null],
    ])
  })

  it('follows the confirmation gate, conflicts and their resolution in time', async () => {
    const { backend, at } = await clockedStore()
    at(day(1))
    const gated = await writeHandler(backend, { summary: 'Deploys go out on Tuesdays.', title: 'Deploy day', requireConfirmation: true })
    at(day(4))
    await confirmHandler(backend, { id: gated.id })
    at(day(6))
    const rival = await writeHandler(backend, { summary: 'Deploys go out on Thursdays.', title: 'Deploy day', expectConflict: true })
    at(day(8))
    await resolveHandler(backend, { id: rival.id, action: 'keep' })
    at(day(10))
    const status = async (asOf: string) => {
      const view = await asOfView(backend, asOf)
      return [view.get(gated.id)?.status ?? null, view.get(rival.id)?.status ?? null]
    }
    expect(await status(day(2))).toEqual(['suggested', null])
    expect(await status(day(5))).toEqual(['active', null])
    expect(await status(day(7))).toEqual(['conflict', 'conflict'])
    expect((await asOfView(backend, day(7))).get(gated.id)?.variants).toEqual([rival.id])
    expect(await status(day(9))).toEqual(['superseded', 'active'])
    expect((await searchHandler(backend, { query: 'deploys', asOf: day(2) })).hits).toEqual([])
    expect((await searchHandler(backend, { query: 'deploys', asOf: day(7) })).hits).toHaveLength(2)
  })

  it('never shows what is forgotten now, at any time; a restored memory comes back for the times it was there', async () => {
    const { backend, at } = await clockedStore()
    at(day(1))
    const pin = await writeHandler(backend, { summary: 'Door code is 4711.', title: 'Door code' })
    const other = await writeHandler(backend, { summary: 'The office opens at 8.', title: 'Office hours' })
    at(day(5))
    await forgetValueHandler(backend, { id: pin.id })
    at(day(6))
    await softDelete(backend, other.id)
    at(day(8))
    await restore(backend, other.id)
    at(day(9))
    for (const asOf of [day(1), day(3), day(7), day(9)]) {
      const found = await searchHandler(backend, { query: 'door code', asOf })
      expect(found.hits).toEqual([])
    }
    const office = async (asOf: string) => (await searchHandler(backend, { query: 'office', asOf })).hits.map((h) => h.id)
    expect(await office(day(3))).toEqual([other.id])
    expect(await office(day(7))).toEqual([])
    expect(await office(day(9))).toEqual([other.id])
  })

  it('rejects an asOf that is not a date-time, naming the field', async () => {
    const { backend } = await clockedStore()
    const err = await expectCode(searchHandler(backend, { query: 'x', asOf: 'yesterday' }), 'INVALID_INPUT')
    expect(err.field).toBe('asOf')
    await expectCode(navHandler(backend, { asOf: '2026-13-45' }), 'INVALID_INPUT')
  })

  it('does not record as-of searches as usage', async () => {
    const { backend, root } = await clockedStore()
    await writeHandler(backend, { summary: 'The cache TTL is five minutes.', title: 'Cache TTL' })
    await searchHandler(backend, { query: 'cache', asOf: day(20) })
    await signalsSettled(backend)
    await expect(fs.readFile(path.join(root, 'usage.jsonl'), 'utf8')).rejects.toThrow()
  })
})

describe('the as-of replay', () => {
  it('a hand-written superseded file without ledger events is superseded from when its successor was stated', async () => {
    const { backend, root, at } = await clockedStore()
    at(day(1))
    await backend.init()
    await fs.writeFile(path.join(root, 'topics', 'port-old.md'), "---\nid: mem_old\ntitle: Port\nkey: Port\ntime: '2026-03-01T00:00:00Z'\nstatus: superseded\nsuperseded_by: mem_new\n---\n# Port\n\nPort 1.\n")
    await fs.writeFile(path.join(root, 'topics', 'port-new.md'), "---\nid: mem_new\ntitle: Port\nkey: Port\ntime: '2026-03-10T00:00:00Z'\nsupersedes: mem_old\n---\n# Port\n\nPort 2.\n")
    const view = async (asOf: string) => {
      const v = await asOfView(backend, asOf)
      return [v.get('mem_old')?.status ?? null, v.get('mem_new')?.status ?? null]
    }
    expect(await view(day(5))).toEqual(['active', null])
    expect(await view(day(12))).toEqual(['superseded', 'active'])
    const h = await historyHandler(backend, { id: 'mem_new' })
    expect(h.versions.map((v) => [v.id, v.recorded_at, v.current_until])).toEqual([
      ['mem_old', null, '2026-03-10T00:00:00.000Z'],
      ['mem_new', null, null],
    ])
  })

  it('at or after the last event, the as-of view holds every memory not forgotten, with its status of now', { timeout: 120_000 }, async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), key: fc.constantFrom('a', 'b', 'c'), gated: fc.boolean(), conflict: fc.boolean(), offset: fc.integer({ min: -5, max: 5 }) }),
      fc.record({ kind: fc.constantFrom('confirm' as const, 'keep' as const, 'drop' as const, 'forget' as const, 'delete' as const, 'restore' as const), pick: fc.nat(20) }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const { backend, at } = await clockedStore()
        const ids: string[] = []
        let n = 1
        for (const o of ops) {
          at(day(n++))
          const pick = () => ids[('pick' in o ? o.pick : 0) % Math.max(1, ids.length)] ?? 'mem_none'
          try {
            if (o.kind === 'write') {
              const time = o.offset !== 0 ? { time: day(Math.min(28, Math.max(1, n + o.offset))) } : {}
              const w = await writeHandler(backend, { summary: `Fact ${o.key} number ${n}.`, key: o.key, requireConfirmation: o.gated, expectConflict: o.conflict, ...time })
              ids.push(w.id)
            } else if (o.kind === 'confirm') await confirmHandler(backend, { id: pick() })
            else if (o.kind === 'keep' || o.kind === 'drop') await resolveHandler(backend, { id: pick(), action: o.kind })
            else if (o.kind === 'forget') await forgetValueHandler(backend, { id: pick() })
            else if (o.kind === 'delete') await softDelete(backend, pick())
            else await restore(backend, pick())
          } catch (err) {
            if (!(err instanceof MemoryError)) throw err
          }
        }
        const live = [...(await backend.indexView()).values()]
        const later = viewAsOf(live, await backend.readLedger(), Date.parse('2027-01-01T00:00:00Z'))
        for (const e of live) {
          if (e.status === 'deleted_pending') expect(later.get(e.id)).toBeUndefined()
          else expect(later.get(e.id)?.status, `${e.id} (${e.key}) in ${JSON.stringify(ops)}`).toBe(e.status)
        }
        expect(later.size).toBe(live.filter((e) => e.status !== 'deleted_pending').length)
      }),
      { numRuns: 40 },
    )
  })
})

describe('memory_lineage', () => {
  it('shows sources, the sessions that repeated it, the supersede chain, raw text and ledger events', async () => {
    const { backend, at } = await clockedStore()
    at(day(1))
    const first = await writeHandler(backend, { summary: 'CI runs on Node 20.', title: 'CI Node version', session_id: 'sess-a' })
    at(day(2))
    const again = await writeHandler(backend, { summary: 'CI runs on Node 20.', title: 'CI Node version', session_id: 'sess-b' })
    expect(again.dedupe).toBe('exact')
    at(day(3))
    const second = await writeHandler(backend, { summary: 'CI runs on Node 22 now.', title: 'CI Node version', session_id: 'sess-c' })
    at(day(4))
    const third = await writeHandler(backend, { summary: 'CI runs on Node 24.', title: 'CI Node version', session_id: 'sess-d' })

    const l = await lineageHandler(backend, { id: second.id })
    expect(l.chain.map((c) => [c.id, c.relation])).toEqual([
      [first.id, 'older'],
      [second.id, 'self'],
      [third.id, 'newer'],
    ])
    expect(l.sources).toEqual([{ session_id: 'sess-c', kind: 'session' }])
    expect(l.events.map((e) => [e.event, e.role])).toEqual([
      ['supersede', 'subject'],
      ['write', 'subject'],
      ['supersede', 'related'],
    ])
    expect(l.events[1]?.detail).toMatchObject({ id: second.id, status: 'active', session_id: 'sess-c' })
    expect(l.merges).toEqual({ merged_from: [], merged_into: null })

    expect(renderValue('memory_lineage', l)).toContain(`Chain: ${first.id} (superseded, 2026-03-01) → *${second.id} (superseded, 2026-03-03) → ${third.id} (active, 2026-03-04)`)
    const root = await lineageHandler(backend, { id: first.id })
    expect(root.sessions).toEqual(['sess-a', 'sess-b'])
    expect(root.events.map((e) => e.event)).toEqual(['write', 'dedupe', 'supersede'])

    const ep = await writeHandler(backend, { summary: 'Paired on the flaky test.', raw: 'user: the test flakes\nassistant: a race in setup', session_id: 'sess-e' })
    const le = await lineageHandler(backend, { id: ep.id })
    expect(le).toMatchObject({ raw_ref: ep.raw_ref, episode: null, sessions: ['sess-e'] })
    await expectCode(lineageHandler(backend, { id: `${ep.id}-raw` }), 'INVALID_STATE')
    await expectCode(lineageHandler(backend, { id: 'mem_missing' }), 'NOT_FOUND')
  })

  it('shows what memory_merge folded, both ways; as of before the merge both were current', async () => {
    const { backend, at } = await clockedStore()
    at(day(1))
    const a = await writeHandler(backend, { summary: 'The build cache lives in /var/cache/build on the runner.', title: 'Build cache' })
    at(day(2))
    const b = await writeHandler(backend, { summary: 'The build cache lives in /var/cache/build on the runner!', title: 'Runner cache dir' })
    at(day(5))
    await mergeHandler(backend, { ids: [a.id, b.id], into: a.id, dryRun: false })
    at(day(6))
    expect((await lineageHandler(backend, { id: a.id })).merges).toEqual({ merged_from: [b.id], merged_into: null })
    const folded = await lineageHandler(backend, { id: b.id })
    expect(folded.merges).toEqual({ merged_from: [], merged_into: a.id })
    expect(folded.events.map((e) => [e.event, e.role])).toContainEqual(['merge', 'related'])
    const status = async (asOf: string) => (await asOfView(backend, asOf)).get(b.id)?.status
    expect(await status(day(3))).toBe('active')
    expect(await status(day(5))).toBe('superseded')
  })

  it('reads merges from the front-matter and from merge events, and shows only skeletons once forgotten', async () => {
    const { backend, root, at } = await clockedStore()
    at(day(1))
    const kept = await writeHandler(backend, { summary: 'Tabs are four spaces wide.', title: 'Tab width' })
    const file = path.join(root, kept.path)
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('---\n# ', 'merged_from:\n  - mem_gone1\n---\n# '))
    await backend.appendLedger({ at: day(2), event: 'merge', id: kept.id, ids: [kept.id, 'mem_gone2'] })
    const l = await lineageHandler(backend, { id: kept.id })
    expect(l.merges).toEqual({ merged_from: ['mem_gone1', 'mem_gone2'], merged_into: null })

    at(day(3))
    const secret = await writeHandler(backend, { summary: 'The vault phrase is orange-harbor-42.', title: 'Vault phrase', session_id: 's-v' })
    await forgetValueHandler(backend, { query: 'vault phrase' })
    const f = await lineageHandler(backend, { id: secret.id })
    expect(f).toMatchObject({ forgotten: true, title: null, status: 'deleted_pending' })
    expect(f.events.map((e) => e.event)).toEqual(['write', 'forget'])
    expect(JSON.stringify(f)).not.toContain('orange-harbor')
    expect(JSON.stringify(f.events)).not.toContain('vault phrase')
    expect(await rebuildIndex(backend)).toMatchObject({ badIndexLines: 0 })
  })
})
