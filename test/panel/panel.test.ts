/**
 * The standalone panel in a real headless Chromium against the built `memory-agent serve`: the
 * key gates (Node fetch and the page), then every capability clicked through as a person would,
 * each checked against the store's files: write, search (alias mark, zero hits with tag chips),
 * details, confirm, resolve, soft delete and restore, settings into config.json, the injection
 * preview, rebuild, purge (topics only on their own, two steps), forget a session (two steps),
 * consolidate (a dry run previewed, then run on confirmation, with the report's guidance),
 * sync (no remote: a local commit), export (a real download), the query log, archived memories restored, the
 * rooms with their slots and a location in details, Chinese and English. Screenshots of the main views
 * go to test/artifacts/. The steps share one browser and one store, in order.
 */

import { spawnSync } from 'node:child_process'
import { readFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, decayHandler, embedHandler, roomsHandler, flushCaches, memoryStats, softDelete, writeHandler, type MemoryBackend, type MemoryStatus } from '../../src/api.js'
import { listCounts } from '../../src/memory/reading/listing.js'
import { apiFetch, artifacts, ensureBuilt, ensureChromium, launchBrowser, repo, startServe, type Served } from './harness.js'
import { startEmbeddingsServer } from '../embeddings-server.js'

let root: string
let served: Served
let browser: BrowserContext
let page: Page
let store: MemoryBackend
/** The store's clock: real time unless a seed step sets it (decay needs a memory idle for months). */
let clock: string | null = null
const ids: Record<string, string> = {}
const cspViolations: string[] = []

async function seed(): Promise<void> {
  const w = async (name: string, input: Parameters<typeof writeHandler>[1]) => (ids[name] = (await writeHandler(store, input)).id)
  await w('pnpm', { summary: '项目用 pnpm 管理依赖，不要用 npm install。', title: '包管理器', tags: ['约定', 'pnpm'], session_id: 's-alpha' })
  await w('db', { summary: 'The deploy database is SQLite at /var/db/app.sqlite.', title: 'Database', tags: ['database'], session_id: 's-alpha' })
  await w('pending', { summary: 'Deployments go out on Tuesdays and Thursdays only.', title: 'Deploy days', requireConfirmation: true, session_id: 's-alpha' })
  await w('lunchA', { summary: 'Team lunch is at noon.', key: 'team lunch', session_id: 's-alpha' })
  await w('lunchB', { summary: 'Team lunch is at one o’clock.', key: 'team lunch', expectConflict: true, session_id: 's-beta' })
  await w('ep1', { summary: 'Debugged the Redis cache stampede on the hot key.', raw: 'Long transcript about Redis.', session_id: 's-forget', tags: ['redis'] })
  await w('ep2', { summary: 'Chose Rust for the parser.', raw: 'Discussion about Rust.', session_id: 's-forget' })
  await w('shared', { summary: 'CI runs on Node 20.', session_id: 's-forget' })
  await w('oldTopic', { summary: 'The old wiki lived on Confluence.', title: 'Wiki' })
  await w('throwaway', { summary: 'A throwaway episode.', raw: 'Nothing to keep.', session_id: 's-gamma' })
  await softDelete(store, ids['oldTopic'] ?? '')
  await softDelete(store, ids['throwaway'] ?? '')
  // Written unsure (confidence 0.3) half a year ago and never found: decay archives it.
  clock = new Date(Date.now() - 200 * 86_400_000).toISOString()
  await w('idle', { summary: 'The office plant might be a ficus.', title: 'Office plant', confidence: 0.3 })
  clock = null
  expect((await decayHandler(store, { dryRun: false })).archived.map((a) => a.id)).toEqual([ids['idle']])
  await flushCaches(store)
}

async function statusOf(id: string): Promise<MemoryStatus | undefined> {
  return (await store.indexView()).get(id)?.status
}

const row = (title: string) => page.locator('[data-role=memory-list] > li', { has: page.locator('.dma-rowtitle', { hasText: title }) })

/** Waits until the list shows what it was asked for and no request for it is running. */
async function listSettled(mode: string): Promise<void> {
  await page.locator(`[data-role=memory-list][data-mode="${mode}"]:not([aria-busy])`).waitFor({ state: 'attached' })
}

async function filter(name: string): Promise<void> {
  await page.click(`[data-filter=${name}]`)
  await listSettled(`browse:${name}`)
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(artifacts, `panel-${name}.png`), fullPage: true })
}

async function tab(name: 'memories' | 'today' | 'rooms' | 'settings' | 'maintenance' | 'queryLog' | 'ledger'): Promise<void> {
  await page.click(`[data-tab=${name}]`)
  await page.locator(`[data-tab=${name}][aria-selected=true]`).waitFor()
}

async function openPanel(url: string): Promise<void> {
  await page.goto(url)
  await page.locator('[data-role=store-path]', { hasText: root }).waitFor()
}

beforeAll(async () => {
  ensureChromium()
  ensureBuilt()
  root = mkdtempSync(path.join(tmpdir(), 'panel-e2e-'))
  store = createFileBackend(root, { now: () => clock ?? new Date().toISOString() })
  await seed()
  served = await startServe(root)
  browser = await launchBrowser()
  page = await browser.newPage()
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text())
  })
}, 20 * 60_000)

afterAll(async () => {
  await browser?.close()
  if (served !== undefined) expect(await served.stop()).toBe(0)
  if (store !== undefined) await flushCaches(store)
})

describe('memory-agent serve: the gates', () => {
  it('the API answers 403 without the key or with a wrong one, 200 with it (Node fetch)', async () => {
    const panel = { 'x-dsh-memory-agent': 'panel' }
    expect(await apiFetch(served.base, { op: 'status' }, panel)).toMatchObject({ status: 403, json: { ok: false, error: { code: 'FORBIDDEN' } } })
    expect((await apiFetch(served.base, { op: 'status' }, { ...panel, 'x-dsh-memory-agent-token': 'A'.repeat(43) })).status).toBe(403)
    expect((await apiFetch(served.base, { op: 'status' }, { ...panel, 'x-dsh-memory-agent-token': served.key })).json.ok).toBe(true)
  })

  it('refuses to listen anywhere but loopback, and a port that is no port', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [path.join(repo, 'lib/cli/main.js'), 'serve', '--root', root, ...args], { encoding: 'utf8' })
    const open = run('--host', '0.0.0.0')
    expect(open.status).toBe(2)
    expect(open.stderr).toMatch(/--host 0\.0\.0\.0 is not a loopback address/)
    expect(run('--port', 'http').status).toBe(2)
    expect(run('--port', '70000').status).toBe(2)
  })

  it('serves the page with a strict CSP, the bundle, and 404 for anything else', async () => {
    const res = await fetch(served.base)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self'/)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await res.text()).toContain('<script src="/panel.js"></script>')
    const js = await fetch(new URL('/panel.js', served.base))
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/)
    expect((await fetch(new URL('/index.jsonl', served.base))).status).toBe(404)
    expect((await fetch(new URL('/memory-agent/api', served.base))).status).toBe(405)
    expect(served.url).toBe(`${served.base}#memory-agent-key=${served.key}`)
    expect(readFileSync(path.join(root, '.cache', 'panel-key'), 'utf8').trim()).toBe(served.key)
  })

  it('the page without a key is locked; a wrong pasted key is refused; the link unlocks it and leaves the address bar clean', async () => {
    await page.goto(served.base)
    await page.locator('[data-view=locked]').waitFor()
    await shot('zh-locked')
    await page.fill('[data-role=key-input]', 'x'.repeat(43))
    await page.click('[data-action=unlock]')
    await page.locator('[data-view=locked] [data-kind=error]').waitFor()
    expect(await page.locator('[data-view=locked]').count()).toBe(1)
    expect(await page.evaluate(() => localStorage.getItem('dsh-memory-agent:key'))).toBe('x'.repeat(43))

    await openPanel(served.url)
    expect(await page.evaluate(() => location.hash)).toBe('')
    expect(await page.evaluate(() => location.href)).toBe(served.base)
    expect(await page.evaluate(() => localStorage.getItem('dsh-memory-agent:key'))).toBe(served.key)
  })
})

describe('the panel, clicked through (Chinese)', () => {
  it('shows the store path and the six counters, each the row count of its list; no store switch without a personal store', async () => {
    const counts = await listCounts(store)
    expect(counts.archived).toBe(1)
    for (const key of ['all', 'suggested', 'conflict', 'deleted_pending', 'orphaned', 'archived'] as const)
      expect(await page.locator(`[data-stat=${key}] .dma-stat-n`).textContent()).toBe(String(counts[key]))
    expect(await page.isHidden('[data-role=scope]')).toBe(true)
    expect(await page.locator('[data-role=store]').count()).toBe(0)
    expect(await page.locator('[data-stat=suggested] .dma-stat-l').textContent()).toBe('待确认')
    // The style sheet is in force under the page's CSP (a constructed sheet, no inline style).
    expect(await page.locator('.dma-card').first().evaluate((el) => getComputedStyle(el).borderRadius)).toBe('10px')
    await row('包管理器').waitFor()
    await shot('zh-memories')
  })

  it('writes a memory (active at once, from the user) and shows it first', async () => {
    await page.fill('[data-role=write-summary]', 'The staging server is staging.example.com.')
    await page.fill('[data-role=write-title]', 'Staging host')
    await page.fill('[data-role=write-tags]', 'environment，staging')
    await page.click('[data-action=write]')
    await page.locator('[data-card=write] [data-kind=ok]', { hasText: 'Staging host' }).waitFor()
    await expect.poll(() => page.locator('[data-role=memory-list] > li').first().locator('.dma-rowtitle').textContent()).toBe('Staging host')
    const entry = [...(await store.indexView()).values()].find((e) => e.title === 'Staging host')
    expect(entry).toMatchObject({ status: 'active', tags: ['environment', 'staging'], sources: [{ kind: 'user' }] })
    expect(existsSync(path.join(root, entry?.path ?? 'missing'))).toBe(true)
    expect(await page.inputValue('[data-role=write-summary]')).toBe('')
  })

  it('shows a failed op as its code and message', async () => {
    await page.fill('[data-role=write-summary]', 'A memory with a tag that is far too long.')
    await page.fill('[data-role=write-tags]', 't'.repeat(70))
    await page.click('[data-action=write]')
    const error = page.locator('[data-card=write] [data-kind=error]')
    await error.waitFor()
    expect(await error.locator('[data-role=error-code]').textContent()).toBe('INVALID_INPUT')
    expect(await error.textContent()).toMatch(/tags/)
    await page.fill('[data-role=write-summary]', '')
    await page.fill('[data-role=write-tags]', '')
  })

  it('searches: hits, an alias-inferred hit marked, zero hits with common tags that search again', async () => {
    await page.fill('[data-role=search-input]', 'pnpm')
    await page.click('[data-action=search]')
    await page.locator('[data-role=search-summary]', { hasText: '「pnpm」的结果：1 条' }).waitFor()
    expect(await row('包管理器').count()).toBe(1)

    await page.fill('[data-role=search-input]', '数据库连的哪个')
    await page.press('[data-role=search-input]', 'Enter')
    await row('Database').locator('[data-role=alias-mark]').waitFor()
    expect(await page.locator('[data-role=search-summary]').textContent()).toMatch(/其中 1 条由别名推断/)
    await shot('zh-search-alias')

    await page.fill('[data-role=search-input]', 'kubernetes cluster')
    await page.click('[data-action=search]')
    await page.locator('[data-role=zero-hits]').waitFor()
    const chips = await page.locator('[data-tag-chip]').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag-chip')))
    expect(chips).toContain('database')
    await shot('zh-search-zero')
    await page.click('[data-tag-chip=database]')
    await page.locator('[data-role=search-summary]', { hasText: '标签「database」的结果：1 条' }).waitFor()
    expect(await row('Database').count()).toBe(1)
  })

  it('opens a memory’s details: id, path, status, time, confidence, sources, tags, raw preview', async () => {
    await row('Database').locator('[data-action=details]').click()
    const details = row('Database').locator('[data-role=details]')
    await details.locator('[data-field=id]', { hasText: ids['db'] ?? '?' }).waitFor()
    expect(await details.locator('[data-field=path]').textContent()).toMatch(/^topics\/database-mem_/)
    expect(await details.locator('[data-field=status]').textContent()).toBe('可检索')
    expect(await details.locator('[data-field=confidence]').textContent()).toBe('0.6')
    expect(await details.locator('[data-field=sources]').textContent()).toBe('session: s-alpha')
    expect(await details.locator('[data-field=tags]').textContent()).toBe('database')
    expect(await details.locator('[data-field=time]').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/)
    expect(await details.locator('[data-field=preview]').textContent()).toContain('SQLite at /var/db/app.sqlite')
    const location = (await store.indexView()).get(ids['db'] ?? '')?.location
    expect(location).toMatch(/^topics(-\d+)?#\d+$/)
    expect(await details.locator('[data-field=location]').textContent()).toBe(location)
    await shot('zh-details')
    await page.click('[data-action=clear-search]')
  })

  it('confirms a pending memory', async () => {
    await filter('suggested')
    await row('Deploy days').locator('[data-action=confirm]').click()
    await page.locator('[data-card=memories] [data-kind=ok]', { hasText: 'Deploy days' }).waitFor()
    await expect.poll(() => statusOf(ids['pending'] ?? '')).toBe('active')
    await expect.poll(() => page.locator('[data-stat=suggested] .dma-stat-n').textContent()).toBe('0')
  })

  it('settles a conflict: the other sides show in details, keep makes one active and the other superseded', async () => {
    await filter('conflict')
    expect(await page.locator('[data-role=memory-list] > li').count()).toBe(2)
    const a = page.locator(`[data-role=memory-list] > li[data-id="${ids['lunchA']}"]`)
    await a.locator('[data-action=details]').click()
    await a.locator(`[data-variant="${ids['lunchB']}"]`).waitFor()
    await shot('zh-conflict')
    await a.locator('[data-action=keep]').click()
    await expect.poll(() => statusOf(ids['lunchA'] ?? '')).toBe('active')
    expect(await statusOf(ids['lunchB'] ?? '')).toBe('superseded')
    await expect.poll(() => page.locator('[data-role=memory-list] > li').count()).toBe(0)
  })

  it('soft-deletes a memory and restores it', async () => {
    await filter('all')
    await row('包管理器').locator('[data-action=soft-delete]').click()
    await expect.poll(() => statusOf(ids['pnpm'] ?? '')).toBe('deleted_pending')
    await filter('deleted_pending')
    await row('包管理器').locator('[data-action=restore]').click()
    await expect.poll(() => statusOf(ids['pnpm'] ?? '')).toBe('active')
    await expect.poll(() => row('包管理器').count()).toBe(0)
    await filter('all')
    expect(await row('包管理器').count()).toBe(1)
  })

  it('lists archived memories under their own chip and restores one through memory_restore', async () => {
    await filter('archived')
    expect(await page.locator('[data-filter=archived] .dma-chip-n').textContent()).toBe('1')
    expect(await page.locator('[data-role=memory-list] > li').count()).toBe(1)
    const idle = row('Office plant')
    expect(await idle.getAttribute('data-status')).toBe('archived')
    // Archived is not soft-deleted: no soft-delete restore here, the archive's own.
    expect(await idle.locator('[data-action=restore]').count()).toBe(0)
    await idle.locator('[data-action=restore-archived]').click()
    await page.locator('[data-card=memories] [data-kind=ok]', { hasText: 'Office plant' }).waitFor()
    await expect.poll(() => statusOf(ids['idle'] ?? '')).toBe('active')
    await expect.poll(() => page.locator('[data-stat=archived] .dma-stat-n').textContent()).toBe('0')
    await expect.poll(() => page.locator('[data-role=memory-list] > li').count()).toBe(0)
    await filter('all')
  })

  it('shows the rooms in tour order with their memories by slot (room#slot, title, status)', async () => {
    const listing = await roomsHandler(store, {})
    const names = listing.rooms.map((r) => r.room)
    expect(names).toEqual(expect.arrayContaining(['topics', 'episodes']))
    await tab('rooms')
    await page.locator('[data-role=rooms]:not([aria-busy]) > li[data-room]').first().waitFor()
    expect(await page.locator('[data-role=rooms] > li').evaluateAll((els) => els.map((e) => e.getAttribute('data-room')))).toEqual(names)
    const view = await store.indexView()
    for (const name of ['db', 'idle', 'lunchA']) {
      const entry = view.get(ids[name] ?? '')
      const slot = page.locator(`[data-room="${entry?.location?.split('#')[0]}"] li[data-id="${entry?.id}"]`)
      expect(await slot.locator('.dma-slotloc').textContent()).toBe(entry?.location)
      expect(await slot.locator('.dma-slottitle').textContent()).toBe(entry?.title)
      expect(await slot.locator('[data-status]').textContent()).toBe('可检索')
    }
    // Superseded and soft-deleted memories are not current: they stand in no room.
    expect(await page.locator(`[data-role=rooms] li[data-id="${ids['lunchB']}"]`).count()).toBe(0)
    const topics = listing.rooms.find((r) => r.room === 'topics')
    expect(await page.locator('[data-room=topics] .dma-roomhead .dma-hint').textContent()).toBe(`${topics?.current} 条在此 · 已用 ${topics?.used} / ${listing.capacity} 个槽位`)
    await shot('zh-rooms')
    await tab('memories')
  })

  it('refuses an out-of-range setting with its range, saves the behaviour settings into config.json and previews the resident injection', async () => {
    await tab('settings')
    expect(await page.isChecked('[data-setting=redactSecrets]')).toBe(true)
    expect(await page.inputValue('[data-setting=injectBudgetChars]')).toBe('1500')
    await page.check('[data-setting=requireConfirmation]')
    await page.fill('[data-setting=maxTopK]', '500')
    await page.fill('[data-setting=injectBudgetChars]', '300')
    expect(await page.inputValue('[data-setting=consolidateAfterEpisodes]')).toBe('20')
    await page.fill('[data-setting=consolidateAfterEpisodes]', '0')
    await page.fill('[data-setting=consolidateMinIntervalMinutes]', '10080')
    // 500 in a 1-200 field: refused with the range, nothing saved (it used to be saved as 200 under "saved").
    const configText = () => (existsSync(path.join(root, 'config.json')) ? readFileSync(path.join(root, 'config.json'), 'utf8') : null)
    const before = configText()
    await page.click('[data-action=save-settings]')
    const refused = page.locator('[data-card=settings] [data-kind=error]')
    await refused.waitFor()
    expect(await refused.textContent()).toContain('maxTopK: expected a number from 1 to 200, got 500')
    expect(configText()).toBe(before)
    await shot('zh-settings-refused')
    await page.fill('[data-setting=maxTopK]', '200')
    await page.click('[data-action=save-settings]')
    await page.locator('[data-card=settings] [data-kind=ok]').waitFor()
    const config = JSON.parse(readFileSync(path.join(root, 'config.json'), 'utf8')) as Record<string, unknown>
    expect(config).toMatchObject({ requireConfirmation: true, maxTopK: 200, injectBudgetChars: 300, redactSecrets: true, injectEnabled: true, autoSettleEnabled: false, defaultBudget: 1200 })
    expect(config).toMatchObject({ consolidateAfterEpisodes: 0, consolidateMinIntervalMinutes: 10_080 })
    expect(await page.inputValue('[data-setting=consolidateMinIntervalMinutes]')).toBe('10080')
    expect(await page.inputValue('[data-setting=maxTopK]')).toBe('200')

    await page.click('[data-action=inject-preview]')
    const text = await page.locator('[data-role=inject-text]').textContent()
    expect(text).toMatch(/^## 长期记忆 \(dsh-memory-agent\)/)
    expect(text?.length ?? 0).toBeLessThanOrEqual(300)
    expect(await page.locator('[data-role=inject-summary]').textContent()).toMatch(/ \/ 300 /)
    await shot('zh-settings')
    await page.uncheck('[data-setting=injectEnabled]')
    expect(await page.isDisabled('[data-setting=injectBudgetChars]')).toBe(true)
    await page.click('[data-action=inject-preview]')
    await page.locator('[data-role=inject-preview] .dma-empty').waitFor()
    await page.check('[data-setting=injectEnabled]')
  })

  it('rebuilds the index', async () => {
    await tab('maintenance')
    await page.click('[data-action=rebuild]')
    await page.locator('[data-card=rebuild] [data-kind=ok]', { hasText: '已重建' }).waitFor()
  })

  it('purges soft-deleted files in two steps, skipping topics; "purge topics too" only while soft-deleted topics exist', async () => {
    const throwaway = (await store.indexView()).get(ids['throwaway'] ?? '')
    const oldTopic = (await store.indexView()).get(ids['oldTopic'] ?? '')
    expect(await page.isVisible('[data-role=purge-topics]')).toBe(true)
    await page.click('[data-action=purge]')
    await page.locator('[data-confirm=purge]').waitFor()
    await shot('zh-maintenance')
    await page.click('[data-action=purge-cancel]')
    expect(await page.isHidden('[data-confirm=purge]')).toBe(true)
    expect(existsSync(path.join(root, throwaway?.path ?? ''))).toBe(true)

    await page.click('[data-action=purge]')
    await page.click('[data-action=purge-yes]')
    await page.locator('[data-card=purge] [data-kind=ok]', { hasText: '跳过 1 条主题记忆' }).waitFor()
    expect(existsSync(path.join(root, throwaway?.path ?? ''))).toBe(false)
    expect(existsSync(path.join(root, throwaway?.raw_ref ?? ''))).toBe(false)
    expect(existsSync(path.join(root, oldTopic?.path ?? ''))).toBe(true)

    await page.click('[data-action=purge-topics]')
    await page.click('[data-action=purge-topics-yes]')
    await page.locator('[data-card=purge] [data-kind=ok]', { hasText: '已删除 0 条经历、0 条原文、1 条主题记忆。' }).waitFor()
    expect(existsSync(path.join(root, oldTopic?.path ?? ''))).toBe(false)
    await expect.poll(() => page.isHidden('[data-role=purge-topics]')).toBe(true)
  })

  it('forgets a session in two steps: episodes soft-deleted, its only topic orphaned', async () => {
    const session = page.locator('[data-session=s-forget]')
    expect(await session.textContent()).toMatch(/2 条经历 · 2 条原文 · 1 条主题/)
    await session.locator('[data-action=forget]').click()
    await session.locator('[data-confirm=forget]', { hasText: 's-forget' }).waitFor()
    await session.locator('[data-action=forget-yes]').click()
    await page.locator('[data-card=sessions] [data-kind=ok]', { hasText: 's-forget' }).waitFor()
    expect(await statusOf(ids['ep1'] ?? '')).toBe('deleted_pending')
    expect(await statusOf(ids['ep2'] ?? '')).toBe('deleted_pending')
    expect(await statusOf(ids['shared'] ?? '')).toBe('orphaned')
    await expect.poll(() => page.locator('[data-session=s-forget]').count()).toBe(0)
    expect(await page.locator('[data-stat=orphaned] .dma-stat-n').textContent()).toBe('1')
  })

  it('syncs through git: without a remote, commits locally and says so', async () => {
    await page.click('[data-action=sync]')
    await page.locator('[data-card=sync] [data-kind=ok]', { hasText: '还没有远端' }).waitFor()
  })

  it('backfill in serve: the buttons are disabled and say why (no host sessions here), instead of answering 409', async () => {
    expect(await page.isDisabled('[data-action=backfill-estimate]')).toBe(true)
    expect(await page.isDisabled('[data-action=backfill-run]')).toBe(true)
    expect(await page.locator('[data-role=backfill-unavailable]').textContent()).toContain('补录只能在 DSH 内的面板里运行')
    await page.locator('[data-card=backfill]').screenshot({ path: path.join(artifacts, 'panel-zh-backfill-disabled.png') })
  })

  it('consolidates: the button previews a dry run (nothing written), the confirmation runs it, both with the guidance', async () => {
    // One fact said in two sessions (active: the settings above turned the confirmation gate on).
    const said = [
      await writeHandler(store, { summary: 'The user mentioned they are based in Lisbon, so a 9:00 UTC call works.', type: 'episode', session_id: 's-lisbon-1', requireConfirmation: false }),
      await writeHandler(store, { summary: 'Scheduled the vendor sync for 10:00 Lisbon time, since that is where the user lives.', type: 'episode', session_id: 's-lisbon-2', requireConfirmation: false }),
    ].map((w) => w.id)
    const consolidations = async () => (await store.readLedger()).filter((e) => e.event === 'consolidate')
    const topics = async () => [...(await store.indexView()).values()].filter((e) => e.type === 'topic' && e.derived_from !== undefined)
    await page.click('[data-action=consolidate]')
    const preview = page.locator('[data-confirm=consolidate] [data-role=consolidate-preview]')
    await preview.waitFor()
    expect(await preview.textContent()).toMatch(/^预览（没有改动）：1 条提升为主题，/)
    expect(await preview.locator('[data-role=consolidate-guidance]').textContent()).toMatch(/^ Dry run, nothing changed: would be 1 promoted/)
    expect(await consolidations()).toEqual([])
    expect(await topics()).toEqual([])
    await shot('zh-consolidate')
    await page.click('[data-action=consolidate-yes]')
    const done = page.locator('[data-card=consolidate] [data-kind=ok]')
    await done.waitFor()
    expect(await done.textContent()).toMatch(/^已巩固：1 条提升为主题，/)
    expect(await done.locator('[data-role=consolidate-guidance]').textContent()).toMatch(/^ Consolidated: 1 promoted/)
    expect(await page.isHidden('[data-confirm=consolidate]')).toBe(true)
    expect(await consolidations()).toHaveLength(1)
    expect((await topics()).map((e) => [...(e.derived_from ?? [])].sort())).toEqual([[...said].sort()])
  })

  it('exports the bundle as a download', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action=export]')])
    expect(download.suggestedFilename()).toMatch(/^panel-e2e-\w+-.*\.json$/)
    const bundle = JSON.parse(readFileSync(await download.path(), 'utf8')) as { format: string; truncated: boolean; files: Array<{ path: string; text: string }>; index: unknown[] }
    expect(bundle.format).toBe('dsh-memory-agent/bundle')
    expect(bundle.truncated).toBe(false)
    expect(bundle.files.map((f) => f.path)).toContain('config.json')
    expect(bundle.files.some((f) => f.text.includes('staging.example.com'))).toBe(true)
    await page.locator('[data-card=export] [data-kind=ok]').waitFor()
    expect(await page.locator('[data-role=truncated]').count()).toBe(0)
  })

  it('lists the query log newest first, zero hits marked, and searches a query again', async () => {
    await tab('queryLog')
    const rows = page.locator('[data-role=query-log] > li')
    await rows.first().waitFor()
    const queries = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-query')))
    expect(queries).toEqual(['kubernetes cluster', '数据库连的哪个', 'pnpm'])
    expect(await rows.first().locator('[data-zero=true]').count()).toBe(1)
    await shot('zh-query-log')
    await rows.nth(2).locator('[data-action=search-again]').click()
    await page.locator('[data-role=search-summary]', { hasText: '「pnpm」' }).waitFor()
    expect(await page.inputValue('[data-role=search-input]')).toBe('pnpm')
  })

  it('flags a memory whose front-matter a hand edit broke, with where it breaks; the flag goes once it is fixed', async () => {
    const entry = (await store.indexView()).get(ids['pnpm'] ?? '')
    const file = path.join(root, entry?.path ?? '')
    const text = readFileSync(file, 'utf8')
    writeFileSync(file, text.replace(/^title: /m, 'title: ['))
    await tab('memories')
    await page.fill('[data-role=search-input]', '')
    await filter('all')
    const flag = row('包管理器').locator('[data-role=front-matter-warning]')
    await flag.waitFor()
    expect(await flag.getAttribute('title')).toMatch(new RegExp(`^${entry?.path}:\\d+: the front-matter does not parse`))
    writeFileSync(file, text)
    await filter('suggested')
    await filter('all')
    await expect.poll(() => row('包管理器').locator('[data-role=front-matter-warning]').count()).toBe(0)
  })
})

describe('the panel in English, and locked again', () => {
  it('shows every view in English and switches language in place', async () => {
    await openPanel(`${served.base}?lang=en`)
    expect(await page.locator('[data-tab=memories]').textContent()).toBe('Memories')
    expect(await page.locator('[data-stat=deleted_pending] .dma-stat-l').textContent()).toBe('To clean')
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en')
    await row('Database').waitFor()
    await shot('en-memories')
    await page.fill('[data-role=search-input]', 'terraform')
    await page.click('[data-action=search]')
    await page.locator('[data-role=zero-hits]', { hasText: 'Nothing matched' }).waitFor()
    await shot('en-search-zero')
    await tab('settings')
    await page.click('[data-action=inject-preview]')
    await page.locator('[data-role=inject-summary]', { hasText: 'characters' }).waitFor()
    await shot('en-settings')
    await tab('maintenance')
    await page.locator('[data-session=s-alpha]').waitFor()
    expect(await page.locator('[data-card=consolidate] h3').textContent()).toBe('Consolidate')
    await page.click('[data-action=consolidate]')
    await page.locator('[data-role=consolidate-preview]', { hasText: 'Preview (nothing changed): 0 promoted to topics' }).waitFor()
    await page.click('[data-action=consolidate-cancel]')
    await shot('en-maintenance')
    await tab('queryLog')
    await page.locator('[data-role=query-log] > li').first().waitFor()
    await shot('en-query-log')

    await page.click('[data-action=language]')
    await page.locator('[data-tab=memories]', { hasText: '记忆' }).waitFor()
    expect(await page.evaluate(() => localStorage.getItem('dsh-memory-agent:locale'))).toBe('zh')
    await page.click('[data-action=language]')
    await page.locator('[data-tab=memories]', { hasText: 'Memories' }).waitFor()
  })

  it('fits a narrow settings column', async () => {
    await page.setViewportSize({ width: 640, height: 900 })
    await tab('memories')
    await row('Database').waitFor()
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(overflow).toBe(0)
    await shot('en-narrow')
    await page.setViewportSize({ width: 1000, height: 900 })
  })

  it('shows every tab on screen at phone width, in both languages (they wrap, none scrolled off)', async () => {
    await page.setViewportSize({ width: 360, height: 800 })
    try {
      for (const locale of ['en', 'zh']) {
        for (const name of ['memories', 'today', 'rooms', 'settings', 'maintenance', 'queryLog', 'ledger'] as const) {
          const box = await page.locator(`[data-tab=${name}]`).boundingBox()
          expect(box, `${locale}: tab ${name}`).not.toBeNull()
          expect((box?.x ?? 0) + (box?.width ?? 0), `${locale}: tab ${name} ends past 360px`).toBeLessThanOrEqual(360)
        }
        await tab('queryLog')
        await shot(`${locale}-phone-tabs`)
        await tab('memories')
        await page.click('[data-action=language]')
      }
    } finally {
      await page.setViewportSize({ width: 1000, height: 900 })
    }
  })

  it('shows the embedder line under the counters only when the store has an embedder: coverage and queue', async () => {
    expect(await page.locator('[data-role=vectors]').isHidden()).toBe(true)
    const endpoint = await startEmbeddingsServer()
    const configFile = path.join(root, 'config.json')
    const before = existsSync(configFile) ? readFileSync(configFile, 'utf8') : '{}'
    try {
      writeFileSync(configFile, JSON.stringify({ ...(JSON.parse(before) as object), embedder: { baseUrl: endpoint.url, model: 'concepts', dimensions: 12 } }))
      const searchable = (await memoryStats(store)).searchable
      await page.click('[data-action=refresh]')
      const line = page.locator('[data-role=vectors]')
      await line.filter({ hasText: `0/${searchable} embedded, ${searchable} queued` }).waitFor()
      expect(await line.textContent()).toBe(`Vectors: openai openai:concepts:12 (12 dimensions), 0/${searchable} embedded, ${searchable} queued, 0 dimension mismatches`)
      expect(await line.getAttribute('data-alert')).toBe('true')
      await embedHandler(store, {})
      await page.click('[data-action=refresh]')
      await line.filter({ hasText: `${searchable}/${searchable} embedded, 0 queued` }).waitFor()
      await shot('en-vectors')
    } finally {
      writeFileSync(configFile, before)
      await endpoint.close()
    }
    await page.click('[data-action=refresh]')
    await page.locator('[data-role=vectors]').waitFor({ state: 'hidden' })
  })

  it('forgetting the key locks the panel, and the page’s own request without it gets 403', async () => {
    await page.click('[data-action=forget-key]')
    await page.locator('[data-view=locked]').waitFor()
    expect(await page.evaluate(() => localStorage.getItem('dsh-memory-agent:key'))).toBeNull()
    await shot('en-locked')
    const status = await page.evaluate(async () => {
      const res = await fetch('/memory-agent/api', { method: 'POST', headers: { 'content-type': 'application/json', 'x-dsh-memory-agent': 'panel' }, body: '{"op":"status"}' })
      return res.status
    })
    expect(status).toBe(403)
    // The key pasted by hand unlocks it again.
    await page.fill('[data-role=key-input]', `  ${served.key}\n`)
    await page.click('[data-action=unlock]')
    await page.locator('[data-role=store-path]', { hasText: root }).waitFor()
  })

  it('met no Content Security Policy violation', () => {
    expect(cspViolations).toEqual([])
  })
})
