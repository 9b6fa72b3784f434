// Child-process worker for test/read-only-store.test.ts, run inside a restriction of
// test/restricted-store.ts (a read-only mount, no write permission, a full disk). Imports the
// BUILT library and CLI (run `npm run build`).
//
// usage: node store-io-probe.mjs <root> <memory id>
// Reads the store through the library, the panel API, the CLI and an MCP client (search, nav,
// stats, export, assemble, verify, history; search three times), then tries one write through
// each of library, CLI and MCP. Prints one JSON line: every call's outcome, the warnings each
// adapter printed, and a manifest (path -> sha256) of the store before and after.

import { createHash } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import * as api from '../../lib/api.js'
import { handleApiRequest, TOKEN_HEADER } from '../../lib/host/api.js'

const [root, id] = process.argv.slice(2)
const CLI = fileURLToPath(new URL('../../lib/cli/main.js', import.meta.url))
const env = { ...process.env, MEMORY_AGENT_USER_ROOT: '' }

function manifest(dir, rel = '', out = {}) {
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel === '' ? entry.name : `${rel}/${entry.name}`
    if (entry.isDirectory()) manifest(dir, p, out)
    else if (p !== '.fill') out[p] = createHash('sha256').update(readFileSync(path.join(dir, p))).digest('hex')
  }
  return out
}

const results = []
const warnings = { library: [], cli: {}, mcp: [] }
function record(adapter, command, ok, err) {
  results.push({
    adapter,
    command,
    ok: err === undefined && ok,
    ...(err !== undefined ? { code: err.code ?? null, errno: err.errno ?? null, message: String(err.message ?? err) } : {}),
  })
}
async function attempt(adapter, command, run, check) {
  try {
    record(adapter, command, check(await run()))
  } catch (err) {
    record(adapter, command, false, err)
  }
}

const before = manifest(root)

// Library (and panel API) in this process: console.warn is what the library says.
const warn = console.warn
console.warn = (...args) => warnings.library.push(args.join(' '))
const backend = api.createFileBackend(root)
const reads = {
  search: [() => api.searchHandler(backend, { query: 'port nginx' }), (o) => o.hits.some((h) => h.id === id)],
  nav: [() => api.navHandler(backend, {}), (o) => o.total >= 2],
  stats: [() => api.memoryStats(backend), (o) => o.total >= 2],
  export: [() => api.exportBundle(backend), (o) => o.index.length >= 2 && o.files.some((f) => f.path.includes(id))],
  assemble: [() => api.assembleHandler(backend, { task: 'which port does the API server use' }), (o) => o.context.includes('8080')],
  verify: [() => api.verifyHandler(backend, { claim: 'The API server listens on port 8080 behind nginx.' }), (o) => o.verdict === 'supported'],
  history: [() => api.historyHandler(backend, { id }), (o) => o.versions.length >= 1],
}
for (const [command, [run, check]] of Object.entries(reads)) await attempt('library', command, run, check)
for (let i = 0; i < 2; i++) await attempt('library', 'search again', reads.search[0], reads.search[1])
await api.signalsSettled(backend)
await attempt('library', 'flushCaches', () => api.flushCaches(backend), () => true)

const panel = (op, args = {}) =>
  handleApiRequest(
    {
      method: 'POST',
      headers: { host: '127.0.0.1:1', origin: 'http://127.0.0.1:1', 'content-type': 'application/json', [TOKEN_HEADER]: 'probe-secret' },
      remoteAddress: '127.0.0.1',
      body: JSON.stringify({ op, ...args }),
    },
    { backend, secret: 'probe-secret', config: { get: () => api.DEFAULT_CONFIG, set: () => api.DEFAULT_CONFIG } },
  ).then((res) => {
    const body = JSON.parse(res.body)
    if (!body.ok) throw Object.assign(new Error(body.error.message), body.error)
    return body.result
  })
await attempt('panel', 'status', () => panel('status'), (o) => o.stats.total >= 2)
await attempt('panel', 'export', () => panel('export'), (o) => o.index.length >= 2)
await attempt('panel', 'search', () => panel('search', { query: 'port nginx' }), (o) => o.hits.some((h) => h.id === id))
await attempt('panel', 'list', () => panel('list'), (o) => o.total >= 2)
await api.signalsSettled(backend)
await attempt('panel', 'flushCaches', () => api.flushCaches(backend), () => true)

const writeInput = { summary: `Probe write ${process.pid}: the staging database is MariaDB.`, title: 'Staging database' }
await attempt('library', 'write', () => api.writeHandler(backend, writeInput), () => true)
console.warn = warn

// CLI: one process per command, as a person or a script runs it.
function cli(command, args, check, name = command) {
  const r = spawnSync(process.execPath, [CLI, command, ...args, '--root', root], { encoding: 'utf8', env })
  warnings.cli[name] = r.stderr.split('\n').filter((l) => l.startsWith('dsh-memory-agent:'))
  const failure = r.stderr.match(/^memory-agent: (?:([A-Z_]+): )?(.*)$/m)
  if (r.status === 0) record('cli', name, check(r.stdout))
  else record('cli', name, false, { code: failure?.[1] ?? null, message: failure?.[2] ?? r.stderr.slice(0, 300) })
}
cli('search', ['port nginx'], (out) => out.includes(id))
cli('nav', [], (out) => out.includes('entries'))
cli('stats', ['--json'], (out) => JSON.parse(out).total >= 2)
cli('export', [], (out) => JSON.parse(out).files.some((f) => f.path.includes(id)))
cli('assemble', ['which port does the API server use'], (out) => out.includes('8080'))
cli('verify', ['The API server listens on port 8080 behind nginx.', '--json'], (out) => JSON.parse(out).verdict === 'supported')
cli('history', [id], (out) => out.includes(id))
cli('write', [writeInput.summary], () => true)
cli('export', ['--out', path.join(root, 'backup.json')], () => true, 'export --out')

// MCP: one long-lived server; its stderr is what it said over its whole life.
const client = new Client({ name: 'store-io-probe', version: '1.0.0' })
const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, '--tools', 'all'], env, stderr: 'pipe' })
let serverErr = ''
transport.stderr?.on('data', (chunk) => (serverErr += chunk))
await client.connect(transport)
async function tool(name, args, check) {
  try {
    const r = await client.callTool({ name, arguments: args })
    const text = r.content.map((c) => c.text ?? '').join('\n')
    if (r.isError) record('mcp', name, false, { code: text.split(':')[0], message: text.slice(text.indexOf(':') + 2) })
    else record('mcp', name, check(r.structuredContent))
  } catch (err) {
    record('mcp', name, false, err)
  }
}
for (let i = 0; i < 3; i++) await tool('memory_search_hybrid', { query: 'port nginx' }, (o) => o.hits.some((h) => h.id === id))
await tool('memory_nav', {}, (o) => o.total >= 2)
await tool('memory_assemble', { task: 'which port does the API server use' }, (o) => o.context.includes('8080'))
await tool('memory_verify', { claim: 'The API server listens on port 8080 behind nginx.' }, (o) => o.verdict === 'supported')
await tool('memory_history', { id }, (o) => o.versions.length >= 1)
await tool('write_memory', writeInput, () => true)
await client.close()
warnings.mcp = serverErr.split('\n').filter((l) => l.startsWith('dsh-memory-agent:'))

process.stdout.write(`${JSON.stringify({ uid: process.getuid(), results, warnings, before, after: manifest(root) })}\n`)
