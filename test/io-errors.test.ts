/**
 * Issue 14, item 8: an operating-system error reaches no caller as it is. Real errors (a folder
 * where a file should be, a file where a folder should be) through the library and the panel API
 * become IO_ERROR with the file and the cause in plain words and the errno as a field; the panel
 * says the cause but names no path. Read-only, no-permission and full-disk stores are in
 * read-only-store.test.ts.
 */

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { asMemoryError, ioError, isNotWritable, MemoryError } from '../src/errors.js'
import { handleApiRequest, TOKEN_HEADER } from '../src/host/api.js'
import { DEFAULT_CONFIG, writeHandler } from '../src/api.js'
import { expectCode, tempStores } from './store-kit.js'

const store = tempStores('io-errors-')

function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (err) {
    return err
  }
  throw new Error('expected a throw')
}

describe('operating-system errors as IO_ERROR', () => {
  it('asMemoryError names the file and says the cause in words, keeping the errno', async () => {
    const { root } = await store()
    const file = path.join(root, 'note.txt')
    writeFileSync(file, 'a note')
    const err = asMemoryError(thrown(() => readdirSync(file)))
    expect(err).toBeInstanceOf(MemoryError)
    expect(err).toMatchObject({ code: 'IO_ERROR', errno: 'ENOTDIR', message: `cannot list ${file}: it, or something on its path, is not a folder (ENOTDIR)` })
    // Anything that is not an operating-system error passes unchanged.
    const bug = new TypeError('x is undefined')
    expect(asMemoryError(bug)).toBe(bug)
    const own = new MemoryError('NOT_FOUND', 'no such memory')
    expect(asMemoryError(own)).toBe(own)
  })

  it('says a read-only, full or forbidden store in plain words', () => {
    const os = (code: string) => Object.assign(new Error(`${code}: whatever, mkdir '/s/.lock'`), { code, syscall: 'mkdir', path: '/s/.lock' })
    expect(ioError('create', '/s/.lock', os('EROFS')).message).toBe('cannot create /s/.lock: the file system is read-only (EROFS)')
    expect(ioError('write', '/s/ledger.jsonl', os('ENOSPC')).message).toBe('cannot write /s/ledger.jsonl: the disk is full (ENOSPC)')
    expect(ioError('create', '/s/.lock', os('EACCES')).message).toBe('cannot create /s/.lock: permission denied (EACCES)')
    expect(ioError('read', '/s/x', os('EWHATEVER')).message).toBe('cannot read /s/x: the operating system refused (EWHATEVER)')
    for (const code of ['EROFS', 'ENOSPC', 'EACCES', 'EPERM', 'EDQUOT']) expect(isNotWritable(ioError('write', '/s/x', os(code)))).toBe(true)
    expect(isNotWritable(ioError('read', '/s/x', os('EIO')))).toBe(false)
  })

  it('a write the file system refuses fails with IO_ERROR naming the file, and leaves the store as it was', async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'The API server listens on port 8080.' })
    const before = ['index.jsonl', 'ledger.jsonl'].map((f) => readFileSync(path.join(root, f), 'utf8'))
    // A file where the store expects a folder: every write into it is refused.
    await rm(path.join(root, 'digests'), { recursive: true })
    writeFileSync(path.join(root, 'digests'), 'not a folder')
    const direct = await expectCode(backend.writeFileAtomic('digests/x.md', 'text'), 'IO_ERROR')
    expect(direct.errno).toBe('ENOTDIR')
    expect(direct.message).toBe(`cannot write ${root}/digests/x.md: it, or something on its path, is not a folder (ENOTDIR)`)
    // An episode whose raw text cannot be written: the episode file written first is taken back.
    await rm(path.join(root, 'raw'), { recursive: true })
    writeFileSync(path.join(root, 'raw'), 'not a folder')
    const episode = await expectCode(writeHandler(backend, { summary: 'Fixed the cache stampede.', raw: 'user: the cache fell over', session_id: 's1' }), 'IO_ERROR')
    expect(episode.message).toMatch(new RegExp(`^cannot write ${root}/raw/\\S+\\.md: it, or something on its path, is not a folder \\(ENOTDIR\\)$`))
    expect(['index.jsonl', 'ledger.jsonl'].map((f) => readFileSync(path.join(root, f), 'utf8'))).toEqual(before)
    expect(readdirSync(path.join(root, 'episodes')).filter((n) => n.endsWith('.md') && n !== '_index.md')).toEqual([])
  })

  it('the panel API answers IO_ERROR with the cause and the errno, and no path', async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'The API server listens on port 8080.' })
    mkdirSync(path.join(root, 'config.json'))
    const res = await handleApiRequest(
      {
        method: 'POST',
        headers: { host: '127.0.0.1:1', origin: 'http://127.0.0.1:1', 'content-type': 'application/json', [TOKEN_HEADER]: 'secret' },
        remoteAddress: '127.0.0.1',
        body: JSON.stringify({ op: 'config.set', injectEnabled: false }),
      },
      { backend, secret: 'secret', config: { get: () => DEFAULT_CONFIG, set: () => DEFAULT_CONFIG } },
    )
    expect(res.status).toBe(500)
    const body = JSON.parse(res.body) as { ok: boolean; error: { code: string; errno?: string; message: string } }
    expect(body.error).toMatchObject({ code: 'IO_ERROR', errno: 'EISDIR' })
    expect(body.error.message).toBe('the memory store refused the operation: it is a folder (EISDIR); the host log names the file')
    expect(res.body).not.toContain(root)
  })
})
