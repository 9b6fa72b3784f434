// Loaded into every test file (vitest.config.ts setupFiles): installs the read guard in this
// worker and in every Node child it starts, and fails the file when the project's own code read
// anything outside the repository, the temp folder and the kernel's pseudo-files.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll } from 'vitest'
import './hook.mjs'

const hook = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'hook.mjs')).href
const log = path.join(tmpdir(), `memory-agent-read-guard-${process.pid}.jsonl`)
process.env.MEMORY_AGENT_READ_GUARD_LOG = log
if (!(process.env.NODE_OPTIONS ?? '').includes(hook)) {
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${hook}`.trim()
}

/** The outside reads logged by this worker and its children since the last call; clears the log. */
export function takeOutsideReads(): Array<{ op: string; path: string; caller: string; pid: number }> {
  if (!existsSync(log)) return []
  const lines = readFileSync(log, 'utf8').split('\n').filter((l) => l !== '')
  rmSync(log, { force: true })
  return lines.map((l) => JSON.parse(l) as { op: string; path: string; caller: string; pid: number })
}

afterAll(() => {
  const reads = takeOutsideReads()
  if (reads.length === 0) return
  const shown = reads.slice(0, 10).map((r) => `  ${r.op} ${r.path} (from ${r.caller}, pid ${r.pid})`)
  throw new Error(`read outside the repository (${reads.length}):\n${shown.join('\n')}`)
})
