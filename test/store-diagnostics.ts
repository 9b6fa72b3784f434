/**
 * What a crash test prints when an acknowledged memory is missing after a kill, so that a failure
 * on a machine nobody can log into explains itself: the memory's lines in index.jsonl and its
 * events in ledger.jsonl, whether its file is at its place, every file beside it whose name holds
 * its id (one set aside by a rewrite, a temporary file), the index snapshot and the store lock.
 */

import { existsSync, promises as fs } from 'node:fs'
import path from 'node:path'

const FOLDERS = ['episodes', 'raw', 'topics']
const LINE_CHARS = 400

async function linesWith(file: string, id: string): Promise<string[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => null)
  if (text === null) return [`(no ${path.basename(file)})`]
  const out: string[] = []
  for (const [i, line] of text.split('\n').entries()) if (line.includes(id)) out.push(`  ${i + 1}: ${line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line}`)
  return out.length > 0 ? out : ['  (none)']
}

/** Everything the store on disk says about one memory id, as lines of text. */
export async function explainId(root: string, id: string): Promise<string> {
  const out = [`--- ${id} in ${root}`, 'index.jsonl:', ...(await linesWith(path.join(root, 'index.jsonl'), id)), 'ledger.jsonl:', ...(await linesWith(path.join(root, 'ledger.jsonl'), id))]
  const named = new Set<string>()
  for (const line of ((await fs.readFile(path.join(root, 'index.jsonl'), 'utf8').catch(() => '')) + (await fs.readFile(path.join(root, 'ledger.jsonl'), 'utf8').catch(() => ''))).split('\n')) {
    if (!line.includes(`"id":"${id}"`)) continue
    const p = /"path":"([^"]+)"/.exec(line)?.[1]
    if (p !== undefined) named.add(p)
  }
  out.push('its file:')
  for (const p of named) out.push(`  ${p}: ${existsSync(path.join(root, p)) ? 'there' : 'MISSING'}`)
  if (named.size === 0) out.push('  (no path named)')
  out.push('files whose name holds the id (dot-files included):')
  let found = 0
  for (const folder of FOLDERS) {
    for (const name of await fs.readdir(path.join(root, folder)).catch(() => [] as string[])) {
      if (!name.includes(id)) continue
      const st = await fs.stat(path.join(root, folder, name)).catch(() => null)
      out.push(`  ${folder}/${name} (${st === null ? 'gone' : `${st.size} bytes, mtime ${new Date(st.mtimeMs).toISOString()}`})`)
      found++
    }
  }
  if (found === 0) out.push('  (none)')
  const snapshot = await fs.stat(path.join(root, '.cache', 'index-snapshot.bin')).catch(() => null)
  out.push(`index snapshot: ${snapshot === null ? 'none' : `${snapshot.size} bytes`}; store lock: ${existsSync(path.join(root, '.lock')) ? 'held (a dead writer’s)' : 'free'}`)
  return out.join('\n')
}

/** explainId for each id, one after the other; empty when there are none. */
export async function explainIds(root: string, ids: readonly string[]): Promise<string> {
  const parts: string[] = []
  for (const id of ids) parts.push(await explainId(root, id))
  return parts.join('\n')
}
