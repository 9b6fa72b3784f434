/**
 * Assemble below its threshold (seed 000): when nothing matches the task and memories share only
 * single characters with it, the block is not empty: the closest memory is given inside a
 * `[memory data ...]` / `[/memory data]` frame that says it is not a match, without an evidence
 * marker, named in `lowConfidence` and not counted as included; within the budget always. No
 * guess when nothing shares anything. Through the library and the built MCP server over stdio.
 * Run `npm run build` before this file alone.
 */

import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { TOOLS, assembleHandler, outputViolation, writeHandler } from '../src/api.js'
import { tempStores } from './store-kit.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')
const store = tempStores('dsh-assemble-guess-')
const schema = TOOLS.find((t) => t.name === 'memory_assemble')!.output

describe('memory_assemble below its threshold', () => {
  it('library: the closest memory comes framed and labelled as a guess, within the budget; none when nothing is shared', async () => {
    const { backend } = await store()
    const quantum = await writeHandler(backend, { summary: '量子计算的基本原理是叠加和纠缠', verify_cmd: 'echo ok', verify_result: 'pass' })
    await writeHandler(backend, { summary: 'The API listens on port 8080.' })
    const out = await assembleHandler(backend, { task: '算力' })
    expect(outputViolation(schema, out)).toBeNull()
    expect(out.lowConfidence).toEqual({ id: quantum.id, path: quantum.path, score: expect.any(Number), shared: ['算'] })
    expect(out.included).toBe(0)
    expect(out.context.split('\n')[0]).toBe('[memory data — 最接近的一条记录，低于匹配门槛（只共享「算」）：不是匹配，依赖前先核对]')
    expect(out.context).toContain('量子计算的基本原理是叠加和纠缠')
    expect(out.context.endsWith('[/memory data]')).toBe(true)
    expect(out.context).not.toContain('[VERIFIED]')
    expect(out.used_tokens).toBeLessThanOrEqual(out.budget)
    for (const budget of [40, 60, 80]) {
      const small = await assembleHandler(backend, { task: '算力', budget })
      expect(small.used_tokens, String(budget)).toBeLessThanOrEqual(budget)
      if (small.context !== '') expect(small.context.endsWith('[/memory data]')).toBe(true)
    }
    const none = await assembleHandler(backend, { task: 'kubernetes helm chart' })
    expect(none.context).toBe('')
    expect(none.lowConfidence).toBeUndefined()
  })

  it('MCP: memory_assemble gives the framed guess and lowConfidence', async () => {
    const { backend, root } = await store()
    const quantum = await writeHandler(backend, { summary: '量子计算的基本原理是叠加和纠缠' })
    const client = new Client({ name: 'assemble-guess', version: '1.0.0' })
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: path.join(root, 'home') }
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, '--tools', 'all'], env, stderr: 'pipe' }))
    try {
      const r = (await client.callTool({ name: 'memory_assemble', arguments: { task: '算力' } })) as { isError?: boolean; structuredContent?: { context: string; lowConfidence?: { id: string } } }
      expect(r.isError).toBeFalsy()
      expect(r.structuredContent?.lowConfidence?.id).toBe(quantum.id)
      expect(r.structuredContent?.context).toMatch(/^\[memory data — [\s\S]*\[\/memory data\]$/)
    } finally {
      await client.close()
    }
  }, 60_000)
})
