import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { PANEL_KEY_FILE, PANEL_KEY_PARAM, panelKey, panelLink } from '../src/host/panel-key.js'

const dirs: string[] = []
function tempRoot(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'panel-key-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('the panel key', () => {
  it('is made once per store, owner-only, and the same on every later call', () => {
    const root = tempRoot()
    const key = panelKey(root)
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(statSync(path.join(root, PANEL_KEY_FILE)).mode & 0o777).toBe(0o600)
    expect(panelKey(root)).toBe(key)
    expect(panelKey(tempRoot())).not.toBe(key)
  })

  it('replaces a file that holds no key (emptied by hand)', () => {
    const root = tempRoot()
    mkdirSync(path.join(root, '.cache'))
    writeFileSync(path.join(root, PANEL_KEY_FILE), 'short\n')
    const key = panelKey(root)
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(readFileSync(path.join(root, PANEL_KEY_FILE), 'utf8').trim()).toBe(key)
  })

  it('four processes racing to make it end with one key', async () => {
    const root = tempRoot()
    const module = path.resolve('lib/host/panel-key.js')
    const script = `import(${JSON.stringify(module)}).then((m) => process.stdout.write(m.panelKey(${JSON.stringify(root)})))`
    const keys = await Promise.all(
      Array.from({ length: 4 }, () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
          let out = ''
          child.stdout.on('data', (chunk) => (out += chunk))
          child.on('error', reject)
          child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))))
        }),
      ),
    )
    expect(new Set(keys).size).toBe(1)
    expect(keys[0]).toBe(panelKey(root))
  })

  it('travels in the fragment of a link, which a browser never sends to the server', () => {
    const link = panelLink('http://127.0.0.1:4567/', 'abc_DEF-123')
    expect(link).toBe(`http://127.0.0.1:4567/#${PANEL_KEY_PARAM}=abc_DEF-123`)
    expect(new URL(link).pathname + new URL(link).search).toBe('/')
  })
})
