/**
 * What the npm package ships (issue 15 item 8): the MIT licence package.json names, the built
 * code and docs, nothing of the development tree; and `npm publish` cannot skip the release checks.
 * Runs the real `npm pack --dry-run` (after `npm run build`, lib/ is part of the list).
 */

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const repo = path.resolve(import.meta.dirname, '..')
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { license: string; files: string[]; scripts: Record<string, string> }

describe('the npm package', () => {
  it('ships an MIT LICENSE file, as package.json says, and no development files', () => {
    expect(pkg.license).toBe('MIT')
    const licence = readFileSync(path.join(repo, 'LICENSE'), 'utf8')
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /)
    expect(licence).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND')
    const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, encoding: 'utf8' })) as Array<{ files: Array<{ path: string }> }>
    const files = (pack?.files ?? []).map((f) => f.path)
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']))
    expect(files.filter((f) => /^(src|test|bench|scripts|docs|\.ci|client\/src)\//.test(f))).toEqual([])
    console.log(`npm pack --dry-run: ${files.length} files, LICENSE among them`)
  })

  it('prepublishOnly runs the release checks, and publish.sh checks the LICENSE is packed', () => {
    expect(pkg.scripts['prepublishOnly']).toBe('bash verify.sh')
    const publish = readFileSync(path.join(repo, 'publish.sh'), 'utf8')
    expect(publish).toMatch(/const must = \[[^\]]*"LICENSE"/)
  })
})
