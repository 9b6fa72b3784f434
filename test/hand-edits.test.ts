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

import { existsSync, promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, navHandler, rebuildIndex, writeHandler } from '../src/api.js'
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
