/**
 * The file backend against the shared MemoryBackend contract (test/backend-suite.ts). Another
 * backend runs the same cases with its own `runBackendSuite(name, makeBackend)` call.
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createFileBackend } from '../src/api.js'
import { runBackendSuite, type BackendHarness } from './backend-suite.js'

async function makeFileBackend(): Promise<BackendHarness> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mem-backend-'))
  const root = path.join(dir, 'store')
  const lockDir = path.join(root, '.lock')
  const abs = (relPath: string) => path.join(root, relPath)
  return {
    backend: createFileBackend(root),
    reopen: (options) => createFileBackend(root, options),
    raw: {
      async read(relPath) {
        try {
          return await fs.readFile(abs(relPath), 'utf8')
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
          throw err
        }
      },
      async write(relPath, text) {
        await fs.mkdir(path.dirname(abs(relPath)), { recursive: true })
        await fs.writeFile(abs(relPath), text, 'utf8')
      },
      async isDir(relPath) {
        return (await fs.stat(abs(relPath)).catch(() => null))?.isDirectory() ?? false
      },
      async holdLock(ageMs) {
        // What proper-lockfile leaves while another process holds the lock: the folder, whose
        // mtime the holder refreshes.
        await fs.mkdir(lockDir)
        const at = new Date(Date.now() - ageMs)
        await fs.utimes(lockDir, at, at)
      },
      async dropLock() {
        await fs.rm(lockDir, { recursive: true, force: true })
      },
      async lockExists() {
        return (await fs.stat(lockDir).catch(() => null)) !== null
      },
    },
    dispose: () => fs.rm(dir, { recursive: true, force: true }),
  }
}

runBackendSuite('file backend', makeFileBackend)
