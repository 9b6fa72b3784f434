#!/usr/bin/env node
/**
 * Bundles the runtime entry points into lib/bundle/ (run by `npm run build` after tsc): a process
 * that loads 170 small modules spends about a third of its start-up resolving and compiling them.
 *
 * - lib/bundle/api.js: the library (`exports["./api"]`), lib/bundle/host.js: the DSH plugin,
 *   lib/bundle/cli.js: the `memory-agent` command (and through it the MCP server). One build with
 *   code splitting: code the entries share sits in shared chunks, and what an entry imports lazily
 *   (the MCP server, the panel server, sync, import and export) stays in chunks of its own, loaded
 *   at first use. Packages and Node built-ins stay imports.
 * - lib/host/index.js and lib/cli/main.js, the paths the package's `main`, `exports["."]` and
 *   `bin` name (and that README commands run), become one-line doors into the bundle.
 * - lib/api.js and every other per-module file stay as tsc wrote them, for tests and benches that
 *   import deep paths. Module state (caches, WeakMaps keyed by a backend) lives once per loaded
 *   file, so a process must take its modules from one side only: the product's doors lead only
 *   into lib/bundle/, and a chunk imports nothing outside it (checked here and by
 *   test/bundle.test.ts).
 *
 * Not minified and no source maps: the chunks are tsc's output concatenated and read as they are.
 */

import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { rolldown } from 'rolldown'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const lib = path.join(repo, 'lib')
const out = path.join(lib, 'bundle')

/** Bundle entry name -> the tsc output it starts from. */
const ENTRIES = { api: 'api.js', host: 'host/index.js', cli: 'cli/main.js' }
/** Door file under lib/ -> what it holds once the bundle is written. */
const DOORS = {
  'host/index.js': "export * from '../bundle/host.js'\n",
  'cli/main.js': "#!/usr/bin/env node\nimport '../bundle/cli.js'\n",
}

/** Anything not a path is a package or a built-in: loaded by Node, never copied in. */
const isPath = (id) => id.startsWith('.') || path.isAbsolute(id)

rmSync(out, { recursive: true, force: true })
const build = await rolldown({
  input: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join(lib, file)])),
  platform: 'node',
  external: (id) => !isPath(id),
  logLevel: 'warn',
})
let chunks
try {
  ;({ output: chunks } = await build.write({ dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' }))
} finally {
  await build.close()
}

// Each module in exactly one chunk, and no chunk reaching outside lib/bundle/: else one process
// could hold two copies of a module's state.
const owner = new Map()
for (const chunk of chunks) {
  if (chunk.type !== 'chunk') continue
  for (const id of chunk.moduleIds) {
    if (owner.has(id)) throw new Error(`${path.relative(lib, id)} is in both ${owner.get(id)} and ${chunk.fileName}`)
    owner.set(id, chunk.fileName)
  }
  for (const spec of [...chunk.imports, ...chunk.dynamicImports]) {
    if (isPath(spec) && !chunks.some((c) => c.fileName === spec)) throw new Error(`${chunk.fileName} imports ${spec}, outside lib/bundle/`)
  }
}

for (const [door, text] of Object.entries(DOORS)) {
  const file = path.join(lib, door)
  writeFileSync(file, text)
  rmSync(`${file}.map`, { force: true })
}
chmodSync(path.join(lib, 'cli/main.js'), 0o755)
if (!readFileSync(path.join(out, 'cli.js'), 'utf8').startsWith('#!/usr/bin/env node')) throw new Error('lib/bundle/cli.js lost its #! line')

console.log(`lib: bundled ${Object.keys(ENTRIES).join(', ')} into lib/bundle/ (${chunks.length} files, ${owner.size} modules)`)
