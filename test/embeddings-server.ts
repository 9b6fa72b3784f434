/**
 * A real OpenAI-compatible embeddings server on 127.0.0.1 for the tests: `POST /v1/embeddings`
 * answers deterministic vectors with known neighbours. Each axis is a concept of CONCEPTS; a
 * text's vector counts the words of each concept it contains (lower-cased substring match, so
 * Chinese works without a tokenizer). Two texts are near exactly when they share concepts, whether
 * or not they share a word: "kitten" is near "Mimi the cat" (feline), 开会是啥时候 near
 * 周会定在每周二上午十点 (meeting, time). A text with no concept gets the zero vector.
 */

import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export const CONCEPTS: readonly (readonly string[])[] = [
  ['cat', 'kitten', 'feline', 'mimi', '猫', '咪咪'],
  ['meeting', 'standup', '开会', '周会', '例会'],
  ['when', 'schedule', "o'clock", '时候', '几点', '十点', '周二'],
  ['food', 'diet', 'allergy', 'peanut', '忌口', '过敏', '花生', '吃'],
  ['drawing', 'sketch', 'paint', 'giraffe', '画', '长颈鹿'],
  ['database', 'postgres', 'sql', '数据库'],
  ['deploy', 'release', 'ship', '上线', '发布'],
  ['age', 'years old', 'birthday', '岁', '生日'],
]

export const CONCEPT_DIM = 12

/** The vector of a text under the concept table, `dim` long (axes past the concepts stay 0). */
export function conceptVector(text: string, dim = CONCEPT_DIM): number[] {
  const lower = text.toLowerCase()
  const v = new Array<number>(dim).fill(0)
  CONCEPTS.forEach((words, axis) => {
    if (axis < dim) for (const w of words) if (lower.includes(w)) v[axis] = (v[axis] as number) + 1
  })
  return v
}

/** How the server answers: right, never (a stalled endpoint), or malformed in one way. */
export type Answer = 'vectors' | 'stall' | 'all-index-0' | 'no-embedding' | 'wrong-dim'

export interface EmbeddingsServerOptions {
  /** Length of the vectors answered (default CONCEPT_DIM): another length than configured makes a dimension mismatch. */
  dim?: number
  /** Milliseconds before each answer. */
  delayMs?: number
}

export interface EmbeddingsServer {
  /** Base URL up to /v1. */
  url: string
  /** Requests received. */
  requests: number
  /** Texts embedded, by model. */
  texts: Map<string, number>
  /** Every text received, in order (what left the store for the endpoint). */
  received: string[]
  setDelay(ms: number): void
  setAnswer(answer: Answer): void
  close(): Promise<void>
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export async function startEmbeddingsServer(options: EmbeddingsServerOptions = {}): Promise<EmbeddingsServer> {
  let delayMs = options.delayMs ?? 0
  let answer: Answer = 'vectors'
  const state = { requests: 0, texts: new Map<string, number>(), received: [] as string[] }
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end()
        return
      }
      const parsed = JSON.parse(await body(req)) as { model: string; input: string | string[] }
      const inputs = Array.isArray(parsed.input) ? parsed.input : [parsed.input]
      // Counted on arrival: a request of a client killed while it waits is counted all the same.
      state.requests++
      state.texts.set(parsed.model, (state.texts.get(parsed.model) ?? 0) + inputs.length)
      state.received.push(...inputs)
      if (answer === 'stall') return
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
      const dim = (options.dim ?? CONCEPT_DIM) + (answer === 'wrong-dim' ? 1 : 0)
      const data = inputs.map((text, index) => ({
        object: 'embedding',
        index: answer === 'all-index-0' ? 0 : index,
        ...(answer === 'no-embedding' ? {} : { embedding: conceptVector(text, dim) }),
      }))
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model: parsed.model, data }))
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests
    },
    texts: state.texts,
    received: state.received,
    setDelay(ms) {
      delayMs = ms
    },
    setAnswer(a) {
      answer = a
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
