/**
 * Duplicates and merge (src/memory/organisation/duplicates.ts, merge.ts): the read-only report with its
 * mixedPremises flag, folding restatements into a survivor (what is carried over, what is never
 * folded), the preview that writes nothing, undemote, and the grouping checked against a naive
 * all-pairs reference. After every change the index must equal what rebuildIndex derives.
 */

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  MemoryError,
  TOOLS,
  createFileBackend,
  duplicatesHandler,
  flushCaches,
  mergeHandler,
  navHandler,
  outputViolation,
  rebuildIndex,
  searchHandler,
  signalsSettled,
  undemoteHandler,
  writeHandler,
  type IndexEntry,
  type MemoryBackend,
} from '../src/api.js'
import { restatementGroups } from '../src/memory/organisation/duplicates.js'
import { bigramJaccard } from '../src/text.js'

const opened: MemoryBackend[] = []
afterEach(async () => {
  for (const b of opened.splice(0)) {
    await signalsSettled(b)
    await flushCaches(b)
  }
})

function store(): { root: string; backend: MemoryBackend } {
  const root = mkdtempSync(path.join(tmpdir(), 'merge-'))
  const backend = createFileBackend(root)
  opened.push(backend)
  return { root, backend }
}

const tool = (name: string) => TOOLS.find((t) => t.name === name)!
function checked<T>(name: string, out: T): T {
  expect(outputViolation(tool(name).output, out)).toBeNull()
  return out
}

/** A hand-written topic file (premises and details a person or an import put there). */
function handWritten(root: string, id: string, fields: { summary: string; title?: string; scope?: string; details?: string; tags?: string[]; time?: string; confidence?: number }): void {
  mkdirSync(path.join(root, 'topics'), { recursive: true })
  const fm = [
    '---',
    `id: ${id}`,
    'type: topic',
    `title: ${fields.title ?? id}`,
    `time: '${fields.time ?? '2026-01-01T00:00:00.000Z'}'`,
    'status: active',
    `confidence: ${fields.confidence ?? 0.6}`,
    ...(fields.scope !== undefined ? [`scope: '${fields.scope}'`] : []),
    ...(fields.tags !== undefined ? ['tags:', ...fields.tags.map((t) => `  - ${t}`)] : []),
    'sources:',
    `  - session_id: s-${id}`,
    '    kind: session',
    '---',
  ].join('\n')
  writeFileSync(path.join(root, 'topics', `${id}.md`), `${fm}\n# ${fields.title ?? id}\n\n${fields.summary}\n${fields.details !== undefined ? `\n${fields.details}\n` : ''}`)
}

async function expectIndexIsProjection(backend: MemoryBackend): Promise<void> {
  const byId = (l: IndexEntry[]) => [...l].sort((a, b) => a.id.localeCompare(b.id))
  const before = byId(await backend.readIndex())
  await rebuildIndex(backend)
  expect(byId(await backend.readIndex())).toEqual(before)
}

const BACKUP = 'Kestrel backups run nightly at 02:00 UTC to the S3 bucket kestrel-bak.'
const BACKUP_AGAIN = 'Kestrel backups run nightly at 02:00 UTC to the S3 bucket kestrel-bak'

describe('memory_duplicates', () => {
  it('groups restatements across titles and types, names the survivor, and changes nothing', async () => {
    const { root, backend } = store()
    const a = await writeHandler(backend, { summary: BACKUP, title: 'Kestrel backups', session_id: 's1' })
    const b = await writeHandler(backend, { summary: BACKUP_AGAIN, title: 'Backup schedule', confidence: 0.9, session_id: 's2', raw: 'user: when do backups run?', type: 'episode' })
    await writeHandler(backend, { summary: 'The API listens on port 8080.' })
    const ledger = readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')
    const r = checked('memory_duplicates', await duplicatesHandler(backend, {}))
    expect(r.scanned).toBe(3)
    expect(r.total_groups).toBe(1)
    expect(r.groups[0]?.suggested_into).toBe(b.id)
    expect(r.groups[0]?.members.map((m) => m.id).sort()).toEqual([a.id, b.id].sort())
    expect(r.groups[0]?.mixedPremises).toBe(false)
    expect(readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')).toBe(ledger)
  })

  it('flags mixedPremises when two members state conflicting premises', async () => {
    const { root, backend } = store()
    handWritten(root, 'mem_p1', { summary: 'P(X==disp) is close to the independence baseline.', scope: 'population=all records' })
    handWritten(root, 'mem_p2', { summary: 'P(X==disp) is close to the independence baseline', scope: 'population=first 4096 rows' })
    handWritten(root, 'mem_p3', { summary: 'P(X==disp) is close to the independence baseline!' })
    await rebuildIndex(backend)
    const r = checked('memory_duplicates', await duplicatesHandler(backend, {}))
    expect(r.groups).toHaveLength(1)
    expect(r.groups[0]?.mixedPremises).toBe(true)
    expect(r.groups[0]?.members.find((m) => m.id === 'mem_p1')?.scope).toBe('population=all records')
  })

  it('pages groups with limit and offset', async () => {
    const { backend } = store()
    for (const word of ['alpha', 'bravo', 'charlie']) {
      await writeHandler(backend, { summary: `The ${word} service restarts every night at midnight.`, title: `${word} one` })
      await writeHandler(backend, { summary: `The ${word} service restarts every night at midnight`, title: `${word} two` })
    }
    const first = checked('memory_duplicates', await duplicatesHandler(backend, { limit: 2 }))
    expect(first).toMatchObject({ total_groups: 3, has_more: true, offset: 0 })
    expect(first.groups).toHaveLength(2)
    const rest = await duplicatesHandler(backend, { limit: 2, offset: 2 })
    expect(rest).toMatchObject({ has_more: false })
    expect(rest.groups).toHaveLength(1)
  })
})

describe('memory_merge', () => {
  it('a preview (the default) writes nothing', async () => {
    const { root, backend } = store()
    const a = await writeHandler(backend, { summary: BACKUP, title: 'Kestrel backups' })
    const b = await writeHandler(backend, { summary: BACKUP_AGAIN, title: 'Backup schedule' })
    const files = [a.path, b.path].map((p) => readFileSync(path.join(root, p), 'utf8'))
    const ledger = readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')
    const r = checked('memory_merge', await mergeHandler(backend, { ids: [a.id, b.id] }))
    expect(r.dryRun).toBe(true)
    expect(r.folded).toHaveLength(1)
    expect(r.note).toMatch(/^preview only/)
    expect([a.path, b.path].map((p) => readFileSync(path.join(root, p), 'utf8'))).toEqual(files)
    expect(readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')).toBe(ledger)
  })

  it('folds into the survivor, carrying tags, entities, sources, longer details and confidence', async () => {
    const { root, backend } = store()
    handWritten(root, 'mem_keep', { summary: BACKUP, title: 'Kestrel backups', tags: ['ops'], confidence: 0.9, details: 'Retention: 7 days.', time: '2026-01-01T00:00:00.000Z' })
    handWritten(root, 'mem_fold', { summary: BACKUP_AGAIN, title: 'Backup schedule', tags: ['backup'], details: 'Retention: 7 days. Restores are tested monthly.', time: '2026-01-02T00:00:00.000Z' })
    await rebuildIndex(backend)
    const r = checked('memory_merge', await mergeHandler(backend, { ids: ['mem_keep', 'mem_fold'], dryRun: false }))
    expect(r.survivor.id).toBe('mem_keep')
    expect(r.folded.map((f) => f.id)).toEqual(['mem_fold'])
    expect(r.carried).toEqual(['tags +1 (backup)', 'source s-mem_fold from mem_fold', 'details from mem_fold (longer)'])

    const survivor = readFileSync(path.join(root, 'topics/mem_keep.md'), 'utf8')
    expect(survivor).toContain('  - backup\n')
    expect(survivor).toContain('session_id: s-mem_fold')
    expect(survivor).toContain('merged_from:\n  - mem_fold\n')
    expect(survivor).toContain('Restores are tested monthly.')
    expect(survivor.match(/Retention: 7 days\./g)).toHaveLength(1)
    const folded = readFileSync(path.join(root, 'topics/mem_fold.md'), 'utf8')
    expect(folded).toContain('status: superseded\n')
    expect(folded).toContain('merged_into: mem_keep\n')
    expect(folded).toContain('superseded_by: mem_keep\n')

    const hits = (await searchHandler(backend, { query: 'Kestrel backups' })).hits.map((h) => h.id)
    expect(hits).toEqual(['mem_keep'])
    const events = readFileSync(path.join(root, 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(events.find((e) => e.event === 'merge')).toMatchObject({ id: 'mem_keep', ids: ['mem_fold'], blocked: [] })
    await expectIndexIsProjection(backend)
  })

  it('appends details that neither side contains, and honours into', async () => {
    const { root, backend } = store()
    handWritten(root, 'mem_a', { summary: BACKUP, details: 'Owner: the platform team.', confidence: 0.9 })
    handWritten(root, 'mem_b', { summary: BACKUP_AGAIN, details: 'Alerts go to #ops.' })
    await rebuildIndex(backend)
    const r = await mergeHandler(backend, { ids: ['mem_a'], into: 'mem_b', dryRun: false })
    expect(r.survivor.id).toBe('mem_b')
    expect(r.carried).toContain('details from mem_a (added)')
    expect(r.carried).toContain('confidence 0.6 -> 0.9')
    const text = readFileSync(path.join(root, 'topics/mem_b.md'), 'utf8')
    expect(text).toMatch(/Alerts go to #ops\.\n\nOwner: the platform team\.\n$/)
    await expectIndexIsProjection(backend)
  })

  it('never folds conflicting premises: blocked, and nothing written when nothing is left', async () => {
    const { root, backend } = store()
    handWritten(root, 'mem_all', { summary: 'P(X==disp) is close to the independence baseline.', scope: 'population=all records', confidence: 0.9 })
    handWritten(root, 'mem_4096', { summary: 'P(X==disp) is close to the independence baseline', scope: 'population=first 4096 rows' })
    await rebuildIndex(backend)
    const ledger = readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')
    const r = checked('memory_merge', await mergeHandler(backend, { ids: ['mem_all', 'mem_4096'], dryRun: false }))
    expect(r.folded).toEqual([])
    expect(r.blocked).toEqual([{ id: 'mem_4096', conflictsWith: 'mem_all', keys: ['population'] }])
    expect(r.note).toMatch(/^nothing to fold/)
    expect(readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')).toBe(ledger)
  })

  it('does not fold two members whose premises conflict with each other into a survivor without premises', async () => {
    const { root, backend } = store()
    handWritten(root, 'mem_plain', { summary: 'P(X==disp) is close to the independence baseline.', confidence: 0.9 })
    handWritten(root, 'mem_all', { summary: 'P(X==disp) is close to the independence baseline', scope: 'population=all records', confidence: 0.8 })
    handWritten(root, 'mem_4096', { summary: 'P(X==disp) is close to the independence baseline!', scope: 'population=first 4096 rows' })
    await rebuildIndex(backend)
    const r = await mergeHandler(backend, { ids: ['mem_plain', 'mem_all', 'mem_4096'] })
    expect(r.survivor.id).toBe('mem_plain')
    expect(r.folded.map((f) => f.id)).toEqual(['mem_all'])
    expect(r.blocked).toEqual([{ id: 'mem_4096', conflictsWith: 'mem_all', keys: ['population'] }])
  })

  it('refuses what is not a merge of restatements, with stable codes', async () => {
    const { backend } = store()
    const a = await writeHandler(backend, { summary: BACKUP, title: 'Kestrel backups' })
    const b = await writeHandler(backend, { summary: BACKUP_AGAIN, title: 'Backup schedule' })
    const other = await writeHandler(backend, { summary: 'The API listens on port 8080.' })
    const code = async (input: Record<string, unknown>) => {
      try {
        await mergeHandler(backend, input as { ids: string[] })
        return 'ok'
      } catch (err) {
        expect(err).toBeInstanceOf(MemoryError)
        return (err as MemoryError).code
      }
    }
    expect(await code({ ids: [a.id] })).toBe('INVALID_INPUT')
    expect(await code({ ids: [a.id, a.id] })).toBe('INVALID_INPUT')
    expect(await code({ ids: [a.id, 'mem_nope'] })).toBe('NOT_FOUND')
    expect(await code({ ids: [a.id, b.id, other.id] })).toBe('INVALID_STATE')
    const first = await mergeHandler(backend, { ids: [a.id, b.id], dryRun: false })
    const folded = first.folded[0]?.id as string
    // A folded memory cannot be merged elsewhere, nor be the survivor, nor be all there is.
    expect(await code({ ids: [folded, other.id] })).toBe('INVALID_STATE')
    expect(await code({ ids: [first.survivor.id], into: folded })).toBe('INVALID_STATE')
  })

  it('repeating a merge changes nothing and says so (alreadyFolded)', async () => {
    const { root, backend } = store()
    const a = await writeHandler(backend, { summary: BACKUP, title: 'Kestrel backups' })
    const b = await writeHandler(backend, { summary: BACKUP_AGAIN, title: 'Backup schedule' })
    const first = await mergeHandler(backend, { ids: [a.id, b.id], dryRun: false })
    const ledger = readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')
    const again = checked('memory_merge', await mergeHandler(backend, { ids: [a.id, b.id], dryRun: false }))
    expect(again.survivor.id).toBe(first.survivor.id)
    expect(again.folded).toEqual([])
    expect(again.alreadyFolded).toEqual(first.folded.map((f) => f.id))
    expect(again.note).toMatch(/folded by an earlier merge/)
    expect(readFileSync(path.join(root, 'ledger.jsonl'), 'utf8')).toBe(ledger)
  })
})

describe('memory_undemote', () => {
  it('brings folded memories back (raw text too) and is refused for anything else', async () => {
    const { root, backend } = store()
    const a = await writeHandler(backend, { summary: BACKUP, title: 'Kestrel backups', confidence: 0.9 })
    const ep = await writeHandler(backend, { summary: BACKUP_AGAIN, title: 'Backup schedule', raw: 'user: when do backups run?', session_id: 's-ep' })
    const m = await mergeHandler(backend, { ids: [a.id, ep.id], dryRun: false })
    expect(m.folded.map((f) => f.id)).toEqual([ep.id])
    const rawPath = path.join(root, ep.raw_ref as string)
    expect(readFileSync(rawPath, 'utf8')).toContain('status: superseded')

    const r = checked('memory_undemote', await undemoteHandler(backend, { ids: [ep.id] }))
    expect(r).toEqual({ restored: [{ id: ep.id, from: a.id }], unchanged: [] })
    const back = readFileSync(path.join(root, ep.path), 'utf8')
    expect(back).toContain('status: active')
    expect(back).not.toMatch(/merged_into|superseded_by|merged_at/)
    expect(readFileSync(rawPath, 'utf8')).toContain('status: active')
    expect(readFileSync(path.join(root, a.path), 'utf8')).not.toContain('merged_from')
    expect((await navHandler(backend, { path: a.id })).file?.text).toContain('s-ep')
    const events = readFileSync(path.join(root, 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(events.at(-1)).toMatchObject({ event: 'undemote', id: a.id, ids: [ep.id] })
    await expectIndexIsProjection(backend)

    // Repeating it changes nothing; what no merge folded is refused.
    expect(await undemoteHandler(backend, { ids: [ep.id] })).toEqual({ restored: [], unchanged: [ep.id] })
    await expect(undemoteHandler(backend, { ids: ['mem_nope'] })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(undemoteHandler(backend, { ids: [`${ep.id}-raw`] })).rejects.toMatchObject({ code: 'INVALID_STATE' })
    const v1 = await writeHandler(backend, { summary: 'The API listens on port 8080.', key: 'api port' })
    await writeHandler(backend, { summary: 'The API listens on port 9090.', key: 'api port' })
    await expect(undemoteHandler(backend, { ids: [v1.id] })).rejects.toMatchObject({ code: 'INVALID_STATE' })
  })
})

describe('restatementGroups', () => {
  it('finds exactly the groups a naive all-pairs comparison finds', () => {
    const base = ['the build cache holds 512 MB', '构建缓存上限是 512 MB', 'deploys go out on fridays', 'backups run nightly', '数据库连接池上限 20']
    let seed = 7
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const entries: IndexEntry[] = []
    for (let i = 0; i < 120; i++) {
      let s = base[Math.floor(rand() * base.length)] as string
      // Small edits keep some pairs above 0.9 and push others below.
      const edits = Math.floor(rand() * 4)
      for (let k = 0; k < edits; k++) s = rand() < 0.5 ? `${s} x${Math.floor(rand() * 3)}` : s.slice(0, Math.max(3, s.length - 2))
      entries.push({ id: `m${String(i).padStart(3, '0')}`, summary: s } as IndexEntry)
    }
    const parent = entries.map((_, i) => i)
    const find = (i: number): number => (parent[i] === i ? i : find(parent[i] as number))
    for (let i = 0; i < entries.length; i++)
      for (let j = i + 1; j < entries.length; j++) if (bigramJaccard((entries[i] as IndexEntry).summary, (entries[j] as IndexEntry).summary) >= 0.9) parent[find(i)] = find(j)
    const naive = new Map<number, string[]>()
    entries.forEach((e, i) => naive.set(find(i), [...(naive.get(find(i)) ?? []), e.id]))
    const expected = [...naive.values()].filter((g) => g.length > 1).map((g) => g.sort().join(',')).sort()
    const actual = restatementGroups(entries).map((g) => g.map((e) => e.id).sort().join(',')).sort()
    expect(expected.length).toBeGreaterThan(3)
    expect(actual).toEqual(expected)
  })
})
