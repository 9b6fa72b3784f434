/**
 * Child process of bench/scale.ts: process start to first answer, for one engine, one query.
 *
 *   node bench/scale-child.mjs ours <memory root> <query>
 *   node bench/scale-child.mjs fts <sqlite db> <FTS5 match expression>
 *   node bench/scale-child.mjs index <root> <query>     (the saved search index alone: open, rank, top 10)
 *
 * `performance.now()` counts from the start of this process, so `firstMs` is process start to the
 * first answer (module loading included). The FTS5 child gets its query already segmented by the
 * parent (with the product's tokenizer), so it loads only better-sqlite3. After the answer the
 * product's child flushes its caches as an adapter does on exit (`flushMs`, not in `firstMs`), so
 * the next child can start from them; it reports whether a watcher vouched for the store
 * (`vouched`: no file looked at). Prints one JSON line.
 */

const [mode, target, query] = process.argv.slice(2)
if (target === undefined || query === undefined) {
  process.stderr.write('usage: scale-child.mjs ours|fts|index <root|db> <query>\n')
  process.exit(2)
}

/** Keep in step with FTS_QUERY in scale.ts. */
const FTS_QUERY = 'SELECT id, summary, bm25(mem, 0.0, 0.0, 1.0, 2.0) AS score FROM mem WHERE mem MATCH ? ORDER BY score LIMIT 10'

let importMs
let firstMs
let hits
let flushMs = 0
let vouched
if (mode === 'ours') {
  // The library as a host imports it: the package's "./api" export (the bundle, lib/bundle/api.js).
  const api = await import('dsh-memory-agent/api')
  importMs = performance.now()
  const backend = api.createFileBackend(target)
  const result = await api.searchHandler(backend, { query, top_k: 10 })
  firstMs = performance.now()
  hits = result.hits.length
  vouched = api.vouchedByWatcherLastTime(backend)
  // What an adapter does when it finishes (the CLI does): let the usage signals land and save
  // the derived caches, so the next process can load them. Timed apart from the answer.
  await api.signalsSettled(backend)
  const f0 = performance.now()
  await api.flushCaches(backend)
  flushMs = performance.now() - f0
} else if (mode === 'index') {
  const [{ createFileBackend }, { loadSearchIndex }, { queryTerms }, { tokenize }, { RANKING }] = await Promise.all([
    import('../lib/store/file-backend.js'),
    import('../lib/retrieve/segment-files.js'),
    import('../lib/retrieve/search.js'),
    import('../lib/language/tokenizer.js'),
    import('../lib/retrieve/search-index.js'),
  ])
  importMs = performance.now()
  const index = await loadSearchIndex(createFileBackend(target))
  if (index === null) {
    process.stderr.write(`no intact search index under ${target}\n`)
    process.exit(1)
  }
  const { weights, strongInQuery } = queryTerms(tokenize(query), [])
  const ranking = index.rank([...weights.keys()], weights, null, { strongOnly: strongInQuery, top: { depth: 10, reach: RANKING.keywordMatchBoost } })
  hits = 0
  while (hits < 10 && ranking.next() !== undefined) hits++
  firstMs = performance.now()
} else if (mode === 'fts') {
  const { default: Database } = await import('better-sqlite3')
  importMs = performance.now()
  const db = new Database(target, { fileMustExist: true })
  const rows = db.prepare(FTS_QUERY).all(query)
  firstMs = performance.now()
  hits = rows.length
  db.close()
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}

const usage = process.resourceUsage()
process.stdout.write(
  JSON.stringify({
    firstMs,
    importMs,
    hits,
    flushMs,
    vouched,
    maxRssMB: usage.maxRSS / 1024,
    heapUsedMB: process.memoryUsage().heapUsed / 1e6,
  }) + '\n',
)
