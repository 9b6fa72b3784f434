/**
 * Real MCP clients over stdio against the built CLI (`npm run build` first): one `memory-agent mcp`
 * child per call of `connect`, every client closed after the file's tests.
 */

import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll } from 'vitest'

export const BUILT_CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')

export interface McpResult {
  isError?: boolean
  content: { type?: string; text?: string }[]
  structuredContent?: Record<string, unknown>
}

/** Calls one tool of a connected server; the result as the SDK gives it. */
export type McpCall = (name: string, args?: Record<string, unknown>) => Promise<McpResult>

/** This process's environment without unset values, as StdioClientTransport takes it. */
export function processEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
}

/**
 * A connector for the tests of one file or describe block: `connect(['--root', dir, '--tools',
 * 'all'])` starts `memory-agent mcp` with those arguments. Without `env` the child gets the SDK's
 * default environment (a few variables such as HOME and PATH), not this process's.
 */
export function mcpClients(name: string): (args: readonly string[], options?: { cwd?: string; env?: Record<string, string> }) => Promise<McpCall> {
  const clients: Client[] = []
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
  })
  return async (args, options = {}) => {
    const client = new Client({ name, version: '1.0.0' })
    clients.push(client)
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BUILT_CLI, 'mcp', ...args],
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
        ...(options.env !== undefined ? { env: options.env } : {}),
        stderr: 'pipe',
      }),
    )
    return async (tool, toolArgs = {}) => (await client.callTool({ name: tool, arguments: toolArgs })) as McpResult
  }
}
