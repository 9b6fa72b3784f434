/**
 * A person edits memory files while the library rewrites them (README: "Edit it freely"). One
 * child process saves a memory file over and over the way an editor does, another makes the
 * library rewrite the same file in a loop (a repeat write adding a source, a review grade). No acknowledged save may be lost.
 *
 * Lost, precisely: each save reads the file, appends its own marker line and writes the result,
 * one save after the other, so every save's text holds the markers of all saves before it. A
 * save is lost when, at the end, its marker is not in the file: a rewrite replaced text that held
 * it with text made from an older version. (A save may still undo a library change made between
 * its read and its write: that is the person's edit winning, and not counted.)
 *
 * The workers run the BUILT library (lib/api.js): `npm test` builds first.
 */

import { existsSync, promises as fs, readFileSync, renameSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, navHandler, rebuildIndex, writeHandler, type MemoryBackend } from '../src/api.js'
import { REWRITE_ATTEMPTS } from '../src/store/rewrite.js'
import { startTogether, startWorker } from './process-kit.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const EDITOR = path.join(here, 'workers', 'hand-editor.mjs')
const REWRITER = path.join(here, 'workers', 'rewrite-loop.mjs')
const BUILT_API = path.join(here, '..', 'lib', 'api.js')
const SAVES = 1000

interface EditorReport {
  tag: string
  mode: 'atomic' | 'inplace'
  acked: number[]
  missing: number
}
interface RewriterReport {
  tag: string
  ops: number
  refused: number
  strayed: number
}

const tmpDirs: string[] = []
beforeAll(() => {
  if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run \`npm run build\` first (npm test does it)`)
})
afterAll(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true })
})

/** The saves whose marker is missing from the final text. */
function lostSaves(text: string, report: EditorReport): number[] {
  const present = new Set(text.split('\n').filter((l) => l.startsWith(`hand edit ${report.tag} `)))
  return report.acked.filter((i) => !present.has(`hand edit ${report.tag} ${i}`))
}

/** Saves the file the way an editor does, from inside a rewrite's change (between its read and its replacement). */
function save(file: string, text: string, how: 'atomic' | 'inplace'): void {
  if (how === 'inplace') writeFileSync(file, text)
  else {
    writeFileSync(`${file}.swp`, text)
    renameSync(`${file}.swp`, file)
  }
}

async function storeWithFile(text: string): Promise<{ backend: MemoryBackend; file: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-cas-'))
  tmpDirs.push(dir)
  const backend = createFileBackend(path.join(dir, 'store'))
  await backend.writeFileAtomic('topics/note.md', text)
  return { backend, file: path.join(backend.root, 'topics/note.md') }
}

describe('compare-and-swap rewrites (MemoryBackend.rewriteFile)', () => {
  for (const how of ['atomic', 'inplace'] as const) {
    it(`a ${how} save made while a rewrite runs is kept: the change is applied again to the saved text`, async () => {
      const { backend, file } = await storeWithFile('# Note\n\nBody.\n')
      const seen: string[] = []
      const done = await backend.rewriteFile('topics/note.md', (current) => {
        seen.push(current)
        if (seen.length === 1) save(file, `${current}\nAdded by hand.\n`, how)
        return `${current}tagged\n`
      })
      expect(seen).toEqual(['# Note\n\nBody.\n', '# Note\n\nBody.\n\nAdded by hand.\n'])
      expect(done).toEqual({ before: seen[1], after: `${seen[1]}tagged\n` })
      expect(readFileSync(file, 'utf8')).toBe('# Note\n\nBody.\n\nAdded by hand.\ntagged\n')
      // Nothing is left beside it.
      expect(await fs.readdir(path.dirname(file))).toEqual(['note.md'])
    })
  }

  it('a file saved again during every attempt is left as saved: INVALID_STATE naming the file', async () => {
    const { backend, file } = await storeWithFile('v0\n')
    let n = 0
    const err = await backend.rewriteFile('topics/note.md', (current) => {
      save(file, `v${++n}\n`, n % 2 === 0 ? 'atomic' : 'inplace')
      return `${current}changed\n`
    }).then(
      () => null,
      (e: unknown) => e,
    )
    expect(err).toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining('topics/note.md kept changing') })
    expect(n).toBe(REWRITE_ATTEMPTS)
    expect(readFileSync(file, 'utf8')).toBe(`v${n}\n`)
  })

  it('a file found empty is read again (an in-place save between its truncate and its write); one that stays empty is rewritten', async () => {
    const { backend, file } = await storeWithFile('')
    let calls = 0
    const done = await backend.rewriteFile('topics/note.md', (current) => {
      calls++
      return `${current}filled\n`
    })
    expect(calls).toBe(1)
    expect(done).toEqual({ before: '', after: 'filled\n' })
    writeFileSync(file, '')
    setTimeout(() => writeFileSync(file, 'saved\n'), 5)
    expect(await backend.rewriteFile('topics/note.md', (current) => `${current}filled\n`)).toEqual({ before: 'saved\n', after: 'saved\nfilled\n' })
  })

  it('a failed transaction does not roll a file back over a hand edit made after it rewrote it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-cas-'))
    tmpDirs.push(dir)
    const root = path.join(dir, 'store')
    const backend = createFileBackend(root)
    const w = await writeHandler(backend, { summary: 'Backups run nightly.', session_id: 's1' })
    const file = path.join(root, w.path)
    // A transaction rewrites the memory, a person saves the file, then the operation fails.
    const { transact } = await import('../src/memory/writing/txn.js')
    const err = await transact(backend, async (txn) => {
      const entry = txn.index.get(w.id)
      if (entry === undefined) throw new Error('no entry')
      await txn.update(entry, { tags: ['ops'] })
      writeFileSync(file, `${readFileSync(file, 'utf8')}\nEdited by hand after the rewrite.\n`)
      throw new Error('the operation failed after its rewrite')
    }).then(
      () => null,
      (e: unknown) => e,
    )
    expect(String(err)).toContain('failed after its rewrite')
    const text = readFileSync(file, 'utf8')
    expect(text).toContain('Edited by hand after the rewrite.')
    expect(text).toMatch(/^tags:/m)
  })
})

describe('hand edits during library rewrites', () => {
  it(`keeps every editor save while the library rewrites the same file: atomic and in-place saves, ${SAVES} each`, { timeout: 240_000 }, async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-hand-edits-'))
    tmpDirs.push(dir)
    // A store for each kind of save, so the two library writers do not wait for each other's lock.
    const memories = await Promise.all(
      (['atomic', 'inplace'] as const).map(async (mode) => {
        const root = path.join(dir, mode)
        const backend = createFileBackend(root)
        const summary = `The ${mode} note: release builds are signed on the build host.`
        const written = await writeHandler(backend, { summary, session_id: `seed-${mode}` })
        await flushCaches(backend)
        return { mode, root, backend, summary, id: written.id, file: path.join(root, written.path) }
      }),
    )

    const editors = memories.map((m) => startWorker<EditorReport>(EDITOR, [m.file, m.mode, String(SAVES), m.mode], `editor-${m.mode}`))
    const rewriters = memories.map((m) => startWorker<RewriterReport>(REWRITER, [m.root, m.id, m.summary, `lib-${m.mode}`], `rewriter-${m.mode}`))
    await startTogether([...editors, ...rewriters])
    const edited = await Promise.all(editors.map((e) => e.done))
    for (const r of rewriters) r.say('stop')
    const rewrites = await Promise.all(rewriters.map((r) => r.done))

    const outcomes = await Promise.all(
      memories.map(async (m, i) => {
        const report = edited[i] as EditorReport
        const lib = rewrites[i] as RewriterReport
        const lost = lostSaves(await fs.readFile(m.file, 'utf8'), report)
        console.info(
          `[hand-edits] ${m.mode} saves: ${lost.length} of ${report.acked.length} hand edits lost, during ${lib.ops} library rewrites (${lib.refused} refused with INVALID_STATE, ${lib.strayed} repeat writes that no longer found the memory; ${report.missing} editor reads found the file missing for an instant)`,
        )
        return { mode: m.mode, acked: report.acked.length, lost, lib }
      }),
    )
    for (const o of outcomes) {
      expect(o.acked).toBe(SAVES)
      expect(o.lib.ops).toBeGreaterThan(10)
      expect(o.lost, `${o.mode} saves lost`).toEqual([])
      // Every repeat write found the memory: no rewrite was made from a half-written file.
      expect(o.lib.strayed, `${o.mode}: repeat writes that no longer found the memory`).toBe(0)
    }

    // Each store is consistent afterwards: a read folds the last hand edits in, and the index
    // then equals what a rebuild derives from the files.
    for (const m of memories) {
      await navHandler(m.backend, {})
      const indexed = (await m.backend.readIndex()).map((e) => `${e.id}:${e.checksum}`).sort()
      await flushCaches(m.backend)
      await rebuildIndex(m.root)
      expect((await createFileBackend(m.root).readIndex()).map((e) => `${e.id}:${e.checksum}`).sort()).toEqual(indexed)
    }
  })
})
