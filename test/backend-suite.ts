/**
 * The MemoryBackend contract as one reusable suite. `runBackendSuite(name, makeBackend)` registers
 * the cases for one backend; test/backend.test.ts runs it for the file backend, and a future
 * backend (SQLite, remote) runs the same cases from its own test file:
 *
 *   runBackendSuite('sqlite backend', async () => ({ backend, reopen, dispose }))
 *
 * Cases that must damage or inspect the storage underneath the backend (a corrupt index line, a
 * torn ledger line, a lock held by another process) use the optional `raw` hooks and are skipped
 * for a backend that does not provide them.
 */

import { describe, expect, it } from 'vitest'
import { MemoryError, SCHEMA_VERSION, type IndexEntry, type LedgerEvent, type MemoryBackend } from '../src/api.js'

export interface RawAccess {
  /** The stored text at relPath, bypassing the backend; null when there is none. */
  read(relPath: string): Promise<string | null>
  /** Replaces the stored text at relPath, bypassing the backend (no atomicity, no checks). */
  write(relPath: string, text: string): Promise<void>
  /** True when relPath is a folder (or the backend's equivalent of one). */
  isDir(relPath: string): Promise<boolean>
  /** Pretends another process holds the store lock, last refreshed ageMs ago. */
  holdLock(ageMs: number): Promise<void>
  /** Drops a lock made by holdLock. */
  dropLock(): Promise<void>
  /** True while any lock (held by anyone) exists. */
  lockExists(): Promise<boolean>
}

export interface BackendHarness {
  /** A backend on a fresh, empty store. */
  backend: MemoryBackend
  /** Another backend instance on the same store, as a second process (or a restart) would open it. */
  reopen(options?: { lockTimeoutMs?: number }): MemoryBackend
  raw?: RawAccess
  dispose(): Promise<void>
}

export function indexEntry(id: string, over: Partial<IndexEntry> = {}): IndexEntry {
  return {
    schema_version: SCHEMA_VERSION,
    id,
    path: `topics/${id}.md`,
    type: 'topic',
    title: `Title ${id}`,
    summary: `摘要 summary of ${id}`,
    tags: ['t1'],
    entities: [],
    time: '2026-01-02T10:00:00.000Z',
    sources: [{ session_id: 's1', kind: 'session' }],
    session_id: 's1',
    confidence: 0.6,
    raw_ref: null,
    vector_id: null,
    status: 'active',
    key: null,
    supersedes: null,
    superseded_by: null,
    variants: [],
    episode: null,
    anchors: [],
    content_hash: `hash-${id}`,
    checksum: `sum-${id}`,
    ...over,
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

async function rejection(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call()
  } catch (err) {
    return err
  }
  return null
}

const LAYOUT_DIRS = ['episodes', 'raw', 'topics', 'digests']
const LAYOUT_FILES = ['README.md', 'episodes/_index.md', 'raw/_index.md', 'topics/_index.md', 'digests/_index.md']

export function runBackendSuite(name: string, makeBackend: () => Promise<BackendHarness>): void {
  describe(`MemoryBackend contract: ${name}`, () => {
    /** Runs a case on a fresh store and always disposes of it. */
    const withStore = (fn: (h: BackendHarness, ctx: { skip: (note?: string) => void }) => Promise<void>) => async (ctx: { skip: (note?: string) => void }) => {
      const h = await makeBackend()
      try {
        await fn(h, ctx)
      } finally {
        await h.dispose()
      }
    }
    /** The raw hooks, or skips the case for a backend without them. */
    const needRaw = (h: BackendHarness, ctx: { skip: (note?: string) => void }): RawAccess => {
      if (h.raw === undefined) {
        ctx.skip('this backend offers no raw access')
        throw new Error('unreachable')
      }
      return h.raw
    }

    describe('init', () => {
      it(
        'creates episodes/ raw/ topics/ digests/, README.md and every _index.md',
        withStore(async (h) => {
          await h.backend.init()
          for (const file of LAYOUT_FILES) {
            const text = await h.backend.readFile(file)
            expect(text, file).not.toBeNull()
            expect((text as string).trim().length, file).toBeGreaterThan(0)
          }
          expect(await h.backend.readFile('README.md')).toMatch(/^# /)
          for (const dir of LAYOUT_DIRS) expect(await h.backend.listFiles(dir), dir).toEqual([`${dir}/_index.md`])
          if (h.raw) for (const dir of LAYOUT_DIRS) expect(await h.raw.isDir(dir), dir).toBe(true)
        }),
      )

      it(
        'is idempotent and never overwrites an edited README.md or _index.md',
        withStore(async (h) => {
          await h.backend.init()
          await h.backend.init()
          const readme = '# My own notes\n\nEdited by a person.\n'
          const note = '# topics, my way\n'
          await h.backend.writeFileAtomic('README.md', readme)
          await h.backend.writeFileAtomic('topics/_index.md', note)
          // A folder note someone deleted comes back; the edited ones stay.
          await h.backend.removeFile('raw/_index.md')
          const again = h.reopen()
          await again.init()
          await again.init()
          expect(await again.readFile('README.md')).toBe(readme)
          expect(await again.readFile('topics/_index.md')).toBe(note)
          expect(await again.readFile('raw/_index.md')).not.toBeNull()
        }),
      )
    })

    describe('files', () => {
      it(
        'writeFileAtomic / readFile round-trip text exactly, CJK and emoji included, creating folders',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          const text = '---\nid: mem_1\ntitle: 中文标题\n---\n# 记忆 😀\n\n团队决定使用 PostgreSQL。\r\nline two\n\u00e9\u0301 \u3000 end'
          await b.writeFileAtomic('topics/中文-记忆.md', text)
          expect(await b.readFile('topics/中文-记忆.md')).toBe(text)
          const st = await b.stat('topics/中文-记忆.md')
          expect(st?.size).toBe(Buffer.byteLength(text, 'utf8'))
          expect(Number.isFinite(st?.mtimeMs)).toBe(true)

          await b.writeFileAtomic('topics/中文-记忆.md', 'replaced')
          expect(await b.readFile('topics/中文-记忆.md')).toBe('replaced')

          await b.writeFileAtomic('topics/a/b/深/c.md', 'deep')
          expect(await b.readFile('topics/a/b/深/c.md')).toBe('deep')
          await b.writeFileAtomic('empty.md', '')
          expect(await b.readFile('empty.md')).toBe('')

          // Nothing but the written files is left behind (no temp files).
          expect((await b.listFiles('topics')).sort()).toEqual(['topics/_index.md', 'topics/a/b/深/c.md', 'topics/中文-记忆.md'].sort())
        }),
      )

      it(
        'readFile and stat answer null for missing files and for folders',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          expect(await b.readFile('topics/missing.md')).toBeNull()
          expect(await b.readFile('nowhere/deeper/missing.md')).toBeNull()
          expect(await b.readFile('topics')).toBeNull()
          expect(await b.readFile('README.md/child')).toBeNull()
          expect(await b.stat('topics/missing.md')).toBeNull()
          expect(await b.stat('README.md/child')).toBeNull()
        }),
      )

      // File backend today: fs.realpath throws ENAMETOOLONG, which escapes as a raw Node error.
      it(
        'readFile and stat of a name too long to store answer null or a MemoryError, never a raw error',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          for (const p of ['a'.repeat(300), `topics/${'中'.repeat(100)}.md`]) {
            for (const call of [() => b.readFile(p), () => b.stat(p)]) {
              const err = await rejection(call)
              if (err !== null) expect(err, `${p.slice(0, 20)}…: ${String(err)}`).toBeInstanceOf(MemoryError)
              else expect(await call()).toBeNull()
            }
          }
        }),
      )

      it(
        'rewriteFile changes a file from its current text; a null change leaves it; no file is null',
        withStore(async ({ backend: b }) => {
          await b.init()
          await b.writeFileAtomic('topics/r.md', 'one\n')
          const first = await b.rewriteFile('topics/r.md', (text) => `${text}two\n`)
          expect(first).toEqual({ before: 'one\n', after: 'one\ntwo\n' })
          expect(await b.readFile('topics/r.md')).toBe('one\ntwo\n')
          expect(await b.rewriteFile('topics/r.md', () => null)).toEqual({ before: 'one\ntwo\n', after: 'one\ntwo\n' })
          expect(await b.rewriteFile('topics/none.md', (text) => text)).toBeNull()
          expect(await b.readFile('topics/none.md')).toBeNull()
          expect((await b.listFiles('topics')).sort()).toEqual(['topics/_index.md', 'topics/r.md'])
          expect(await rejection(() => b.rewriteFile('../outside.md', (text) => text))).toMatchObject({ code: 'PATH_OUTSIDE_ROOT' })
        }),
      )

      it(
        'removeFile answers true when it removed a file and false when there was none',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          await b.writeFileAtomic('topics/gone.md', 'x')
          expect(await b.removeFile('topics/gone.md')).toBe(true)
          expect(await b.readFile('topics/gone.md')).toBeNull()
          expect(await b.stat('topics/gone.md')).toBeNull()
          expect(await b.removeFile('topics/gone.md')).toBe(false)
          expect(await b.removeFile('nowhere/x.md')).toBe(false)
        }),
      )

      it(
        'listFiles is recursive, relative to the root, and leaves dot-files and dot-folders out',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          for (const p of ['topics/a.md', 'topics/sub/b.md', 'topics/sub/deeper/c.md', 'topics/.hidden.md', 'topics/.git/config', 'topics/sub/.DS_Store', 'episodes/e.md'])
            await b.writeFileAtomic(p, p)
          const topics = await b.listFiles('topics')
          expect([...topics].sort()).toEqual(['topics/_index.md', 'topics/a.md', 'topics/sub/b.md', 'topics/sub/deeper/c.md'])
          expect([...(await b.listFiles('topics/'))].sort()).toEqual([...topics].sort())
          expect([...(await b.listFiles('topics/sub'))].sort()).toEqual(['topics/sub/b.md', 'topics/sub/deeper/c.md'])
          expect(await b.listFiles('no-such-folder')).toEqual([])
          const all = await b.listFiles('')
          expect(all).toContain('README.md')
          expect(all).toContain('episodes/e.md')
          expect(all).toContain('topics/sub/deeper/c.md')
          expect(all.some((p) => p.split('/').some((seg) => seg.startsWith('.')))).toBe(false)
        }),
      )
    })

    describe('index', () => {
      it(
        'writeIndex / readIndex round-trip entries; an empty or missing index is []',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          expect(await b.readIndex()).toEqual([])
          expect(b.lastIndexSkipped).toBe(0)
          const entries = [indexEntry('mem_a'), indexEntry('mem_b', { type: 'episode', path: 'episodes/2026-01-02-mem_b.md', title: '中文', raw_ref: 'raw/mem_b.md' })]
          await b.writeIndex(entries)
          expect(await b.readIndex()).toEqual(entries)
          expect(await h.reopen().readIndex()).toEqual(entries)
          await b.writeIndex([])
          expect(await b.readIndex()).toEqual([])
        }),
      )

      it(
        'readIndex skips a corrupt line and counts it in lastIndexSkipped',
        withStore(async (h, ctx) => {
          const raw = needRaw(h, ctx)
          const b = h.backend
          await b.init()
          const a = indexEntry('mem_a')
          const c = indexEntry('mem_c')
          await b.writeIndex([a, c])
          const lines = ((await raw.read('index.jsonl')) ?? '').split('\n').filter((l) => l !== '')
          expect(lines).toHaveLength(2)
          await raw.write('index.jsonl', `${lines[0]}\n{"id":"mem_torn","path":"topics/x.md","ty\n${lines[1]}\n`)
          expect(await b.readIndex()).toEqual([a, c])
          expect(b.lastIndexSkipped).toBe(1)
          // Valid JSON that is not an entry counts too; blank lines do not.
          await raw.write('index.jsonl', `${lines[0]}\n\n[1,2]\n{"id":"x"}\nnot json\n${lines[1]}\n\n`)
          expect(await b.readIndex()).toEqual([a, c])
          expect(b.lastIndexSkipped).toBe(3)
          // The count is per read.
          await b.writeIndex([a])
          expect(await b.readIndex()).toEqual([a])
          expect(b.lastIndexSkipped).toBe(0)
        }),
      )
    })

    describe('ledger', () => {
      const ev = (n: number): LedgerEvent => ({ at: `2026-01-02T10:00:0${n}.000Z`, event: 'write', id: `mem_${n}`, note: `第${n}条` })

      it(
        'appendLedger appends events in order (several in one call too, none writes nothing) and readLedger returns them',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          expect(await b.readLedger()).toEqual([])
          for (const n of [1, 2, 3]) await b.appendLedger(ev(n))
          await b.appendLedger(ev(4), ev(5), ev(6))
          await b.appendLedger()
          expect(await b.readLedger()).toEqual([1, 2, 3, 4, 5, 6].map(ev))
        }),
      )

      it(
        'appendLedger after a torn last line (no final newline) starts a new line: the next event stays intact',
        withStore(async (h, ctx) => {
          const raw = needRaw(h, ctx)
          const b = h.backend
          await b.init()
          await b.appendLedger(ev(1))
          const good = (await raw.read('ledger.jsonl')) ?? ''
          await raw.write('ledger.jsonl', `${good}{"at":"2026-01-02T10:00:0`) // a crash mid-append
          await b.appendLedger(ev(2))
          await b.appendLedger(ev(3))
          expect(await b.readLedger()).toEqual([ev(1), ev(2), ev(3)])
          const lines = ((await raw.read('ledger.jsonl')) ?? '').split('\n')
          expect(lines).toEqual([JSON.stringify(ev(1)), '{"at":"2026-01-02T10:00:0', JSON.stringify(ev(2)), JSON.stringify(ev(3)), ''])
        }),
      )

      it(
        'readLedger skips lines that do not parse or lack at / event',
        withStore(async (h, ctx) => {
          const raw = needRaw(h, ctx)
          const b = h.backend
          await b.init()
          await raw.write('ledger.jsonl', `${JSON.stringify(ev(1))}\nnot json\n{"event":"write"}\n{"at":"x"}\n[]\n${JSON.stringify(ev(2))}\n`)
          expect(await b.readLedger()).toEqual([ev(1), ev(2)])
        }),
      )

      it(
        'appendText creates the file and, after a torn last line, starts on a new line',
        withStore(async (h, ctx) => {
          const b = h.backend
          if (typeof (b as { appendText?: unknown }).appendText !== 'function') {
            ctx.skip('no appendText')
            return
          }
          await b.init()
          await b.appendText('usage.jsonl', '{"n":1}\n')
          await b.appendText('usage.jsonl', '{"n":2}\n', { fsync: true })
          expect(await b.readFile('usage.jsonl')).toBe('{"n":1}\n{"n":2}\n')
          if (h.raw) {
            await h.raw.write('usage.jsonl', '{"n":1}\n{"n":')
            await b.appendText('usage.jsonl', '{"n":3}\n')
            expect(await b.readFile('usage.jsonl')).toBe('{"n":1}\n{"n":\n{"n":3}\n')
          }
        }),
      )

      it(
        'appendLog creates a shared log (and its folder) and starts after a torn line; rewriteLog says what it read and wrote',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          expect(await b.withLock(() => b.rewriteLog('.cache/log.jsonl', (t) => t))).toBeNull()
          await b.appendLog('.cache/log.jsonl', '{"q":"西湖"}\n')
          await b.appendLog('.cache/log.jsonl', '{"q":"port"}\n')
          if (h.raw) {
            await h.raw.write('.cache/log.jsonl', '{"q":"西湖"}\n{"q":"port"}\n{"q":')
            await b.appendLog('.cache/log.jsonl', '{"q":"db"}\n')
          }
          const before = h.raw ? '{"q":"西湖"}\n{"q":"port"}\n{"q":\n{"q":"db"}\n' : '{"q":"西湖"}\n{"q":"port"}\n'
          expect(await b.readFile('.cache/log.jsonl')).toBe(before)
          const drop = (t: string) => t.split('\n').filter((l) => l !== '' && l !== '{"q":"port"}').map((l) => `${l}\n`).join('')
          expect(await b.withLock(() => b.rewriteLog('.cache/log.jsonl', drop))).toEqual({ before, after: drop(before) })
          expect(await b.readFile('.cache/log.jsonl')).toBe(drop(before))
          await b.appendLog('.cache/log.jsonl', '{"q":"after"}\n')
          expect(await b.readFile('.cache/log.jsonl')).toBe(`${drop(before)}{"q":"after"}\n`)
        }),
      )
    })

    describe('lock', () => {
      it(
        'withLock serialises overlapping callers in one process, across backend instances, and passes results and errors through',
        withStore(async (h) => {
          const b = h.backend
          await b.init()
          const other = h.reopen()
          const log: string[] = []
          let inside = 0
          let maxInside = 0
          const critical = (name: string, ms: number, fail = false) => async () => {
            inside++
            maxInside = Math.max(maxInside, inside)
            log.push(`${name}+`)
            await sleep(ms)
            log.push(`${name}-`)
            inside--
            if (fail) throw new Error(`${name} failed`)
            return name
          }
          const results = await Promise.allSettled([
            b.withLock(critical('A', 60)),
            b.withLock(critical('B', 5, true)),
            other.withLock(critical('C', 30)),
            b.withLock(critical('D', 1)),
          ])
          expect(maxInside).toBe(1)
          // Every section ran alone: each enter is directly followed by its own exit.
          for (let i = 0; i < log.length; i += 2) expect((log[i] ?? '').slice(0, 1)).toBe((log[i + 1] ?? '').slice(0, 1))
          expect(log).toHaveLength(8)
          expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
          expect((results[0] as PromiseFulfilledResult<string>).value).toBe('A')
          expect(String((results[1] as PromiseRejectedResult).reason)).toContain('B failed')
          // The lock is free afterwards.
          expect(await b.withLock(async () => 'again')).toBe('again')
          if (h.raw) expect(await h.raw.lockExists()).toBe(false)
        }),
      )

      it(
        'a lock held by another process makes withLock fail with LOCK_TIMEOUT after lockTimeoutMs, without running fn',
        withStore(async (h, ctx) => {
          const raw = needRaw(h, ctx)
          await h.backend.init()
          await raw.holdLock(0)
          const b = h.reopen({ lockTimeoutMs: 300 })
          let ran = false
          const t0 = Date.now()
          const err = await rejection(() =>
            b.withLock(async () => {
              ran = true
            }),
          )
          const waited = Date.now() - t0
          expect(err).toBeInstanceOf(MemoryError)
          expect((err as MemoryError).code).toBe('LOCK_TIMEOUT')
          expect(ran).toBe(false)
          expect(waited).toBeGreaterThanOrEqual(250)
          expect(waited).toBeLessThan(5_000)
          expect(await raw.lockExists()).toBe(true) // a live lock is never broken
          await raw.dropLock()
          expect(await b.withLock(async () => 'free')).toBe('free')
        }),
      )

      it(
        'a stale lock (not refreshed for 60 s) is taken over',
        withStore(async (h, ctx) => {
          const raw = needRaw(h, ctx)
          await h.backend.init()
          await raw.holdLock(60_000)
          const b = h.reopen({ lockTimeoutMs: 5_000 })
          const t0 = Date.now()
          expect(await b.withLock(async () => 'taken over')).toBe('taken over')
          expect(Date.now() - t0).toBeLessThan(3_000)
          expect(await raw.lockExists()).toBe(false)
        }),
      )
    })

    it(
      'now() is an ISO-8601 time',
      withStore(async (h) => {
        const now = h.backend.now()
        expect(new Date(now).toISOString()).toBe(now)
      }),
    )
  })
}
