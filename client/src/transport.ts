/**
 * The panel's only way to the store: POST `/memory-agent/api` with `{ op, ...args }`, the panel
 * header and the key. Every failure becomes an ApiError with the HTTP status and the API's error
 * code, so the panel decides by code (FORBIDDEN locks it), never by message text.
 */

import { API_PATH, PANEL_HEADER, TOKEN_HEADER } from '../../src/host/panel-protocol.js'
import type { Call, OpName, Ops } from './api-types.js'

export class ApiError extends Error {
  override readonly name = 'ApiError'
  /** HTTP status; 0 when no answer arrived (no key, network failure). */
  readonly status: number
  /** The API's error code (FORBIDDEN, INVALID_INPUT, ...), or NO_KEY / NETWORK_ERROR / BAD_RESPONSE from here. */
  readonly code: string

  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

/** Whether an error means the panel lacks a working key. */
export function isLockError(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 'NO_KEY' || err.code === 'FORBIDDEN')
}

export interface TransportOptions {
  /** The current key, or null when there is none (then nothing is sent). */
  key: () => string | null
  endpoint?: string
  fetch?: typeof fetch
}

interface Answer {
  ok?: unknown
  result?: unknown
  error?: { code?: unknown; message?: unknown }
}

export function createTransport(options: TransportOptions): Call {
  const endpoint = options.endpoint ?? API_PATH
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  return async <K extends OpName>(op: K, args?: Ops[K]['args']): Promise<Ops[K]['result']> => {
    const key = options.key()
    if (key === null || key === '') throw new ApiError(0, 'NO_KEY', 'no panel key')
    let res: Response
    try {
      res = await send(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [PANEL_HEADER]: 'panel', [TOKEN_HEADER]: key },
        body: JSON.stringify({ ...(args ?? {}), op }),
        credentials: 'same-origin',
        cache: 'no-store',
      })
    } catch (err) {
      throw new ApiError(0, 'NETWORK_ERROR', err instanceof Error ? err.message : String(err))
    }
    let answer: Answer
    try {
      answer = (await res.json()) as Answer
    } catch {
      throw new ApiError(res.status, 'BAD_RESPONSE', `HTTP ${res.status}: the answer is not JSON`)
    }
    if (res.ok && answer.ok === true) return answer.result as Ops[K]['result']
    const code = typeof answer.error?.code === 'string' ? answer.error.code : 'BAD_RESPONSE'
    const message = typeof answer.error?.message === 'string' ? answer.error.message : `HTTP ${res.status}`
    throw new ApiError(res.status, code, message)
  }
}
