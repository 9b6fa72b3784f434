/**
 * Child processes for the multi-process tests: a worker script prints "ready" once loaded, starts
 * when it reads "go" on stdin, may be told "stop" later, and prints one JSON report as its last
 * line. Workers import the BUILT library (lib/api.js): `npm test` builds first.
 */

import { spawn } from 'node:child_process'

export interface Worker<R> {
  /** Resolves once the worker has loaded and waits for "go". */
  ready: Promise<void>
  /** Sends a line to the worker ("go", "stop"). */
  say(line: string): void
  /** The worker's last stdout line, parsed; rejects when it fails or prints none. */
  done: Promise<R>
}

export function startWorker<R>(script: string, args: readonly string[], name: string): Worker<R> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk
  })
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk
      if (stdout.startsWith('ready\n')) resolve()
    })
    child.once('exit', () => reject(new Error(`worker ${name} exited before it was ready: ${stderr}`)))
  })
  const done = new Promise<R>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`worker ${name} exited with ${code ?? signal}: ${stderr}`))
        return
      }
      const last = stdout.trim().split('\n').pop() ?? ''
      try {
        resolve(JSON.parse(last) as R)
      } catch {
        reject(new Error(`worker ${name} printed no report: ${stdout} ${stderr}`))
      }
    })
  })
  return { ready, say: (line) => child.stdin.write(`${line}\n`), done }
}

/** Starts the workers, waits until every one has loaded, then releases them together so their work overlaps. */
export async function startTogether<R>(workers: Array<Worker<R>>): Promise<void> {
  await Promise.all(workers.map((w) => w.ready))
  for (const w of workers) w.say('go')
}

/**
 * Runs a worker that reports on stdout, one line per event, until it is killed with SIGKILL:
 * `onLine` gets each complete line as it arrives and returns how many milliseconds later to kill
 * it (0: at once), or null to let it go on. Resolves with the signal once it died; rejects when
 * it exits on its own first.
 */
export function runUntilKilled(script: string, args: readonly string[], onLine: (line: string) => number | null): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let partial = ''
    let stderr = ''
    let killed = false
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      partial += chunk
      const lines = partial.split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) {
        if (line.trim() === '') continue
        // Every line is heard, also those printed between the decision to kill and the kill:
        // what the worker reported before it died counts as acknowledged.
        const delay = onLine(line.trim())
        if (delay === null || killed) continue
        killed = true
        if (delay <= 0) child.kill('SIGKILL')
        else setTimeout(() => child.kill('SIGKILL'), delay)
      }
    })
    child.stderr.on('data', (chunk: string) => (stderr += chunk))
    child.once('error', reject)
    child.once('close', (code, signal) => {
      if (!killed) reject(new Error(`${script} exited on its own (${code ?? signal}): ${stderr}`))
      else resolve(signal)
    })
  })
}
