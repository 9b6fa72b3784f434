/**
 * Node's HTTP glue for the panel API, shared by the DSH route (`ctx.webServer`) and the standalone
 * `memory-agent serve`: reads a request body up to one byte past the limit, hands it with the
 * headers and the peer address to `handleApiRequest`, and writes its answer. Nothing else: the
 * gates, the ops and the error mapping live in api.ts.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import { API_BODY_LIMIT, handleApiRequest, type ApiDeps } from './api.js'
import { loadConfigSync } from '../memory/settings/config.js'
import type { MemoryBackend } from '../store/backend.js'

/**
 * Reads at most `limit` bytes of the body; a longer body stops there (the API then answers 413).
 * The stream is paused, not destroyed, so the socket stays usable for the answer.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = () => {
      req.off('data', onData).off('end', done).off('error', reject)
      resolve(Buffer.concat(chunks).subarray(0, limit))
    }
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      chunks.push(buf)
      size += buf.length
      if (size >= limit) {
        req.pause()
        done()
      }
    }
    req.on('data', onData).on('end', done).on('error', reject)
  })
}

function flatHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(req.headers)) out[name] = Array.isArray(value) ? value.join(', ') : value
  return out
}

/**
 * API deps whose configuration is the store's own (the adapter's base merged with config.json,
 * read again when it changes): `config.set` has written config.json, so reading it back is the set.
 */
export function storeApiDeps(backend: MemoryBackend, secret: string): ApiDeps {
  return { backend, secret, config: { get: () => loadConfigSync(backend), set: () => loadConfigSync(backend) } }
}

/** A request handler for `POST /memory-agent/api`. */
export function apiRouteHandler(deps: ApiDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const method = req.method ?? 'GET'
    // A body is read only for POST; anything else is refused by the API before it would matter.
    const body = method.toUpperCase() === 'POST' ? await readBody(req, API_BODY_LIMIT + 1) : Buffer.alloc(0)
    const answer = await handleApiRequest({ method, headers: flatHeaders(req), remoteAddress: req.socket.remoteAddress, body }, deps)
    // The rest of an over-long body is not wanted: answer, then close instead of draining it.
    const unread = !req.readableEnded
    res.writeHead(answer.status, unread ? { ...answer.headers, connection: 'close' } : answer.headers)
    if (unread) res.on('finish', () => req.destroy())
    res.end(answer.body)
  }
}
