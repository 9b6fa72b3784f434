/**
 * Redaction misses (issue 28, item 5): connection strings with an empty user or with `/` or `@`
 * in the password are redacted whole, a port before a path is no password, and an embedder key
 * in config.json of any shape is what stops a sync (the end-to-end refusal is in sync.test.ts).
 */

import { describe, expect, it } from 'vitest'
import { redactSecrets } from '../src/redact.js'
import { findSecret, refusalMessage } from '../src/sync/secrets.js'

describe('connection strings', () => {
  it.each([
    ['an empty user', 'redis://:Sup3rSecretPw@cache.internal:6379/0', 'Sup3rSecretPw', 'redis://:[已脱敏:connection-password]@cache.internal:6379/0'],
    ['a slash in the password', 'mongodb://app:pa/ss/w0rd@db.internal/app', 'pa/ss/w0rd', 'mongodb://app:[已脱敏:connection-password]@db.internal/app'],
    ['an at sign in the password', 'postgres://app:p@ssw0rd@db.internal:5432/app', 'p@ssw0rd', 'postgres://app:[已脱敏:connection-password]@db.internal:5432/app'],
    ['both, and an at sign in the query', 'postgres://app:a/b@c@db/app?opt=x@y', 'a/b@c', 'postgres://app:[已脱敏:connection-password]@db/app?opt=x@y'],
    ['quoted in JSON', '{"url":"redis://:pw0rd@h","mail":"x@y"}', 'pw0rd', '{"url":"redis://:[已脱敏:connection-password]@h","mail":"x@y"}'],
  ])('%s: the password is gone, the rest kept', (_what, text, password, redacted) => {
    const out = redactSecrets(text)
    expect(out.text).toBe(redacted)
    expect(out.text).not.toContain(password)
    expect(out.kinds).toEqual(['connection-password'])
  })

  it.each(['see https://medium.com:443/@someone/post', 'https://example.com/a@b', 'ftp://anon@host/x', 'mailto:me@example.org'])('%s is no password', (text) => {
    expect(redactSecrets(text)).toEqual({ text, kinds: [] })
  })
})

describe('an embedder key in config.json', () => {
  it.each([
    ['a bare token', { embedder: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'm', dimensions: 8, apiKey: 'abc123' } }],
    ['a long hex key', { embedder: { apiKey: '0f1e2d3c4b5a69788796a5b4c3d2e1f0' } }],
    ['a key under another name', { embedder: { api_key: 'letmein' } }],
  ])('%s: found, on its line, and the refusal says where a key belongs', (_what, config) => {
    const text = JSON.stringify(config, null, 2)
    const found = findSecret('config.json', text)
    expect(found).toMatchObject({ path: 'config.json', kinds: ['api-key'] })
    expect(text.split('\n')[found!.line - 1]).toMatch(/api_?key/i)
    expect(refusalMessage([found!], 'commit')).toContain('$MEMORY_AGENT_EMBEDDER_KEY')
  })

  it('a config.json without one, or the same text in another file, is not refused for it', () => {
    expect(findSecret('config.json', JSON.stringify({ embedder: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'm', dimensions: 8 }, maxTopK: 20 }))).toBeNull()
    expect(findSecret('topics/notes.md', 'apiKey: abc123')).toBeNull()
  })
})
