/**
 * Real git repositories for the project-identity tests: a main checkout with an ssh origin and one
 * commit, a worktree of it (`git worktree add`), a clone by a file:// URL whose origin is then set
 * to the https form of the same repository with another host case and no `.git`
 * (`git remote set-url`), and an unrelated repository; all in one temp folder the caller removes.
 */

import { execFileSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** The identity every checkout of the main repository has. */
export const PROJECT = 'github.com/Acme/Widget'

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' }
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: gitEnv })

export interface GitWorld {
  base: string
  main: string
  tree: string
  clone: string
  other: string
  personal: string
}

/** A main checkout (ssh origin, one commit), its worktree, a clone by file:// set to the https origin, and an unrelated repository. */
export async function gitWorld(): Promise<GitWorld> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'workspaces-')))
  const main = path.join(base, 'main')
  await fs.mkdir(main)
  git(main, 'init', '-q')
  git(main, 'remote', 'add', 'origin', 'git@GitHub.com:Acme/Widget.git')
  await fs.writeFile(path.join(main, 'README.md'), 'widget\n')
  git(main, 'add', 'README.md')
  git(main, 'commit', '-q', '-m', 'init')
  const tree = path.join(base, 'feature-tree')
  git(main, 'worktree', 'add', '-q', '-b', 'feature', tree)
  const clone = path.join(base, 'clone')
  git(base, 'clone', '-q', `file://${main}`, clone)
  git(clone, 'remote', 'set-url', 'origin', 'https://github.COM/Acme/Widget')
  const other = path.join(base, 'other')
  await fs.mkdir(other)
  git(other, 'init', '-q')
  git(other, 'remote', 'add', 'origin', 'https://github.com/Acme/Gadget.git')
  return { base, main, tree, clone, other, personal: path.join(base, 'personal') }
}

