/**
 * The injection guard at every exit where memory reaches a model (test/guard-exits.ts), on a fixed
 * table: each hostile phrasing of test/injection-cases.ts is written as an episode (summary and raw
 * transcript) and read back through every exit. Counts of phrasings neutralised per exit are
 * printed and must be all; ordinary memories must come out of every exit unchanged (counted too);
 * the stored files stay byte for byte as written. MCP and CLI run the BUILT lib (`npm run build`
 * first when running this file alone).
 */

import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileBackend, flushCaches, injectionText, signalsSettled, type MemoryBackend } from '../src/api.js'
import { EXITS, cliSearch, connectMcp, plant, readExits, type Exit, type ExitReader, type Planted } from './guard-exits.js'
import { BENIGN, HOSTILE, survivors } from './injection-cases.js'

let root = ''
let backend: MemoryBackend
let client: Client
const hostile: Planted[] = []
const benign: Planted[] = []
const storedBefore = new Map<string, string>()

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'guard-exits-'))
  backend = createFileBackend(root)
  for (const [i, h] of HOSTILE.entries()) hostile.push(await plant(backend, `zqk${i}`, h.text, 'hostile'))
  for (const [i, text] of BENIGN.entries()) benign.push(await plant(backend, `zqb${i}`, text, 'benign'))
  await signalsSettled(backend)
  for (const m of [...hostile, ...benign]) for (const p of [m.path, m.raw_ref]) storedBefore.set(p, await fs.readFile(path.join(root, p), 'utf8'))
  client = await connectMcp(root)
}, 120_000)

afterAll(async () => {
  await client?.close()
  await signalsSettled(backend)
  await flushCaches(backend)
  await fs.rm(root, { recursive: true, force: true })
})

function reader(): ExitReader {
  return { backend, client }
}

describe('the injection guard at every exit', () => {
  it(`neutralises all ${HOSTILE.length} hostile phrasings in every exit`, async () => {
    const r = reader()
    const cli = cliSearch(root, 'hostile')
    const injection = injectionText(backend, { budgetChars: 8000, maxMemories: 64, tokenBudget: 0 }).text
    const neutralised = Object.fromEntries(EXITS.map((e) => [e, 0])) as Record<Exit, number>
    const failures: string[] = []
    for (const [i, m] of hostile.entries()) {
      const outputs = await readExits(r, m, cli, injection)
      for (const exit of EXITS) {
        const out = outputs[exit]
        const left = survivors(out, HOSTILE[i]!)
        if (!out.includes(m.token)) failures.push(`${exit}: ${m.token} did not reach this exit`)
        else if (left.length > 0) failures.push(`${exit}: ${HOSTILE[i]!.label}: ${JSON.stringify(left)} left in ${JSON.stringify(out.slice(0, 400))}`)
        else neutralised[exit]++
      }
    }
    console.log(`hostile phrasings neutralised per exit (of ${HOSTILE.length}):\n${EXITS.map((e) => `  ${e}: ${neutralised[e]}`).join('\n')}`)
    expect(failures, failures.join('\n')).toEqual([])
  }, 120_000)

  it(`passes all ${BENIGN.length} ordinary memories through every exit unchanged`, async () => {
    const r = reader()
    const cli = cliSearch(root, 'benign')
    const injected = injectionText(backend, { budgetChars: 8000, maxMemories: 64, tokenBudget: 0 })
    const unchanged = Object.fromEntries(EXITS.map((e) => [e, 0])) as Record<Exit, number>
    const failures: string[] = []
    const flagged = new Set((injected.injectionWarnings ?? []).map((w) => w.id))
    for (const m of benign) {
      const outputs = await readExits(r, m, cli, injected.text)
      const file = storedBefore.get(m.path) as string
      const rawFile = storedBefore.get(m.raw_ref) as string
      // What an unchanged exit shows: the summary whole (the injection line is cut at 80 characters,
      // so it must carry no warning instead), the raw text in the excerpt, the files as stored.
      const holds: Record<Exit, boolean> = {
        search: outputs.search.includes(m.summary),
        'search (MCP text)': outputs['search (MCP text)'].includes(m.summary) && !/Warning: text that tried/.test(outputs['search (MCP text)']),
        'search (CLI)': outputs['search (CLI)'].includes(m.summary),
        assemble: outputs.assemble.includes(m.summary) && outputs.assemble.includes(m.raw.replace(/\s+/g, ' ')),
        'assemble (MCP text)': outputs['assemble (MCP text)'].includes(m.summary) && !/Warning: text that tried/.test(outputs['assemble (MCP text)']),
        nav: outputs.nav.includes(file) && outputs.nav.includes(rawFile),
        'nav (MCP text)': outputs['nav (MCP text)'].includes(file) && outputs['nav (MCP text)'].includes(rawFile),
        'resident injection': outputs['resident injection'].includes(m.token) && !flagged.has(m.id),
        digest: outputs.digest.includes(m.summary),
      }
      for (const exit of EXITS) {
        if (holds[exit]) unchanged[exit]++
        else failures.push(`${exit}: ${JSON.stringify(m.summary)} altered: ${JSON.stringify(outputs[exit].slice(0, 400))}`)
      }
    }
    console.log(`ordinary memories unchanged per exit (of ${BENIGN.length}):\n${EXITS.map((e) => `  ${e}: ${unchanged[e]}`).join('\n')}`)
    expect(failures, failures.join('\n')).toEqual([])
  }, 120_000)

  it('never changes a stored file', async () => {
    for (const [p, text] of storedBefore) expect(await fs.readFile(path.join(root, p), 'utf8'), p).toBe(text)
  })
})
