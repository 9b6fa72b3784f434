/**
 * The house keeps its shape (docs/architecture.md): imports run down the floors, never up or
 * sideways; the capability folders of src/memory/ import each other only as their main file's
 * header says; the page names every folder of src/ and only paths that exist.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const repo = path.resolve(import.meta.dirname, '..')
const src = path.join(repo, 'src')
const page = readFileSync(path.join(repo, 'docs', 'architecture.md'), 'utf8')

/** The floors, top first: each a list of rooms (top-level entries of src/). */
const floors: string[][] = (/```floors\n([\s\S]*?)```/.exec(page)?.[1] ?? '')
  .split('\n')
  .map((l) => l.trim().split(/\s+/).filter((x) => x !== ''))
  .filter((l) => l.length > 0)
const GROUND = floors.length - 1
const floorOf = new Map(floors.flatMap((rooms, i) => rooms.map((r) => [r, i] as const)))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name))
}

/** Relative imports of a file (static, type-only and dynamic), as source paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm)) {
    out.push(path.resolve(path.dirname(file), (m[2] as string).replace(/\.js$/, '.ts')))
  }
  return out
}

/** The room of a source path: its top-level entry under src/ (a folder, or a file such as api.ts). */
const roomOf = (file: string) => path.relative(src, file).split(path.sep)[0] as string

const files = sourceFiles(src)

describe('docs/architecture.md and the tree', () => {
  it('names every top-level entry of src/ on exactly one floor, and nothing that is not there', () => {
    const entries = readdirSync(src).filter((e) => !e.startsWith('.'))
    const named = floors.flat()
    expect(new Set(named).size, 'a room on two floors').toBe(named.length)
    expect([...entries].sort()).toEqual([...named].sort())
  })

  it('every path the page cites exists', () => {
    const cited = [...page.matchAll(/`(src\/[^`\s]+)`/g)].map((m) => m[1] as string)
    expect(cited.length).toBeGreaterThan(20)
    expect(cited.filter((p) => !existsSync(path.join(repo, p)))).toEqual([])
  })
})

/** Why an import of `target` by `file` runs against the floors, or null when it may. */
function against(file: string, target: string): string | null {
  const from = roomOf(file)
  const to = roomOf(target)
  if (from === to) return null
  const a = floorOf.get(from)
  const b = floorOf.get(to)
  if (a === undefined || b === undefined) return `${from} or ${to} is on no floor`
  if (b > a || (a === GROUND && b === GROUND)) return null
  return b === a ? `sideways, ${from} to ${to}` : `up, ${from} (floor ${a}) to ${to} (floor ${b})`
}

describe('imports run down the floors', () => {
  it('no file imports from a floor above its own, or from another room of its floor (the ground floor aside)', () => {
    const wrong: string[] = []
    let checked = 0
    for (const file of files) {
      for (const target of importsOf(file)) {
        if (!target.startsWith(src + path.sep)) continue
        checked++
        const why = against(file, target)
        if (why !== null) wrong.push(`${path.relative(repo, file)} -> ${path.relative(repo, target)}: ${why}`)
      }
    }
    expect(checked).toBeGreaterThan(500)
    expect(wrong).toEqual([])
  })

  it('the check refuses what the issue names: store/ importing retrieve/, sideways between adapters', () => {
    const at = (p: string) => path.join(src, p)
    expect(against(at('store/claim-fields.ts'), at('retrieve/premises.ts'))).toMatch(/^up/)
    expect(against(at('memory/writing/write.ts'), at('tools/declare/tool.ts'))).toMatch(/^up/)
    expect(against(at('host/index.ts'), at('mcp/server.ts'))).toMatch(/^sideways/)
    expect(against(at('tools/write-memory.ts'), at('memory/writing/write.ts'))).toBeNull()
    expect(against(at('text.ts'), at('language/han-variants.ts'))).toBeNull()
  })
})

describe('the capability folders of src/memory/', () => {
  const memory = path.join(src, 'memory')
  const folders = readdirSync(memory, { withFileTypes: true })

  it('has about ten entries, all of them folders', () => {
    expect(folders.length).toBeLessThanOrEqual(10)
    expect(folders.filter((f) => !f.isDirectory()).map((f) => f.name)).toEqual([])
  })

  /** Each folder's header: the other capability folders it may import from. */
  const allowed = new Map<string, Set<string>>()
  for (const folder of folders.map((f) => f.name)) {
    const headers = sourceFiles(path.join(memory, folder))
      .map((f) => readFileSync(f, 'utf8'))
      .map((t) => /^\/\*\*\n((?: \*.*\n)+?) \*\//.exec(t)?.[1]?.replace(/^ \* ?/gm, '').replace(/\s+/g, ' ') ?? '')
      .filter((h) => h.includes(`Folder memory/${folder}/, whose main file this is`))
    const list = headers.length === 1 ? /Imports from the other capability folders: ([a-z, ]+);/.exec(headers[0] as string)?.[1] : undefined
    if (list !== undefined) allowed.set(folder, new Set(list === 'none' ? [] : list.split(/,\s*/)))
  }

  it('each folder has one main file whose header says what it owns and what it imports', () => {
    expect([...allowed.keys()].sort()).toEqual(folders.map((f) => f.name).sort())
    for (const [folder, set] of allowed) for (const other of set) expect(allowed.has(other), `${folder} names ${other}`).toBe(true)
  })

  it('imports between capability folders are the ones their headers declare', () => {
    const wrong: string[] = []
    for (const file of sourceFiles(memory)) {
      const folder = path.relative(memory, file).split(path.sep)[0] as string
      for (const target of importsOf(file)) {
        if (!target.startsWith(memory + path.sep)) continue
        const other = path.relative(memory, target).split(path.sep)[0] as string
        if (other !== folder && !allowed.get(folder)?.has(other)) wrong.push(`${path.relative(repo, file)} -> memory/${other}`)
      }
    }
    expect(wrong).toEqual([])
  })
})
