/**
 * `memory-agent serve`: the settings panel as a page of its own, for a store outside any DSH host.
 * A loopback-only HTTP server with three routes: `GET /` (a small page), `GET /panel.js` (the
 * built panel bundle, from the installed package) and `POST /memory-agent/api` (the same API
 * glue as the DSH route, unlocked by the store's panel key). It prints one line, the link that
 * carries the key in its fragment, and runs until SIGINT or SIGTERM, then closes and flushes.
 *
 * `memory-agent panel-key` prints the key alone, to paste into a panel (the DSH one included).
 * Never listens on anything but loopback: the API gate would refuse other peers anyway, and the
 * page is no business of the network.
 */

import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { API_PATH, isLoopback } from '../host/api.js'
import { apiRouteHandler, storeApiDeps } from '../host/http.js'
import { panelKey, panelLink } from '../host/panel-key.js'
import { modelFromEnv } from '../lifecycle/chat-model.js'
import { setConsolidationModel, type ConsolidationModel } from '../memory/consolidation/model.js'
import { flushCaches } from '../retrieve/retriever.js'
import { createFileBackend } from '../store/file-backend.js'
import { watchStore } from '../store/watcher.js'
import { parseFlags } from './flags.js'
import { usageError } from './tool-commands.js'

export const SERVE_HELP = `memory-agent serve: the settings panel in a browser, for one store

Usage: memory-agent serve [--root DIR | --user] [--user-root DIR] [--no-user-root] [--port N] [--host ADDRESS]

  --port N        port to listen on (default 0: a free one)
  --host ADDRESS  a loopback address (default 127.0.0.1; ::1 and localhost also work)

The panel shows the personal store beside the project store, as tool commands serve it
(--user-root DIR, else $MEMORY_AGENT_USER_ROOT, else ~/.agent/memory; --no-user-root: none).

Prints the panel's link, which carries the store's panel key after '#', and serves until
interrupted (Ctrl-C). The key stays the same across restarts (<root>/.cache/panel-key).
`

export const PANEL_KEY_HELP = `memory-agent panel-key: print the store's panel key

Usage: memory-agent panel-key [--root DIR | --user]

Paste the key into the memory panel (DSH settings → Memory, or memory-agent serve) when it asks.
Made on first use and kept in <root>/.cache/panel-key; delete that file to change the key.
`

/** The built page bundle, beside lib/ in the installed package (two folders up from lib/cli/ and lib/bundle/ alike). */
const PANEL_BUNDLE = fileURLToPath(new URL('../../client/panel.js', import.meta.url))

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>memory-agent</title>
</head>
<body>
<div id="app"></div>
<script src="/panel.js"></script>
</body>
</html>
`

/** Headers of every answer but the API's own: nothing from elsewhere, never framed, no referrer. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
}

export interface ServeOptions {
  root: string
  host: string
  port: number
  /** The model the panel's consolidation may use (the CLI's MEMORY_AGENT_LLM_* endpoint); none when absent. */
  model?: ConsolidationModel | null
  /** The personal store shown beside the project store, and the project's identity recorded with writes routed there. */
  personal?: { root: string; projectId: string }
}

/** Whether a --host value names this machine: a loopback address or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  return bare.toLowerCase() === 'localhost' || isLoopback(bare)
}

function parsePort(text: string): number {
  const port = Number(text)
  if (!/^\d+$/.test(text) || !Number.isInteger(port) || port > 65_535) throw usageError(`--port: expected a port number 0-65535, got ${JSON.stringify(text)}`)
  return port
}

/** The --port and --host of serve; the store is resolved by the caller like every command's. */
export function parseServeFlags(args: string[]): { host: string; port: number } {
  const flags = parseFlags('serve', args, { valued: ['--port', '--host'] })
  const portText = flags.values.get('--port')
  const port = portText !== undefined ? parsePort(portText) : 0
  const host = flags.values.get('--host') ?? '127.0.0.1'
  if (!isLoopbackHost(host)) throw usageError(`serve: --host ${host} is not a loopback address; the panel is served to this machine only (127.0.0.1, ::1 or localhost)`)
  return { host, port }
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'content-type': type })
  res.end(body)
}

export interface RunningPanel {
  server: Server
  url: string
  close(): Promise<void>
}

/** Starts the server; resolves once it listens. */
export async function startPanelServer(options: ServeOptions): Promise<RunningPanel> {
  if (!existsSync(PANEL_BUNDLE)) throw new Error(`the panel bundle ${PANEL_BUNDLE} is missing; build it with npm run build`)
  const backend = createFileBackend(options.root)
  setConsolidationModel(backend, options.model ?? null)
  const key = panelKey(options.root)
  const user = options.personal !== undefined ? createFileBackend(options.personal.root) : undefined
  if (user !== undefined) setConsolidationModel(user, options.model ?? null)
  const api = apiRouteHandler({ ...storeApiDeps(backend, key), ...(user !== undefined ? { user, projectId: options.personal?.projectId ?? '' } : {}) })
  // Vouches for the store while serving (store/watcher.ts).
  const watching = watchStore(backend, (err) => console.error(`memory-agent serve: watching: ${err instanceof Error ? err.message : String(err)}`))

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname
    if (pathname === API_PATH) {
      api(req, res).catch((err: unknown) => {
        console.error(`memory-agent serve: ${err instanceof Error ? err.message : String(err)}`)
        if (!res.headersSent) send(res, 500, 'application/json; charset=utf-8', '{"ok":false,"error":{"code":"INTERNAL_ERROR","message":"the request failed"}}')
        else res.destroy()
      })
      return
    }
    const isGet = req.method === 'GET' || req.method === 'HEAD'
    if (isGet && pathname === '/') return send(res, 200, 'text/html; charset=utf-8', PAGE)
    // Read on each request: a rebuilt bundle is served without a restart.
    if (isGet && pathname === '/panel.js') return send(res, 200, 'text/javascript; charset=utf-8', readFileSync(PANEL_BUNDLE))
    send(res, 404, 'text/plain; charset=utf-8', 'not found\n')
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = panelLink(`http://${host}:${address.port}/`, key)

  let closing: Promise<void> | null = null
  const close = () =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await (await watching)()
      await flushCaches(backend)
      if (user !== undefined) await flushCaches(user)
    })())
  return { server, url, close }
}

/** `memory-agent serve`: start, print the link, run until a signal. */
export async function serve(root: string, args: string[], personal?: { root: string; projectId: string }): Promise<number> {
  const { host, port } = parseServeFlags(args)
  const running = await startPanelServer({ root, host, port, model: modelFromEnv(process.env), ...(personal !== undefined ? { personal } : {}) })
  process.stdout.write(`memory-agent panel: ${running.url}\n`)
  let stop = (): void => undefined
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  // Listening until closed: a library loaded later (proper-lockfile's signal-exit) re-raises a
  // signal it finds no other listener for, which would end the process before it has flushed.
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  await stopped
  await running.close()
  process.off('SIGINT', stop)
  process.off('SIGTERM', stop)
  return 0
}

/** `memory-agent panel-key`: the key alone on stdout (main.ts has checked its flags). */
export function printPanelKey(root: string): number {
  process.stdout.write(`${panelKey(root)}\n`)
  return 0
}

/** `--help` of the commands above, by command name. */
export const PANEL_COMMAND_HELP: Readonly<Record<string, string>> = { serve: SERVE_HELP, 'panel-key': PANEL_KEY_HELP }
