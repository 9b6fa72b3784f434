/**
 * The domain operations behind the panel, called directly: softDelete / restore, purgeDeleted,
 * exportBundle, memoryStats, listSessions and the config.json patch. Each test builds its own
 * store; every mutation must leave index.jsonl equal to what rebuildIndex derives from the files.
 */

import { mkdtempSync, readFileSync, unlinkSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_CONFIG,
  configPatch,
  createFileBackend,
  exportBundle,
  flushCaches,
  forgetHandler,
  listSessions,
  memoryStats,
  purgeDeleted,
  rebuildIndex,
  resolveHandler,
  restore,
  saveConfigPatch,
  softDelete,
  writeHandler,
  type IndexEntry,
  type LedgerEvent,
  type MemoryBackend,
} from '../src/api.js'

const opened: MemoryBackend[] = []
afterEach(async () => {
  for (const b of opened.splice(0)) await flushCaches(b)
})

function store(): { root: string; backend: MemoryBackend } {
  const root = mkdtempSync(join(tmpdir(), 'panel-ops-'))
  const backend = createFileBackend(root)
  opened.push(backend)
  return { root, backend }
}

const byId = (a: IndexEntry, b: IndexEntry) => a.id.localeCompare(b.id)
async function expectRebuildReproducesIndex(backend: MemoryBackend): Promise<void> {
  const before = (await backend.readIndex()).sort(byId)
  expect((await rebuildIndex(backend)).warnings).toEqual([])
  expect((await backend.readIndex()).sort(byId)).toEqual(before)
}
const statusOf = async (backend: MemoryBackend, id: string) => (await backend.indexView()).get(id)?.status
const events = (root: string, event: string): LedgerEvent[] =>
  readFileSync(join(root, 'ledger.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LedgerEvent)
    .filter((e) => e.event === event)
const errorCode = (p: Promise<unknown>) => p.then(() => 'resolved', (err: { code?: string }) => err.code)

describe('softDelete and restore', () => {
  it('remember the previous status in the file, for the memory and its raw text', async () => {
    const { root, backend } = store()
    const w = await writeHandler(backend, { summary: 'Suggested episode.', raw: 'raw words', session_id: 's1', requireConfirmation: true })
    const moved = await softDelete(backend, w.id)
    expect(moved).toEqual({ id: w.id, from: 'suggested', status: 'deleted_pending', changed: true, ids: [w.id, `${w.id}-raw`] })
    expect(readFileSync(join(root, w.path), 'utf8')).toMatch(/deleted_from: suggested/)
    expect(readFileSync(join(root, w.raw_ref ?? ''), 'utf8')).toMatch(/deleted_from: suggested/)
    await expectRebuildReproducesIndex(backend)
    expect(await softDelete(backend, w.id)).toEqual({ id: w.id, from: 'deleted_pending', status: 'deleted_pending', changed: false, ids: [] })

    expect(await restore(backend, w.id)).toEqual({ id: w.id, from: 'deleted_pending', status: 'suggested', changed: true, ids: [w.id, `${w.id}-raw`] })
    expect(await statusOf(backend, `${w.id}-raw`)).toBe('suggested')
    expect(readFileSync(join(root, w.path), 'utf8')).not.toMatch(/deleted_from/)
    await expectRebuildReproducesIndex(backend)
    expect((await restore(backend, w.id)).changed).toBe(false)
    expect(events(root, 'soft-delete')).toHaveLength(1)
    expect(events(root, 'restore')).toEqual([expect.objectContaining({ id: w.id, from: 'deleted_pending', to: 'suggested', source: 'user' })])
  })

  it('refuse conflicts, raw text and unknown ids with stable codes', async () => {
    const { backend } = store()
    const a = await writeHandler(backend, { summary: 'Lunch at noon.', key: 'lunch' })
    await writeHandler(backend, { summary: 'Lunch at one.', key: 'lunch', expectConflict: true })
    expect(await errorCode(softDelete(backend, a.id))).toBe('INVALID_STATE')
    const ep = await writeHandler(backend, { summary: 'An episode.', raw: 'text', session_id: 's1' })
    expect(await errorCode(softDelete(backend, `${ep.id}-raw`))).toBe('INVALID_STATE')
    expect(await errorCode(restore(backend, `${ep.id}-raw`))).toBe('INVALID_STATE')
    expect(await errorCode(softDelete(backend, 'mem_missing'))).toBe('NOT_FOUND')
    expect(await errorCode(restore(backend, 'mem_missing'))).toBe('NOT_FOUND')
  })

  it('restore puts a superseded version back as superseded, and an unknown previous status as active', async () => {
    const { root, backend } = store()
    const old = await writeHandler(backend, { summary: 'Node 18 in CI.', key: 'ci node' })
    const current = await writeHandler(backend, { summary: 'Node 20 in CI.', key: 'ci node' })
    expect(await statusOf(backend, old.id)).toBe('superseded')
    await softDelete(backend, old.id)
    expect((await restore(backend, old.id)).status).toBe('superseded')
    expect(await statusOf(backend, current.id)).toBe('active')

    // A file marked deleted_pending by hand (or by an older version) says nothing of where it was.
    const t = await writeHandler(backend, { summary: 'Hand-deleted topic.' })
    const file = join(root, t.path)
    writeFileSync(file, readFileSync(file, 'utf8').replace('status: active', 'status: deleted_pending'))
    await rebuildIndex(backend)
    expect((await restore(backend, t.id)).status).toBe('active')
    await expectRebuildReproducesIndex(backend)
  })

  it('restore never displaces what became current in the slot meanwhile', async () => {
    const { root, backend } = store()
    const first = await writeHandler(backend, { summary: 'Docs are on Confluence.', key: 'docs home' })
    await softDelete(backend, first.id)
    const second = await writeHandler(backend, { summary: 'Docs are on Notion.', key: 'docs home' })
    expect(await statusOf(backend, second.id)).toBe('active')
    const back = await restore(backend, first.id)
    expect(back.status).toBe('superseded')
    expect((await backend.indexView()).get(first.id)?.superseded_by).toBe(second.id)
    expect(await statusOf(backend, second.id)).toBe('active')
    expect(events(root, 'restore')[0]).toMatchObject({ superseded_by: second.id })
    await expectRebuildReproducesIndex(backend)
  })

  it('restore undoes a soft forget: each episode goes back to the status it had', async () => {
    const { backend } = store()
    const old = await writeHandler(backend, { summary: 'Old plan.', raw: 'r1', key: 'plan', session_id: 's1' })
    const cur = await writeHandler(backend, { summary: 'New plan.', raw: 'r2', key: 'plan', session_id: 's1' })
    await forgetHandler(backend, { session_id: 's1' })
    expect((await restore(backend, old.id)).status).toBe('superseded')
    expect((await restore(backend, cur.id)).status).toBe('active')
    expect(await statusOf(backend, `${cur.id}-raw`)).toBe('active')
    await expectRebuildReproducesIndex(backend)
  })

  it('a conflict side that was forgotten rejoins its conflict when restored', async () => {
    const { backend } = store()
    const a = await writeHandler(backend, { summary: 'Meet in room A.', raw: 'ra', key: 'room', session_id: 's1' })
    const b = await writeHandler(backend, { summary: 'Meet in room B.', raw: 'rb', key: 'room', session_id: 's2', expectConflict: true })
    await forgetHandler(backend, { session_id: 's2' })
    expect((await restore(backend, b.id)).status).toBe('conflict')
    expect((await resolveHandler(backend, { id: a.id, action: 'keep' })).superseded).toEqual([b.id])
    await expectRebuildReproducesIndex(backend)
  })
})

describe('purgeDeleted', () => {
  it('removes only deleted_pending files; raw text goes with its episode; topics wait for includeTopics', async () => {
    const { root, backend } = store()
    const ep = await writeHandler(backend, { summary: 'Episode to purge.', raw: 'raw to purge', session_id: 's1' })
    const live = await writeHandler(backend, { summary: 'Live episode.', raw: 'live raw', session_id: 's1' })
    const topic = await writeHandler(backend, { summary: 'Topic to purge.' })
    await softDelete(backend, ep.id)
    await softDelete(backend, topic.id)
    // A raw file marked deleted by hand while its episode lives is kept: raw text follows its episode.
    const liveRaw = join(root, live.raw_ref ?? '')
    writeFileSync(liveRaw, readFileSync(liveRaw, 'utf8').replace('status: active', 'status: deleted_pending'))
    await rebuildIndex(backend)

    const r = await purgeDeleted(backend)
    expect(r).toEqual({ removed_episode_count: 1, removed_raw_count: 1, removed_topic_count: 0, skipped_topics: 1, removed_paths: [ep.path, ep.raw_ref] })
    expect(existsSync(liveRaw)).toBe(true)
    expect(existsSync(join(root, topic.path))).toBe(true)
    await expectRebuildReproducesIndex(backend)
    expect(events(root, 'purge')).toEqual([expect.objectContaining({ removed_episode_count: 1, skipped_topics: 1, include_topics: false, ids: [ep.id, `${ep.id}-raw`] })])

    const t = await purgeDeleted(backend, { includeTopics: true })
    expect(t).toEqual({ removed_episode_count: 0, removed_raw_count: 0, removed_topic_count: 1, skipped_topics: 0, removed_paths: [topic.path] })
    await expectRebuildReproducesIndex(backend)
    expect(await purgeDeleted(backend, { includeTopics: true })).toMatchObject({ removed_paths: [] })
    expect(events(root, 'purge')).toHaveLength(2)
  })

  it('removes raw text whose episode is gone, and does not count a file a person already deleted', async () => {
    const { root, backend } = store()
    const ep = await writeHandler(backend, { summary: 'Episode.', raw: 'raw', session_id: 's1' })
    await forgetHandler(backend, { session_id: 's1' })
    unlinkSync(join(root, ep.path))
    await rebuildIndex(backend)
    expect(await purgeDeleted(backend)).toEqual({ removed_episode_count: 0, removed_raw_count: 1, removed_topic_count: 0, skipped_topics: 0, removed_paths: [ep.raw_ref] })
    expect(await backend.readIndex()).toEqual([])
  })
})

describe('exportBundle', () => {
  it('holds the index, the ledger and every memory file, notes and settings first', async () => {
    const { root, backend } = store()
    const ep = await writeHandler(backend, { summary: 'Exported episode.', raw: 'exported raw', session_id: 's1' })
    const topic = await writeHandler(backend, { summary: 'Exported topic.' })
    writeFileSync(join(root, 'aliases.json'), '{"groups": [["k8s", "kubernetes"]]}\n')
    writeFileSync(join(root, 'topics', 'notes.txt'), 'not a memory file')
    const b = await exportBundle(backend)
    expect(b).toMatchObject({ format: 'dsh-memory-agent/bundle', version: 1, truncated: false, omitted_files: 0 })
    // Sorted within each folder (episode file names start with their date, before `_index.md`).
    expect(b.files.map((f) => f.path)).toEqual(['README.md', 'aliases.json', 'topics/_index.md', topic.path, ep.path, 'episodes/_index.md', 'raw/_index.md', ep.raw_ref])
    expect(b.files.find((f) => f.path === topic.path)?.text).toBe(readFileSync(join(root, topic.path), 'utf8'))
    expect(b.index.map((e) => e.id).sort()).toEqual([ep.id, `${ep.id}-raw`, topic.id].sort())
    expect(b.ledger.filter((e) => e.event === 'write')).toHaveLength(2)
  })

  it('never passes maxBytes: files stop at the first that does not fit, and the rest are counted', async () => {
    const { backend } = store()
    for (let i = 0; i < 12; i++) await writeHandler(backend, { summary: `Fact ${i} ${'padding text '.repeat(i * 3)}` })
    const full = await exportBundle(backend)
    const fullBytes = Buffer.byteLength(JSON.stringify(full))
    for (let maxBytes = fullBytes - 3000; maxBytes <= fullBytes + 10; maxBytes += 97) {
      const b = await exportBundle(backend, { maxBytes })
      expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThanOrEqual(maxBytes)
      expect(b.files).toEqual(full.files.slice(0, b.files.length))
      expect(b.files.length + b.omitted_files).toBe(full.files.length)
      expect(b.truncated).toBe(b.omitted_files > 0)
    }
    const tiny = await exportBundle(backend, { maxBytes: 10 })
    expect(tiny).toMatchObject({ truncated: true, files: [], omitted_files: full.files.length })
  })
})

describe('memoryStats and listSessions', () => {
  it('count memories, not raw files, per status', async () => {
    const { backend } = store()
    expect(await memoryStats(backend)).toEqual({ total: 0, searchable: 0, suggested: 0, conflict: 0, pendingCleanup: 0, orphaned: 0, pendingTopics: 0, archived: 0 })
    await writeHandler(backend, { summary: 'Active one.', raw: 'r', session_id: 's1' })
    await writeHandler(backend, { summary: 'Suggested one.', requireConfirmation: true })
    await writeHandler(backend, { summary: 'Side A.', key: 'k' })
    await writeHandler(backend, { summary: 'Side B.', key: 'k', expectConflict: true })
    const gone = await writeHandler(backend, { summary: 'Deleted topic.' })
    await softDelete(backend, gone.id)
    await writeHandler(backend, { summary: 'Orphan to be.', session_id: 's9' })
    await forgetHandler(backend, { session_id: 's9', scope: 'include_shared_unlink' })
    expect(await memoryStats(backend)).toEqual({ total: 6, searchable: 3, suggested: 1, conflict: 2, pendingCleanup: 1, orphaned: 1, pendingTopics: 1, archived: 0 })
  })

  it('list sessions with what forgetting each would touch, newest first', async () => {
    const { backend } = store()
    expect(await listSessions(backend)).toEqual([])
    await writeHandler(backend, { summary: 'Early.', raw: 'r', session_id: 'a', time: '2026-01-01T00:00:00Z' })
    await writeHandler(backend, { summary: 'Late.', raw: 'r2', session_id: 'b', time: '2026-03-01T00:00:00Z' })
    // A repeat from another session adds that session as a source of the same memory.
    await writeHandler(backend, { summary: 'Shared fact.', session_id: 'a', time: '2026-02-01T00:00:00Z' })
    await writeHandler(backend, { summary: 'Shared fact.', session_id: 'b' })
    expect(await listSessions(backend)).toEqual([
      { session_id: 'b', episodes: 1, raw: 1, topics: 1, latest: '2026-03-01T00:00:00.000Z' },
      { session_id: 'a', episodes: 1, raw: 1, topics: 1, latest: '2026-02-01T00:00:00.000Z' },
    ])
  })
})

describe('config.json patch', () => {
  it('takes known fields of the right type, clamped; ignores the rest', () => {
    expect(configPatch({ maxTopK: 999, defaultBudget: 1, injectBudgetChars: 9_999_999, redactSecrets: false, extra: 1, injectEnabled: 'no', autoSettleEnabled: null, requireConfirmation: Number.NaN })).toEqual({
      maxTopK: 200,
      defaultBudget: 50,
      injectBudgetChars: 8000,
      redactSecrets: false,
    })
    expect(configPatch({ maxTopK: Number.NaN, defaultBudget: Number.POSITIVE_INFINITY })).toEqual({})
    expect(configPatch(null)).toEqual({})
    expect(configPatch([1, 2])).toEqual({})
    expect(configPatch({ maxTopK: 7.6 })).toEqual({ maxTopK: 8 })
    expect(Object.keys(configPatch({ ...DEFAULT_CONFIG })).sort()).toEqual(Object.keys(DEFAULT_CONFIG).sort())
  })

  it('writes the given fields over the file, keeps fields it does not know, replaces a broken file', async () => {
    const { root, backend } = store()
    await backend.init()
    const file = join(root, 'config.json')
    writeFileSync(file, '{"maxTopK": 10, "note": "set by hand"}')
    expect(await saveConfigPatch(backend, { maxTopK: 500, injectEnabled: false })).toEqual({ written: { maxTopK: 200, injectEnabled: false }, replacedInvalid: false })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ maxTopK: 200, note: 'set by hand', injectEnabled: false })
    expect(await saveConfigPatch(backend, { nothing: true })).toEqual({ written: {}, replacedInvalid: false })
    writeFileSync(file, '{ broken')
    expect((await saveConfigPatch(backend, { redactSecrets: true })).replacedInvalid).toBe(true)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ redactSecrets: true })
    expect(events(root, 'config').map((e) => e.replaced_invalid ?? false)).toEqual([false, true])
  })
})
