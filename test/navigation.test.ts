/**
 * Navigation: memory_timeline by time and by tour, links (front-matter and [[id]] in bodies) and
 * memory_neighbors over 1-3 hops, with every output checked against its schema.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { TOOLS, neighborsHandler, outputViolation, rebuildIndex, timelineHandler, writeHandler } from '../src/api.js'
import { bodyLinks } from '../src/store/place-fields.js'
import { renderValue } from '../src/tools/render/text.js'
import { expectCode, tempStores } from './store-kit.js'

const store = tempStores('dsh-nav2-')

function checked<T>(name: string, value: T): T {
  const tool = TOOLS.find((t) => t.name === name)!
  expect(outputViolation(tool.output, value)).toBeNull()
  expect(renderValue(name, value).length).toBeGreaterThan(0)
  return value
}

describe('memory_timeline', () => {
  it('time order is newest first; tour order follows rooms as opened, then slots', async () => {
    const { backend } = await store()
    const t1 = await writeHandler(backend, { summary: 'First topic.', time: '2026-01-03T00:00:00Z' })
    const e1 = await writeHandler(backend, { summary: 'An episode.', raw: 'r', session_id: 's', time: '2026-01-01T00:00:00Z' })
    const t2 = await writeHandler(backend, { summary: 'Second topic.', time: '2026-01-02T00:00:00Z' })
    const byTime = checked('memory_timeline', await timelineHandler(backend, {}))
    expect(byTime.entries.map((e) => e.id)).toEqual([t1.id, t2.id, e1.id])
    const tour = checked('memory_timeline', await timelineHandler(backend, { order: 'tour' }))
    expect(tour.entries.map((e) => e.location)).toEqual(['topics#1', 'topics#2', 'episodes#1'])
    expect(tour.unplaced).toBe(0)
    const page = checked('memory_timeline', await timelineHandler(backend, { order: 'tour', limit: 2, offset: 1 }))
    expect(page).toMatchObject({ total: 3, offset: 1, has_more: false })
    expect(page.entries.map((e) => e.id)).toEqual([t2.id, e1.id])
  })

  it('memories without a location come after the tour; status filters', async () => {
    const { backend, root } = await store()
    const a = await writeHandler(backend, { summary: 'Placed.' })
    await fs.writeFile(path.join(root, 'topics/loose.md'), '# Loose\n\nA note without front-matter.\n')
    const tour = checked('memory_timeline', await timelineHandler(backend, { order: 'tour' }))
    expect(tour.entries.map((e) => e.id)).toEqual([a.id, 'loose'])
    expect(tour.unplaced).toBe(1)
    expect((await timelineHandler(backend, { status: 'archived' })).total).toBe(0)
  })
})

describe('links and memory_neighbors', () => {
  it('reads [[id]] and [[id|label]] from bodies', () => {
    expect(bodyLinks('See [[mem_a]] and [[mem_b|the other]], not [[]] or [[a b]]; [[mem_a]] again.')).toEqual(['mem_a', 'mem_b'])
  })

  it('walks links both ways and versions, 1 to 3 hops, and reports dangling links', async () => {
    const { backend, root } = await store()
    const a = await writeHandler(backend, { summary: 'Root decision: use SQLite.', key: 'db' })
    const b = await writeHandler(backend, { summary: 'Backups run nightly.', links: [a.id, 'mem_missing'] })
    const c = await writeHandler(backend, { summary: 'Restore drill monthly.', links: [b.id] })
    const a2 = await writeHandler(backend, { summary: 'Root decision: use PostgreSQL.', key: 'db' })
    const text = await fs.readFile(path.join(root, b.path), 'utf8')
    expect(text).toMatch(/^links:\n  - mem_/m)
    const one = checked('memory_neighbors', await neighborsHandler(backend, { id: a.id }))
    expect(one.neighbors.map((n) => [n.id, n.hop, n.via]).sort()).toEqual([[a2.id, 1, 'version'], [b.id, 1, 'linked-from']].sort())
    const three = checked('memory_neighbors', await neighborsHandler(backend, { id: c.id, hops: 3 }))
    expect(three.neighbors.map((n) => [n.id, n.hop, n.via, n.from])).toEqual([
      [b.id, 1, 'links-to', c.id],
      [a.id, 2, 'links-to', b.id],
      [a2.id, 3, 'version', a.id],
    ])
    expect(three.missing).toEqual(['mem_missing'])
    await expectCode(neighborsHandler(backend, { id: 'mem_nope' }), 'NOT_FOUND')
    await expectCode(neighborsHandler(backend, { id: a.id, hops: 4 }), 'INVALID_INPUT')
  })

  it('a [[id]] a person types into a body is a link at the next read, and rebuild agrees', async () => {
    const { backend, root } = await store()
    const a = await writeHandler(backend, { summary: 'Target.' })
    const b = await writeHandler(backend, { summary: 'Source.' })
    const file = path.join(root, b.path)
    await fs.writeFile(file, `${await fs.readFile(file, 'utf8')}\nSee [[${a.id}]].\n`)
    const out = await neighborsHandler(backend, { id: a.id })
    expect(out.neighbors.map((n) => [n.id, n.via])).toEqual([[b.id, 'linked-from']])
    const before = [...(await backend.indexView()).values()].find((e) => e.id === b.id)
    await rebuildIndex(root)
    const after = [...(await backend.indexView()).values()].find((e) => e.id === b.id)
    expect(after?.links).toEqual([a.id])
    expect(after?.links).toEqual(before?.links)
  })
})
