/**
 * The panel over two stores in a real headless Chromium against the built `memory-agent serve
 * --user-root`, in Chinese and in English, each view checked against the stores' files: both
 * stores listed (a preference in the personal store shown, each row with its store, the
 * All / Personal / Project switch, a write into the store chosen, the palace of the store picked),
 * every counter equal to the rows of its list in every scope,
 * editing (a new version on disk through write_memory, the old one superseded and in the
 * history, ledger events; refusals by the confirmation gate and by the supersedes guard shown
 * with their code, nothing written), the review card (confirm schedules the next review, reject
 * soft-deletes, later writes nothing), the health score (its parts, a broken file costing its
 * points), the operation log (newest first, by kind, a link to the memory), and today and the log
 * at phone width. Screenshots go to
 * test/artifacts/ (panel-<locale>-<view>.png). The memories are keyless free text, in both languages.
 */

import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, historyHandler, softDelete, writeHandler, type LedgerEvent, type MemoryBackend } from '../../src/api.js'
import { listCounts, type ListCounts } from '../../src/memory/reading/listing.js'
import { findTool } from '../../src/tools/index.js'
import { artifacts, ensureBuilt, ensureChromium, launchBrowser, startServe, type Served } from './harness.js'

type Locale = 'zh' | 'en'
type StoreName = 'project' | 'user'

let served: Served
let browser: BrowserContext
let page: Page
let project: MemoryBackend
let user: MemoryBackend
let clock: string | null = null
const ids: Record<string, string> = {}

/** What each language's memories say: keyless free text (no key, no title). */
const TEXT: Record<Locale, Record<'edit' | 'edited' | 'gate' | 'guard' | 'replaced' | 'preference', string>> = {
  zh: {
    edit: '部署脚本放在 scripts/deploy.sh 里。',
    edited: '部署脚本现在放在 bin/deploy.sh 里，老路径已经删了。',
    gate: '单元测试用 vitest 跑，不用 jest。',
    guard: '生产日志保留 30 天后自动清理。',
    replaced: '生产日志现在保留九十天，归档到对象存储。',
    preference: '我喜欢简短的中文回答，先给结论。',
  },
  en: {
    edit: 'The deploy script lives in scripts/deploy.sh.',
    edited: 'The deploy script now lives in bin/deploy.sh; the old path is gone.',
    gate: 'Unit tests run with vitest, not jest.',
    guard: 'Production logs are kept for 30 days, then removed.',
    replaced: 'Production logs now go to object storage for ninety days.',
    preference: 'I prefer short answers that lead with the conclusion.',
  },
}
const EDITED_TITLE: Record<Locale, string> = { zh: '部署脚本位置', en: 'Deploy script location' }
const WORDS: Record<Locale, { user: string; project: string; today: string; ledger: string }> = {
  zh: { user: '个人库', project: '项目库', today: '今日', ledger: '操作日志' },
  en: { user: 'Personal', project: 'Project', today: 'Today', ledger: 'Operation log' },
}

const backendOf = (store: StoreName) => (store === 'user' ? user : project)

async function seed(): Promise<void> {
  // Checked five days ago, so due first: the review card shows their evidence.
  clock = new Date(Date.now() - 5 * 86_400_000).toISOString()
  for (const [i, [summary, cmd]] of [
    ['构建需要 Node 20。', 'node --version'],
    ['The lockfile is package-lock.json.', 'ls package-lock.json'],
    ['测试覆盖率门槛是 80%。', 'npm run coverage'],
    ['The CLI entry is lib/cli/main.js.', 'ls lib/cli/main.js'],
  ].entries())
    ids[`evidence${i}`] = (await writeHandler(project, { summary: summary ?? '', source: 'user', verify_cmd: cmd, verify_expect: 'exit 0', verify_result: 'pass', verified_at: clock })).id
  // Written three days ago: every current memory is due for review (the first review is a day after writing).
  clock = new Date(Date.now() - 3 * 86_400_000).toISOString()
  for (const locale of ['zh', 'en'] as const) {
    const text = TEXT[locale]
    for (const name of ['edit', 'gate', 'guard'] as const) ids[`${locale}-${name}`] = (await writeHandler(project, { summary: text[name], source: 'user' })).id
    ids[`${locale}-preference`] = (await writeHandler(user, { summary: text.preference, tags: [locale === 'zh' ? '偏好' : 'preference'], source: 'user' })).id
  }
  for (const [i, summary] of ['CI 在 GitHub Actions 上跑。', 'Code review needs one approval.', '发布分支叫 release。', 'Releases are tagged vX.Y.Z.', '数据库备份每天凌晨两点。', 'Staging is reset every Monday.'].entries())
    ids[`review${i}`] = (await writeHandler(project, { summary, source: 'user' })).id
  for (let i = 0; i < 16; i++) await writeHandler(project, { summary: `Filler note number ${i} about module m${i}.`, title: `Filler ${i}`, source: 'user' })
  await writeHandler(project, { summary: 'Team lunch is at noon.', key: 'team lunch' })
  await writeHandler(project, { summary: 'Team lunch is at one.', key: 'team lunch', expectConflict: true })
  await writeHandler(project, { summary: 'Deployments only on Tuesdays.', requireConfirmation: true })
  await softDelete(project, (await writeHandler(project, { summary: 'An old note nobody needs.', title: 'Old note' })).id)
  await writeHandler(user, { summary: 'My editor is Helix.', title: 'Editor', requireConfirmation: true })
  clock = null
  for (const [name, id] of Object.entries(ids)) {
    const store = name.endsWith('preference') ? user : project
    expect((await store.indexView()).get(id)?.status, name).toBe('active')
  }
  await flushCaches(project)
  await flushCaches(user)
}

async function shot(locale: Locale, name: string): Promise<void> {
  await page.screenshot({ path: path.join(artifacts, `panel-${locale}-${name}.png`), fullPage: true })
}

async function tab(name: string): Promise<void> {
  await page.click(`[data-tab=${name}]`)
  await page.locator(`[data-tab=${name}][aria-selected=true]`).waitFor()
}

async function listSettled(mode: string): Promise<void> {
  await page.locator(`[data-role=memory-list][data-mode="${mode}"]:not([aria-busy])`).waitFor({ state: 'attached' })
}

async function scope(name: 'all' | 'user' | 'project'): Promise<void> {
  await page.click(`[data-scope=${name}]`)
  await page.locator(`[data-scope=${name}][aria-pressed=true]`).waitFor()
}

const rows = () => page.locator('[data-role=memory-list] > li')
const rowOf = (id: string) => page.locator(`[data-role=memory-list] > li[data-id="${id}"]`)

/** Every row of the current list: "more" clicked until the list is whole. */
async function wholeList(): Promise<number> {
  for (;;) {
    const more = page.locator('[data-action=more]')
    if ((await more.count()) === 0) return rows().count()
    const before = await rows().count()
    await more.click()
    await expect.poll(() => rows().count()).toBeGreaterThan(before)
  }
}

async function countsOf(stores: readonly StoreName[]): Promise<ListCounts> {
  const all = await Promise.all(stores.map(async (s) => listCounts(backendOf(s))))
  const out = { ...(all[0] as ListCounts) }
  for (const key of Object.keys(out) as Array<keyof ListCounts>) out[key] = all.reduce((n, c) => n + c[key], 0)
  return out
}

async function ledgerOf(store: StoreName): Promise<LedgerEvent[]> {
  return backendOf(store).readLedger()
}

async function dueIds(store: StoreName): Promise<string[]> {
  const queue = (await (findTool('memory_review_queue')?.handler as (b: MemoryBackend, i: unknown) => Promise<{ items: Array<{ id: string }> }>)(backendOf(store), { limit: 50 })).items
  return queue.map((c) => c.id)
}

async function openPanel(locale: Locale): Promise<void> {
  await page.goto(`${served.base}?lang=${locale}#memory-agent-key=${served.key}`)
  await page.locator('[data-role=store-path]', { hasText: project.root }).waitFor()
  await listSettled('browse:all')
}

beforeAll(async () => {
  ensureChromium()
  ensureBuilt()
  const now = () => clock ?? new Date().toISOString()
  project = createFileBackend(mkdtempSync(path.join(tmpdir(), 'panel-views-project-')), { now })
  user = createFileBackend(mkdtempSync(path.join(tmpdir(), 'panel-views-user-')), { now })
  await seed()
  served = await startServe(project.root, ['--user-root', user.root])
  browser = await launchBrowser()
  page = await browser.newPage()
}, 20 * 60_000)

afterAll(async () => {
  await browser?.close()
  if (served !== undefined) expect(await served.stop()).toBe(0)
  for (const b of [project, user]) if (b !== undefined) await flushCaches(b)
})

for (const locale of ['zh', 'en'] as const) {
  describe(`the panel over two stores (${locale})`, () => {
    const words = WORDS[locale]
    const text = TEXT[locale]

    beforeAll(async () => {
      await openPanel(locale)
    })

    it('lists both stores: the personal preference is shown, each row says its store, the switch filters', async () => {
      expect(await page.locator('[data-role=user-store-path] code').textContent()).toBe(user.root)
      const preference = rowOf(ids[`${locale}-preference`] ?? '?')
      await preference.waitFor()
      expect(await preference.locator('.dma-rowtitle').textContent()).toBe(text.preference)
      expect(await preference.locator('[data-role=store]').getAttribute('data-store')).toBe('user')
      expect(await preference.locator('[data-role=store]').textContent()).toBe(words.user)
      const own = rowOf(ids[`${locale}-gate`] ?? '?')
      await wholeList()
      expect(await own.locator('[data-role=store]').textContent()).toBe(words.project)
      // Every row names its store, and names the store that holds it.
      const shown = await rows().evaluateAll((els) => els.map((e) => [e.getAttribute('data-id'), e.querySelector('[data-role=store]')?.getAttribute('data-store')]))
      const userIds = new Set([...(await user.indexView()).values()].map((e) => e.id))
      for (const [id, store] of shown) expect(store, String(id)).toBe(userIds.has(id ?? '') ? 'user' : 'project')
      expect(shown.some(([, s]) => s === 'user') && shown.some(([, s]) => s === 'project')).toBe(true)

      await scope('user')
      await listSettled('browse:all')
      expect(await rows().evaluateAll((els) => [...new Set(els.map((e) => e.querySelector('[data-role=store]')?.getAttribute('data-store')))])).toEqual(['user'])
      expect(await rows().count()).toBe((await listCounts(user)).all)
      await preference.waitFor()
      await shot(locale, 'stores-personal')

      await scope('project')
      await listSettled('browse:all')
      expect(await preference.count()).toBe(0)
      expect(await page.locator('[data-role=memory-list] [data-store=user]').count()).toBe(0)
      await scope('all')
      await listSettled('browse:all')
      await preference.waitFor()

      // Written from the panel into the personal store, chosen by hand: there on disk, marked in the list.
      const said = locale === 'zh' ? '我的默认 shell 是 fish。' : 'My default shell is fish.'
      await page.fill('[data-role=write-summary]', said)
      await page.selectOption('[data-role=write-store]', 'user')
      await page.click('[data-action=write]')
      await page.locator('[data-card=write] [data-kind=ok]', { hasText: locale === 'zh' ? '写在个人库' : 'in the personal store' }).waitFor()
      const written = [...(await user.indexView()).values()].find((e) => e.summary === said)
      expect(written).toMatchObject({ status: 'active', sources: [{ kind: 'user' }] })
      expect([...(await project.indexView()).values()].some((e) => e.summary === said)).toBe(false)
      await rowOf(written?.id ?? '?').locator('[data-role=store][data-store=user]').waitFor()
      await shot(locale, 'stores')
    })

    it('shows the palace of the store the switch picks: the personal store’s rooms under Personal', async () => {
      const slotOf = async (store: StoreName, id: string) => (await backendOf(store).indexView()).get(id)?.location
      const preference = ids[`${locale}-preference`] ?? '?'
      await tab('rooms')
      await page.locator('[data-role=rooms-store][data-store=project]').waitFor()
      await page.locator('[data-role=rooms]:not([aria-busy]) > li[data-room]').first().waitFor()
      expect(await page.locator(`[data-role=rooms] li[data-id="${preference}"]`).count()).toBe(0)
      await scope('user')
      await page.locator('[data-role=rooms-store][data-store=user]').waitFor()
      const slot = page.locator(`[data-role=rooms]:not([aria-busy]) li[data-id="${preference}"]`)
      await slot.waitFor()
      expect(await slot.locator('.dma-slotloc').textContent()).toBe(await slotOf('user', preference))
      expect(await page.locator(`[data-role=rooms] li[data-id="${ids[`${locale}-gate`]}"]`).count()).toBe(0)
      await shot(locale, 'rooms-personal')
      await scope('all')
      await tab('memories')
      await listSettled('browse:all')
    })

    it('shows every counter equal to the rows of its list, in every scope (one source for all of them)', async () => {
      for (const [name, stores] of [['all', ['project', 'user']], ['user', ['user']], ['project', ['project']]] as const) {
        await scope(name)
        await listSettled('browse:all')
        const expected = await countsOf(stores)
        expect(await page.locator(`[data-scope=${name}] .dma-chip-n`).textContent(), `scope ${name}`).toBe(String(expected.all))
        const heads = await page.locator('[data-stat]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-stat') ?? '', e.querySelector('.dma-stat-n')?.textContent ?? '']))
        expect(heads.length).toBe(6)
        for (const [key, n] of heads) expect(n, `${name}: head ${key}`).toBe(String(expected[key as keyof ListCounts]))
        const chips = await page.locator('[data-filter]').evaluateAll((els) => els.map((e) => e.getAttribute('data-filter') ?? ''))
        expect(chips.length).toBe(7)
        for (const filter of chips) {
          await page.click(`[data-filter=${filter}]`)
          await listSettled(`browse:${filter}`)
          const chip = await page.locator(`[data-filter=${filter}] .dma-chip-n`).textContent()
          const listed = await wholeList()
          expect(chip, `${name}: chip ${filter}`).toBe(String(listed))
          expect(listed, `${name}: list ${filter}`).toBe(expected[filter as keyof ListCounts])
          const head = heads.find(([key]) => key === filter)
          if (head !== undefined) expect(head[1], `${name}: head ${filter} above chip ${filter}`).toBe(chip)
        }
        await page.click('[data-filter=all]')
        await listSettled('browse:all')
      }
      await scope('all')
      await listSettled('browse:all')
      await shot(locale, 'counters')
    })

    it('edits a memory’s text and title: a new version on disk through write_memory, the old one superseded and in the history, logged', async () => {
      const old = ids[`${locale}-edit`] ?? '?'
      await wholeList()
      const row = rowOf(old)
      await row.locator('[data-action=edit]').click()
      const form = row.locator('[data-role=edit]')
      expect(await form.locator('[data-role=edit-summary]').inputValue()).toBe(text.edit)
      await form.locator('[data-role=edit-title]').fill(EDITED_TITLE[locale])
      await form.locator('[data-role=edit-summary]').fill(text.edited)
      await shot(locale, 'edit')
      await form.locator('[data-action=edit-save]').click()
      await page.locator('[data-card=memories] [data-kind=ok]', { hasText: EDITED_TITLE[locale] }).waitFor()

      const view = await project.indexView()
      const fresh = [...view.values()].find((e) => e.summary === text.edited)
      expect(fresh).toMatchObject({ status: 'active', title: EDITED_TITLE[locale], supersedes: old, sources: [{ kind: 'user' }] })
      expect(readFileSync(path.join(project.root, fresh?.path ?? '?'), 'utf8')).toContain(text.edited)
      expect(view.get(old)).toMatchObject({ status: 'superseded', superseded_by: fresh?.id })
      expect(readFileSync(path.join(project.root, view.get(old)?.path ?? '?'), 'utf8')).toContain(text.edit)
      const ledger = await ledgerOf('project')
      expect(ledger).toContainEqual(expect.objectContaining({ event: 'supersede', id: fresh?.id, ids: [old] }))
      expect(ledger).toContainEqual(expect.objectContaining({ event: 'write', id: fresh?.id, source: 'user' }))
      expect((await historyHandler(project, { id: fresh?.id ?? '?' })).versions.map((v) => v.id)).toEqual([old, fresh?.id])
      ids[`${locale}-edited`] = fresh?.id ?? '?'

      const edited = rowOf(fresh?.id ?? '?')
      await edited.locator('[data-action=details]').click()
      await edited.locator(`[data-field=history] [data-version="${old}"][data-status=superseded]`).waitFor()
      expect(await edited.locator(`[data-field=history] [data-version="${fresh?.id}"]`).count()).toBe(1)
      await shot(locale, 'edit-history')
    })

    it('shows a refused edit with its code, writing nothing: a memory no longer current, the confirmation gate', async () => {
      const count = async () => (await project.indexView()).size
      // The guard of supersedes: the memory was replaced (here, from another surface) while the form was open.
      const guarded = ids[`${locale}-guard`] ?? '?'
      await wholeList()
      const row = rowOf(guarded)
      await row.locator('[data-action=edit]').click()
      await writeHandler(project, { summary: text.replaced, supersedes: [guarded] })
      expect((await project.indexView()).get(guarded)?.status).toBe('superseded')
      const before = await count()
      await row.locator('[data-role=edit-summary]').fill(`${text.guard} !`)
      await row.locator('[data-action=edit-save]').click()
      const refused = row.locator('[data-role=edit] [data-kind=error]')
      await refused.waitFor()
      expect(await refused.locator('[data-role=error-code]').textContent()).toBe('INVALID_INPUT')
      expect(await refused.textContent()).toContain(`memory ${guarded} is superseded, not current`)
      expect(await count()).toBe(before)
      await shot(locale, 'edit-refused')
      await row.locator('[data-action=edit-cancel]').click()

      // The confirmation gate: with requireConfirmation on, a replacement is refused, not held.
      const configFile = path.join(project.root, 'config.json')
      writeFileSync(configFile, JSON.stringify({ requireConfirmation: true }))
      try {
        const gated = rowOf(ids[`${locale}-gate`] ?? '?')
        await gated.locator('[data-action=edit]').click()
        await gated.locator('[data-role=edit-summary]').fill(`${text.gate} 2`)
        await gated.locator('[data-action=edit-save]').click()
        const gate = gated.locator('[data-role=edit] [data-kind=error]')
        await gate.waitFor()
        expect(await gate.locator('[data-role=error-code]').textContent()).toBe('INVALID_INPUT')
        expect(await gate.textContent()).toContain('no requireConfirmation beside it')
        expect(await count()).toBe(before)
        expect((await project.indexView()).get(ids[`${locale}-gate`] ?? '?')?.status).toBe('active')
        await gated.locator('[data-action=edit-cancel]').click()
      } finally {
        rmSync(configFile)
      }
    })

    it('review card: the next memory due with its evidence; confirm schedules it later, reject soft-deletes, later writes nothing', async () => {
      await tab('today')
      expect(await page.locator('[data-tab=today]').textContent()).toBe(words.today)
      const item = page.locator('[data-role=review-item]')
      await item.waitFor()
      const current = async () => ({ id: (await item.getAttribute('data-id')) ?? '?', store: ((await item.getAttribute('data-store')) ?? 'project') as StoreName })

      const first = await current()
      const entry = (await backendOf(first.store).indexView()).get(first.id)
      const said = [await item.locator('[data-field=review-title]').textContent(), ...(await item.locator('[data-field=review-summary]').allTextContents())]
      expect(said).toContain(entry?.summary)
      expect(said[0]).toBe(entry?.title)
      expect(await item.locator('[data-field=review-sources]').textContent()).toBe(entry?.sources.map((x) => (x.session_id !== null ? `${x.kind}: ${x.session_id}` : x.kind)).join(', '))
      expect(await item.locator('[data-field=review-confidence]').textContent()).toBe(String(entry?.confidence))
      // The most overdue first: a memory whose check passed, with that check as its evidence.
      expect(entry?.evidence).toMatchObject({ result: 'pass' })
      expect(await item.locator('[data-field=review-evidence]').textContent()).toContain(`pass${locale === 'zh' ? '：' : ': '}${entry?.evidence?.cmd}`)
      expect(await page.locator('[data-role=review-count]').textContent()).toContain(String((await dueIds('project')).length + (await dueIds('user')).length))
      await shot(locale, 'review')
      await item.locator('[data-action=review-confirm]').click()
      await page.locator(`[data-role=review-item]:not([data-id="${first.id}"])`).waitFor()
      expect(await ledgerOf(first.store)).toContainEqual(expect.objectContaining({ event: 'review', id: first.id, grade: 5 }))
      expect(await dueIds(first.store)).not.toContain(first.id)

      const second = await current()
      await item.locator('[data-action=review-reject]').click()
      await page.locator(`[data-role=review-item]:not([data-id="${second.id}"])`).waitFor()
      expect((await backendOf(second.store).indexView()).get(second.id)?.status).toBe('deleted_pending')

      const third = await current()
      const ledgers = [(await ledgerOf('project')).length, (await ledgerOf('user')).length]
      await item.locator('[data-action=review-later]').click()
      await page.locator(`[data-role=review-item]:not([data-id="${third.id}"])`).waitFor()
      expect([(await ledgerOf('project')).length, (await ledgerOf('user')).length]).toEqual(ledgers)
      expect(await dueIds(third.store)).toContain(third.id)
      expect(await page.locator('[data-card=review] [data-kind=ok]').textContent()).toBeTruthy()
    })

    it('health score: one figure from its parts, each explained; a broken file costs its points until fixed', async () => {
      const score = page.locator('[data-role=health-score]')
      await page.locator('[data-role=health-parts]:not([aria-busy]) [data-part=broken]').waitFor()
      const parts = async () =>
        Object.fromEntries(
          await page.locator('[data-part]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-part') ?? '', { count: Number(e.getAttribute('data-count')), penalty: Number(e.getAttribute('data-penalty')), why: e.querySelector('.dma-hint')?.textContent ?? '' }])),
        ) as Record<string, { count: number; penalty: number; why: string }>
      const before = await parts()
      expect(Object.keys(before)).toEqual(['broken', 'conflicts', 'stale', 'unembedded', 'reviewBacklog'])
      const sum = (p: typeof before) => Object.values(p).reduce((n, x) => n + x.penalty, 0)
      expect(await score.textContent()).toBe(String(100 - sum(before)))
      expect(before['conflicts']?.count).toBe((await countsOf(['project', 'user'])).conflict)
      expect(before['reviewBacklog']?.count).toBe((await dueIds('project')).length + (await dueIds('user')).length)
      expect(before['broken']).toMatchObject({ count: 0, penalty: 0 })
      expect(before['broken']?.why).toMatch(/10.*40/)
      expect(before['conflicts']?.penalty).toBe(Math.min(20, 5 * (before['conflicts']?.count ?? 0)))

      const target = (await project.indexView()).get(ids[`${locale}-gate`] ?? '?')
      const file = path.join(project.root, target?.path ?? '?')
      const good = readFileSync(file, 'utf8')
      writeFileSync(file, good.replace(/^title: .*$/m, 'title: [broken'))
      try {
        await page.click('[data-action=refresh]')
        await page.locator('[data-part=broken][data-count="1"]').waitFor()
        const broken = await parts()
        expect(broken['broken']?.penalty).toBe(10)
        expect(await score.textContent()).toBe(String(100 - sum(broken)))
        await shot(locale, 'health')
      } finally {
        writeFileSync(file, good)
      }
      await page.click('[data-action=refresh]')
      await page.locator('[data-part=broken][data-count="0"]').waitFor()
    })

    it('operation log: both ledgers newest first, filtered by kind, a title opens the memory', async () => {
      await tab('ledger')
      expect(await page.locator('[data-tab=ledger]').textContent()).toBe(words.ledger)
      const list = page.locator('[data-role=ledger]:not([aria-busy]) > li[data-event]')
      await list.first().waitFor()
      const all = [...(await ledgerOf('project')).map((e) => ({ ...e, store: 'project' })), ...(await ledgerOf('user')).map((e) => ({ ...e, store: 'user' }))]
      expect(await list.count()).toBe(Math.min(100, all.length))
      expect(await page.locator('[data-role=ledger-summary]').textContent()).toContain(String(all.length))
      const newest = all.reduce((a, b) => (b.at > a.at ? b : a))
      expect(await list.first().getAttribute('data-store')).toBe(newest.store)
      expect(await list.evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-store')))].sort())).toEqual(['project', 'user'])
      await shot(locale, 'ledger')

      await page.selectOption('[data-role=ledger-kind]', 'supersede')
      await page.locator('[data-role=ledger][data-kind=supersede]:not([aria-busy])').waitFor()
      const supersedes = all.filter((e) => e.event === 'supersede')
      expect(await list.count()).toBe(supersedes.length)
      expect(await list.evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-event')))])).toEqual(['supersede'])
      // The kind in the panel's language, the logged name in its title.
      expect(await list.first().locator('[data-role=kind]').textContent()).toBe(locale === 'zh' ? '取代旧版本' : 'Replaced an old version')
      expect(await list.first().locator('[data-role=kind]').getAttribute('title')).toBe('supersede')

      const edited = ids[`${locale}-edited`] ?? '?'
      await page.locator(`[data-role=ledger] > li[data-id="${edited}"] [data-action=open-memory]`).click()
      await page.locator('[data-tab=memories][aria-selected=true]').waitFor()
      await listSettled(`memory:${edited}`)
      await rowOf(edited).locator('[data-role=details] [data-field=id]', { hasText: edited }).waitFor()
      expect(await rowOf(edited).locator('.dma-rowtitle').textContent()).toBe(EDITED_TITLE[locale])
      await shot(locale, 'ledger-link')
      await page.click('[data-action=clear-search]')
      await listSettled('browse:all')
    })

    it('fits a phone: the switch, today and the operation log scroll no wider than 360 px', async () => {
      await page.setViewportSize({ width: 360, height: 800 })
      try {
        const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        expect(await page.locator('[data-scope=project]').boundingBox().then((b) => (b?.x ?? 0) + (b?.width ?? 0))).toBeLessThanOrEqual(360)
        expect(await overflow()).toBe(0)
        await tab('today')
        await page.locator('[data-role=health-parts]:not([aria-busy]) [data-part]').first().waitFor()
        await page.locator('[data-role=review-item], [data-role=review-empty]').first().waitFor()
        expect(await overflow()).toBe(0)
        await shot(locale, 'phone-today')
        await tab('ledger')
        await page.locator('[data-role=ledger]:not([aria-busy]) > li[data-event]').first().waitFor()
        expect(await overflow()).toBe(0)
        await shot(locale, 'phone-ledger')
        await tab('memories')
      } finally {
        await page.setViewportSize({ width: 1000, height: 900 })
      }
    })
  })
}

