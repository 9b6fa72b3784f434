/**
 * Export and import: the bundle round trip (export -> import into an empty store -> export is the
 * same bundle, its ledger plus the import's own event), merges that skip what is there, markdown
 * notes, the MCP memory server's JSONL graph and Claude's /memories folder through the write path,
 * dedupe on re-import, the ledger events, bad input named by file and line, dry runs, the
 * progress hooks, and the `memory-agent export|import` commands as a person runs them (the BUILT
 * `node lib/cli/main.js`: `npx tsc -p .` before running this file alone). Real files, no mocks.
 */

import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createFileBackend,
  detectImportFormat,
  exportBundle,
  flushCaches,
  forgetHandler,
  importBundle,
  importMemories,
  navHandler,
  rebuildIndex,
  searchHandler,
  signalsSettled,
  writeHandler,
  type Bundle,
  type ImportResult,
  type LedgerEvent,
  type MemoryBackend,
} from '../src/api.js'
import stringWidth from 'string-width'
import { progressBar, renderBar } from '../src/cli/progress.js'
import { loadRooms } from '../src/memory/organisation/rooms.js'
import { readQueryLog, readUsage } from '../src/memory/organisation/signals.js'

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures', 'import')
const CLI = path.resolve(import.meta.dirname, '..', 'lib', 'cli', 'main.js')

const opened: MemoryBackend[] = []
afterEach(async () => {
  for (const b of opened.splice(0)) await flushCaches(b)
})

const temp = (prefix: string) => mkdtempSync(path.join(tmpdir(), prefix))

/** A store at `<new temp dir>/memory`: every store here has the same folder name, as a bundle records it. */
function store(): { root: string; backend: MemoryBackend } {
  const root = path.join(temp('import-export-'), 'memory')
  const backend = createFileBackend(root)
  opened.push(backend)
  return { root, backend }
}

const ledger = (root: string): LedgerEvent[] =>
  readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LedgerEvent)
const imports = (root: string) => ledger(root).filter((e) => e.event === 'import')
const outcomes = (r: ImportResult) => Object.fromEntries(r.items.map((i) => [i.line !== undefined ? `${i.source}:${i.line}` : i.source, i.outcome]))
const entryTitled = async (backend: MemoryBackend, title: string) => [...(await backend.indexView()).values()].find((e) => e.title === title)
const fileOf = (root: string, relPath: string) => readFileSync(path.join(root, relPath), 'utf8')
const codeOf = (p: Promise<unknown>) => p.then(() => 'resolved', (err: { code?: string }) => err.code ?? String(err))

/** A store with every status, an episode with raw text, versions, a hand-written note and settings. */
async function richStore(): Promise<{ root: string; backend: MemoryBackend }> {
  const s = store()
  const b = s.backend
  await writeHandler(b, { summary: 'The API server listens on port 8080.', title: 'API port', tags: ['environment'], session_id: 's1' })
  await writeHandler(b, { summary: 'The API server now listens on port 9090.', title: 'API port', tags: ['environment'], session_id: 's2' })
  await writeHandler(b, { summary: '项目用 pnpm 管理依赖。', title: '包管理器', tags: ['约定'] })
  await writeHandler(b, { summary: 'Investigated a cache stampede.', raw: 'user: the cache fell over\nassistant: add a lock', session_id: 's3' })
  await writeHandler(b, { summary: 'Deploys on Tuesdays.', requireConfirmation: true })
  const a = await writeHandler(b, { summary: 'The cache is Redis.', key: 'cache' })
  await writeHandler(b, { summary: 'The cache is Memcached.', key: 'cache', expectConflict: true })
  await writeHandler(b, { summary: 'Soon forgotten.', raw: 'bye', session_id: 's4' })
  await forgetHandler(b, { session_id: 's4' })
  expect((await b.indexView()).get(a.id)?.status).toBe('conflict')
  // A note dropped in by hand, without front-matter: its time comes from the file's mtime.
  writeFileSync(path.join(s.root, 'topics', 'handwritten.md'), '# Hand note\n\nWritten in an editor.\n')
  utimesSync(path.join(s.root, 'topics', 'handwritten.md'), new Date('2024-05-06T07:08:09Z'), new Date('2024-05-06T07:08:09Z'))
  writeFileSync(path.join(s.root, 'config.json'), '{"requireConfirmation": false, "maxTopK": 50}\n')
  writeFileSync(path.join(s.root, 'aliases.json'), '{"infra": ["k8s", "kubernetes"]}\n')
  return s
}

function withoutTime(bundle: Bundle): Omit<Bundle, 'exported_at' | 'ledger'> {
  const { exported_at: _at, ledger: _ledger, ...rest } = bundle
  return rest
}

describe('bundle round trip', () => {
  it('export -> import into an empty store -> export gives the same bundle, the ledger plus the import event', async () => {
    const a = await richStore()
    const first = await exportBundle(a.backend, { maxBytes: Number.POSITIVE_INFINITY })
    expect(first.index.map((e) => e.status).sort()).toEqual(
      expect.arrayContaining(['active', 'superseded', 'suggested', 'conflict', 'conflict', 'deleted_pending']),
    )
    const b = store()
    const result = await importBundle(b.backend, JSON.stringify(first), { source: 'first.json' })
    expect(result).toMatchObject({ format: 'bundle', mode: 'restore', dry_run: false, duplicates: 0, skipped: 0, ledger_events: first.ledger.length })
    expect(result.added).toBe(first.index.length)

    const second = await exportBundle(b.backend, { maxBytes: Number.POSITIVE_INFINITY })
    expect(withoutTime(second)).toEqual(withoutTime(first))
    expect(second.ledger.slice(0, -1)).toEqual(first.ledger)
    expect(second.ledger.at(-1)).toMatchObject({ event: 'import', format: 'bundle', from: 'first.json', mode: 'restore', added: first.index.length })

    // The restored store works: search, settings, and an index rebuild agree with the import.
    const hits = await searchHandler(b.backend, { query: 'api port' })
    expect(hits.hits.map((h) => h.summary)).toEqual(['The API server now listens on port 9090.'])
    expect(fileOf(b.root, 'config.json')).toBe(fileOf(a.root, 'config.json'))
    // A rebuild agrees, except for the one thing a copy cannot carry: a note without a time in its
    // front-matter takes the file's modification time, and the restored file is new.
    const byPath = (x: { path: string }, y: { path: string }) => x.path.localeCompare(y.path)
    const indexed = (await b.backend.readIndex()).sort(byPath)
    expect(indexed.find((e) => e.title === 'Hand note')?.time).toBe('2024-05-06T07:08:09.000Z')
    await rebuildIndex(b.backend)
    const rebuilt = (await b.backend.readIndex()).sort(byPath)
    expect(rebuilt.map((e) => (e.title === 'Hand note' ? { ...e, time: 'mtime' } : e))).toEqual(indexed.map((e) => (e.title === 'Hand note' ? { ...e, time: 'mtime' } : e)))
  })

  it('carries hit counts, the query log and the rooms: export -> import into an empty store -> the same, the query log redacted', async () => {
    const a = await richStore()
    for (const query of ['api port', 'cache', '包管理器', 'api port', 'nothing like this']) await searchHandler(a.backend, { query })
    await signalsSettled(a.backend)
    const usage = await readUsage(a.backend)
    const queries = await readQueryLog(a.backend)
    const hits = [...usage.values()].reduce((n, u) => n + u.hits, 0)
    expect(hits).toBeGreaterThan(0)
    expect(queries).toHaveLength(5)
    const bundle = await exportBundle(a.backend, { maxBytes: Number.POSITIVE_INFINITY })
    // A bundle made or edited by hand may hold a secret in a query: it is redacted on the way in.
    const derived = bundle.derived ?? []
    const log = derived.find((f) => f.path === 'query-log.jsonl')
    expect(log).toBeDefined()
    log!.text += `${JSON.stringify({ at: '2026-01-01T00:00:00.000Z', query: 'token sk-abcdefghijklmnopqrstuvwxyz123456', hits: 0 })}\n`

    const b = store()
    const result = await importBundle(b.backend, JSON.stringify(bundle), { source: 'signals.json' })
    expect(result.mode).toBe('restore')
    expect(await readUsage(b.backend)).toEqual(usage)
    const restored = await readQueryLog(b.backend)
    expect(restored.slice(0, -1)).toEqual(queries)
    expect(restored.at(-1)?.query).not.toContain('sk-abcdefghijklmnopqrstuvwxyz123456')
    expect(result.redactions.length).toBeGreaterThan(0)
    // The bundle carries the rooms as one snapshot (rooms.json with rooms-log.jsonl folded in).
    const rooms = derived.find((f) => f.path === 'rooms.json')!.text
    expect(fileOf(b.root, 'rooms.json')).toBe(rooms)
    expect(existsSync(path.join(b.root, 'rooms-log.jsonl'))).toBe(false)
    expect(JSON.parse(rooms).rooms).toEqual((await loadRooms(a.backend, [])).rooms)
    expect((await loadRooms(b.backend, [])).rooms).toEqual((await loadRooms(a.backend, [])).rooms)
    console.log(`round trip: ${usage.size} memories with ${hits} hits, ${queries.length} queries and rooms.json restored the same; 1 of 1 secret in the query log redacted`)

    // Into a store with memories: hits of the memories added come along; its own query log and rooms stay.
    const c = store()
    await writeHandler(c.backend, { summary: 'Something else entirely.', title: 'Other' })
    await searchHandler(c.backend, { query: 'something else' })
    await signalsSettled(c.backend)
    const ownLog = await readQueryLog(c.backend)
    const merged = await importBundle(c.backend, JSON.stringify(bundle), { source: 'signals.json' })
    expect(merged.mode).toBe('merge')
    const after = await readUsage(c.backend)
    for (const [id, u] of usage) expect(after.get(id)).toEqual(u)
    expect(await readQueryLog(c.backend)).toEqual(ownLog)
    expect(merged.warnings.join('\n')).toMatch(/query-log\.jsonl.*rooms\.json|rooms\.json.*query-log\.jsonl/)
  })

  it('reads a version 1 bundle made before it carried signals', async () => {
    const a = await richStore()
    const { derived: _derived, ...old } = await exportBundle(a.backend, { maxBytes: Number.POSITIVE_INFINITY })
    const b = store()
    const result = await importBundle(b.backend, JSON.stringify(old), { source: 'old.json' })
    expect(result).toMatchObject({ mode: 'restore', skipped: 0, added: old.index.length })
    expect(await readUsage(b.backend)).toEqual(new Map())
  })

  it('into a store with memories: same id or same content is skipped and reported, the rest merged, the newer version wins', async () => {
    const a = await richStore()
    const bundle = await exportBundle(a.backend, { maxBytes: Number.POSITIVE_INFINITY })
    const c = store()
    const older = await writeHandler(c.backend, { summary: 'The API server listens on port 7070.', title: 'API port', time: '2020-01-01T00:00:00Z' })
    const same = await writeHandler(c.backend, { summary: '项目用 pnpm 管理依赖。', title: 'pnpm' })
    const eventsBefore = ledger(c.root).length

    const merged = await importBundle(c.backend, bundle)
    expect(merged.mode).toBe('merge')
    const pnpmItem = merged.items.find((i) => i.reason === `same content as ${same.id}`)
    expect(pnpmItem).toMatchObject({ outcome: 'duplicate', id: same.id })
    expect(merged.added).toBe(bundle.index.length - 1)
    // The imported current "API port" (9090) is newer than the store's (7070): that one is superseded.
    expect(merged.superseded).toBe(1)
    const view = await c.backend.indexView()
    expect(view.get(older.id)).toMatchObject({ status: 'superseded' })
    const current = [...view.values()].filter((e) => e.title === 'API port' && e.status === 'active')
    expect(current.map((e) => e.summary)).toEqual(['The API server now listens on port 9090.'])
    // Ids and statuses of what was added are the bundle's.
    for (const e of bundle.index.filter((x) => x.title !== '包管理器' && x.status !== 'active')) expect(view.get(e.id)?.status).toBe(e.status)
    expect(merged.warnings.some((w) => w.includes("the bundle's ledger"))).toBe(true)
    expect(merged.warnings.some((w) => w.startsWith('config.json'))).toBe(true)
    expect(existsSync(path.join(c.root, 'config.json'))).toBe(false)
    const logged = ledger(c.root).slice(eventsBefore)
    expect(logged.filter((e) => e.event === 'import')).toEqual([expect.objectContaining({ mode: 'merge', added: merged.added, duplicates: 1 })])

    // Again: everything is there already.
    const again = await importBundle(c.backend, bundle)
    expect(again).toMatchObject({ added: 0, superseded: 0, skipped: 0, duplicates: bundle.index.length })
    expect(again.items.every((i) => i.outcome === 'duplicate')).toBe(true)
  })

  it('refuses what is not a bundle and leaves the store untouched; a cut bundle is said to be cut', async () => {
    const { root, backend } = store()
    await writeHandler(backend, { summary: 'Already here.' })
    const before = fileOf(root, 'ledger.jsonl')
    expect(await codeOf(importBundle(backend, '{"format": "something-else"}'))).toBe('INVALID_INPUT')
    expect(await codeOf(importBundle(backend, '{"format": "dsh-memory-agent/bundle", "version": 9, "files": []}'))).toBe('INVALID_INPUT')
    expect(await codeOf(importBundle(backend, 'not json at all'))).toBe('INVALID_INPUT')
    expect(fileOf(root, 'ledger.jsonl')).toBe(before)

    const source = await richStore()
    const cut = await exportBundle(source.backend, { maxBytes: 6000 })
    expect(cut.truncated).toBe(true)
    const target = store()
    const r = await importBundle(target.backend, cut)
    expect(r.warnings.some((w) => w.includes(`${cut.omitted_files} files were left out`))).toBe(true)

    // Paths that lead out of a store are skipped by name, never written.
    const evil = { ...cut, files: [...cut.files, { path: 'topics/../../escape.md', text: '# x\n\ny\n' }, { path: '.cache/x.md', text: 'z' }] }
    const other = store()
    const out = await importBundle(other.backend, evil)
    expect(out.items.filter((i) => i.outcome === 'skipped').map((i) => i.source)).toEqual(['topics/../../escape.md', '.cache/x.md'])
    expect(existsSync(path.join(other.root, '..', 'escape.md'))).toBe(false)
  })
})

describe('markdown notes', () => {
  it('become memories through the write path: title, summary, details, front-matter; re-import adds nothing', async () => {
    const { root, backend } = store()
    const r = await importMemories(backend, path.join(FIXTURES, 'notes'))
    expect(r).toMatchObject({ format: 'markdown', source: 'notes', mode: 'write', found: 5, added: 4, duplicates: 0, skipped: 1 })
    expect(outcomes(r)).toEqual({
      'deploy-checklist.md': 'added',
      'no-heading.md': 'added',
      'plain-note.md': 'added',
      'sub/list-first.md': 'added',
      'sub/empty.md': 'skipped',
    })
    expect(r.items.find((i) => i.source === 'sub/empty.md')?.reason).toBe('empty file')

    const deploy = await entryTitled(backend, 'Deploy checklist')
    expect(deploy).toMatchObject({ summary: 'Before a release run the smoke tests and tag the commit.', tags: ['deploy', 'ops'], time: '2025-03-04T00:00:00.000Z', key: null })
    const deployFile = fileOf(root, deploy!.path)
    expect(deployFile).toContain('author: Dana')
    expect(deployFile).toContain("date: '2025-03-04'")
    expect(deployFile).toContain('- run `npm run smoke`\n- tag with `git tag vX.Y.Z`\n\n```bash\ngit push --tags\n```\n')
    expect(await entryTitled(backend, 'Database choice')).toMatchObject({ summary: 'We use PostgreSQL 16 for every service; SQLite only in tests.' })
    expect(fileOf(root, (await entryTitled(backend, 'Database choice'))!.path)).toContain('\n\nThe decision was made in March after the load tests.\n')
    expect(await entryTitled(backend, 'no-heading')).toMatchObject({ summary: 'The office wifi password rotates every Monday. Ask the front desk for the new one.' })
    // A note that opens with a list keeps the list whole below a one-line lead.
    const contacts = await entryTitled(backend, 'Team contacts')
    expect(contacts?.summary).toBe('Alice: backend, on call in even weeks Bob: frontend')
    expect(fileOf(root, contacts!.path)).toContain('- Alice: backend, on call in even weeks\n- Bob: frontend\n')
    expect((await searchHandler(backend, { query: 'PostgreSQL' })).hits[0]?.title).toBe('Database choice')

    expect(imports(root)).toEqual([expect.objectContaining({ format: 'markdown', from: 'notes', added: 4, skipped: 1, duplicates: 0 })])
    expect(imports(root)[0]?.['ids']).toHaveLength(4)

    const again = await importMemories(backend, path.join(FIXTURES, 'notes'))
    expect(again).toMatchObject({ added: 0, duplicates: 4, skipped: 1 })
    expect((await navHandler(backend, { path: 'topics/' })).total).toBe(4)
    expect(imports(root)).toHaveLength(2)
    // One note on its own is a markdown import too.
    expect(await importMemories(backend, path.join(FIXTURES, 'notes', 'plain-note.md'))).toMatchObject({ found: 1, duplicates: 1 })
  })

  it('redacts secrets, keeps notes that share a first paragraph apart, and names unreadable files', async () => {
    const dir = temp('notes-')
    writeFileSync(path.join(dir, 'keys.md'), '# Keys\n\nThe staging key is in the vault.\n\nOld key: sk-abcdefghijklmnopqrstuvwxyz123456\n')
    writeFileSync(path.join(dir, 'day-1.md'), '# Daily\n\nDaily note.\n\nShipped the importer.\n')
    writeFileSync(path.join(dir, 'day-2.md'), '# Daily\n\nDaily note.\n\nFixed the exporter.\n')
    writeFileSync(path.join(dir, 'binary.md'), Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]))
    writeFileSync(path.join(dir, 'latin1.md'), Buffer.from([0x23, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a]))
    writeFileSync(path.join(dir, 'huge.md'), `# Huge\n\n${'x'.repeat(1024 * 1024)}\n`)
    writeFileSync(path.join(dir, 'bad-front-matter.md'), '---\ntitle: [unclosed\n---\nBody text.\n')
    const { root, backend } = store()
    const r = await importMemories(backend, dir)
    expect(outcomes(r)).toMatchObject({ 'keys.md': 'added', 'day-1.md': 'added', 'day-2.md': 'added', 'binary.md': 'skipped', 'latin1.md': 'skipped', 'huge.md': 'skipped', 'bad-front-matter.md': 'added' })
    expect(r.items.find((i) => i.source === 'binary.md')?.reason).toBe('not a text file')
    expect(r.items.find((i) => i.source === 'latin1.md')?.reason).toBe('not UTF-8 text')
    expect(r.items.find((i) => i.source === 'huge.md')?.reason).toMatch(/^too large/)
    expect(r.warnings).toEqual([expect.stringMatching(/^bad-front-matter\.md:2: the front-matter does not parse \(.*\); the note was read as text$/)])
    expect(r.redactions).toEqual(['api-key'])
    const keys = await entryTitled(backend, 'Keys')
    expect(fileOf(root, keys!.path)).not.toContain('sk-abcdefghijklmnopqrstuvwxyz123456')
    expect(fileOf(root, keys!.path)).toContain('[已脱敏:api-key]')
  })
})

describe('MCP memory server JSONL', () => {
  it('one memory per entity: observations, type tag, relations as lines; bad lines named by number', async () => {
    const { root, backend } = store()
    const file = path.join(FIXTURES, 'mcp', 'memory.jsonl')
    expect(await detectImportFormat(file)).toBe('mcp-jsonl')
    const r = await importMemories(backend, file)
    expect(r).toMatchObject({ format: 'mcp-jsonl', found: 5, added: 3, skipped: 2 })
    expect(r.items.filter((i) => i.outcome === 'skipped')).toEqual([
      expect.objectContaining({ source: 'memory.jsonl', line: 5, reason: expect.stringMatching(/^not JSON/) }),
      expect.objectContaining({ source: 'memory.jsonl', line: 7, reason: 'type "note" is neither "entity" nor "relation"' }),
    ])
    expect(r.warnings).toEqual([
      'memory.jsonl: line 4: entity "John_Smith" again; its observations were added to the first',
      'memory.jsonl: line 6: "Jane_Doe" has relations but no entity line; it gets a memory of its own',
    ])
    const john = await entryTitled(backend, 'John_Smith')
    expect(john).toMatchObject({ summary: 'Speaks fluent Spanish; Graduated in 2019; Likes tea', tags: ['person'], entities: ['John_Smith', 'Acme_Corp'], key: 'entity:John_Smith' })
    expect(fileOf(root, john!.path)).toContain('\nRelations:\n- works_at: Acme_Corp\n')
    expect(await entryTitled(backend, 'Jane_Doe')).toMatchObject({ summary: 'entity Jane_Doe', entities: ['Jane_Doe', 'John_Smith'] })
    expect((await searchHandler(backend, { query: 'Spanish' })).hits.map((h) => h.title)).toEqual(['John_Smith'])

    expect(await importMemories(backend, file)).toMatchObject({ added: 0, duplicates: 3 })

    // A changed entity is a new version of the same slot.
    const changed = path.join(temp('mcp-'), 'memory.jsonl')
    writeFileSync(changed, '{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish","Graduated in 2019","Likes tea","Moved to Lisbon"]}\n')
    const update = await importMemories(backend, changed)
    expect(update).toMatchObject({ added: 1, superseded: 1 })
    expect((await backend.indexView()).get(john!.id)?.status).toBe('superseded')
    expect(imports(root).map((e) => [e['format'], e['added']])).toEqual([['mcp-jsonl', 3], ['mcp-jsonl', 0], ['mcp-jsonl', 1]])
  })

  it('refuses a file with no entity or relation line, naming the file and the first bad line', async () => {
    const { backend } = store()
    const err = await importMemories(backend, path.join(FIXTURES, 'notes', 'plain-note.md'), { format: 'mcp-jsonl' }).catch((e: Error & { code?: string }) => e)
    expect(err).toMatchObject({ code: 'INVALID_INPUT' })
    expect((err as Error).message).toMatch(/plain-note\.md has none \(line 1: not JSON/)
    expect(existsSync(path.join(backend.root, 'ledger.jsonl'))).toBe(false)
  })
})

describe('Claude /memories folder', () => {
  it('every text file under memories/ becomes a memory; structured files are kept fenced', async () => {
    const { root, backend } = store()
    const dir = path.join(FIXTURES, 'claude')
    expect(await detectImportFormat(dir)).toBe('claude-memories')
    expect(await detectImportFormat(path.join(dir, 'memories'))).toBe('claude-memories')
    const r = await importMemories(backend, dir)
    expect(r).toMatchObject({ format: 'claude-memories', added: 3, skipped: 0 })
    expect(Object.keys(outcomes(r)).sort()).toEqual(['progress.md', 'projects/alpha.txt', 'user_preferences.xml'])
    const prefs = await entryTitled(backend, 'user_preferences')
    expect(prefs?.summary).toBe('Answers in English, code comments in English. Short answers with one example.')
    expect(fileOf(root, prefs!.path)).toContain('```xml\n<user_preferences>\n  <language>')
    expect(await entryTitled(backend, 'Migration progress')).toMatchObject({ summary: 'Step 3 of 5 is done: the orders table is migrated.' })
    expect(await entryTitled(backend, 'projects/alpha')).toMatchObject({ summary: 'Project alpha ships on the 15th; the release manager is Carol.' })
    expect(await importMemories(backend, path.join(dir, 'memories'))).toMatchObject({ added: 0, duplicates: 3 })
  })
})

describe('format detection, errors and dry runs', () => {
  it('NOT_FOUND for a missing path, INVALID_INPUT for no known format or the wrong kind of input', async () => {
    const { backend } = store()
    expect(await codeOf(importMemories(backend, path.join(FIXTURES, 'nope')))).toBe('NOT_FOUND')
    expect(await codeOf(importMemories(backend, path.join(FIXTURES, 'unknown.dat')))).toBe('INVALID_INPUT')
    expect(await codeOf(importMemories(backend, path.join(FIXTURES, 'notes'), { format: 'bundle' }))).toBe('INVALID_INPUT')
    expect(await codeOf(importMemories(backend, path.join(FIXTURES, 'unknown.dat'), { format: 'claude-memories' }))).toBe('INVALID_INPUT')
    expect(await codeOf(importMemories(backend, temp('empty-')))).toBe('INVALID_INPUT')
    // A store folder is not a notes folder: export it instead.
    const other = await richStore()
    const err = await importMemories(backend, other.root).catch((e: Error) => e)
    expect((err as Error).message).toMatch(/is a memory store itself: export it/)
    expect(existsSync(backend.root)).toBe(false)
  })

  it('a dry run writes nothing, not even the store folder, and predicts what the real run does', async () => {
    const { root, backend } = store()
    await writeHandler(backend, { summary: 'The office wifi password rotates every Monday. Ask the front desk for the new one.' })
    // Same first paragraph, but the note has more below it: not a repeat.
    await writeHandler(backend, { summary: 'We use PostgreSQL 16 for every service; SQLite only in tests.', title: 'Database choice' })
    const before = fileOf(root, 'ledger.jsonl')
    // A note repeated inside the same import is predicted as a duplicate of the first.
    const dir = temp('dry-')
    writeFileSync(path.join(dir, 'a.md'), '# A\n\nSame words.\n')
    writeFileSync(path.join(dir, 'b.md'), '# B\n\nSame words.\n')
    for (const input of [path.join(FIXTURES, 'notes'), path.join(FIXTURES, 'mcp', 'memory.jsonl'), dir]) {
      const dry = await importMemories(backend, input, { dryRun: true })
      expect(dry.dry_run).toBe(true)
      expect(fileOf(root, 'ledger.jsonl')).toBe(before)
      const real = await importMemories(createFileBackend(path.join(temp('copy-'), 'memory')), input)
      expect(real.added + real.duplicates).toBe(dry.added + dry.duplicates)
    }
    expect(outcomes(await importMemories(backend, dir, { dryRun: true }))).toEqual({ 'a.md': 'added', 'b.md': 'duplicate' })
    const predicted = outcomes(await importMemories(backend, path.join(FIXTURES, 'notes'), { dryRun: true }))
    expect([predicted['no-heading.md'], predicted['plain-note.md']]).toEqual(['duplicate', 'added'])

    const fresh = path.join(temp('never-'), 'memory')
    const bundle = path.join(temp('bundle-'), 'b.json')
    writeFileSync(bundle, JSON.stringify(await exportBundle(backend)))
    const dry = await importMemories(createFileBackend(fresh), bundle, { dryRun: true })
    expect(dry).toMatchObject({ mode: 'restore', added: 2, dry_run: true })
    expect(await importMemories(createFileBackend(fresh), path.join(FIXTURES, 'notes'), { dryRun: true })).toMatchObject({ added: 4 })
    expect(existsSync(fresh)).toBe(false)
  })

  it('reports progress for imports and rebuilds, up to the total', async () => {
    const { backend } = store()
    const seen: Array<[number, number]> = []
    await importMemories(backend, path.join(FIXTURES, 'notes'), { onProgress: (d, t) => seen.push([d, t]) })
    expect(seen).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]])
    const rebuilt: Array<[number, number]> = []
    const r = await rebuildIndex(backend, { onProgress: (d, t) => rebuilt.push([d, t]) })
    expect(rebuilt.at(-1)).toEqual([r.scanned, r.scanned])
    expect(rebuilt.map(([d]) => d)).toEqual(Array.from({ length: r.scanned }, (_, i) => i + 1))
  })
})

describe('progress bar', () => {
  const stream = (isTTY: boolean) => {
    const written: string[] = []
    return { isTTY, columns: 60, write: (t: string) => written.push(t), written }
  }

  it('draws nothing on a pipe', () => {
    const s = stream(false)
    const p = progressBar(s, 'importing', { delayMs: 0 })
    p.update(1, 2)
    p.finish()
    expect(s.written).toEqual([])
  })

  it('on a terminal: waits out the delay, redraws at most every interval, ends on a cleared line', () => {
    const s = stream(true)
    let now = 0
    const p = progressBar(s, 'rebuilding', { delayMs: 300, intervalMs: 100, now: () => now })
    p.update(1, 10)
    expect(s.written).toEqual([])
    now = 350
    p.update(2, 10)
    now = 380
    p.update(3, 10)
    now = 460
    p.update(4, 10)
    now = 470
    p.update(10, 10) // the last step is always drawn
    p.finish()
    expect(s.written).toHaveLength(4)
    expect(s.written[0]).toBe(`\r\x1b[K${renderBar('rebuilding', 2, 10, 60)}`)
    expect(s.written.at(-1)).toBe('\r\x1b[K')
    expect(renderBar('rebuilding', 5, 10, 60)).toMatch(/^rebuilding \[#+-+\] 50% 5\/10$/)
    // Terminal columns, not string length: a Chinese folder name takes two columns a character,
    // and the line still fits (a wrapped line cannot be redrawn in place).
    for (const columns of [20, 40, 60, 80]) {
      const line = renderBar('importing 项目笔记和会议记录文件夹', 3, 10, columns)
      expect(stringWidth(line), `${columns} columns`).toBeLessThanOrEqual(columns - 1)
      if (columns >= 40) expect(line).toContain('importing')
    }
    expect(renderBar('importing 笔记', 5, 10, 80)).toMatch(/^importing 笔记 \[#+-+\] 50% 5\/10$/)
    expect(renderBar('x', 3, 0)).toContain('0% 3/0')
    // A pseudo-terminal that reports no width still gets a bar.
    const narrow = { isTTY: true, columns: 0, written: [] as string[], write(t: string) { this.written.push(t) } }
    const q = progressBar(narrow, 'importing', { delayMs: 0, now: () => 0 })
    q.update(1, 2)
    expect(narrow.written).toEqual([`\r\x1b[K${renderBar('importing', 1, 2, 80)}`])
  })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function cli(cwd: string, ...args: string[]): Run {
  const env = { ...process.env }
  delete env['MEMORY_AGENT_ROOT']
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('memory-agent export and import', () => {
  it('export to stdout or --out, import into an empty root, export again: the same bundle', async () => {
    const { root } = await richStore()
    const cwd = temp('cli-transfer-')
    const stdout = cli(cwd, 'export', '--root', root)
    expect(stdout.code).toBe(0)
    expect(stdout.stderr).toBe('')
    const first = JSON.parse(stdout.stdout) as Bundle
    expect(first).toMatchObject({ format: 'dsh-memory-agent/bundle', truncated: false, root_name: 'memory' })

    const out = cli(cwd, 'export', '--root', root, '--out', 'backup.json')
    expect(out.code).toBe(0)
    expect(out.stdout).toBe('')
    expect(out.stderr).toMatch(/^exported 9 memories \(\d+ files, \d+ ledger events, [\d.]+ KB\) from .+ to .+backup\.json\n$/)
    const summary = JSON.parse(cli(cwd, 'export', '--root', root, '--out', 'again.json', '--json').stdout) as Record<string, unknown>
    expect(Object.keys(summary)).toEqual(['out', 'bytes', 'memories', 'files', 'ledger_events', 'truncated', 'omitted_files'])
    expect(summary).toMatchObject({ memories: 9, files: first.files.length, truncated: false, omitted_files: 0 })

    const target = path.join(cwd, 'restored', 'memory')
    const imported = cli(cwd, 'import', 'backup.json', '--root', target)
    expect(imported.code).toBe(0)
    expect(imported.stdout).toMatch(/^Imported backup\.json \(bundle\) into .+ as a restore/)
    expect(imported.stdout).toContain(`\n  added           ${first.index.length}\n`)
    const second = JSON.parse(cli(cwd, 'export', '--root', target).stdout) as Bundle
    expect(withoutTime(second)).toEqual(withoutTime(first))
    expect(second.ledger.slice(0, -1)).toEqual(first.ledger)

    const limit = Buffer.byteLength(stdout.stdout) - 2000
    const cut = cli(cwd, 'export', '--root', root, '--max-bytes', String(limit))
    expect(cut.code).toBe(0)
    expect(Buffer.byteLength(cut.stdout)).toBeLessThanOrEqual(limit)
    expect(cut.stderr).toMatch(/^memory-agent: export: the bundle was cut at --max-bytes: \d+ files left out\n$/)
    const tiny = cli(cwd, 'export', '--root', root, '--max-bytes', '100')
    expect(tiny.stderr).toMatch(/files left out \(\d+ bytes: the index and ledger alone pass --max-bytes\)/)
  })

  it('import --json gives the structured result; --dry-run writes nothing; re-running adds nothing', () => {
    const cwd = temp('cli-import-')
    const notes = path.join(FIXTURES, 'notes')
    const dry = cli(cwd, 'import', notes, '--dry-run', '--json')
    expect(dry.code).toBe(0)
    expect(existsSync(path.join(cwd, '.agent'))).toBe(false)
    const r = JSON.parse(dry.stdout) as ImportResult
    expect(Object.keys(r)).toEqual(['format', 'source', 'mode', 'dry_run', 'found', 'added', 'duplicates', 'skipped', 'superseded', 'ledger_events', 'redactions', 'items', 'warnings'])
    expect(r).toMatchObject({ format: 'markdown', dry_run: true, found: 5, added: 4, skipped: 1 })
    expect(r.items[0]).toEqual({ source: 'deploy-checklist.md', outcome: 'added' })

    const text = cli(cwd, 'import', notes)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('Skipped:\n  sub/empty.md: empty file\n')
    const again = JSON.parse(cli(cwd, 'import', notes, '--json').stdout) as ImportResult
    expect(again).toMatchObject({ added: 0, duplicates: 4 })
    expect(again.items.find((i) => i.source === 'plain-note.md')).toMatchObject({ outcome: 'duplicate', id: expect.stringMatching(/^mem_/) })

    const mcp = cli(cwd, 'import', path.join(FIXTURES, 'mcp', 'memory.jsonl'), '--format', 'mcp-jsonl')
    expect(mcp.code).toBe(0)
    expect(mcp.stdout).toContain('  memory.jsonl:5: not JSON')
  })

  it('exit codes: 3 for a missing file or store, 2 for a bad format, flag or argument', () => {
    const cwd = temp('cli-codes-')
    const missing = cli(cwd, 'import', 'nope.json')
    expect(missing.code).toBe(3)
    expect(missing.stderr).toMatch(/^memory-agent: NOT_FOUND: no such file or folder: .*nope\.json\n$/)
    const unknown = cli(cwd, 'import', path.join(FIXTURES, 'unknown.dat'))
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^memory-agent: INVALID_INPUT: .*cannot tell what .*unknown\.dat is/)
    const notBundle = cli(cwd, 'import', path.join(FIXTURES, 'mcp', 'memory.jsonl'), '--format', 'bundle')
    expect(notBundle.code).toBe(2)
    expect(notBundle.stderr).toMatch(/memory\.jsonl does not parse/)
    expect(cli(cwd, 'import', 'x', '--format', 'zip').code).toBe(2)
    expect(cli(cwd, 'import').stderr).toMatch(/PATH is missing/)
    expect(cli(cwd, 'import', 'a', 'b').code).toBe(2)
    expect(cli(cwd, 'import', 'a', '--bogus').stderr).toMatch(/unknown flag --bogus \(known: --format, --root, --user-root, --json, --dry-run, --user, --no-user-root, --help\)/)
    expect(cli(cwd, 'export', '--root', path.join(cwd, 'no-store')).code).toBe(3)
    expect(existsSync(path.join(cwd, 'no-store'))).toBe(false)
    mkdirSync(path.join(cwd, 'documents'))
    expect(cli(cwd, 'export', '--root', 'documents').stderr).toMatch(/^memory-agent: NOT_FOUND: no memory store at .*documents/)
    expect(existsSync(path.join(cwd, 'documents', 'topics'))).toBe(false)
    expect(cli(cwd, 'export', '--max-bytes', 'lots').code).toBe(2)
    expect(existsSync(path.join(cwd, '.agent'))).toBe(false)
  })

  it('--help for each, and rebuild shows no progress bar when stderr is not a terminal', () => {
    const cwd = temp('cli-help-')
    const importHelp = cli(cwd, 'import', '--help')
    expect(importHelp.code).toBe(0)
    expect(importHelp.stdout).toContain('Usage: memory-agent import PATH [--format FORMAT] [--dry-run]')
    expect(importHelp.stdout).toContain('--format auto|bundle|markdown|mcp-jsonl|claude-memories')
    expect(cli(cwd, 'export', '--help').stdout).toContain('Usage: memory-agent export [--out FILE] [--max-bytes N]')
    expect(cli(cwd, '--help').stdout).toMatch(/memory-agent import PATH/)

    mkdirSync(path.join(cwd, 'store'))
    cli(cwd, 'import', path.join(FIXTURES, 'notes'), '--root', 'store')
    const rebuilt = cli(cwd, 'rebuild', '--root', 'store')
    expect(rebuilt.code).toBe(0)
    expect(rebuilt.stderr).toBe('')
    expect(rebuilt.stdout).toMatch(/^rebuilt .*: 4 entries from 4 files/)
  })
})
