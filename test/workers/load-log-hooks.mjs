// Module resolve hooks for test/lazy-start.test.ts: appends the URL of every ES module the
// process resolves to the file named by $LOAD_LOG.
import { appendFileSync } from 'node:fs'

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  appendFileSync(process.env.LOAD_LOG, `${resolved.url}\n`)
  return resolved
}
