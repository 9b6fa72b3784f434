/**
 * Secrets never reach the disk, whatever field carries them (issue 14, item 1). Every kind of
 * credential is passed through every field a caller controls: the identifiers a write files
 * (session_id, links, anchors, retracts) are refused with INVALID_INPUT naming the field, every
 * text field is redacted, and what is only logged (search queries, assemble tasks, verify claims,
 * assess notes, host events) is logged redacted. Each test then reads every file under the store
 * root, dot folders included, for the secret, and prints how many got through.
 */

import { spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  assembleHandler,
  findTool,
  forgetHandler,
  importBundle,
  rebuildIndex,
  redactSecrets,
  searchHandler,
  signalsSettled,
  verifyHandler,
  writeHandler,
  type MemoryBackend,
} from '../src/api.js'
import { REDACTION_KINDS, type RedactionKind } from '../src/redact.js'
import { BATCH_FILE } from '../src/memory/truth/evidence-gate.js'
import { QUERY_LOG_FILE } from '../src/memory/organisation/signals.js'
import { everyFile, expectCode, grep, tempStores } from './store-kit.js'

const store = tempStores('secrets-')
const CLI = path.resolve(import.meta.dirname, '..', 'lib', 'cli', 'main.js')

interface Sample {
  kind: RedactionKind
  /** The credential as a person would paste it. */
  text: string
  /** The part that must never be found on disk. */
  needle: string
}

/** One or more credentials of every kind redaction knows, each at most 200 characters (an identifier's limit). */
const SAMPLES: readonly Sample[] = [
  { kind: 'private-key', text: '-----BEGIN RSA PRIVATE KEY-----MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu', needle: 'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu' },
  { kind: 'jwt', text: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlLXZhbHVlLTEyMw', needle: 'eyJzdWIiOiJ1c2VyLTQyIn0' },
  { kind: 'bearer-token', text: 'Bearer Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA', needle: 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA' },
  { kind: 'api-key', text: 'sk-proj0123456789abcdefGHIJ', needle: 'proj0123456789abcdefGHIJ' },
  { kind: 'github-token', text: 'ghp_Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKk', needle: 'Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKk' },
  { kind: 'aws-access-key', text: 'AKIAIOSFODNN7EXAMPLE', needle: 'IOSFODNN7EXAMPLE' },
  { kind: 'connection-password', text: 'postgres://admin:Tr0ub4dor3xyz@db.internal/app', needle: 'Tr0ub4dor3xyz' },
  { kind: 'cn-id-number', text: '11010519491231002X', needle: '11010519491231002X' },
  { kind: 'slack-token', text: 'xoxb-2400000000001-2400000000002-AbCdEfGhIjKlMnOpQrStUvWx', needle: 'AbCdEfGhIjKlMnOpQrStUvWx' },
  { kind: 'slack-token', text: 'xoxp-1111111111-2222222222-3333333333-9f8e7d6c5b4a39281706f5e4d3c2b1a0', needle: '9f8e7d6c5b4a39281706f5e4d3c2b1a0' },
  { kind: 'slack-token', text: 'xoxa-2-Zq8Wv6Ut4Sr2Qp0On8Ml6Kj4Ih2Gf0Ed', needle: 'Zq8Wv6Ut4Sr2Qp0On8Ml6Kj4Ih2Gf0Ed' },
  { kind: 'slack-token', text: 'xapp-1-A0123BCDEFG-4567890123456-c0ffee00deadbeef0123456789abcdef', needle: 'c0ffee00deadbeef0123456789abcdef' },
  { kind: 'slack-webhook', text: 'https://hooks.slack.com/services/T024BE7LD/B01234ABCDE/abcDEF123ghiJKL456mnoPQR', needle: 'abcDEF123ghiJKL456mnoPQR' },
  { kind: 'google-api-key', text: 'AIzaSyD4nB2kQ9xL0vT7mR3wE8uY1pZ6cF5hJ2g', needle: 'SyD4nB2kQ9xL0vT7mR3wE8uY1pZ6cF5hJ2g' },
  { kind: 'stripe-key', text: 'sk_live_51HqLyjK2eZvKYlo2C0aBcDeFgHiJkLmN', needle: '51HqLyjK2eZvKYlo2C0aBcDeFgHiJkLmN' },
  { kind: 'stripe-key', text: 'rk_live_51HqLyjK2eZvKYlo2RestrictedKey99', needle: '51HqLyjK2eZvKYlo2RestrictedKey99' },
  { kind: 'stripe-key', text: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', needle: '4eC39HqLyjWDarjtT1zdp7dc' },
  { kind: 'stripe-key', text: 'whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH', needle: '5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH' },
  { kind: 'secret-assignment', text: 'OPENAI_API_KEY=Zx9Qm2Lp7Rt4Vw8Kb3Nc6Hd1', needle: 'Zx9Qm2Lp7Rt4Vw8Kb3Nc6Hd1' },
  { kind: 'secret-assignment', text: 'export GITLAB_TOKEN="gl8Xk2Pq9Rm4Tz7Wv3Ys6Bn1"', needle: 'gl8Xk2Pq9Rm4Tz7Wv3Ys6Bn1' },
  { kind: 'secret-assignment', text: 'CLIENT_SECRET: 3f9a7c1e5b2d8f4a6c0e9b1d7a3f5c2e', needle: '3f9a7c1e5b2d8f4a6c0e9b1d7a3f5c2e' },
  { kind: 'secret-assignment', text: '{"signing_key": "Hq3Lm8Np2Rt6Vx1Zb5Dc9Fg4"}', needle: 'Hq3Lm8Np2Rt6Vx1Zb5Dc9Fg4' },
]

/** One sample per kind: what the per-field attacks pass. */
const ONE_PER_KIND = REDACTION_KINDS.map((kind) => SAMPLES.find((s) => s.kind === kind) as Sample)

/** Each time a sample's needle occurs under the root, as `<kind> in <file>`. */
async function leaks(root: string, samples: readonly Sample[]): Promise<string[]> {
  const out: string[] = []
  const files = await everyFile(root)
  for (const s of samples) {
    for (const [file, text] of files) for (let n = text.split(s.needle).length - 1; n > 0; n--) out.push(`${s.kind} in ${file}`)
  }
  return out.sort()
}

/** The outcome of a call: its error when it failed, else 'ok'. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => 'ok',
    (err: unknown) => err,
  )
}

describe('redaction: the kinds it knows', () => {
  it('recognises every kind in running text, says which, and leaves placeholders and ordinary assignments alone', () => {
    expect(new Set(SAMPLES.map((s) => s.kind))).toEqual(new Set(REDACTION_KINDS))
    for (const s of SAMPLES) {
      const r = redactSecrets(`Use ${s.text} for the deploy.`)
      expect(r.kinds, s.text).toEqual([s.kind])
      expect(r.text, s.text).not.toContain(s.needle)
      expect(r.text).toContain(`[已脱敏:${s.kind}]`)
      // Redacting twice changes nothing more.
      expect(redactSecrets(r.text)).toEqual({ text: r.text, kinds: [] })
    }
    const ordinary = [
      'API_KEY=your-api-key-here',
      'OPENAI_API_KEY=${OPENAI_API_KEY}',
      'cache_key=user_profile_12345',
      'sort_key: created_at_desc_order',
      'TOKEN_TTL=3600',
      'SECRET_NAME=prod-db-password',
      'GITHUB_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxx',
      'pk_live_51HqLyjK2eZvKYlo2C0aBcDeFgHiJkLmN is a publishable key',
      'AIza is a prefix',
      'xoxb- alone',
      'the primary key = the order number',
    ]
    for (const text of ordinary) expect(redactSecrets(text), text).toEqual({ text, kinds: [] })
  })
})

describe('secrets never reach the disk', () => {
  it(`a credential as session_id is refused, naming the field; none of ${ONE_PER_KIND.length} kinds reaches a file, the index or the ledger`, async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'A first memory, so the store exists.', session_id: 's-ok' })
    const refused: unknown[] = []
    for (const [i, s] of ONE_PER_KIND.entries()) {
      refused.push(await outcome(writeHandler(backend, { summary: `Topic ${i} from a session named by a credential.`, session_id: s.text })))
      refused.push(await outcome(writeHandler(backend, { summary: `Episode ${i} of that session.`, raw: `raw text ${i}`, session_id: s.text })))
    }
    const leaked = await leaks(root, ONE_PER_KIND)
    console.info(`[secrets] session_id: ${new Set(leaked.map((l) => l.split(' ')[0])).size} of ${ONE_PER_KIND.length} kinds reached the disk (${leaked.length} copies)`)
    expect(leaked).toEqual([])
    for (const err of refused) {
      expect(err).toMatchObject({ code: 'INVALID_INPUT', field: 'session_id' })
      expect((err as Error).message).toMatch(/^session_id: expected an identifier, not a credential \(it looks like a[n]? [a-z-]+\)/)
      for (const s of ONE_PER_KIND) expect((err as Error).message).not.toContain(s.needle)
    }
    // Nothing was half-written: only the first memory is there.
    expect([...(await backend.indexView()).values()].map((e) => e.session_id)).toEqual(['s-ok'])
  })

  it('every other identifier a write files (links, anchors, retracts) is refused the same way', async () => {
    const { backend, root } = await store()
    const fields: Array<[string, Record<string, unknown>]> = []
    for (const s of ONE_PER_KIND) {
      fields.push(['links[0]', { links: [s.text] }])
      fields.push(['anchors[0].value', { anchors: [{ kind: 'env', name: 'DEPLOY_ENV', value: s.text }] }])
      fields.push(['anchors[0].name', { anchors: [{ kind: 'env', name: s.text }] }])
      fields.push(['retracts', { retracts: s.text }])
    }
    for (const [field, extra] of fields) {
      const err = await expectCode(writeHandler(backend, { summary: 'The deploy goes through the bastion host.', ...extra }), 'INVALID_INPUT')
      expect(err.field).toBe(field)
    }
    const leaked = await leaks(root, ONE_PER_KIND)
    console.info(`[secrets] links, anchors, retracts: ${leaked.length} of ${fields.length} credentials reached the disk`)
    expect(leaked).toEqual([])
  })

  it('every text field of a write is redacted, in the file, the raw file, the index and the ledger', async () => {
    const { backend, root } = await store()
    let fields = 0
    for (const [i, s] of SAMPLES.entries()) {
      const written = await writeHandler(backend, {
        summary: `Service ${i} deploys with ${s.text} from the vault.`,
        raw: `user: the credential for service ${i} is ${s.text}\nassistant: noted`,
        session_id: `s-${i}`,
        title: `Service ${i} credential ${s.text}`,
        key: `service ${i} ${s.text}`,
        // A tag or entity holds at most 64 characters: longer credentials go in whole, cut by the caller.
        tags: [s.text.length <= 64 ? s.text : 'credential'],
        entities: [s.text.length <= 64 ? s.text : 'vault'],
        scope: `env=prod; token=${s.text}`,
        verify_cmd: `curl -H "${s.text}" https://service-${i}.internal/health`,
        verify_expect: `200 ${s.text}`,
      })
      expect(written.redactions, s.text).toContain(s.kind)
      const guard = await writeHandler(backend, { summary: `Guard ${i}.`, guard_trigger: `deploy service ${i} ${s.text}`, guard_action: `rotate ${s.text} first` })
      expect(guard.redactions, s.text).toContain(s.kind)
      fields += s.text.length <= 64 ? 12 : 10
    }
    const leaked = await leaks(root, SAMPLES)
    console.info(`[secrets] write fields: ${leaked.length} of ${fields} credentials (${SAMPLES.length} samples, ${REDACTION_KINDS.length} kinds) reached the disk`)
    expect(leaked).toEqual([])
  })

  it('search queries, assemble tasks and verify claims are logged redacted', async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'The deploy credential is kept in the vault.', title: 'Deploy credential' })
    for (const s of SAMPLES) {
      await searchHandler(backend, { query: `deploy credential ${s.text}` })
      await assembleHandler(backend, { task: `rotate the deploy credential ${s.text}` })
      await verifyHandler(backend, { claim: `The deploy credential is ${s.text}` })
    }
    await signalsSettled(backend)
    const leaked = await leaks(root, SAMPLES)
    console.info(`[secrets] queries, tasks, claims: ${leaked.length} of ${SAMPLES.length * 3} credentials reached the disk`)
    expect(leaked).toEqual([])
    const logged = (await fs.readFile(path.join(root, QUERY_LOG_FILE), 'utf8')).split('\n').filter((l) => l !== '')
    expect(logged).toHaveLength(SAMPLES.length * 2)
    for (const line of logged) expect(line).toMatch(/\[已脱敏:[a-z-]+\]/)
  })

  it('a search with a credential as session_id is refused, naming the field; no evidence batch keeps it', async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'The deploy credential is kept in the vault.', title: 'Deploy credential' })
    for (const s of ONE_PER_KIND) {
      const err = await expectCode(searchHandler(backend, { query: 'deploy credential', session_id: s.text }), 'INVALID_INPUT')
      expect(err.field).toBe('session_id')
    }
    await signalsSettled(backend)
    expect(await leaks(root, ONE_PER_KIND)).toEqual([])
    const batches = await fs.readFile(path.join(root, BATCH_FILE), 'utf8').catch(() => '')
    expect(batches).toBe('')
  })

  it('ledger events are redacted whoever appends them: assess notes and refs, host events', async () => {
    const { backend, root } = await store()
    await writeHandler(backend, { summary: 'The deploy credential is kept in the vault.', title: 'Deploy credential' })
    const assess = findTool('memory_assess')?.handler as (b: MemoryBackend, input: unknown) => Promise<unknown>
    for (const s of ONE_PER_KIND) {
      const found = (await searchHandler(backend, { query: 'deploy credential', session_id: 's-1' })) as { batch_id: string }
      await assess(backend, { batchId: found.batch_id, evidenceRefs: [s.text.slice(0, 64)], missing: `the value of ${s.text}`, nextStrategy: 'search', sufficient: false, nextQuery: s.text, session_id: 's-1' })
      await assess(backend, { batchId: s.text.slice(0, 64), evidenceRefs: [], missing: '', nextStrategy: 'ask_user', sufficient: false })
      // What a host appends directly (session attach and detach, store routing, backfill).
      await backend.withLock(() => backend.appendLedger({ at: backend.now(), event: 'lifecycle/attach', session_id: s.text, source: 'plugin' }))
    }
    const leaked = await leaks(root, ONE_PER_KIND)
    console.info(`[secrets] ledger: ${leaked.length} of ${ONE_PER_KIND.length * 4} credentials reached the disk`)
    expect(leaked).toEqual([])
  })

  it('a session filed under a credential before this fix can still be forgotten by it; the forget is logged redacted', async () => {
    const { backend, root } = await store()
    const s = ONE_PER_KIND.find((x) => x.kind === 'aws-access-key') as Sample
    await fs.mkdir(path.join(root, 'episodes'), { recursive: true })
    await fs.writeFile(
      path.join(root, 'episodes', '2025-01-01-mem_legacy1.md'),
      `---\nid: mem_legacy1\ntype: episode\ntitle: Old note\ntime: 2025-01-01T00:00:00.000Z\nstatus: active\nsession_id: ${s.text}\nsources:\n  - session_id: ${s.text}\n    kind: session\n---\n# Old note\n\nWritten by an older version.\n`,
    )
    await rebuildIndex(backend)
    const out = (await forgetHandler(backend, { session_id: s.text })) as { status_changes: unknown[] }
    expect(out.status_changes).toHaveLength(1)
    const ledger = await fs.readFile(path.join(root, 'ledger.jsonl'), 'utf8')
    expect(ledger).not.toContain(s.needle)
  })

  it('the CLI refuses a credential as --session-id with exit code 2 and a message naming the field, not the credential', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'secrets-cli-'))
    const s = ONE_PER_KIND.find((x) => x.kind === 'slack-token') as Sample
    const run = spawnSync(process.execPath, [CLI, 'write', 'A note from the command line.', '--session-id', s.text, '--root', root], { encoding: 'utf8' })
    expect(run.status).toBe(2)
    expect(run.stderr).toContain('INVALID_INPUT: session_id: expected an identifier, not a credential')
    expect(run.stderr).not.toContain(s.needle)
    expect(await grep(root, s.needle)).toEqual([])
    await fs.rm(root, { recursive: true, force: true })
  })

  it('a bundle made or edited by hand has its secrets redacted on the way in: memory files (front-matter and body), settings and ledger events', async () => {
    const { backend, root } = await store()
    const leaked: string[] = []
    for (const s of ONE_PER_KIND) {
      const file = [
        '---',
        'id: mem_bundle1',
        'type: topic',
        `title: ${s.text}`,
        'time: 2025-01-01T00:00:00.000Z',
        'status: active',
        `tags: [deploy, ${JSON.stringify(s.text)}]`,
        '---',
        '# Deploy credentials',
        '',
        `The deploy bot signs in with ${s.text} on the staging host.`,
        '',
      ].join('\n')
      const bundle = {
        format: 'dsh-memory-agent/bundle',
        version: 1,
        files: [
          { path: 'topics/2025-01-01-mem_bundle1.md', text: file },
          { path: 'config.json', text: JSON.stringify({ note: `token ${s.text}` }) },
        ],
        index: [],
        ledger: [{ at: '2025-01-01T00:00:00.000Z', event: 'write', id: 'mem_bundle1', note: s.text }],
      }
      const { backend: b, root: r } = await store()
      const result = await importBundle(b, JSON.stringify(bundle), { source: 'hand.json' })
      expect(result.added, s.kind).toBe(1)
      expect(result.redactions, s.kind).toContain(s.kind)
      expect(result.warnings.some((w) => w.includes('secrets were redacted on the way in')), s.kind).toBe(true)
      if ((await grep(r, s.needle)).length > 0) leaked.push(s.kind)
      // The memory is whole and found: its words outside the secret are there.
      const hits = await searchHandler(b, { query: 'deploy bot staging host' })
      expect(hits.hits.map((h) => h.id), s.kind).toContain('mem_bundle1')
    }
    console.info(`[secrets] bundle import: ${leaked.length} of ${ONE_PER_KIND.length} credentials reached the disk`)
    expect(leaked).toEqual([])
    // A bundle without secrets keeps its bytes.
    const plain = '---\nid: mem_plain1\ntype: topic\ntitle: Plain\ntime: 2025-01-01T00:00:00.000Z\nstatus: active\n---\n# Plain\n\nNothing secret here.\n'
    await importBundle(backend, JSON.stringify({ format: 'dsh-memory-agent/bundle', version: 1, files: [{ path: 'topics/2025-01-01-mem_plain1.md', text: plain }], index: [], ledger: [] }))
    expect(await fs.readFile(path.join(root, 'topics', '2025-01-01-mem_plain1.md'), 'utf8')).toBe(plain)
  })
})
