/**
 * Root confinement: nothing outside the store root is ever read, written, removed, listed or
 * stat'ed, whatever the path looks like (traversal, absolute, percent-encoded, backslashes, NUL)
 * and whatever symlinks inside the store point at. Layout of each test's temp dir:
 *
 *   <tmp>/secret.txt                  the file that must stay untouched
 *   <tmp>/outside/inner.txt           a folder outside the store
 *   <tmp>/store/                      the store root
 *   <tmp>/store/topics/leak.md        -> <tmp>/secret.txt         (file symlink, absolute)
 *   <tmp>/store/topics/leakdir        -> ../../outside            (folder symlink, relative)
 *   <tmp>/store/outlink               -> <tmp>/outside            (folder symlink at the root)
 *   <tmp>/store/topics/dangling.md    -> <tmp>/not-yet.txt        (dangling, outside)
 *   <tmp>/store/topics/alias.md       -> real.md                  (inside, must keep working)
 *   <tmp>/store/topics/aliasdir       -> ../episodes              (inside folder symlink)
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { createFileBackend, MemoryError, navHandler, type MemoryBackend } from '../src/api.js'

const SECRET = 'TOP SECRET: do not read me\n'
const INNER = 'outside folder content\n'
const REAL = '---\nid: mem_real\ntitle: Real\n---\n# Real\n\nA memory that lives inside the store.\n'

const tmpDirs: string[] = []
afterAll(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true })
})

interface Fixture {
  base: string
  root: string
  secret: string
  outsideDir: string
  backend: MemoryBackend
}

async function makeFixture(): Promise<Fixture> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mem-conf-')))
  tmpDirs.push(base)
  const root = path.join(base, 'store')
  const secret = path.join(base, 'secret.txt')
  const outsideDir = path.join(base, 'outside')
  await fs.writeFile(secret, SECRET)
  await fs.mkdir(outsideDir)
  await fs.writeFile(path.join(outsideDir, 'inner.txt'), INNER)
  // Old mtimes, so that any write would show.
  const past = new Date(Date.now() - 3_600_000)
  await fs.utimes(secret, past, past)
  await fs.utimes(path.join(outsideDir, 'inner.txt'), past, past)

  const backend = createFileBackend(root)
  await backend.init()
  await fs.writeFile(path.join(root, 'topics', 'real.md'), REAL)
  await fs.symlink(secret, path.join(root, 'topics', 'leak.md'))
  await fs.symlink('../../outside', path.join(root, 'topics', 'leakdir'))
  await fs.symlink(outsideDir, path.join(root, 'outlink'))
  await fs.symlink(path.join(base, 'not-yet.txt'), path.join(root, 'topics', 'dangling.md'))
  await fs.symlink('real.md', path.join(root, 'topics', 'alias.md'))
  await fs.symlink('../episodes', path.join(root, 'topics', 'aliasdir'))
  await fs.writeFile(path.join(root, 'episodes', 'ep.md'), '# Episode\n\nInside.\n')
  return { base, root, secret, outsideDir, backend }
}

/** Every entry below dir except the store itself: what exists outside the root. */
async function outsideSnapshot(f: Fixture): Promise<Record<string, { size: number; mtimeMs: number }>> {
  const out: Record<string, { size: number; mtimeMs: number }> = {}
  const walk = async (dir: string): Promise<void> => {
    for (const d of await fs.readdir(dir, { withFileTypes: true })) {
      const abs = path.join(dir, d.name)
      if (abs === f.root) continue
      const s = await fs.lstat(abs)
      out[path.relative(f.base, abs)] = { size: s.size, mtimeMs: d.isDirectory() ? 0 : s.mtimeMs }
      if (d.isDirectory()) await walk(abs)
    }
  }
  await walk(f.base)
  return out
}

async function expectOutside(call: () => Promise<unknown>, what: string): Promise<void> {
  let result: unknown
  let caught: unknown = null
  try {
    result = await call()
  } catch (err) {
    caught = err
  }
  expect(caught, `${what}: expected PATH_OUTSIDE_ROOT, resolved with ${JSON.stringify(result)?.slice(0, 200)}`).not.toBeNull()
  expect(caught, `${what}: ${String(caught)}`).toBeInstanceOf(MemoryError)
  expect((caught as MemoryError).code, `${what}: ${(caught as MemoryError).message}`).toBe('PATH_OUTSIDE_ROOT')
}

/** Paths that leave the root by their spelling alone. */
const TRAVERSAL = [
  '../secret.txt',
  '../../etc/passwd',
  '/etc/passwd',
  'topics/../../secret.txt',
  '%2e%2e/secret.txt',
  '%2e%2e%2fsecret.txt',
  '..%2fsecret.txt',
  '..\\secret.txt',
  'topics\\..\\..\\secret.txt',
  `${'/'.repeat(2)}etc/passwd`,
  'C:/Windows/win.ini',
  'topics/\0x',
  '%00',
  '%2fetc%2fpasswd',
  '..',
  'topics/%2e%2e/%2e%2e/secret.txt',
  'topics/%E0%A4%A', // malformed percent-encoding
]

/** Paths that leave the root through a symlink inside the store. */
const VIA_SYMLINK = ['topics/leak.md', 'topics/leakdir/inner.txt', 'outlink/inner.txt', 'topics/leakdir', 'outlink']

describe('root confinement', () => {
  let f: Fixture
  let before: Record<string, { size: number; mtimeMs: number }>

  beforeEach(async () => {
    f = await makeFixture()
    before = await outsideSnapshot(f)
  })

  async function expectOutsideUntouched(): Promise<void> {
    expect(await fs.readFile(f.secret, 'utf8')).toBe(SECRET)
    expect(await fs.readFile(path.join(f.outsideDir, 'inner.txt'), 'utf8')).toBe(INNER)
    expect(await outsideSnapshot(f)).toEqual(before)
  }

  it('memory_nav refuses every traversal path with PATH_OUTSIDE_ROOT', async () => {
    // Collected, so that one run shows every path that is answered wrongly.
    const wrong: string[] = []
    for (const p of TRAVERSAL) {
      try {
        const out = await navHandler(f.backend, { path: p })
        wrong.push(`${JSON.stringify(p)} -> resolved, file ${JSON.stringify(out.file?.path ?? null)}`)
      } catch (err) {
        if (!(err instanceof MemoryError)) wrong.push(`${JSON.stringify(p)} -> ${String(err)}`)
        else if (err.code !== 'PATH_OUTSIDE_ROOT') wrong.push(`${JSON.stringify(p)} -> ${err.code}: ${err.message}`)
      }
    }
    expect(wrong).toEqual([])
    await expectOutsideUntouched()
  })

  it("memory_nav does not turn '../README.md' into the store's own README.md", async () => {
    // Regression: nav once stripped a leading '.' with /^\.\/?/, so '../README.md' became './README.md'.
    for (const p of ['../README.md', '..\\README.md', '..%2fREADME.md']) {
      await expectOutside(() => navHandler(f.backend, { path: p }), `nav ${JSON.stringify(p)}`)
    }
  })

  it('memory_nav refuses paths through symlinks that lead outside', async () => {
    for (const p of [...VIA_SYMLINK, 'topics/dangling.md']) {
      let caught: unknown = null
      let result: unknown
      try {
        result = await navHandler(f.backend, { path: p })
      } catch (err) {
        caught = err
      }
      expect(JSON.stringify(result ?? null)).not.toContain('TOP SECRET')
      expect(JSON.stringify(result ?? null)).not.toContain('outside folder content')
      expect(caught, `nav ${p} resolved`).toBeInstanceOf(MemoryError)
      expect((caught as MemoryError).code, `nav ${p}: ${(caught as MemoryError).message}`).toBe('PATH_OUTSIDE_ROOT')
    }
    await expectOutsideUntouched()
  })

  it('the backend refuses traversal paths in readFile, writeFileAtomic, removeFile, stat, listFiles and appendText', async () => {
    const b = f.backend
    for (const p of TRAVERSAL) {
      const q = JSON.stringify(p)
      await expectOutside(() => b.readFile(p), `readFile ${q}`)
      await expectOutside(() => b.writeFileAtomic(p, 'pwned'), `writeFileAtomic ${q}`)
      await expectOutside(() => b.removeFile(p), `removeFile ${q}`)
      await expectOutside(() => b.stat(p), `stat ${q}`)
      await expectOutside(() => b.listFiles(p), `listFiles ${q}`)
      if (typeof (b as { appendText?: unknown }).appendText === 'function')
        await expectOutside(() => b.appendText(p, 'pwned\n'), `appendText ${q}`)
    }
    await expectOutsideUntouched()
  })

  it('the backend refuses paths through outside-pointing symlinks, and writes or removes on the link names', async () => {
    const b = f.backend
    for (const p of VIA_SYMLINK) {
      await expectOutside(() => b.readFile(p), `readFile ${p}`)
      await expectOutside(() => b.stat(p), `stat ${p}`)
      await expectOutside(() => b.writeFileAtomic(p, 'pwned'), `writeFileAtomic ${p}`)
      await expectOutside(() => b.removeFile(p), `removeFile ${p}`)
    }
    // New files below an outside-pointing folder link, and writes through a dangling link.
    for (const p of ['topics/leakdir/new.md', 'outlink/new.md', 'outlink/deeper/new.md', 'topics/dangling.md']) {
      await expectOutside(() => b.writeFileAtomic(p, 'pwned'), `writeFileAtomic ${p}`)
      if (typeof (b as { appendText?: unknown }).appendText === 'function') await expectOutside(() => b.appendText(p, 'pwned\n'), `appendText ${p}`)
    }
    await expectOutside(() => b.listFiles('topics/leakdir'), 'listFiles topics/leakdir')
    await expectOutside(() => b.listFiles('outlink'), 'listFiles outlink')
    // The links themselves are still there, and nothing was created behind them.
    expect((await fs.lstat(path.join(f.root, 'topics', 'leak.md'))).isSymbolicLink()).toBe(true)
    expect((await fs.lstat(path.join(f.root, 'topics', 'dangling.md'))).isSymbolicLink()).toBe(true)
    await expect(fs.stat(path.join(f.base, 'not-yet.txt'))).rejects.toMatchObject({ code: 'ENOENT' })
    await expectOutsideUntouched()
  })

  it('a dangling symlink whose target runs through an outside-pointing folder link is refused, and nothing is created outside', async () => {
    // Dangling links whose target *spelling* is inside the root, but whose real location is not:
    // <root>/topics/leakdir is a link to <tmp>/outside.
    await fs.symlink('leakdir/escaped-1.txt', path.join(f.root, 'topics', 'chain-1.md'))
    await fs.symlink('leakdir/escaped-2.txt', path.join(f.root, 'topics', 'chain-2.md'))
    await fs.symlink('topics/leakdir/escaped-ledger.jsonl', path.join(f.root, 'ledger.jsonl'))
    const b = f.backend
    const wrong: string[] = []
    const attempt = async (what: string, call: () => Promise<unknown>) => {
      try {
        await call()
        wrong.push(`${what} resolved`)
      } catch (err) {
        if (!(err instanceof MemoryError) || err.code !== 'PATH_OUTSIDE_ROOT') wrong.push(`${what} -> ${String(err)}`)
      }
    }
    await attempt('writeFileAtomic topics/chain-1.md', () => b.writeFileAtomic('topics/chain-1.md', 'pwned'))
    if (typeof (b as { appendText?: unknown }).appendText === 'function')
      await attempt('appendText topics/chain-2.md', () => b.appendText('topics/chain-2.md', 'pwned\n'))
    await attempt('appendLedger (ledger.jsonl is such a link)', () => b.appendLedger({ at: b.now(), event: 'write', id: 'mem_x' }))
    const escaped = (await fs.readdir(f.outsideDir)).filter((n) => n !== 'inner.txt')
    expect({ wrong, escaped }).toEqual({ wrong: [], escaped: [] })
    await expectOutsideUntouched()
  })

  it('listFiles does not list files behind outside-pointing symlinks', async () => {
    const all = await f.backend.listFiles('')
    const topics = await f.backend.listFiles('topics')
    for (const list of [all, topics]) {
      expect(list).not.toContain('topics/leak.md')
      expect(list).not.toContain('topics/dangling.md')
      expect(list.some((p) => p.startsWith('topics/leakdir/'))).toBe(false)
      expect(list.some((p) => p.startsWith('outlink/'))).toBe(false)
      expect(list.some((p) => p.endsWith('inner.txt'))).toBe(false)
    }
    expect(topics).toContain('topics/real.md')
    expect(all).toContain('README.md')
    await expectOutsideUntouched()
  })

  it('a symlink inside the root that points elsewhere inside the root still works for reading', async () => {
    const b = f.backend
    expect(await b.readFile('topics/alias.md')).toBe(REAL)
    expect(await b.stat('topics/alias.md')).toMatchObject({ size: Buffer.byteLength(REAL) })
    expect(await b.readFile('topics/aliasdir/ep.md')).toBe('# Episode\n\nInside.\n')
    const topics = await b.listFiles('topics')
    expect(topics).toContain('topics/alias.md')
    expect(topics).toContain('topics/aliasdir/ep.md')
    const nav = await navHandler(b, { path: 'topics/alias.md' })
    expect(nav.file).toEqual({ path: 'topics/alias.md', text: REAL })
  })

  it('a store opened through a symlinked root path works and is still confined', async () => {
    const viaLink = path.join(f.base, 'store-link')
    await fs.symlink(f.root, viaLink)
    const b = createFileBackend(viaLink)
    expect(await b.readFile('topics/real.md')).toBe(REAL)
    await b.writeFileAtomic('topics/new.md', 'inside\n')
    expect(await fs.readFile(path.join(f.root, 'topics', 'new.md'), 'utf8')).toBe('inside\n')
    await expectOutside(() => b.readFile('topics/leak.md'), 'readFile topics/leak.md via linked root')
    await expectOutside(() => b.readFile('../secret.txt'), 'readFile ../secret.txt via linked root')
    delete before['store-link']
    const after = await outsideSnapshot(f)
    delete after['store-link']
    expect(after).toEqual(before)
  })
})
