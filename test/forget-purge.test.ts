/**
 * Forgetting that sticks: memory_forget (by id or query, dry run, propagation to memories that
 * repeat the value, digests and resident injection cleared, conflicts settled), and memory_purge
 * (after a forget only; files removed, ledger text redacted with the event skeleton kept, a purge
 * event added, index compacted, logs and caches scrubbed) checked by reading every file under the
 * root, dot folders included, for the purged value.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  createFileBackend,
  digestHandler,
  flushCaches,
  forgetValueHandler,
  historyHandler,
  injectionText,
  navHandler,
  purgeHandler,
  rebuildIndex,
  restore,
  searchHandler,
  signalsSettled,
  writeHandler,
  type IndexEntry,
  type LedgerEvent,
  type MemoryBackend,
} from '../src/api.js'
import { renderValue } from '../src/tools/render/text.js'
import { everyFile, expectCode, grep, tempStores } from './store-kit.js'

const store = tempStores('forget-')

async function expectIndexIsProjection(backend: MemoryBackend): Promise<void> {
  const byId = (a: IndexEntry, b: IndexEntry) => a.id.localeCompare(b.id)
  const before = [...(await backend.indexView()).values()].sort(byId)
  await rebuildIndex(backend)
  expect([...(await backend.indexView()).values()].sort(byId)).toEqual(before)
}

describe('memory_forget', () => {
  it('a memory whose front-matter holds the value digits by chance (its time) does not repeat the value', async () => {
    // Written at 10:58:58: "58" is in both memories' times. Only what a memory says counts.
    const { backend } = await store('2026-03-01T10:58:58.058Z')
    const keep = await writeHandler(backend, { summary: 'The office wifi is called Harbor.', title: 'Wifi name' })
    const ep = await writeHandler(backend, { summary: 'The wifi password is teal-otter-58.', title: 'Wifi password' })
    const out = await forgetValueHandler(backend, { id: ep.id })
    expect(out.forgotten.map((f) => f.id)).toEqual([ep.id])
    expect((await searchHandler(backend, { query: 'office wifi' })).hits.map((h) => h.id)).toEqual([keep.id])
  })

  it('forgets one memory by id with its raw text; search, injection, digests and as-of stop saying it', async () => {
    const { backend } = await store()
    const keep = await writeHandler(backend, { summary: 'The office wifi is called Harbor.', title: 'Wifi name' })
    const ep = await writeHandler(backend, { summary: 'The wifi password is teal-otter-58.', title: 'Wifi password', raw: 'user: the wifi password is teal-otter-58', session_id: 's1' })
    expect((await digestHandler(backend, { key: 'Wifi password' })).text).toContain('teal-otter-58')
    expect(injectionText(backend).text).toContain('teal-otter-58')

    const out = await forgetValueHandler(backend, { id: ep.id })
    expect(out).toMatchObject({ dry_run: false, raw: [`${ep.id}-raw`], already: [], activated: [], injection_cleared: 1 })
    expect(out.forgotten).toEqual([{ id: ep.id, path: ep.path, type: 'episode', title: 'Wifi password', from: 'active', reason: 'id', via: null }])
    expect(out.digests).toEqual([{ path: expect.stringMatching(/^digests\//), action: 'removed' }])

    expect((await searchHandler(backend, { query: 'wifi password' })).hits.map((h) => h.id)).toEqual([keep.id])
    expect((await searchHandler(backend, { query: 'teal otter' })).hits).toEqual([])
    expect((await searchHandler(backend, { query: 'wifi password', asOf: '2000-01-01T00:00:00Z' })).hits).toEqual([])
    expect((await searchHandler(backend, { query: 'wifi password', asOf: new Date(Date.now() - 1000).toISOString() })).hits).toEqual([])
    expect(injectionText(backend).text).not.toContain('teal-otter')
    await expectCode(digestHandler(backend, { key: 'Wifi password' }), 'NOT_FOUND')
    const index = [...(await backend.indexView()).values()]
    expect(index.filter((e) => e.status === 'deleted_pending').map((e) => e.id).sort()).toEqual([ep.id, `${ep.id}-raw`].sort())

    expect(renderValue('memory_forget', out)).toMatch(/^Forgot 1 memory and 1 raw text\(s\)\.\n- mem_\S+ \[episode, was active\] Wifi password\n- digest digests\/\S+ removed\n/)
    // Again: nothing more to do, and it says so.
    const again = await forgetValueHandler(backend, { id: ep.id })
    expect(again).toMatchObject({ forgotten: [], already: [ep.id] })
    // Until purged it can be restored.
    await restore(backend, ep.id)
    expect((await searchHandler(backend, { query: 'wifi password' })).hits.map((h) => h.id)).toContain(ep.id)
    await expectIndexIsProjection(backend)
  })

  it('by query forgets every version that names it, and whatever repeats the value elsewhere (raw text too)', async () => {
    const { backend } = await store()
    const old = await writeHandler(backend, { summary: '我的银行卡密码是 281930。', title: '银行卡密码', session_id: 'd3' })
    const cur = await writeHandler(backend, { summary: '我的银行卡密码改成 739105 了。', title: '银行卡密码', session_id: 'd11' })
    const echo = await writeHandler(backend, { summary: '用户说卡的密码 739105 记在手机备忘录里。', session_id: 'd20', raw: '用户：卡的密码 739105 我记在备忘录里了' })
    const inRaw = await writeHandler(backend, { summary: '聊了聊手机备忘录怎么用。', session_id: 'd21', raw: '用户：备忘录里有密码 739105，还有购物清单' })
    const unrelated = await writeHandler(backend, { summary: '门禁密码是 5521。', title: '门禁密码' })
    const room = await writeHandler(backend, { summary: '会议室编号 739105 在三楼。', title: '会议室' })

    const plan = await forgetValueHandler(backend, { query: '银行卡密码', dryRun: true })
    expect(plan.dry_run).toBe(true)
    expect(plan.forgotten.map((f) => [f.id, f.reason, f.via])).toEqual([
      [old.id, 'query', null],
      [cur.id, 'query', null],
      [echo.id, 'repeats', cur.id],
      [inRaw.id, 'repeats', cur.id],
    ])
    expect((await backend.indexView()).get(cur.id)?.status).toBe('active')

    const done = await forgetValueHandler(backend, { query: '银行卡密码' })
    expect(done.forgotten.map((f) => f.id)).toEqual(plan.forgotten.map((f) => f.id))
    expect(done.raw.sort()).toEqual([`${echo.id}-raw`, `${inRaw.id}-raw`].sort())
    const statuses = Object.fromEntries([...(await backend.indexView()).values()].map((e) => [e.id, e.status]))
    expect(statuses[unrelated.id]).toBe('active')
    // Shares the number but names another thing: not a repeat of the value.
    expect(statuses[room.id]).toBe('active')
    for (const q of ['银行卡密码', '卡的密码', '备忘录 密码']) expect((await searchHandler(backend, { query: q })).hits.map((h) => h.id)).not.toContain(cur.id)
    // Only the other password (the door code) is left to find.
    expect((await searchHandler(backend, { query: '卡的密码' })).hits.map((h) => h.id)).toEqual([unrelated.id])
    const history = await historyHandler(backend, { id: old.id })
    expect(history.versions.every((v) => v.forgotten && v.text === null)).toBe(true)

    const ledger = await backend.readLedger()
    const event = ledger.find((e) => e.event === 'forget') as LedgerEvent
    expect(event).toMatchObject({ scope: 'memory', by: 'query', query: '银行卡密码', source: 'user', matched: [old.id, cur.id], propagated: [echo.id, inRaw.id] })
    await expectIndexIsProjection(backend)
  })

  it('a forgotten side of a conflict leaves it, and the other side becomes active', async () => {
    const { backend } = await store()
    const a = await writeHandler(backend, { summary: 'Releases are cut on Mondays.', key: 'release-day' })
    const b = await writeHandler(backend, { summary: 'Releases are cut on Fridays.', key: 'release-day', expectConflict: true })
    const out = await forgetValueHandler(backend, { id: b.id })
    expect(out.activated).toEqual([a.id])
    const after = (await backend.indexView()).get(a.id)
    expect(after).toMatchObject({ status: 'active', variants: [] })
    expect((await digestHandler(backend, { key: 'release-day' })).text).not.toContain('Fridays')
  })

  it('refuses id and query together, neither, a query without words, a raw id, an unknown id', async () => {
    const { backend } = await store()
    const ep = await writeHandler(backend, { summary: 'Something happened.', raw: 'text', session_id: 's' })
    await expectCode(forgetValueHandler(backend, { id: ep.id, query: 'something' }), 'INVALID_INPUT')
    await expectCode(forgetValueHandler(backend, {}), 'INVALID_INPUT')
    await expectCode(forgetValueHandler(backend, { query: '的 了 ,' }), 'INVALID_INPUT')
    await expectCode(forgetValueHandler(backend, { id: `${ep.id}-raw` }), 'INVALID_STATE')
    await expectCode(forgetValueHandler(backend, { id: 'mem_nope' }), 'NOT_FOUND')
    const none = await forgetValueHandler(backend, { query: 'kubernetes' })
    expect(none.forgotten).toEqual([])
    expect(none.guidance).toMatch(/^Nothing matched/)
  })

  it('a dry run changes no byte on disk', async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'The staging host is kestrel-7.', title: 'Staging host' })
    await flushCaches(backend)
    const before = await everyFile(root)
    await forgetValueHandler(backend, { query: 'staging host', dryRun: true })
    await flushCaches(backend)
    expect(await everyFile(root)).toEqual(before)
  })
})

describe('memory_purge', () => {
  it('needs a forget first; unknown ids are NOT_FOUND', async () => {
    const { backend } = await store()
    const w = await writeHandler(backend, { summary: 'Keep me.', title: 'Keep' })
    const err = await expectCode(purgeHandler(backend, { id: w.id }), 'INVALID_STATE')
    expect(err.message).toContain('memory_forget')
    await expectCode(purgeHandler(backend, { id: 'mem_never' }), 'NOT_FOUND')
  })

  it('leaves the value nowhere under the root: files, ledger, index, digests, logs, caches', async () => {
    const { backend, root } = await store()
    const VALUE = 'Lantern9047'
    const neighbour = await writeHandler(backend, { summary: 'The backup server is in rack 4.', title: 'Backup server', session_id: 'd1' })
    const old = await writeHandler(backend, { summary: 'The backup passphrase is amber-kite-1130.', title: 'Backup passphrase', session_id: 'd2' })
    const secret = await writeHandler(backend, { summary: `The backup passphrase is violet ${VALUE}.`, title: 'Backup passphrase', session_id: 'd5' })
    const echo = await writeHandler(backend, { summary: 'Talked about where the backup passphrase lives.', raw: `user: it is ${VALUE}, on a sticky note`, session_id: 'd6' })
    // Every derived file that could hold it, made to hold it first.
    await searchHandler(backend, { query: `backup passphrase ${VALUE}` })
    await searchHandler(backend, { query: 'backup server rack' })
    await digestHandler(backend, { key: 'Backup passphrase' })
    await signalsSettled(backend)
    await flushCaches(backend)
    const before = await grep(root, VALUE)
    for (const f of ['index.jsonl', 'usage.jsonl', 'query-log.jsonl', '.cache/search/manifest.json', '.cache/file-stats.bin']) {
      expect(await everyFile(root).then((m) => m.has(f)), f).toBe(true)
    }
    expect(before).toEqual(expect.arrayContaining(['index.jsonl', 'query-log.jsonl', expect.stringMatching(/^\.cache\/search\/seg-.*\.bin$/), secret.path, `raw/${echo.id}.md`, expect.stringMatching(/^digests\//)]))

    const forgot = await forgetValueHandler(backend, { id: secret.id })
    expect(forgot.forgotten.map((f) => [f.id, f.reason])).toEqual([
      [secret.id, 'id'],
      [echo.id, 'repeats'],
    ])
    const ledgerBefore = await backend.readLedger()

    const out = await purgeHandler(backend, { id: secret.id })
    expect(out.already_purged).toBe(false)
    expect(out.purged.sort()).toEqual([secret.id, echo.id, `${echo.id}-raw`].sort())
    expect(out.remaining).toEqual([])
    expect(out.scrubbed).toMatchObject({ index_compacted: true, search_index_rebuilt: true })
    expect(out.scrubbed.query_lines).toBeGreaterThanOrEqual(1)
    expect(out.scrubbed.usage_lines).toBeGreaterThanOrEqual(1)
    expect(out.redacted_events).toBeGreaterThan(0)

    expect(await grep(root, VALUE)).toEqual([])
    expect(await grep(root, 'violet')).toEqual([])
    expect(await grep(root, 'sticky note')).toEqual([])
    for (const p of out.removed_paths) await expect(fs.stat(path.join(root, p))).rejects.toThrow()

    // The ledger keeps every event, with the skeleton of the purged ones, and says it purged.
    const ledger = await backend.readLedger()
    expect(ledger.slice(0, ledgerBefore.length).map((e) => [e.at, e.event])).toEqual(ledgerBefore.map((e) => [e.at, e.event]))
    const write = ledger.find((e) => e.event === 'write' && e.id === secret.id) as LedgerEvent
    expect(write).toMatchObject({ id: secret.id, status: 'active', path: '[purged]', redacted: true })
    const forgetEvent = ledger.find((e) => e.event === 'forget') as LedgerEvent
    expect(forgetEvent).toMatchObject({ scope: 'memory', by: 'id', ids: expect.arrayContaining([secret.id]), redacted: true })
    expect(ledger.at(-1)).toMatchObject({ event: 'purge', scope: 'memory', id: secret.id, source: 'user' })

    // What stays says what it should: the older version, the neighbour; search works on.
    expect((await searchHandler(backend, { query: 'backup server' })).hits.map((h) => h.id)).toEqual([neighbour.id])
    const history = await historyHandler(backend, { id: old.id })
    expect(history.versions.map((v) => v.id)).toEqual([old.id])
    expect(history.purged.map((p) => p.id)).toEqual([secret.id])
    await expectCode(navHandler(backend, { path: secret.id }), 'NOT_FOUND')
    await expectIndexIsProjection(backend)

    // Again: already purged, nothing to do.
    expect(renderValue('memory_purge', out)).toMatch(/^Purged mem_\S+, mem_\S+, mem_\S+: 3 file\(s\) removed, \d+ ledger event\(s\) redacted/)
    expect(await purgeHandler(backend, { id: secret.id })).toMatchObject({ already_purged: true, purged: [] })
    await flushCaches(backend)
    expect(await grep(root, VALUE)).toEqual([])
  })

  it('another process that still holds the memory in its search index does not bring the value back', async () => {
    const { backend, root } = await store()
    const VALUE = 'quartz-meadow-6612'
    await writeHandler(backend, { summary: 'Unrelated: the printer is on floor two.', title: 'Printer' })
    const secret = await writeHandler(backend, { summary: `The alarm code is ${VALUE}.`, title: 'Alarm code' })
    const other = createFileBackend(root)
    expect((await searchHandler(other, { query: 'alarm code' })).hits.map((h) => h.id)).toEqual([secret.id])
    await forgetValueHandler(backend, { id: secret.id })
    await purgeHandler(backend, { id: secret.id })
    // The other process catches up (the memory left its index) and saves its index.
    expect((await searchHandler(other, { query: 'alarm code' })).hits).toEqual([])
    await signalsSettled(other)
    await flushCaches(other)
    expect(await grep(root, VALUE)).toEqual([])
  })

  it('reports files that still hold the value when a memory repeating it was not forgotten', async () => {
    const { backend } = await store()
    const a = await writeHandler(backend, { summary: 'Locker combination: 12-34-56.', title: 'Locker' })
    await forgetValueHandler(backend, { id: a.id })
    // Written after the forget: not taken by it.
    const b = await writeHandler(backend, { summary: 'Reminder, Locker combination: 12-34-56.', title: 'Reminder' })
    const out = await purgeHandler(backend, { id: a.id })
    expect(out.remaining).toEqual(expect.arrayContaining([b.path, 'index.jsonl']))
    expect(out.guidance).toContain('still hold the value')
  })

  it("says that git history, a remote and other clones still hold the value, and how to rewrite it (issue 28, item 14)", async () => {
    const { backend } = await store()
    const a = await writeHandler(backend, { summary: 'Safe code: 4417.', title: 'Safe' })
    await forgetValueHandler(backend, { id: a.id })
    const out = await purgeHandler(backend, { id: a.id })
    expect(out.guidance).toMatch(/git history is not rewritten/i)
    expect(out.guidance).toContain('the remote')
    expect(out.guidance).toContain('git filter-repo --replace-text')
    expect(out.guidance).toContain('force-push')
    // What the CLI and MCP show after a purge carries it too.
    expect(renderValue('memory_purge', out)).toContain('git filter-repo --replace-text')
    // The note names no value: the guidance is shown and logged where the value must not go.
    expect(out.guidance).not.toContain('4417')
  })
})
