/**
 * Revision candidates (issue 27, item 3): every free-text write lists up to 3 current memories it
 * may revise; `supersedes` confirms one (checked: each id exists and is current), `claim` names
 * what a write states; a confirmed revision between two wordings of a subject records an alias,
 * and the next revision between them is then found by the subject rule.
 */

import { promises as fs } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { outputViolation, writeHandler, writeMemoryTool, type MemoryBackend } from '../src/api.js'
import { serverInstructions } from '../src/mcp/profile.js'
import { subjectAlias, withAlias } from '../src/memory/writing/confirmed-revision.js'
import { aliasSlots } from '../src/memory/writing/revision-candidates.js'
import { expectCode, tempStores } from './store-kit.js'
import { loadCases } from '../bench/claim-set.js'
import { CANDIDATE_RECALL_TARGET, armRevisions } from '../bench/revision-candidates.js'

const store = tempStores('mem-may-revise-')

async function write(b: MemoryBackend, input: Parameters<typeof writeHandler>[1]) {
  const out = await writeHandler(b, input)
  expect(outputViolation(writeMemoryTool.output, out)).toBeNull()
  return out
}
async function statusOf(b: MemoryBackend, id: string): Promise<string | undefined> {
  return (await b.indexView()).get(id)?.status
}

describe('may_revise', () => {
  it('lists a differently worded older statement the rules left active, with why', async () => {
    const { backend } = await store()
    const old = await write(backend, { summary: 'The gateway listens on port 8080.' })
    await write(backend, { summary: 'Lunch is at noon on Fridays.' })
    const now = await write(backend, { summary: 'The edge proxy now listens on port 9090.' })
    expect(await statusOf(backend, old.id)).toBe('active')
    const listed = now.may_revise ?? []
    expect(listed.length).toBeLessThanOrEqual(3)
    const hit = listed.find((c) => c.id === old.id)
    expect(hit?.summary).toBe('The gateway listens on port 8080.')
    expect(hit?.why).toMatch(/shares words/)
    expect(listed.map((c) => c.id)).not.toContain(now.id)
  })

  it('is left out for a keyed write, a repeat, and never lists what the write superseded', async () => {
    const { backend } = await store()
    await write(backend, { summary: 'The API server listens on port 8080.' })
    const revised = await write(backend, { summary: 'The API server now listens on port 9090.' })
    expect(revised.superseded).toHaveLength(1)
    expect(revised.may_revise?.map((c) => c.id) ?? []).not.toContain(revised.superseded[0])
    const keyed = await write(backend, { summary: 'Deploys go out on Tuesdays.', key: 'deploy day' })
    expect(keyed.may_revise).toBeUndefined()
    const again = await write(backend, { summary: 'The API server now listens on port 9090.' })
    expect(again.dedupe).toBe('exact')
    expect(again.may_revise).toBeUndefined()
  })
})

describe('supersedes', () => {
  it('confirms a listed revision (writing the same text again), records the alias, and the next revision is found by the subject rule', async () => {
    const { backend, root } = await store()
    const port = await write(backend, { summary: 'The gateway listens on port 8080.' })
    const node = await write(backend, { summary: 'The gateway runs on Node 18.' })
    const text = 'The edge proxy now listens on port 9090.'
    const first = await write(backend, { summary: text })
    expect(first.may_revise?.map((c) => c.id)).toContain(port.id)
    const confirmed = await write(backend, { summary: text, supersedes: [port.id] })
    expect(confirmed.id).toBe(first.id)
    expect(confirmed.superseded).toEqual([port.id])
    expect(await statusOf(backend, port.id)).toBe('superseded')
    const aliases = JSON.parse(await fs.readFile(path.join(root, 'aliases.json'), 'utf8')) as Record<string, string[]>
    expect(Object.values(aliases)).toContainEqual(['gateway', 'edge proxy'])
    const ledger = await backend.readLedger()
    expect(ledger.some((e) => e.event === 'alias' && e.id === first.id && (e.ids ?? []).includes(port.id))).toBe(true)

    // The alias recorded, the subject rule itself now revises between the two wordings.
    const next = await write(backend, { summary: 'The edge proxy now runs on Node 20.' })
    expect(next.superseded).toEqual([node.id])
  })

  it('refuses an unknown id and a memory that is not current, naming the entry, and writes nothing', async () => {
    const { backend } = await store()
    const a = await write(backend, { summary: 'The build uses webpack.' })
    const b = await write(backend, { summary: 'The build uses esbuild now.', supersedes: [a.id] })
    expect(b.superseded).toContain(a.id)
    const before = (await backend.indexView()).size
    const missing = await expectCode(write(backend, { summary: 'The build uses vite.', supersedes: [b.id, 'mem_nope'] }), 'INVALID_INPUT')
    expect(missing.field).toBe('supersedes[1]')
    expect(missing.message).toMatch(/no memory has the id "mem_nope"/)
    const stale = await expectCode(write(backend, { summary: 'The build uses vite.', supersedes: [a.id] }), 'INVALID_INPUT')
    expect(stale.message).toMatch(/is superseded, not current/)
    const gated = await expectCode(write(backend, { summary: 'The build uses vite.', supersedes: [b.id], requireConfirmation: true }), 'INVALID_INPUT')
    expect(gated.field).toBe('supersedes')
    expect((await backend.indexView()).size).toBe(before)
  })
})

describe('claim', () => {
  it("names the write's subject: two claims with one subject and attribute are versions, whatever the text", async () => {
    const { backend } = await store()
    const a = await write(backend, { summary: 'Frontend talks to the gateway at 8080.', claim: { subject: 'gateway', attribute: 'port', value: '8080' } })
    expect(a.may_revise).toBeUndefined()
    const b = await write(backend, { summary: 'Ingress was re-pointed, 9443 from today.', claim: { subject: 'gateway', attribute: 'port', value: '9443' } })
    expect(b.superseded).toEqual([a.id])
    const bad = await expectCode(write(backend, { summary: 'x is y', claim: { subject: ' ', attribute: 'port', value: '1' } }), 'INVALID_INPUT')
    expect(bad.field).toBe('claim.subject')
    const both = await expectCode(write(backend, { summary: 'x is y', key: 'x', claim: { subject: 'x', attribute: 'is', value: 'y' } }), 'INVALID_INPUT')
    expect(both.field).toBe('claim')
  })
})

describe('aliases of subjects', () => {
  it('takes the shared words off both ends, by words or by characters', () => {
    expect(subjectAlias('API port', 'backend service port')).toEqual(['API', 'backend service'])
    expect(subjectAlias('接口端口', '后端服务端口')).toEqual(['接口', '后端服务'])
    expect(subjectAlias('API port', 'api port')).toBeNull()
  })

  it('extends the group that holds a wording, and never writes over a broken file', () => {
    const one = withAlias(null, ['API', 'backend service'])
    expect(JSON.parse(one ?? '')).toEqual({ 'subject: API': ['API', 'backend service'] })
    expect(JSON.parse(withAlias(one, ['backend service', 'the server']) ?? '')).toEqual({ 'subject: API': ['API', 'backend service', 'the server'] })
    expect(withAlias(one, ['api', 'Backend Service'])).toBeNull()
    expect(withAlias('{ not json', ['a', 'b'])).toBeNull()
    expect(aliasSlots('backend service node', { g: ['API', 'backend service'] })).toEqual(new Map([['apinode', 'g']]))
  })
})

describe('the calling model is told', () => {
  it('in the tool description and the MCP instructions, to confirm a listed revision with supersedes', () => {
    expect(writeMemoryTool.description).toMatch(/may_revise.*supersedes/s)
    expect(serverInstructions([writeMemoryTool])).toMatch(/may_revise.*supersedes/s)
  })
})

describe('candidate recall on the claim set', () => {
  it('holdout split, every case in one store, automatic revision off: the old memory is in may_revise for at least 0.9 of revisions', async () => {
    const cases = (await loadCases('holdout')).filter((c) => c.expect.includes('superseded'))
    const named = await armRevisions(cases, 'one store')
    expect(named.length).toBeGreaterThanOrEqual(80)
    expect(named.filter((n) => n.hit).length / named.length).toBeGreaterThanOrEqual(CANDIDATE_RECALL_TARGET)
  }, 120_000)
})
