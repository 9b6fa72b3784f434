/**
 * The evidence gate: every search answer is a batch with a ref per hit; memory_assess says
 * sufficient only when the caller says so, a ref belongs to the named batch and the strategy is
 * answer. A ref from another batch is refused; only the latest 20 batches of a session count;
 * every verdict is in the ledger.
 */

import { describe, expect, it } from 'vitest'
import { findTool, writeMemoryTool } from '../src/api.js'
import { renderValue } from '../src/tools/render/text.js'
import { BATCHES_PER_SESSION, BATCH_FILE } from '../src/memory/truth/evidence-gate.js'
import { tempStores } from './store-kit.js'

const newStore = tempStores('dsh-memory-gate-')
const handler = (name: string) => findTool(name)!.handler as (b: unknown, input: unknown) => Promise<any>
const search = handler('memory_search_hybrid')
const assess = handler('memory_assess')

async function seeded() {
  const s = await newStore()
  await writeMemoryTool.handler(s.backend, { summary: 'The API server listens on port 9090.', title: 'API port' })
  await writeMemoryTool.handler(s.backend, { summary: 'Deploys happen on Tuesdays after the release review.', title: 'Deploy day' })
  return s
}

describe('evidence gate', () => {
  it('gives every answer a batch id and every hit a ref, said in the rendering', async () => {
    const { backend } = await seeded()
    const out = await search(backend, { query: 'API port', session_id: 's1' })
    expect(out.batch_id).toMatch(/^b_/)
    expect(out.hits.length).toBeGreaterThan(0)
    for (const h of out.hits) expect(h.ref).toMatch(/^r_/)
    const text = renderValue('memory_search_hybrid', out)
    expect(text).toContain(`ref=${out.hits[0].ref}`)
    expect(text).toContain(out.batch_id)
  })

  it('is sufficient only with a claim, an own ref and answer', async () => {
    const { backend } = await seeded()
    const a = await search(backend, { query: 'API port', session_id: 's1' })
    const ref = a.hits[0].ref
    const ok = await assess(backend, { batchId: a.batch_id, evidenceRefs: [ref], nextStrategy: 'answer', sufficient: true, session_id: 's1' })
    expect(ok).toMatchObject({ verdict: 'sufficient', batchKnown: true, accepted: [{ ref, id: a.hits[0].id }], refused: [], nextStrategy: 'answer' })

    const notClaimed = await assess(backend, { batchId: a.batch_id, evidenceRefs: [ref], nextStrategy: 'answer', sufficient: false, missing: 'the staging port', session_id: 's1' })
    expect(notClaimed).toMatchObject({ verdict: 'insufficient', nextStrategy: 'search' })
    expect(notClaimed.guidance).toContain('the staging port')
    const browsing = await assess(backend, { batchId: a.batch_id, evidenceRefs: [ref], nextStrategy: 'browse', sufficient: true, session_id: 's1' })
    expect(browsing).toMatchObject({ verdict: 'insufficient', nextStrategy: 'browse' })
    const noRefs = await assess(backend, { batchId: a.batch_id, evidenceRefs: [], nextStrategy: 'answer', sufficient: true, session_id: 's1' })
    expect(noRefs.verdict).toBe('insufficient')
  })

  it('refuses a ref from another batch, and refs of another session', async () => {
    const { backend } = await seeded()
    const first = await search(backend, { query: 'API port', session_id: 's1' })
    const second = await search(backend, { query: 'deploy Tuesdays', session_id: 's1' })
    const foreign = first.hits[0].ref
    const v = await assess(backend, { batchId: second.batch_id, evidenceRefs: [foreign], nextStrategy: 'answer', sufficient: true, session_id: 's1' })
    expect(v).toMatchObject({ verdict: 'insufficient', nextStrategy: 'search', accepted: [], refused: [{ ref: foreign, reason: 'other-batch', batchId: first.batch_id }] })
    expect(renderValue('memory_assess', v)).toContain(`refused ${foreign}`)

    // The same batch asked from another session is unknown there.
    const other = await assess(backend, { batchId: first.batch_id, evidenceRefs: [foreign], nextStrategy: 'answer', sufficient: true, session_id: 's2' })
    expect(other).toMatchObject({ verdict: 'insufficient', batchKnown: false, refused: [{ ref: foreign, reason: 'unknown' }] })

    const verdicts = (await backend.readLedger()).filter((e) => e.event === 'assess')
    expect(verdicts.map((e) => e.verdict)).toEqual(['insufficient', 'insufficient'])
    expect(verdicts[0]).toMatchObject({ session_id: 's1', batch: second.batch_id, claimed: true, refused: [foreign] })
  })

  it('keeps the latest 20 batches of a session', async () => {
    const { backend } = await seeded()
    const old = await search(backend, { query: 'API port', session_id: 's1' })
    for (let i = 0; i < BATCHES_PER_SESSION; i++) await search(backend, { query: 'deploy', session_id: 's1' })
    // Another session's searches do not push s1's batches out.
    for (let i = 0; i < 5; i++) await search(backend, { query: 'deploy', session_id: 's2' })
    const gone = await assess(backend, { batchId: old.batch_id, evidenceRefs: [old.hits[0].ref], nextStrategy: 'answer', sufficient: true, session_id: 's1' })
    expect(gone).toMatchObject({ verdict: 'insufficient', batchKnown: false })
    const recent = await search(backend, { query: 'API port' })
    const noSession = await assess(backend, { batchId: recent.batch_id, evidenceRefs: [recent.hits[0].ref], nextStrategy: 'answer', sufficient: true })
    expect(noSession.verdict).toBe('sufficient')
  })

  it('every batch of a long run of searches is recorded, in Chinese and English, and the file is trimmed to the sessions kept', async () => {
    const s = await seeded()
    await writeMemoryTool.handler(s.backend, { summary: '周二发布评审之后部署' })
    const batches: Array<{ batch: string; ref: string; session: string }> = []
    // More than one trim's worth of searches (one every 200 appends), over many sessions.
    for (let i = 0; i < 230; i++) {
      const session = `s${i % 115}`
      const out = await search(s.backend, { query: i % 2 === 0 ? '部署 发布' : 'deploy release', session_id: session })
      batches.push({ batch: out.batch_id, ref: out.hits[0].ref, session })
    }
    expect(new Set(batches.map((b) => b.batch)).size).toBe(230)
    // Trimmed after the 200th answer, off its path: the 100 latest sessions of then (the 15 left
    // out, s85 to s99, had searched once each), and the 30 appended since.
    const lines = async () => (await s.backend.readFile(BATCH_FILE))!.split('\n').filter((l) => l !== '').length
    for (let i = 0; i < 200 && (await lines()) !== 200 - 15 + 30; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(await lines()).toBe(200 - 15 + 30)
    for (const b of batches.slice(-20)) {
      const v = await assess(s.backend, { batchId: b.batch, evidenceRefs: [b.ref], nextStrategy: 'answer', sufficient: true, session_id: b.session })
      expect(v.verdict, b.batch).toBe('sufficient')
    }
  })
})
