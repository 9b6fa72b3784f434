/**
 * Settings of the designs: `decayImportanceBelow` and `reviewScheduling` work (`profileTopN`:
 * inject-limits.test.ts); `evidenceTtlSec`, `maxVersionsPerId` and `autoSlot` are refused with a message saying why and what
 * to use instead (the panel's save is INVALID_INPUT naming the field and writes nothing; a
 * config.json holding one is listed by memory_sweep), never accepted and ignored. Through the
 * library and the built MCP server over stdio (real client). Run `npm run build` before this file alone.
 */

import { existsSync, promises as fs } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { REFUSED_SETTINGS } from '../src/memory/settings/refused.js'
import { EVIDENCE_TTL_DAYS } from '../src/memory/truth/evidence.js'
import { decayHandler, saveConfigPatch, sweepHandler, writeHandler } from '../src/api.js'
import { expectCode, tempStores } from './store-kit.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'cli', 'main.js')
const store = tempStores('dsh-settings-')

/** A memory whose practice brought its importance to 0.4, idle since 2026-01-01. */
async function fadingMemory(root: string, write: () => Promise<{ path: string; id: string }>) {
  const m = await write()
  const file = path.join(root, m.path)
  await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/^---\n/, '---\nimportance: 0.4\n'))
  return m
}

describe('settings of the designs', () => {
  it('library: the panel refuses each refused setting naming it and writes nothing; memory_sweep lists one config.json holds', async () => {
    const { backend, root } = await store()
    for (const field of ['evidenceTtlSec', 'maxVersionsPerId', 'autoSlot']) {
      const err = await expectCode(saveConfigPatch(backend, { decayAfterDays: 10, [field]: 8 }), 'INVALID_INPUT')
      expect(err.field).toBe(field)
      expect(err.message).toContain(`${field} is not a setting of this store: `)
    }
    expect(existsSync(path.join(root, 'config.json'))).toBe(false)
    expect(REFUSED_SETTINGS['evidenceTtlSec']).toContain(`${EVIDENCE_TTL_DAYS} days`)
    await writeHandler(backend, { summary: 'The API listens on port 8080.' })
    expect((await sweepHandler(backend, {})).refusedSettings).toEqual([])
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ maxVersionsPerId: 8, decayAfterDays: 30 }))
    const sweep = await sweepHandler(backend, {})
    expect(sweep.refusedSettings.map((r) => r.field)).toEqual(['maxVersionsPerId'])
    expect(sweep.refusedSettings[0]?.message).toContain('every version is kept')
  })

  it('library: decayImportanceBelow sets which importance counts as low; reviewScheduling false leaves new memories unscheduled', async () => {
    const { backend, root, at } = await store('2026-01-01T00:00:00.000Z')
    const fading = await fadingMemory(root, () => writeHandler(backend, { summary: 'The plant pot is terracotta.' }))
    at('2026-06-01T00:00:00.000Z')
    expect((await decayHandler(backend, {})).archived).toEqual([])
    await saveConfigPatch(backend, { decayImportanceBelow: 0.45 })
    const preview = await decayHandler(backend, {})
    expect(preview.archived.map((a) => a.id)).toEqual([fading.id])
    expect(preview.archived[0]?.reason).toMatch(/^importance 0.4 < 0.45 and /)
    // Clamped to [0, 1], not rounded like a count.
    expect((await saveConfigPatch(backend, { decayImportanceBelow: 7 })).written).toEqual({ decayImportanceBelow: 1 })

    const scheduled = await writeHandler(backend, { summary: 'The office opens at nine.' })
    expect(await fs.readFile(path.join(root, scheduled.path), 'utf8')).toMatch(/^review_due: /m)
    await saveConfigPatch(backend, { reviewScheduling: false })
    const unscheduled = await writeHandler(backend, { summary: 'The office closes at six.' })
    expect(await fs.readFile(path.join(root, unscheduled.path), 'utf8')).not.toMatch(/^review_due: /m)
  })

  it('MCP: memory_sweep lists a refused setting; decayImportanceBelow and reviewScheduling in config.json take effect', async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'Seed memory so the store exists.' })
    await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ autoSlot: false, decayImportanceBelow: 1 }))
    const client = new Client({ name: 'settings', version: '1.0.0' })
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: path.join(root, 'home') }
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, '--tools', 'all'], env, stderr: 'pipe' }))
    type Result = { isError?: boolean; structuredContent?: Record<string, unknown> }
    try {
      const sweep = (await client.callTool({ name: 'memory_sweep', arguments: {} })) as Result
      expect(sweep.isError).toBeFalsy()
      expect(sweep.structuredContent?.['refusedSettings']).toEqual([{ field: 'autoSlot', message: expect.stringContaining('room#slot') }])
      const w = (await client.callTool({ name: 'write_memory', arguments: { summary: 'The backup runs at midnight.', time: '2020-01-01T00:00:00Z' } })) as Result
      const old = w.structuredContent as { path: string; id: string }
      const file = path.join(root, old.path)
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/^---\n/, '---\nimportance: 0.9\n'))
      const decay = (await client.callTool({ name: 'memory_decay', arguments: { days: 1 } })) as Result
      const archived = decay.structuredContent?.['archived'] as { id: string; reason: string }[]
      expect(archived.find((a) => a.id === old.id)?.reason).toMatch(/^importance 0.9 < 1 and /)
      await fs.writeFile(path.join(root, 'config.json'), JSON.stringify({ reviewScheduling: false }))
      const fresh = ((await client.callTool({ name: 'write_memory', arguments: { summary: 'The office closes at six.' } })) as Result).structuredContent as { path: string }
      expect(await fs.readFile(file, 'utf8')).toMatch(/^review_due: /m)
      expect(await fs.readFile(path.join(root, fresh.path), 'utf8')).not.toMatch(/^review_due: /m)
    } finally {
      await client.close()
    }
  }, 60_000)
})
