/**
 * Decay: low-importance memories idle beyond the window are archived (reversible, files kept),
 * archived memories leave search, memory_audit_forgotten lists archivals with reasons, and
 * memory_restore brings them back (as superseded when their slot moved on).
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  TOOLS,
  auditForgottenHandler,
  decayHandler,
  outputViolation,
  rebuildIndex,

  restoreHandler,
  searchHandler,
  writeHandler,
} from '../src/api.js'
import { memoryStats } from '../src/memory/reading/stats.js'
import { memoryReportTool } from '../src/tools/memory-report.js'
import { renderValue } from '../src/tools/render/text.js'
import { tempStores } from './store-kit.js'

const store = tempStores('dsh-decay-')

function checked<T>(name: string, value: T): T {
  const tool = TOOLS.find((t) => t.name === name)!
  expect(outputViolation(tool.output, value)).toBeNull()
  expect(renderValue(name, value).length).toBeGreaterThan(0)
  return value
}

async function seeded() {
  const s = await store('2026-01-01T00:00:00.000Z')
  const weak = await writeHandler(s.backend, { summary: 'Maybe the office plant is a ficus.', confidence: 0.3 })
  const strong = await writeHandler(s.backend, { summary: 'The office plant is watered on Mondays.' })
  const guard = await writeHandler(s.backend, { summary: 'Check the plant rule.', confidence: 0.2, guard_trigger: 'plant', guard_action: 'ask first' })
  return { ...s, weak, strong, guard }
}

describe('memory_decay', () => {
  it('spares a low-importance memory that is in retrieval practice (reported on at least once)', async () => {
    const { backend, at, weak } = await seeded()
    await memoryReportTool.handler(backend, { id: weak.id, outcome: 'success' })
    at('2026-04-15T00:00:00.000Z')
    expect((await decayHandler(backend, {})).archived).toEqual([])
  })

  it('a memory that keeps failing review decays; one whose practice lowered its importance too; a passing one is kept', async () => {
    const { backend, at, strong } = await seeded()
    const failing = await writeHandler(backend, { summary: 'The plant supplier is Greenleaf in Delft.' })
    const fading = await writeHandler(backend, { summary: 'The plant pot is terracotta.' })
    // Three lapses without a recall: it keeps failing review.
    for (const day of ['2026-01-02', '2026-01-03', '2026-01-04']) {
      at(`${day}T00:00:00.000Z`)
      await memoryReportTool.handler(backend, { id: failing.id, outcome: 'failure' })
    }
    // One lapse, then a recall: still in practice, kept by its schedule.
    await memoryReportTool.handler(backend, { id: strong.id, outcome: 'failure' })
    at('2026-01-05T00:00:00.000Z')
    await memoryReportTool.handler(backend, { id: strong.id, outcome: 'success' })
    // Never graded, with its importance lowered by hand (a person, or an older store): low importance.
    const file = path.join((backend as { root: string }).root, fading.path)
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/^---\n/, '---\nimportance: 0.2\n'))
    at('2026-04-15T00:00:00.000Z')
    const preview = checked('memory_decay', await decayHandler(backend, {}))
    const reasons = new Map(preview.archived.map((a) => [a.id, a.reason]))
    expect(reasons.get(failing.id)).toMatch(/^failed review 3 times without a recall and /)
    expect(reasons.get(fading.id)).toMatch(/^importance 0.2 < 0.3 and /)
    expect(reasons.has(strong.id)).toBe(false)
  })

  it('previews by default, archives with dryRun false, only low-importance idle memories', async () => {
    const { backend, root, at, weak } = await seeded()
    at('2026-02-01T00:00:00.000Z')
    expect(checked('memory_decay', await decayHandler(backend, {})).archived).toEqual([])
    at('2026-04-15T00:00:00.000Z')
    const preview = checked('memory_decay', await decayHandler(backend, {}))
    expect(preview).toMatchObject({ dry_run: true, days: 90, more: 0 })
    expect(preview.archived.map((a) => a.id)).toEqual([weak.id])
    expect(preview.archived[0]?.reason).toMatch(/confidence 0.3 < 0.5 and never found by a search for 104 days/)
    // (a search here would count as a hit and keep the memory: see the next test)
    const done = checked('memory_decay', await decayHandler(backend, { dryRun: false }))
    expect(done.archived.map((a) => a.id)).toEqual([weak.id])
    const text = await fs.readFile(path.join(root, weak.path), 'utf8')
    expect(text).toMatch(/^status: archived$/m)
    expect(text).toMatch(/^archived_reason: /m)
    expect((await searchHandler(backend, { query: 'ficus' })).hits).toHaveLength(0)
    expect((await memoryStats(backend)).searchable).toBe(2)
    expect((await decayHandler(backend, { dryRun: false })).archived).toEqual([])
    const before = [...(await backend.indexView()).values()].sort((a, b) => a.id.localeCompare(b.id))
    await rebuildIndex(root)
    expect([...(await backend.indexView()).values()].sort((a, b) => a.id.localeCompare(b.id))).toEqual(before)
  })

  it('a search hit keeps a memory; config.json decayAfterDays and the days input set the window', async () => {
    const { backend, root, at, weak } = await seeded()
    at('2026-01-20T00:00:00.000Z')
    expect((await decayHandler(backend, {})).archived).toEqual([])
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ decayAfterDays: 10 }))
    expect((await decayHandler(backend, {})).archived.map((a) => a.id)).toEqual([weak.id])
    expect((await decayHandler(backend, { days: 30 })).days).toBe(30)
    await searchHandler(backend, { query: 'ficus' })
    const { signalsSettled } = await import('../src/api.js')
    await signalsSettled(backend)
    expect((await decayHandler(backend, {})).archived).toEqual([])
  })
})

describe('memory_audit_forgotten and memory_restore', () => {
  it('lists archivals newest first with reasons; restore brings one back and the audit says so', async () => {
    const { backend, at, weak } = await seeded()
    at('2026-06-01T00:00:00.000Z')
    expect(checked('memory_audit_forgotten', await auditForgottenHandler(backend, {})).total).toBe(0)
    await decayHandler(backend, { dryRun: false })
    const audit = checked('memory_audit_forgotten', await auditForgottenHandler(backend, {}))
    expect(audit.archivals).toMatchObject([{ id: weak.id, status: 'archived', restored: false, at: '2026-06-01T00:00:00.000Z' }])
    expect(audit.archivals[0]?.reason).toMatch(/confidence 0.3/)

    const r = checked('memory_restore', await restoreHandler(backend, { ids: [weak.id, weak.id] }))
    expect(r).toEqual({ restored: [{ id: weak.id, status: 'active' }], unchanged: [], missing: [] })
    expect((await searchHandler(backend, { query: 'ficus' })).hits).toHaveLength(1)
    expect((await auditForgottenHandler(backend, {})).archivals[0]).toMatchObject({ status: 'active', restored: true })
    expect(checked('memory_restore', await restoreHandler(backend, { ids: [weak.id] })).unchanged).toEqual([weak.id])
    expect((await restoreHandler(backend, { ids: ['mem_none'] })).missing).toEqual(['mem_none'])
  })

  it('a memory whose fact got a newer version meanwhile comes back superseded by it', async () => {
    const { backend, at } = await store('2026-01-01T00:00:00.000Z')
    const old = await writeHandler(backend, { summary: 'Lunch is at noon, probably.', key: 'lunch', confidence: 0.2 })
    at('2026-05-01T00:00:00.000Z')
    await decayHandler(backend, { dryRun: false })
    const newer = await writeHandler(backend, { summary: 'Lunch is at 12:30.', key: 'lunch' })
    expect(newer.superseded).toEqual([])
    const r = await restoreHandler(backend, { ids: [old.id] })
    expect(r.restored).toEqual([{ id: old.id, status: 'superseded', superseded_by: newer.id }])
  })
})
