/**
 * Freshness without a rebuild command, and the persisted search index: files changed outside the
 * program are reflected by the next search (with a ledger event each), the saved index is used
 * when it matches and silently rebuilt when it does not, and writes append to index.jsonl
 * instead of rewriting it.
 */

import { mkdtempSync, readdirSync, readFileSync, unlinkSync, writeFileSync, existsSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, navHandler, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'
import { SEARCH_INDEX_FORMAT } from '../src/retrieve/search-index.js'
import { SEARCH_DIR, SEARCH_MANIFEST, loadSearchIndex } from '../src/retrieve/segment-files.js'
import { TOKENIZER_VERSION } from '../src/language/tokenizer.js'
import { packageVersion } from '../src/version.js'

function store(): { root: string; backend: MemoryBackend } {
  const root = mkdtempSync(join(tmpdir(), 'fresh-'))
  return { root, backend: createFileBackend(root) }
}
const ledgerEvents = (root: string) =>
  readFileSync(join(root, 'ledger.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { event: string; change?: string; path?: string })
const hits = async (b: MemoryBackend, query: string) => (await searchHandler(b, { query })).hits.map((h) => h.summary)

describe('freshness', () => {
  it('an edit, a new file and a removal by hand are seen by the very next search', async () => {
    const { root, backend } = store()
    const w = await writeHandler(backend, { summary: 'The report lives in Dropbox' })
    expect(await hits(backend, 'dropbox')).toEqual(['The report lives in Dropbox'])
    const file = join(root, w.path)
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('Dropbox', 'Gitea now'))
    expect(await hits(backend, 'gitea')).toEqual(['The report lives in Gitea now'])
    expect(await hits(backend, 'dropbox')).toEqual([])
    writeFileSync(join(root, 'topics/note.md'), '# Deploy notes\n\nWe deploy with kubectl apply.\n')
    expect(await hits(backend, 'kubectl')).toEqual(['We deploy with kubectl apply.'])
    unlinkSync(file)
    expect(await hits(backend, 'gitea')).toEqual([])
    const changes = ledgerEvents(root).filter((e) => e.event === 'external-change').map((e) => [e.change, e.path])
    expect(changes).toEqual([
      ['modified', w.path],
      ['added', 'topics/note.md'],
      ['removed', w.path],
    ])
    await flushCaches(backend)
  })

  it('twenty in-place edits in a row are each seen by the search right after them', async () => {
    const { root, backend } = store()
    const w = await writeHandler(backend, { summary: 'Counter word alpha0' })
    const file = join(root, w.path)
    for (let i = 1; i <= 20; i++) {
      writeFileSync(file, readFileSync(file, 'utf8').replace(/alpha\d+/g, `alpha${i}`))
      expect(await hits(backend, `alpha${i}`)).toEqual([`Counter word alpha${i}`])
    }
    await flushCaches(backend)
  })

  it('changes made while no process was running (a git pull) are seen at the next start', async () => {
    const { root, backend } = store()
    const w = await writeHandler(backend, { summary: 'Builds run on Jenkins' })
    expect(await hits(backend, 'jenkins')).toHaveLength(1)
    await flushCaches(backend)
    const file = join(root, w.path)
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('Jenkins', 'Buildkite'))
    renameSync(file, join(root, 'topics/renamed.md'))
    const fresh = createFileBackend(root)
    expect(await hits(fresh, 'buildkite')).toEqual(['Builds run on Buildkite'])
    expect(await hits(fresh, 'jenkins')).toEqual([])
    const nav = await navHandler(fresh, { path: w.id })
    expect(nav.file?.path).toBe('topics/renamed.md')
    await flushCaches(fresh)
  })

  it('a file written by this program is not reported as an outside change', async () => {
    const { root, backend } = store()
    await searchHandler(backend, { query: 'warm up' })
    for (let i = 0; i < 5; i++) await writeHandler(backend, { summary: `Fact number ${i} about caching` })
    await searchHandler(backend, { query: 'caching' })
    expect(ledgerEvents(root).filter((e) => e.event === 'external-change')).toEqual([])
    await flushCaches(backend)
  })
})

describe('the saved search index', () => {
  async function savedStore() {
    const { root, backend } = store()
    await writeHandler(backend, { summary: 'Invoices are stored in the billing bucket' })
    await writeHandler(backend, { summary: '发票存放在账单存储桶里' })
    await searchHandler(backend, { query: 'billing' })
    await flushCaches(backend)
    return root
  }
  const manifestFile = (root: string) => join(root, SEARCH_MANIFEST)
  const savedSize = async (root: string) => (await loadSearchIndex(createFileBackend(root)))?.size
  const segmentFile = (root: string) => join(root, SEARCH_DIR, readdirSync(join(root, SEARCH_DIR)).find((f) => f.endsWith('.bin')) as string)

  it('is written by flushCaches with its format and tokenizer version, and used at the next start', async () => {
    const root = await savedStore()
    const saved = JSON.parse(readFileSync(manifestFile(root), 'utf8')) as { format: number; tokenizer: number; segments: unknown[] }
    expect(saved.format).toBe(SEARCH_INDEX_FORMAT)
    expect(saved.tokenizer).toBe(TOKENIZER_VERSION)
    expect(saved.segments).toHaveLength(1)
    expect(await savedSize(root)).toBe(2)
    expect(await hits(createFileBackend(root), '账单')).toEqual(['发票存放在账单存储桶里'])
  })

  it.each([
    ['another tokenizer version', (t: string) => t.replace(`"tokenizer":${TOKENIZER_VERSION}`, `"tokenizer":${TOKENIZER_VERSION + 1}`)],
    ['an old format (version 0 sample)', () => JSON.stringify({ format: 0, docs: { a: 'x' }, index: { documentCount: 1 } })],
    ['a corrupt file', (t: string) => t.slice(0, Math.floor(t.length / 2))],
    ['an empty file', () => ''],
  ])('with a manifest of %s is rebuilt silently and answers correctly', async (_what, damage) => {
    const root = await savedStore()
    writeFileSync(manifestFile(root), damage(readFileSync(manifestFile(root), 'utf8')))
    const backend = createFileBackend(root)
    expect(await hits(backend, 'billing')).toEqual(['Invoices are stored in the billing bucket'])
    expect(await hits(backend, '账单')).toEqual(['发票存放在账单存储桶里'])
    await flushCaches(backend)
    expect(JSON.parse(readFileSync(manifestFile(root), 'utf8')).tokenizer).toBe(TOKENIZER_VERSION)
    expect(await savedSize(root)).toBe(2)
  })

  it.each([
    ['a damaged segment', (b: Buffer) => Buffer.from(b.map((x, i) => (i === b.length - 9 ? x ^ 0x5a : x)))],
    ['a truncated segment', (b: Buffer) => b.subarray(0, 100)],
  ])('with %s is rebuilt silently and answers correctly', async (_what, damage) => {
    const root = await savedStore()
    writeFileSync(segmentFile(root), damage(readFileSync(segmentFile(root))))
    const backend = createFileBackend(root)
    expect(await hits(backend, '账单')).toEqual(['发票存放在账单存储桶里'])
    await flushCaches(backend)
    expect(await savedSize(root)).toBe(2)
  })

  it('saved by an earlier version as one JSON file is built again and the old file removed', async () => {
    const { root, backend } = store()
    await writeHandler(backend, { summary: 'Invoices are stored in the billing bucket' })
    // The shape earlier versions saved (minisearch's JSON with the format and tokenizer version).
    writeFileSync(join(root, '.cache/search-index.json'), JSON.stringify({ format: 4, tokenizer: TOKENIZER_VERSION, docs: { a: 'x' }, engine: { documentCount: 1 } }))
    const other = createFileBackend(root)
    expect(await hits(other, 'billing')).toEqual(['Invoices are stored in the billing bucket'])
    await flushCaches(other)
    expect(existsSync(join(root, '.cache/search-index.json'))).toBe(false)
    expect(await savedSize(root)).toBe(1)
  })

  it('flushCaches saves an index that holds every memory, even when this process loaded it before writing more', async () => {
    const { root, backend } = store()
    await writeHandler(backend, { summary: 'first memory about kites' })
    await searchHandler(backend, { query: 'kites' })
    for (let i = 0; i < 12; i++) await writeHandler(backend, { summary: `later memory ${i} about gliders` })
    await flushCaches(backend)
    expect(await savedSize(root)).toBe(13)
    // A process that only writes leaves a current index too.
    const writer = createFileBackend(root)
    await writeHandler(writer, { summary: 'one more about balloons' })
    await flushCaches(writer)
    expect(await savedSize(root)).toBe(14)
  })

  it('is used as saved only for the index.jsonl it was made from: a timed save after another writer claims the older one', async () => {
    const { root, backend } = store()
    await writeHandler(backend, { summary: 'Alpha memory about kites' })
    // Loads the search index: a change is pending, saved 10 s later by a timer.
    expect(await hits(backend, 'kites')).toHaveLength(1)
    // Another process writes meanwhile; this one does not look again before its timer saves.
    await writeHandler(createFileBackend(root), { summary: 'Gamma memory about balloons' })
    await new Promise((resolve) => setTimeout(resolve, 11_000))
    expect(await savedSize(root)).toBe(1)
    // The next process must not take that save for the store as it is now.
    expect(await hits(createFileBackend(root), 'balloons')).toEqual(['Gamma memory about balloons'])
  }, 30_000)

  it('saved by another program version is checked entry by entry, then saved again for this one', async () => {
    const root = await savedStore()
    const manifest = JSON.parse(readFileSync(manifestFile(root), 'utf8')) as { index: string }
    expect(manifest.index).toMatch(new RegExp(`^\\d+:[\\d.]+@${packageVersion().replace(/\./g, '\\.')}$`))
    writeFileSync(manifestFile(root), JSON.stringify({ ...manifest, index: manifest.index.replace(/@.*$/, '@0.0.0-other') }))
    const next = createFileBackend(root)
    expect(await hits(next, 'billing')).toEqual(['Invoices are stored in the billing bucket'])
    await flushCaches(next)
    expect((JSON.parse(readFileSync(manifestFile(root), 'utf8')) as { index: string }).index).toBe(manifest.index)
  })

  it('deleting .cache/ loses nothing', async () => {
    const root = await savedStore()
    unlinkSync(manifestFile(root))
    unlinkSync(join(root, '.cache/file-stats.bin'))
    expect(await hits(createFileBackend(root), 'billing')).toHaveLength(1)
  })
})

describe('index.jsonl is appended to, not rewritten', () => {
  it('each new memory adds one line; status changes add lines; compaction keeps it bounded', async () => {
    const { root, backend } = store()
    const lines = () => readFileSync(join(root, 'index.jsonl'), 'utf8').split('\n').filter((l) => l !== '').length
    await writeHandler(backend, { summary: 'first' })
    const before = readFileSync(join(root, 'index.jsonl'), 'utf8')
    await writeHandler(backend, { summary: 'second' })
    const after = readFileSync(join(root, 'index.jsonl'), 'utf8')
    expect(after.startsWith(before)).toBe(true)
    expect(lines()).toBe(2)
    // A new version supersedes the old: the new entry and the old one's status change, 2 lines.
    await writeHandler(backend, { summary: 'v1', key: 'k' })
    await writeHandler(backend, { summary: 'v2', key: 'k' })
    expect(lines()).toBe(2 + 1 + 2)
    expect(existsSync(join(root, 'index.jsonl'))).toBe(true)
    expect((await backend.readIndex()).map((e) => e.status).sort()).toEqual(['active', 'active', 'active', 'superseded'])
  })
})
