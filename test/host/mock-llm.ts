/**
 * A scripted, OpenAI/DeepSeek-compatible chat-completions server for real agent turns with no
 * network (route 3 of ../shared/reference/dsh-host.md). It runs inside the test process on
 * 127.0.0.1 with a port the OS picks; the host reaches it through DEEPSEEK_BASE_URL
 * (dsh-llm-deepseek POSTs to `${DEEPSEEK_BASE_URL}/chat/completions`, streaming SSE).
 *
 * Per POST .../chat/completions:
 *   - no `tools` in the request (the host's session-title request, a
 *     consolidation prompt)                                             -> `complete(last user text)`
 *                                                                          when given and not null, else the text `title`
 *   - the script has a step k (k = assistant messages with tool_calls already in the
 *     conversation) and every tool it names is offered                   -> those tool calls
 *   - otherwise                                                          -> the final text
 *     `MOCK FINAL: <content of the last tool message>`
 * A request with `"stream": false` gets one JSON completion instead of an SSE stream (text answers only).
 * The mock is stateless across requests: it follows the conversation the host sends back.
 *
 * Bounded: after `maxRequests` requests every further one gets 503, and `close()` (or the
 * `timeoutMs` timer) shuts the server and drops open connections.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface MockCall {
  name: string
  /** An object (sent as JSON) or a string sent verbatim. */
  arguments: unknown
}

export interface MockRequest {
  id: number
  method: string
  url: string
  body: any
  /** What the mock answered: 'title', 'complete', 'tools', 'final', or an HTTP status for anything else. */
  answer: string
}

export interface MockLlm {
  baseUrl: string
  requests: MockRequest[]
  close(): Promise<void>
}

export interface MockOptions {
  script: (MockCall | MockCall[])[]
  title?: string
  /** The answer to a request without tools, from the text of its last user message; null: `title`. */
  complete?: (prompt: string) => string | null
  maxRequests?: number
  timeoutMs?: number
}

/** The text of a chat message's content, which may be a string or a list of parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('')
  return content === undefined || content === null ? '' : JSON.stringify(content)
}

export async function startMockLlm(options: MockOptions): Promise<MockLlm> {
  const steps = options.script.map((step) => (Array.isArray(step) ? step : [step]))
  const title = options.title ?? 'Mock title'
  const maxRequests = options.maxRequests ?? 12
  const requests: MockRequest[] = []

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const id = requests.length + 1
    let body: any = {}
    try {
      body = JSON.parse(raw)
    } catch {}
    const record: MockRequest = { id, method: req.method ?? '', url: req.url ?? '', body, answer: '' }
    requests.push(record)

    if (id > maxRequests) {
      record.answer = '503'
      res.writeHead(503, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `mock llm: more than ${maxRequests} requests` } }))
      return
    }
    if (req.method !== 'POST' || !record.url.endsWith('/chat/completions')) {
      record.answer = '404'
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{}')
      return
    }

    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }
    const messages: any[] = Array.isArray(body.messages) ? body.messages : []
    const offered = new Set<string>((Array.isArray(body.tools) ? body.tools : []).map((t: any) => t?.function?.name))
    const lastUser = [...messages].reverse().find((m) => m?.role === 'user')
    const completion = offered.size === 0 ? (options.complete?.(lastUser ? contentText(lastUser.content) : '') ?? null) : null
    const plain = offered.size === 0 ? (completion ?? title) : null
    if (body.stream === false && plain !== null) {
      record.answer = completion === null ? 'title' : 'complete'
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: `mock-${id}`, object: 'chat.completion', created: 0, model: body.model ?? 'mock', choices: [{ index: 0, message: { role: 'assistant', content: plain }, finish_reason: 'stop' }], usage }))
      return
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' })
    const base = { id: `mock-${id}`, object: 'chat.completion.chunk', created: 0, model: body.model ?? 'mock' }
    const send = (chunk: object) => res.write(`data: ${JSON.stringify({ ...base, ...chunk })}\n\n`)
    const text = (content: string) => {
      send({ choices: [{ index: 0, delta: { role: 'assistant', content } }] })
      send({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })
    }

    const k = messages.filter((m) => m?.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0).length
    const calls = steps[k]

    if (plain !== null) {
      record.answer = completion === null ? 'title' : 'complete'
      text(plain)
    } else if (calls && calls.every((c) => offered.has(c.name))) {
      record.answer = 'tools'
      send({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] })
      calls.forEach((c, i) => {
        const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {})
        // The name first with empty arguments, then the arguments, as a real stream does.
        send({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: `call_${k + 1}_${i + 1}`, type: 'function', function: { name: c.name, arguments: '' } }] } }] })
        send({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: args } }] } }] })
      })
      send({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage })
    } else {
      record.answer = 'final'
      const lastTool = [...messages].reverse().find((m) => m?.role === 'tool')
      text(`MOCK FINAL: ${lastTool ? contentText(lastTool.content) : '(no tool result)'}`)
    }
    res.write('data: [DONE]\n\n')
    res.end()
  }

  const server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      raw += chunk
    })
    req.on('end', () => handle(req, res, raw))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  let closed: Promise<void> | undefined
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      clearTimeout(timer)
      server.close(() => resolve())
      server.closeAllConnections()
    }))
  const timer = setTimeout(() => void close(), options.timeoutMs ?? 120_000)
  timer.unref()

  return { baseUrl: `http://127.0.0.1:${port}`, requests, close }
}
