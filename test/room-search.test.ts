/**
 * Searching the palace (issue 29, item 5; seed 002's corridor): the room filter (a room, or a
 * kind with its overflow rooms), memories linked to a hit added below the hits and labelled, the
 * recency and importance boost (modest: it orders equal matches, it does not beat a clearly
 * better one), and the cues beside the hits (nearby slots, rooms to search next). Keyless free
 * text in Chinese and English, through the library and through the MCP server (built CLI).
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TOOLS, outputViolation, routeTool, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { boostOf, maxBoost, type SearchHit } from '../src/retrieve/search.js'
import { PALACE_SEARCH, buildPalaceLookup, palaceAddition } from '../src/memory/organisation/room-search.js'
import { IndexView } from '../src/store/index-view.js'
import type { IndexEntry } from '../src/types.js'
import { renderValue } from '../src/tools/render/text.js'
import { expectCode, tempStores } from './store-kit.js'
import { mcpClients, processEnv } from './mcp-kit.js'

const store = tempStores('dsh-room-search-')
const searchTool = TOOLS.find((t) => t.name === 'memory_search_hybrid')!

type Answer = Awaited<ReturnType<typeof searchHandler>>

function checked(answer: Answer): Answer {
  expect(outputViolation(searchTool.output, answer)).toBeNull()
  expect(renderValue('memory_search_hybrid', answer).length).toBeGreaterThan(0)
  return answer
}

const roomOfHit = (h: { location?: string }) => h.location?.split('#')[0]

/** Eleven keyless deploy notes, Chinese and English alternating: nine fill `topics`, two open `topics-2`. */
async function elevenNotes(backend: MemoryBackend): Promise<Array<{ id: string; location?: string }>> {
  const out = []
  for (let i = 0; i < 11; i++) {
    const summary = i % 2 === 0 ? `第${i}次部署在周${(i % 5) + 1}晚上进行，先备份数据库` : `Deploy ${i} runs on the release branch after the smoke test ${i * 3}`
    out.push(await writeHandler(backend, { summary }))
  }
  return out
}

describe('the room filter', () => {
  it('searches one room, or a kind with its overflow rooms; a room that holds nothing says so; a malformed one is refused naming the field', async () => {
    const { backend } = await store()
    const notes = await elevenNotes(backend)
    expect(notes.map((n) => n.location)).toContain('topics-2#1')
    const overflow = checked(await searchHandler(backend, { query: '部署 deploy', top_k: 20, room: 'topics-2' }))
    expect(overflow.hits.length).toBe(2)
    expect(overflow.hits.every((h) => roomOfHit(h) === 'topics-2')).toBe(true)
    expect(overflow.eligible).toBe(2)
    // The rooms beside a filtered room are the ones to search next.
    expect(overflow.rooms).toEqual(['topics'])
    const kind = checked(await searchHandler(backend, { query: '部署 deploy', top_k: 20, room: 'topics' }))
    expect(new Set(kind.hits.map(roomOfHit))).toEqual(new Set(['topics', 'topics-2']))
    const unfiltered = checked(await searchHandler(backend, { query: '部署 deploy', top_k: 20 }))
    expect(kind.hits.map((h) => h.id).sort()).toEqual(unfiltered.hits.map((h) => h.id).sort())
    expect(unfiltered.rooms).toEqual(['topics', 'topics-2'])
    const none = checked(await searchHandler(backend, { query: '部署', top_k: 5, room: 'episodes' }))
    expect(none.hits).toEqual([])
    expect(none.guidance).toMatch(/without some of the filters/)
    const bad = await expectCode(searchHandler(backend, { query: '部署', top_k: 5, room: 'Top ics#2' }), 'INVALID_INPUT')
    expect(bad.message).toMatch(/^room: expected a room name/)
  })
})

describe('memories linked to a hit', () => {
  it('are added below the hits, labelled with the hit they hang off, both ways along the links and only when they pass the filters', async () => {
    const { backend } = await store()
    // None of these shares a word with the query.
    const bucket = await writeHandler(backend, { summary: 'The backup bucket is s3://ops-archive in eu-west-1.' })
    const owner = await writeHandler(backend, { summary: '值班负责人是老周，电话在通讯录里。' })
    const hit = await writeHandler(backend, { summary: '每次部署前先备份数据库', links: [bucket.id] })
    const pointing = await writeHandler(backend, { summary: '值班手册第三章讲回滚', links: [hit.id, owner.id] })
    const answer = checked(await searchHandler(backend, { query: '部署', top_k: 5 }))
    expect(answer.hits[0]?.id).toBe(hit.id)
    const linked = answer.hits.filter((h) => h.reason === 'linked')
    expect(linked.map((h) => [h.id, h.linked_from])).toEqual([
      [bucket.id, hit.id],
      [pointing.id, hit.id],
    ])
    // Below every direct hit, with a lower score, and a ref of the same evidence batch.
    const firstLinked = answer.hits.findIndex((h) => h.reason === 'linked')
    expect(answer.hits.slice(firstLinked).every((h) => h.reason === 'linked')).toBe(true)
    expect(Math.max(...linked.map((h) => h.score))).toBeLessThan(Math.min(...answer.hits.slice(0, firstLinked).map((h) => h.score)))
    expect(linked.every((h) => typeof h.ref === 'string')).toBe(true)
    expect(answer.guidance).toMatch(/2 linked memories follow the hits/)
    expect(renderValue('memory_search_hybrid', answer)).toContain(`${bucket.id} [topic, active, linked from ${hit.id}: related, not a match]`)
    // Two hops away (owner, through pointing) is not one hop.
    expect(answer.hits.map((h) => h.id)).not.toContain(owner.id)
    // A filter holds for linked memories too.
    const tagged = checked(await searchHandler(backend, { query: '部署', top_k: 5, time_range: { from: '2000-01-01T00:00:00Z' }, room: 'episodes' }))
    expect(tagged.hits).toEqual([])
  })

  it('follows a link written by hand as [[id]] in a body', async () => {
    const { backend, root } = await store()
    const target = await writeHandler(backend, { summary: 'Rollback needs the previous image tag.' })
    const source = await writeHandler(backend, { summary: 'Canary releases go to five percent of traffic first.' })
    const file = path.join(root, source.path)
    await fs.writeFile(file, `${await fs.readFile(file, 'utf8')}\nSee [[${target.id}]].\n`)
    const answer = checked(await searchHandler(backend, { query: 'canary', top_k: 3 }))
    expect(answer.hits.map((h) => [h.id, h.reason])).toEqual([
      [source.id, 'match'],
      [target.id, 'linked'],
    ])
  })
})

describe('linked memories over two stores', () => {
  it('follow every direct hit of both stores, each after the hit it hangs off survived the cut, labelled with its store', async () => {
    const project = (await store()).backend
    const personal = (await store()).backend
    const target = await writeHandler(project, { summary: 'The on-call rota is pinned in the team channel.' })
    const hit = await writeHandler(project, { summary: '周末值班要带上备用电脑', links: [target.id] })
    const mine = await writeHandler(personal, { summary: '我周末值班喜欢先喝咖啡' })
    const routed = routeTool(searchTool, { user: personal })
    const run = routed.handler as unknown as (b: MemoryBackend, input: unknown) => Promise<Answer & { hits: Array<{ store?: string }> }>
    const answer = await run(project, { query: '值班', top_k: 5 })
    expect(outputViolation(routed.output, answer)).toBeNull()
    expect(answer.hits.map((h) => h.reason)).toEqual(['match', 'match', 'linked'])
    expect(answer.hits.slice(0, 2).map((h) => h.id).sort()).toEqual([hit.id, mine.id].sort())
    expect(answer.hits[2]).toMatchObject({ id: target.id, linked_from: hit.id, store: 'project' })
    // Cut to one direct hit: a linked memory stays only if its hit did.
    const one = await run(project, { query: '值班', top_k: 1 })
    const kept = one.hits[0]!
    expect(one.hits.slice(1).map((h) => h.id)).toEqual(kept.id === hit.id ? [target.id] : [])
  })
})

describe('the recency and importance boost', () => {
  it('orders matches that are equal but for age and importance, and never beats a clearly better match', async () => {
    const { backend, at } = await store('2026-01-01T00:00:00.000Z')
    const old = await writeHandler(backend, { summary: 'Kiwi harvest starts in April.' })
    at('2026-06-01T00:00:00.000Z')
    const recent = await writeHandler(backend, { summary: 'Kiwi harvest starts in March.' })
    const better = await writeHandler(backend, { summary: 'Kiwi kiwi: the kiwi harvest needs kiwi crates.', time: '2025-01-01T00:00:00Z' })
    at('2026-06-02T00:00:00.000Z')
    const answer = checked(await searchHandler(backend, { query: 'kiwi harvest', top_k: 3 }))
    const order = answer.hits.map((h) => h.id)
    expect(order.indexOf(recent.id)).toBeLessThan(order.indexOf(old.id))
    expect(order[0]).toBe(better.id)
    // Far in the future both are old: the boost has faded and ties are by id again.
    at('2030-01-01T00:00:00.000Z')
    const later = checked(await searchHandler(backend, { query: 'harvest starts', top_k: 2 }))
    expect(later.hits[0]?.score).toBe(later.hits[1]?.score)
    expect(later.hits.map((h) => h.id)).toEqual([old.id, recent.id].sort())
  })

  it('is modest and bounded: importance moves it a twentieth at most, recency a tenth', () => {
    const now = Date.parse('2026-06-01T00:00:00Z')
    const review = (importance: number) => ({ due: '2026-06-02T00:00:00Z', interval: 1, ease: 2.5, reps: 1, lapses: 0, reviewed_at: null, importance })
    expect(boostOf({ time: '2026-06-01T00:00:00Z', review: review(1) }, now)).toBe(maxBoost({ now }))
    expect(boostOf({ time: '2000-01-01T00:00:00Z' }, now)).toBe(1)
    expect(boostOf({ time: '2000-01-01T00:00:00Z', review: review(0) }, now)).toBe(0.95)
    expect(boostOf({ time: '2026-06-01T00:00:00Z' }, undefined)).toBe(1)
    expect(maxBoost({})).toBe(1.05)
    expect(maxBoost({ now })).toBe(1.16)
  })
})

describe('cues beside the hits', () => {
  it('name the memories in the slots next to the first hits, and the rooms the hits stand in', async () => {
    const { backend } = await store()
    const a = await writeHandler(backend, { summary: 'Espresso machine descaling every month.' })
    const b = await writeHandler(backend, { summary: '周五下午团队一起喝咖啡。' })
    const c = await writeHandler(backend, { summary: 'The office plants are watered on Mondays.' })
    expect([a.location, b.location, c.location]).toEqual(['topics#1', 'topics#2', 'topics#3'])
    const answer = checked(await searchHandler(backend, { query: '咖啡', top_k: 3 }))
    expect(answer.hits.map((h) => h.id)).toEqual([b.id])
    expect(answer.hits[0]?.location).toBe('topics#2')
    expect(answer.nearby).toEqual([
      { id: a.id, title: expect.any(String), location: 'topics#1', beside: b.id },
      { id: c.id, title: expect.any(String), location: 'topics#3', beside: b.id },
    ])
    expect(answer.rooms).toEqual(['topics'])
    expect(answer.guidance).toMatch(/Beside them in the palace: topics#1/)
  })
})

describe('a store too large to look up on the first search', () => {
  it('follows the hits\' own links at once, says the rest is partial, and builds the lookup after the second search', () => {
    const view = new IndexView()
    const n = PALACE_SEARCH.eagerMax + 1
    for (let i = 0; i < n; i++) {
      view.set({
        schema_version: 2, id: `m${i}`, path: `topics/m${i}.md`, type: 'topic', title: `note ${i}`, summary: `note ${i}`, tags: [], entities: [],
        time: '2026-01-01T00:00:00Z', sources: [], session_id: null, confidence: 0.6, raw_ref: null, vector_id: null, status: 'active', key: null,
        supersedes: null, superseded_by: null, variants: [], episode: null, anchors: [], content_hash: `h${i}`, checksum: `c${i}`,
        location: `topics-${Math.floor(i / 9) + 1}#${(i % 9) + 1}`, ...(i === 7 ? { links: ['m5000'] } : i === 6000 ? { links: ['m4'] } : {}),
      } as IndexEntry)
    }
    const hit = (id: string, location: string) => ({ id, path: '', type: 'topic', title: '', summary: '', status: 'active', time: '', tags: [], score: 1, reason: 'match', location }) as SearchHit
    const hits = [hit('m4', 'topics-1#5'), hit('m7', 'topics-1#8')]
    const req = { query: 'note', top_k: 5 }
    const first = palaceAddition(view, req, hits)
    expect(first).toMatchObject({ partial: true, buildLater: false, nearby: [], rooms: [] })
    expect(first.linked.map((h) => [h.id, h.linked_from])).toEqual([['m5000', 'm7']])
    expect(palaceAddition(view, req, hits)).toMatchObject({ partial: true, buildLater: true })
    buildPalaceLookup(view)
    const ready = palaceAddition(view, req, hits)
    expect(ready.partial).toBe(false)
    // Now the memory linking to m4 is found too, and the slots beside the hits are named.
    expect(ready.linked.map((h) => [h.id, h.linked_from])).toEqual([['m6000', 'm4'], ['m5000', 'm7']])
    expect(ready.nearby.map((c) => [c.id, c.location])).toEqual([['m3', 'topics-1#4'], ['m5', 'topics-1#6'], ['m6', 'topics-1#7'], ['m8', 'topics-1#9']])
  })
})

// ---------------------------------------------------------------------------------------------
// Through MCP (the built CLI)

const dirs: string[] = []
const connect = mcpClients('room-search-test')
afterAll(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })))
})

describe('room search over MCP (built CLI: run `npm run build` first)', () => {
  it('takes room, adds linked memories and names nearby slots', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'room-search-mcp-'))
    dirs.push(dir)
    const call = await connect(['--root', path.join(dir, 'store'), '--tools', 'all'], { env: processEnv() })
    const write = async (args: Record<string, unknown>) => (await call('write_memory', args)).structuredContent as { id: string }
    const target = await write({ summary: 'Coffee beans are ordered from Yunnan every month.' })
    const hit = await write({ summary: '发布前要通知客服团队', links: [target.id] })
    await write({ summary: 'Lunch is at noon on Fridays.' })
    const r = await call('memory_search_hybrid', { query: '发布', room: 'topics' })
    expect(r.isError).not.toBe(true)
    const out = r.structuredContent as Answer
    expect(outputViolation(searchTool.output, out)).toBeNull()
    expect(out.hits.map((h) => [h.id, h.reason, h.linked_from])).toEqual([
      [hit.id, 'match', undefined],
      [target.id, 'linked', hit.id],
    ])
    expect(out.nearby?.map((n) => n.location)).toContain('topics#3')
    const bad = await call('memory_search_hybrid', { query: '发布', room: 'Not A Room' })
    expect(bad.isError).toBe(true)
    expect(bad.content[0]?.text).toMatch(/room/)
  }, 60_000)
})
