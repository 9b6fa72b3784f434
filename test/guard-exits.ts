/**
 * Every exit where memory reaches a model, read for one memory: library search, MCP search text,
 * CLI search output, assemble (with its raw excerpt; library and MCP text), nav (listing, file and
 * raw file; library and MCP text), the resident injection and the slot digest. Shared by the
 * injection guard's table test and its property test. MCP and CLI run the BUILT lib.
 */

import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { expect } from 'vitest'
import { assembleHandler, digestHandler, navHandler, searchHandler, writeHandler, type MemoryBackend } from '../src/api.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')

export const EXITS = [
  'search',
  'search (MCP text)',
  'search (CLI)',
  'assemble',
  'assemble (MCP text)',
  'nav',
  'nav (MCP text)',
  'resident injection',
  'digest',
] as const
export type Exit = (typeof EXITS)[number]

/** A memory written for the table: `token` is a word only it holds, so each exit can find its text. */
export interface Planted {
  token: string
  id: string
  path: string
  raw_ref: string
  summary: string
  raw: string
}

/** Every string in a structured value, one a line: what a host passes on of a tool result. */
export function strings(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(strings).join('\n')
  if (typeof value === 'object' && value !== null) return Object.values(value).map(strings).join('\n')
  return ''
}

/** Writes `text` as an episode under its own key and tag; summary and raw transcript both hold it. */
export async function plant(backend: MemoryBackend, token: string, text: string, tag: string): Promise<Planted> {
  const summary = `Note ${token}: ${text}`
  const raw = `Transcript ${token}.\n${text}\nEnd of transcript ${token}.`
  const w = await writeHandler(backend, { summary, raw, key: token, tags: [tag], session_id: 'guard-table' })
  expect(w.raw_ref, token).not.toBeNull()
  return { token, id: w.id, path: w.path, raw_ref: w.raw_ref as string, summary, raw }
}

/** The lines of a rendered listing that belong to the memory holding `token`. */
function linesOf(text: string, token: string): string {
  return text
    .split('\n')
    .filter((l) => new RegExp(`\\b${token}\\b`).test(l))
    .join('\n')
}

export interface ExitReader {
  backend: MemoryBackend
  client: Client
}

export async function connectMcp(root: string): Promise<Client> {
  const client = new Client({ name: 'guard-exits', version: '1.0.0' })
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, '--no-user-root', '--tools', 'all'], env, stderr: 'pipe' }))
  return client
}

/** CLI search output of every memory with this tag: one process for the lot. */
export function cliSearch(root: string, tag: string): string {
  const r = spawnSync(process.execPath, [CLI, 'search', '', '--tag', tag, '--top-k', '200', '--root', root, '--no-user-root'], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

async function mcpText(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text?: string }[] }
  const text = result.content.map((c) => c.text ?? '').join('\n')
  expect(result.isError, `${name}: ${text}`).toBeFalsy()
  return text
}

/**
 * What each exit shows of one planted memory. `cli` and `injection` are read once for all memories
 * (a process per call, a synchronous whole-store text) and cut to the memory's lines here.
 */
export async function readExits(r: ExitReader, m: Planted, cli: string, injection: string): Promise<Record<Exit, string>> {
  const search = await searchHandler(r.backend, { query: m.token })
  const assembled = await assembleHandler(r.backend, { task: m.token, hits: [{ id: m.id }], budget: 4000 })
  const nav = await Promise.all([navHandler(r.backend, { path: m.id }), navHandler(r.backend, { path: m.raw_ref }), navHandler(r.backend, { path: 'episodes/', limit: 500 })])
  const navListing = (nav[2].entries as Array<{ id: string }>).filter((e) => e.id === m.id)
  const digest = await digestHandler(r.backend, { key: m.token })
  return {
    search: strings(search.hits.filter((h) => h.id === m.id)),
    'search (MCP text)': linesOf(await mcpText(r.client, 'memory_search_hybrid', { query: m.token }), m.token),
    'search (CLI)': linesOf(cli, m.token),
    assemble: assembled.context,
    'assemble (MCP text)': await mcpText(r.client, 'memory_assemble', { task: m.token, hits: [{ id: m.id }], budget: 4000 }),
    nav: [strings(nav[0].file), strings(nav[1].file), strings(navListing)].join('\n'),
    'nav (MCP text)': [await mcpText(r.client, 'memory_nav', { path: m.id }), await mcpText(r.client, 'memory_nav', { path: m.raw_ref })].join('\n'),
    'resident injection': linesOf(injection, m.token),
    digest: digest.text ?? '',
  }
}
