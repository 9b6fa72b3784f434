/**
 * `memory-agent export` and `memory-agent import`: the store to one JSON bundle and back, and
 * other tools' memories in. An adapter: it parses flags, writes to stdout, stderr and the output
 * file, and draws the progress bar; what is exported and imported is decided by
 * `memory/transfer/export.ts` and `memory/transfer/import.ts`.
 */

import { existsSync } from 'node:fs'
import path from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { ioError, MemoryError } from '../errors.js'
import { exportBundle } from '../memory/transfer/export.js'
import { IMPORT_FORMATS, importMemories, type ImportFormat, type ImportItem, type ImportResult } from '../memory/transfer/import.js'
import { flushCaches } from '../retrieve/retriever.js'
import { createFileBackend } from '../store/file-backend.js'
import { parseFlags } from './flags.js'
import { progressBar } from './progress.js'
import { usageError } from './tool-commands.js'

export const EXPORT_HELP = `memory-agent export: the whole store as one JSON bundle

Every memory file (topics, episodes, raw text), the index, the ledger, and the store's README,
config.json and aliases.json. Nothing is cut unless --max-bytes says so. \`memory-agent import\`
reads the bundle back: into an empty store it restores everything as it was.

Usage: memory-agent export [--out FILE] [--max-bytes N] [--root DIR | --user] [--json]

Flags:
  --out FILE
      Write the bundle to FILE (atomically) and a one-line summary to stderr; default: the bundle on stdout.
  --max-bytes N
      Keep the bundle within N bytes: files that do not fit are left out and the bundle says so.
  --json
      With --out: print the summary as JSON on stdout.
  --root DIR, --user, --user-root DIR, --no-user-root
      The store (default $MEMORY_AGENT_ROOT, else ./.agent/memory); --user: the personal store
      (--user-root DIR, else ~/.agent/memory).
`

export const IMPORT_HELP = `memory-agent import: memories from a bundle, markdown notes, MCP memory JSONL or Claude's /memories

Formats (--format, detected when not given):
  bundle           a file written by \`memory-agent export\`. Into an empty store: restored as it
                   was (files verbatim, ids, statuses and ledger kept). Into a store with
                   memories: merged; a memory whose id or content is already there is skipped.
  markdown         a folder of .md notes (or one note). Title from the front-matter, the first
                   heading or the file name; the first paragraph is the summary, the rest kept
                   below it; front-matter tags, key, time/date and other fields are honoured.
  mcp-jsonl        the MCP reference memory server's memory.jsonl: one memory per entity
                   (observations as its summary, the entity type as a tag, its relations as lines).
  claude-memories  the folder Claude's memory tool writes (named memories, or holding one):
                   every text file becomes a memory.
Notes and entities go through the normal write path: secrets redacted, exact duplicates
skipped, so running the same import again adds nothing. A bad file or line is reported by name
(and line) and skipped; input that is not the format is refused and nothing is written. Each
import is one \`import\` event in the ledger.

Usage: memory-agent import PATH [--format FORMAT] [--dry-run] [--root DIR | --user] [--json]

Flags:
  --format auto|${IMPORT_FORMATS.join('|')}
      The input's format (default auto).
  --dry-run
      Check everything and print what would happen; write nothing.
  --json
      Print the structured result: counts and every item with its outcome.
  --root DIR, --user, --user-root DIR, --no-user-root
      The store (default $MEMORY_AGENT_ROOT, else ./.agent/memory); --user: the personal store
      (--user-root DIR, else ~/.agent/memory).
`

/** Listed at most this many per kind in the text output; --json has them all. */
const LISTED = 20

function kilobytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

export async function exportCommand(args: string[], storeRoot: (args: string[]) => string): Promise<number> {
  const flags = parseFlags('export', args, { valued: ['--out', '--max-bytes'], switches: ['--json'] })
  if (flags.switches.has('--help')) {
    process.stdout.write(EXPORT_HELP)
    return 0
  }
  if (flags.positionals.length > 0) throw usageError(`export: unexpected argument ${JSON.stringify(flags.positionals[0])} (write to a file with --out)`)
  const maxText = flags.values.get('--max-bytes')
  const maxBytes = maxText === undefined ? Number.POSITIVE_INFINITY : Number(maxText)
  if (!Number.isInteger(maxBytes) && maxText !== undefined) throw usageError(`export: --max-bytes: expected a whole number of bytes, got ${JSON.stringify(maxText)}`)
  if (maxBytes < 2) throw usageError('export: --max-bytes: expected at least 2')
  const root = storeRoot(flags.args)
  // Exporting must not create a store where there was none (a mistyped --root, an ordinary folder).
  if (!existsSync(path.join(root, 'index.jsonl')) && !existsSync(path.join(root, 'topics'))) {
    throw new MemoryError('NOT_FOUND', `no memory store at ${root} (no index.jsonl or topics/ there)`, 'root')
  }
  const backend = createFileBackend(root)
  try {
    // The trailing newline is part of the output, so the bundle itself gets one byte less.
    const bundle = await exportBundle(backend, { maxBytes: maxBytes - 1 })
    const text = `${JSON.stringify(bundle)}\n`
    const out = flags.values.get('--out')
    const memories = bundle.index.filter((e) => e.type !== 'raw').length
    const bytes = Buffer.byteLength(text, 'utf8')
    // The index and the ledger are never cut, so they alone can pass the limit.
    const over = bytes > maxBytes ? ` (${bytes} bytes: the index and ledger alone pass --max-bytes)` : ''
    const cut = bundle.truncated ? `; cut at --max-bytes: ${bundle.omitted_files} files left out${over}` : ''
    if (out === undefined) {
      process.stdout.write(text)
      if (bundle.truncated) process.stderr.write(`memory-agent: export: the bundle was cut at --max-bytes: ${bundle.omitted_files} files left out${over}\n`)
      return 0
    }
    const file = path.resolve(out)
    await writeFileAtomic(file, text, { encoding: 'utf8' }).catch((err: unknown) => {
      throw ioError('write', file, err)
    })
    process.stderr.write(`exported ${memories} memories (${bundle.files.length} files, ${bundle.ledger.length} ledger events, ${kilobytes(bytes)}) from ${root} to ${file}${cut}\n`)
    if (flags.switches.has('--json')) {
      const summary = { out: file, bytes, memories, files: bundle.files.length, ledger_events: bundle.ledger.length, truncated: bundle.truncated, omitted_files: bundle.omitted_files }
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    }
    return 0
  } finally {
    await flushCaches(backend)
  }
}

function where(item: ImportItem): string {
  return item.line !== undefined ? `${item.source}:${item.line}` : item.source
}

function listing(title: string, items: ImportItem[]): string[] {
  if (items.length === 0) return []
  // One item a line, no columns: paths with wide (CJK) characters would not line up anyway.
  const lines = items.slice(0, LISTED).map((i) => `  ${where(i)}: ${i.reason ?? ''}`)
  if (items.length > LISTED) lines.push(`  ... and ${items.length - LISTED} more (--json lists every item)`)
  return [`${title}:`, ...lines]
}

/** The readable report of an import. */
export function renderImport(result: ImportResult, root: string): string {
  const verb = result.dry_run ? 'Dry run, nothing written: importing' : 'Imported'
  const mode =
    result.mode === 'restore'
      ? ` as a restore (the store was empty: files, ids, statuses and ${result.ledger_events} ledger events as in the bundle)`
      : result.mode === 'merge'
        ? ' as a merge (into a store that had memories)'
        : ''
  const rows: Array<[string, number]> = [
    [result.dry_run ? 'would add' : 'added', result.added],
    ['duplicates', result.duplicates],
    ['skipped', result.skipped],
    [result.dry_run ? 'would supersede' : 'superseded', result.superseded],
  ]
  const lines = [
    `${verb} ${result.source} (${result.format}) into ${root}${mode}`,
    `  ${'found'.padEnd(16)}${result.found}`,
    ...rows.map(([label, n]) => `  ${label.padEnd(16)}${n}`),
    ...(result.redactions.length > 0 ? [`  ${'redacted'.padEnd(16)}${result.redactions.join(', ')}`] : []),
    ...listing('Duplicates (already in the store, left as they are)', result.items.filter((i) => i.outcome === 'duplicate')),
    ...listing('Skipped', result.items.filter((i) => i.outcome === 'skipped')),
    ...(result.warnings.length > 0 ? ['Warnings:', ...result.warnings.map((w) => `  ${w}`)] : []),
  ]
  return `${lines.join('\n')}\n`
}

export async function importCommand(args: string[], storeRoot: (args: string[]) => string): Promise<number> {
  const flags = parseFlags('import', args, { valued: ['--format'], switches: ['--json', '--dry-run'] })
  if (flags.switches.has('--help')) {
    process.stdout.write(IMPORT_HELP)
    return 0
  }
  const [source, extra] = flags.positionals
  if (source === undefined) throw usageError('import: PATH is missing: the file or folder to import (see memory-agent import --help)')
  if (extra !== undefined) throw usageError(`import: unexpected argument ${JSON.stringify(extra)} (one PATH per import)`)
  const format = flags.values.get('--format') ?? 'auto'
  if (format !== 'auto' && !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw usageError(`import: --format: expected one of auto, ${IMPORT_FORMATS.join(', ')}; got ${JSON.stringify(format)}`)
  }
  const root = storeRoot(flags.args)
  const backend = createFileBackend(root)
  const progress = progressBar(process.stderr, `importing ${path.basename(source)}`)
  try {
    const result = await importMemories(backend, path.resolve(source), {
      format: format as ImportFormat | 'auto',
      dryRun: flags.switches.has('--dry-run'),
      onProgress: progress.update,
    })
    progress.finish()
    process.stdout.write(flags.switches.has('--json') ? `${JSON.stringify(result, null, 2)}\n` : renderImport(result, root))
    return 0
  } finally {
    progress.finish()
    await flushCaches(backend)
  }
}
