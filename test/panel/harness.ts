/**
 * What the browser tests share: Debian's Chromium (installed by scripts/chromium-setup.sh when
 * missing; never Playwright's own download), driven by playwright-core with a fresh profile; the
 * built `memory-agent serve` as a child process, with the link it prints; and the artifacts
 * folder for screenshots. The tests run against the built package (lib/ and client/*.js), which
 * `npm test` builds first.
 */

import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'

export const repo = path.resolve(import.meta.dirname, '../..')
export const artifacts = path.join(repo, 'test', 'artifacts')
export const CHROMIUM = '/usr/bin/chromium'
const CLI = path.join(repo, 'lib', 'cli', 'main.js')

/** Chromium and a CJK font, installed if missing (apt-get; minutes on a fresh machine). */
export function ensureChromium(): void {
  execFileSync('bash', [path.join(repo, 'scripts', 'chromium-setup.sh')], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 })
}

export function ensureBuilt(): void {
  for (const file of [CLI, path.join(repo, 'client', 'panel.js'), path.join(repo, 'client', 'client.js')])
    if (!existsSync(file)) throw new Error(`${path.relative(repo, file)} is missing: run npm run build (npm test builds first)`)
}

/** One headless Chromium with a profile of its own, for a whole test file. */
export async function launchBrowser(options: { viewport?: { width: number; height: number }; locale?: string } = {}): Promise<BrowserContext> {
  mkdirSync(artifacts, { recursive: true })
  const profile = mkdtempSync(path.join(tmpdir(), 'panel-chromium-'))
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: options.viewport ?? { width: 1000, height: 900 },
    // The panel follows the browser's language unless told otherwise: Chinese first.
    locale: options.locale ?? 'zh-CN',
    acceptDownloads: true,
    timeout: 60_000,
  })
}

export interface Served {
  /** The printed link, key in its fragment. */
  url: string
  /** `http://127.0.0.1:PORT/` */
  base: string
  key: string
  proc: ChildProcess
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/** `memory-agent serve --root <root> --port 0`, resolved when it printed its link. */
export async function startServe(root: string, extra: string[] = []): Promise<Served> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--root', root, '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`serve printed no link in 15 s; stderr: ${stderr}`)), 15_000)
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /^memory-agent panel: (\S+)$/m.exec(out)
      if (m?.[1] !== undefined) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`serve exited with ${code}: ${stderr}`))
    })
  })
  const parsed = new URL(url)
  const key = new URLSearchParams(parsed.hash.slice(1)).get('memory-agent-key') ?? ''
  return {
    url,
    base: `${parsed.origin}/`,
    key,
    proc,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      return exited
    },
  }
}

/** POST to the panel API from Node, as a local process other than the panel would. */
export async function apiFetch(base: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: { ok: boolean; error?: { code: string } } }> {
  const res = await fetch(new URL('/memory-agent/api', base), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as { ok: boolean; error?: { code: string } } }
}
