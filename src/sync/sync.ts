/**
 * `sync`: memory shared across machines and teammates through git, the store root being (or
 * lying in) an ordinary repository. One call commits what changed here (the message made from
 * the ledger events since the last sync), fetches `origin`, merges, settles what git could not
 * merge (`conflicts.ts`), brings the index up to date from the changed files only, moves
 * memories off room slots two clones both gave (`room-repair.ts`), and pushes.
 * Running it again with nothing new changes nothing.
 *
 * Locks. Syncs of one store queue up on their own lock (`.sync.lock`). Writers are shut out
 * (the store lock) only while the working tree changes: commit, merge, settle, re-index. Fetch
 * and push run outside it, so a slow network never makes a writer wait; a push that finds the
 * remote moved on fetches and merges again (three attempts).
 *
 * Privacy. Nothing is committed while a changed file holds a credential-shaped string, and
 * nothing is pushed while an outgoing file does (a commit made by hand): the error names the
 * file. Domain code: no console, no environment reads; progress goes to a callback.
 */

import { pushAll } from '../arrays.js'
import { copyFile, rm } from 'node:fs/promises'
import path from 'node:path'
import type properLockfile from 'proper-lockfile'
import { MemoryError } from '../errors.js'
import type { MemoryBackend } from '../store/backend.js'
import { ensureFresh } from '../store/freshness.js'
import { entryFromFile, isMemoryPath } from '../store/frontmatter.js'
import { lazyRequire } from '../store/fs-io.js'
import { parseLedgerLine } from '../store/ledger.js'
import { sha1 } from '../text.js'
import type { IndexEntry, LedgerEvent } from '../types.js'
import { planSlotRepairs, repairSlots, settleUnmerged, type KeptFile, type Settlement, type SyncConflict, type UnmergedFile } from './conflicts.js'
import { DERIVED_TRACKABLE, KEPT_UNDER_DERIVED, ensureGitFiles } from './git-files.js'
import { EMPTY_TREE, Git, gitFailure, nulFields } from './git.js'
import { mergeLedgerText } from './merge.js'
import { commitMessage, newLedgerLines } from './messages.js'
import { reindexChanged, type ReindexResult } from './reindex.js'
import { guardPulledIds, type Reidentified } from './id-guard.js'
import { repairRoomCollisions, type RoomMove } from './room-repair.js'
import { claimWing } from '../memory/organisation/rooms.js'
import { findSecret, refusalMessage, type SecretFinding } from './secrets.js'

const lockfile = lazyRequire<typeof properLockfile>('proper-lockfile')

export type SyncStep = 'prepare' | 'commit' | 'fetch' | 'merge' | 'reindex' | 'push'

export interface SyncProgress {
  step: SyncStep
  message: string
}

export interface SyncOptions {
  /** Sets `origin` to this URL (added when missing) and syncs with it. */
  remote?: string
  /** The author of sync's commits; default: git's own configuration, else `memory-agent <memory-agent@localhost>`. */
  identity?: { name: string; email: string }
  /** Variables laid over the environment git runs in (tests isolate git's configuration this way). */
  env?: Readonly<Record<string, string>>
  /** False: git never asks for a password (a panel button has nobody at a terminal). Default true. */
  interactive?: boolean
  /** How long to wait for another sync of this store to finish. Default 120 s. */
  lockTimeoutMs?: number
  onProgress?: (progress: SyncProgress) => void
}

export interface SyncResult {
  root: string
  /** The top folder of the git repository the store is in (the root itself, or a project). */
  repository: string
  /** The repository was created by this sync. */
  initialized: boolean
  branch: string
  /** Null when no remote is configured: changes were committed locally only. */
  remote: { name: 'origin'; url: string; branch: string } | null
  /** Commits of local changes this sync made. */
  committed: Array<{ commit: string; files: number; events: number; subject: string }>
  /** What came from the remote. */
  pulled: { from: string | null; to: string; files: number; fastForward: boolean } | null
  /** Memories left in `conflict` for memory_resolve. */
  conflicts: SyncConflict[]
  /** Files settled by keeping one side, or both. */
  kept: KeptFile[]
  /** Memories moved off a room slot that another clone had given too (the one placed first kept it). */
  moved: RoomMove[]
  /** Pulled files that stated an id another file here holds: each states a copy id of its own now (sync/id-guard.ts). */
  reidentified: Reidentified[]
  reindexed: Omit<ReindexResult, 'warnings'> | null
  pushed: { from: string | null; to: string } | null
  /** Derived files that had been committed before and are now left to each machine. */
  untracked: string[]
  warnings: string[]
  ms: number
}

const SYNC_LOCK = '.sync.lock'
const PUSH_ATTEMPTS = 3
const FALLBACK_IDENTITY = { name: 'memory-agent', email: 'memory-agent@localhost' }

interface Repo {
  git: Git
  top: string
  /** The store root's path inside the repository, with a trailing slash ('' when it is the top). */
  prefix: string
  gitDir: string
}

/** Takes the sync lock of a store; resolves to its release. LOCK_TIMEOUT when another sync holds it too long. */
async function takeSyncLock(root: string, timeoutMs: number): Promise<() => Promise<void>> {
  const step = 200
  try {
    // proper-lockfile keeps held locks by their first argument, and the store lock uses the
    // root: this lock needs a key of its own, or releasing one would corrupt the other.
    return await lockfile().lock(path.join(root, SYNC_LOCK), {
      lockfilePath: path.join(root, SYNC_LOCK),
      realpath: false,
      stale: 30_000,
      update: 5_000,
      retries: { retries: Math.max(0, Math.ceil(timeoutMs / step)), factor: 1, minTimeout: step, maxTimeout: step },
      // A sync whose lock was taken over keeps going: the store lock still guards every file it changes.
      onCompromised: () => undefined,
    })
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ELOCKED')
      throw new MemoryError('LOCK_TIMEOUT', `another sync of ${root} has been running for ${Math.round(timeoutMs / 1000)} s; try again when it is done`)
    throw err
  }
}

function lines(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '')
}

class Syncer {
  private readonly result: SyncResult
  private readonly progress: (step: SyncStep, message: string) => void
  /** sha1 of each file's text when it was scanned for secrets in this sync. */
  private readonly scanned = new Map<string, string>()
  private repo!: Repo

  constructor(
    private readonly backend: MemoryBackend,
    private readonly options: SyncOptions,
  ) {
    this.result = {
      root: backend.root,
      repository: backend.root,
      initialized: false,
      branch: '',
      remote: null,
      committed: [],
      pulled: null,
      conflicts: [],
      kept: [],
      moved: [],
      reidentified: [],
      reindexed: null,
      pushed: null,
      untracked: [],
      warnings: [],
      ms: 0,
    }
    this.progress = (step, message) => options.onProgress?.({ step, message })
  }

  private get git(): Git {
    return this.repo.git
  }

  async run(): Promise<SyncResult> {
    const started = performance.now()
    const env: Record<string, string> = { ...(this.options.interactive === false ? { GIT_TERMINAL_PROMPT: '0' } : {}), ...this.options.env }
    this.progress('prepare', `preparing the repository for ${this.backend.root}`)
    // Hand edits made here are noticed first, so their ledger events go into this commit and the
    // index is current for the merge. (Without an index yet, the sync makes it from every file.)
    if ((await this.backend.stat('index.jsonl')) !== null) await ensureFresh(this.backend)
    await this.backend.withLock(() => this.prepare(env))
    const url = await this.configureRemote()
    if (url === null) await this.backend.withLock(() => this.refuseProjectBranch())
    for (let attempt = 1; ; attempt++) {
      const remoteRef = url === null ? null : await this.fetch(url)
      await this.backend.withLock(() => this.integrate(remoteRef))
      if (url === null || this.result.remote === null) break
      if (await this.push(remoteRef)) break
      if (attempt >= PUSH_ATTEMPTS)
        throw new MemoryError('IO_ERROR', `the remote branch ${this.result.remote.branch} kept moving while this sync pushed (${PUSH_ATTEMPTS} attempts); everything is committed locally, run sync again`)
      this.progress('push', 'the remote moved on meanwhile: fetching and merging again')
    }
    this.result.ms = performance.now() - started
    return this.result
  }

  /** Finds or creates the repository, writes the store's git files, untracks derived files. Inside the store lock. */
  private async prepare(env: Record<string, string>): Promise<void> {
    const root = this.backend.root
    const probe = new Git({ cwd: root, env })
    const locate = async () => {
      const r = await probe.run(['rev-parse', '--show-toplevel', '--show-prefix', '--absolute-git-dir'])
      const [top = '', prefix = '', gitDir = ''] = r.stdout.split('\n')
      return r.code === 0 ? { top, prefix, gitDir } : null
    }
    let found = await locate()
    // A store inside a project that ignores it gets a repository of its own.
    if (found === null || (found.prefix !== '' && (await probe.ok(['check-ignore', '-q', '--', 'README.md'])))) {
      await probe.out(['init', '-q'])
      await probe.out(['symbolic-ref', 'HEAD', 'refs/heads/main'])
      this.result.initialized = true
      found = await locate()
      if (found === null) throw new MemoryError('IO_ERROR', `git init in ${root} did not make a repository`)
    }
    const known = await Promise.all([probe.ok(['var', 'GIT_COMMITTER_IDENT']), probe.ok(['var', 'GIT_AUTHOR_IDENT'])])
    const identity = this.options.identity ?? (known.every(Boolean) ? null : FALLBACK_IDENTITY)
    const config: Record<string, string> = identity === null ? {} : { 'user.name': identity.name, 'user.email': identity.email }
    this.repo = { git: new Git({ cwd: root, env, config }), ...found }
    const git = this.repo.git
    this.result.repository = this.repo.prefix === '' ? root : this.repo.top
    const branch = (await git.run(['symbolic-ref', '-q', '--short', 'HEAD'])).stdout.trim()
    if (branch === '') throw new MemoryError('INVALID_STATE', `the repository at ${this.repo.top} is not on a branch (detached HEAD, or a rebase in progress); check out a branch, then sync again`)
    this.result.branch = branch
    await ensureGitFiles(this.backend)
    // From the first sync on, this clone gives room slots only from rooms of its own.
    await claimWing(this.backend)
    // Derived files committed before (by hand, or before the store synced) leave with the next commit.
    this.result.untracked = nulFields(await git.out(['ls-files', '-z', '--', ...DERIVED_TRACKABLE])).filter((p) => !KEPT_UNDER_DERIVED.has(p))
  }

  /**
   * Without a remote, a store lying in a project's repository is committed onto the project's own
   * branch only once a person has committed it there: a first sync never does it unasked.
   */
  private async refuseProjectBranch(): Promise<void> {
    if (this.repo.prefix === '' || (await this.git.out(['ls-files', '--', '.'])).trim() !== '') return
    const store = this.repo.prefix.replace(/\/$/, '')
    throw new MemoryError(
      'INVALID_STATE',
      `the store lies in the repository at ${this.repo.top}, which has no remote: a sync would commit its files onto that project's branch ${this.result.branch}, so it does not. ` +
        `Keep memory in the project's history by committing it once yourself (git add ${store} && git commit -m memory -- ${store}; later syncs commit there), ` +
        `give the store a remote of its own with a repository of its own (add ${store}/ to the project's .gitignore, then sync --remote URL), ` +
        `or add a remote to the project`,
    )
  }

  private async configureRemote(): Promise<string | null> {
    const wanted = this.options.remote?.trim()
    const current = await this.git.run(['remote', 'get-url', 'origin'])
    const url = current.code === 0 ? current.stdout.trim() : null
    if (wanted === undefined || wanted === '' || wanted === url) return url
    if (wanted.startsWith('-')) throw new MemoryError('INVALID_INPUT', `remote: expected a git URL or path, not ${JSON.stringify(wanted)}`, 'remote')
    if (url === null) await this.git.out(['remote', 'add', 'origin', wanted])
    else if (this.repo.prefix !== '')
      throw new MemoryError(
        'INVALID_INPUT',
        `remote: the store is inside the repository at ${this.repo.top}, whose origin is ${url}; sync will not re-point a project's origin. Run sync without --remote, or change the project's origin with git`,
        'remote',
      )
    else await this.git.out(['remote', 'set-url', 'origin', wanted])
    return wanted
  }

  /** Fetches origin; returns the remote-tracking ref to merge, or null when the remote has no branch for us yet. */
  private async fetch(url: string): Promise<string | null> {
    this.progress('fetch', `fetching ${url}`)
    await this.git.out(['fetch', '--quiet', '--no-tags', '--prune', 'origin'], { network: true })
    const branch = await this.remoteBranch()
    this.result.remote = { name: 'origin', url, branch }
    const ref = `refs/remotes/origin/${branch}`
    return (await this.git.ok(['rev-parse', '-q', '--verify', `${ref}^{commit}`])) ? ref : null
  }

  /** The remote branch this branch syncs with: its upstream, the same name, or (for a store's own repository) the remote's only or main branch. */
  private async remoteBranch(): Promise<string> {
    const upstream = (await this.git.run(['rev-parse', '-q', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'])).stdout.trim()
    if (upstream.startsWith('origin/')) return upstream.slice('origin/'.length)
    const branch = this.result.branch
    const remote = lines(await this.git.out(['for-each-ref', '--format=%(refname:strip=3)', 'refs/remotes/origin'])).filter((b) => b !== 'HEAD')
    if (remote.includes(branch) || this.repo.prefix !== '') return branch
    if (remote.length === 1) return remote[0] as string
    return ['main', 'master'].find((b) => remote.includes(b)) ?? branch
  }

  private async head(): Promise<string | null> {
    const r = await this.git.run(['rev-parse', '-q', '--verify', 'HEAD^{commit}'])
    return r.code === 0 ? r.stdout.trim() : null
  }

  /** Inside the store lock: finish a merge left open, commit local changes, merge the remote, re-index, check what would leave. */
  private async integrate(remoteRef: string | null): Promise<void> {
    if (await this.git.ok(['rev-parse', '-q', '--verify', 'MERGE_HEAD'])) {
      // A pull by hand stopped at a conflict: settle it the way sync settles its own.
      this.progress('merge', 'finishing a merge that was left open')
      const before = await this.head()
      await this.finishMerge(before, 'a merge left open', false)
      await this.reindexSince(before, false)
    }
    await this.commitLocal()
    if (remoteRef !== null) await this.merge(remoteRef)
    else if ((await this.backend.stat('index.jsonl')) === null) this.noteReindex(await reindexChanged(this.backend, []))
    await this.repairRooms()
    if (this.result.remote !== null) await this.checkOutgoing(remoteRef)
  }

  /** The text a file had in a commit (a store path), or '' when it had none. */
  private async textAt(rev: string | null, relPath: string): Promise<string> {
    if (rev === null) return ''
    const r = await this.git.run(['cat-file', '-p', `${rev}:${this.repo.prefix}${relPath}`])
    return r.code === 0 ? r.stdout : ''
  }

  /** Commits what changed in the store since the last commit, after checking it for secrets. */
  private async commitLocal(): Promise<void> {
    const status = nulFields(await this.git.out(['status', '--porcelain', '-z', '--untracked-files=all', '--', '.']))
    const changed: string[] = []
    for (let i = 0; i < status.length; i++) {
      const item = status[i] as string
      const xy = item.slice(0, 2)
      const file = item.slice(3)
      if (xy[0] === 'R' || xy[0] === 'C') i++ // the next field is the old path
      if (!xy.includes('D') && file.startsWith(this.repo.prefix)) changed.push(file.slice(this.repo.prefix.length))
    }
    if (status.length === 0 && this.result.untracked.length === 0) return
    this.progress('commit', `committing ${status.length} changed file${status.length === 1 ? '' : 's'}`)
    const head = await this.head()
    const committedLedger = await this.textAt(head, 'ledger.jsonl')
    const workingLedger = (await this.backend.readFile('ledger.jsonl')) ?? ''
    const fresh = newLedgerLines(committedLedger, workingLedger)
    const findings = await this.scan(changed, { 'ledger.jsonl': fresh.join('\n') })
    if (findings.length > 0) throw new MemoryError('INVALID_STATE', refusalMessage(findings, 'commit'))
    const events = fresh.map(parseLedgerLine).filter((e): e is LedgerEvent => e !== null)
    const made = await this.commitStore((files) => commitMessage(events, files))
    if (made !== null) this.result.committed.push({ commit: made.commit, files: made.files.length, events: events.length, subject: made.subject })
  }

  /**
   * Commits the store's files as they are in the working tree, and nothing else: the commit is
   * built in a private index (HEAD's tree with the store's paths brought up to date), so files
   * a person staged elsewhere in a project stay staged and out of it, and derived files that
   * had been committed leave it. Then the real index learns the store's paths. Null when the
   * store matches HEAD already. (No commit hooks run: this is data, checked for secrets above.)
   */
  private async commitStore(message: (files: string[]) => string): Promise<{ commit: string; files: string[]; subject: string } | null> {
    const head = await this.head()
    const gitDir = this.repo.gitDir
    const index = path.join(gitDir, `memory-agent-sync-${process.pid}.index`)
    const env = { GIT_INDEX_FILE: index }
    let made: { commit: string; files: string[]; subject: string }
    try {
      // A copy of the real index keeps git's file stats, so `add` hashes only what changed.
      const copied = head !== null && (await copyFile(path.join(gitDir, 'index'), index).then(() => true, () => false))
      if (!copied) await this.git.out(head === null ? ['read-tree', '--empty'] : ['read-tree', head], { env })
      else await this.leaveOnlyStoreStaged(head as string, env)
      await this.git.out(['add', '-A', '--', '.'], { env })
      const derived = nulFields(await this.git.out(['ls-files', '-z', '--', ...DERIVED_TRACKABLE], { env })).filter((p) => !KEPT_UNDER_DERIVED.has(p))
      await this.inChunks(['rm', '--cached', '-q', '-r'], derived, env)
      const files = nulFields(await this.git.out(['diff', '--cached', '--name-only', '-z', '--no-renames', '--relative', head ?? EMPTY_TREE, '--', '.'], { env }))
      if (files.length === 0) return null
      const tree = (await this.git.out(['write-tree'], { env })).trim()
      const text = message(files)
      const commit = (await this.git.out(['commit-tree', tree, ...(head === null ? [] : ['-p', head]), '-F', '-'], { input: text })).trim()
      await this.git.out(['update-ref', '-m', 'memory-agent sync', 'HEAD', commit, ...(head === null ? [] : [head])])
      made = { commit, files, subject: text.split('\n')[0] as string }
    } finally {
      await rm(index, { force: true }).catch(() => undefined)
    }
    // The real index: the store's paths as committed; whatever else was staged stays staged.
    await this.git.out(['add', '-A', '--', '.'])
    const derived = nulFields(await this.git.out(['ls-files', '-z', '--', ...DERIVED_TRACKABLE])).filter((p) => !KEPT_UNDER_DERIVED.has(p))
    await this.inChunks(['rm', '--cached', '-q', '-r'], derived)
    return made
  }

  /**
   * Secret findings in the given store files (read from the working tree). `override` gives
   * the text to scan instead of the file's (the ledger: only its new lines). Files already
   * scanned in this sync with the same text are not scanned again.
   */
  private async scan(paths: readonly string[], override: Record<string, string> = {}): Promise<SecretFinding[]> {
    const findings: SecretFinding[] = []
    for (const p of paths) {
      let text: string | null
      try {
        text = override[p] ?? (await this.backend.readFile(p))
      } catch (err) {
        // A link that leads outside the store: git records the link, not what it points at.
        if (err instanceof MemoryError && err.code === 'PATH_OUTSIDE_ROOT') continue
        throw err
      }
      if (text === null) continue
      const hash = sha1(text)
      if (this.scanned.get(p) === hash) continue
      const found = findSecret(p, text)
      if (found !== null) findings.push(found)
      else this.scanned.set(p, hash)
    }
    return findings
  }

  /** In the private index: whatever a person staged outside the store goes back to HEAD's version. */
  private async leaveOnlyStoreStaged(head: string, env: Record<string, string>): Promise<void> {
    if (this.repo.prefix === '') return
    const staged = nulFields(await this.git.out(['diff', '--cached', '--name-only', '-z', '--no-renames', head, '--', ':/'], { env }))
    const outside = staged.filter((p) => !p.startsWith(this.repo.prefix))
    if (outside.length === 0) return
    await this.inChunks(['reset', '-q', head], outside.map((p) => `:(top)${p}`), env)
  }

  /**
   * Runs a git command over many paths, a few hundred at a time. (Not --pathspec-from-file: in
   * a subfolder of the repository, git 2.39 takes the folder for a pathspec and refuses it.)
   */
  private async inChunks(command: string[], paths: readonly string[], env: Record<string, string> = {}): Promise<void> {
    for (let i = 0; i < paths.length; i += 500) {
      await this.git.out([...command, '--', ...paths.slice(i, i + 500).map((p) => (p.startsWith(':(') ? p.replace(':(', ':(literal,') : `:(literal)${p}`))], { env })
    }
  }

  /** Merges the fetched branch into this one and settles it; re-indexes what changed. */
  private async merge(remoteRef: string): Promise<void> {
    const before = await this.head()
    const theirs = (await this.git.out(['rev-parse', remoteRef])).trim()
    if (before === theirs || (before !== null && (await this.git.ok(['merge-base', '--is-ancestor', theirs, before])))) {
      if ((await this.backend.stat('index.jsonl')) === null) this.noteReindex(await reindexChanged(this.backend, []))
      return
    }
    this.progress('merge', `merging ${remoteRef.replace('refs/remotes/', '')}`)
    // --ff: fast-forward when possible, a merge commit otherwise, whatever merge.ff says.
    const r = await this.git.run(['merge', '--ff', '--no-edit', '--no-commit', '--allow-unrelated-histories', '--no-stat', '-q', theirs])
    const open = await this.git.ok(['rev-parse', '-q', '--verify', 'MERGE_HEAD'])
    if (r.code !== 0 && !open) throw gitFailure(['merge', remoteRef], r)
    if (open) await this.finishMerge(before, remoteRef.replace('refs/remotes/', ''), true)
    else await this.afterFastForward(before)
    await this.reindexSince(before, !open)
  }

  /** Re-indexes the store files that changed from `before` to HEAD, and records the pull. */
  private async reindexSince(before: string | null, fastForward: boolean): Promise<void> {
    const after = (await this.head()) as string
    const changed = nulFields(await this.git.out(['diff', '--name-only', '-z', '--no-renames', '--relative', before ?? EMPTY_TREE, after, '--', '.']))
    this.result.pulled = { from: before, to: after, files: changed.length, fastForward }
    // An id held here is never taken by a file the pull brought: that file gets a copy id first.
    const guard = await guardPulledIds(this.backend, changed, Date.now())
    pushAll(this.result.warnings, guard.warnings)
    this.progress('reindex', `re-indexing ${changed.length} changed file${changed.length === 1 ? '' : 's'}`)
    this.noteReindex(await reindexChanged(this.backend, changed, guard.held))
    if (guard.reidentified.length === 0) return
    const events = guard.events.map((e) => ({ at: this.backend.now(), ...e }))
    await this.backend.appendLedger(...events)
    pushAll(this.result.reidentified, guard.reidentified)
    const made = await this.commitStore((files) => commitMessage(events, files))
    if (made !== null) this.result.committed.push({ commit: made.commit, files: made.files.length, events: events.length, subject: made.subject })
  }

  private noteReindex(r: ReindexResult): void {
    const { warnings, ...rest } = r
    this.result.reindexed = rest
    pushAll(this.result.warnings, warnings)
  }

  /** The store files that differ between `from` and what is staged now, each with its entry after the merge. */
  private async changedEntries(from: string | null): Promise<Map<string, IndexEntry | null>> {
    const paths = nulFields(await this.git.out(['diff', '--cached', '--name-only', '-z', '--no-renames', '--relative', from ?? EMPTY_TREE, '--', '.']))
    const out = new Map<string, IndexEntry | null>()
    const now = Date.now()
    for (const p of paths) {
      if (!isMemoryPath(p)) continue
      const text = await this.backend.readFile(p)
      out.set(p, text === null ? null : entryFromFile(p, text, now))
    }
    return out
  }

  /** After a fast-forward: a slot may still need putting right (the other side merged by hand). */
  private async afterFastForward(before: string | null): Promise<void> {
    const repaired = await repairSlots(this.backend, planSlotRepairs(await this.backend.indexView(), await this.changedEntries(before)), Date.now())
    if (repaired.written.length === 0) return
    await this.record(repaired)
    await this.commitStore((files) => commitMessage(repaired.events.map((e) => ({ at: this.backend.now(), ...e })), files))
  }

  /**
   * Settles an open merge in the store (or refuses when files outside it conflict) and commits
   * it. On failure a merge this sync started is aborted; one a person left open is left as it is.
   */
  private async finishMerge(before: string | null, what: string, ownMerge: boolean): Promise<void> {
    let written: readonly string[] = []
    try {
      const unmerged = await this.unmerged()
      const outside = unmerged.outside
      if (outside.length > 0)
        throw new MemoryError(
          'INVALID_STATE',
          `the pull conflicts in files outside the memory store (${outside.slice(0, 5).join(', ')}${outside.length > 5 ? ', ...' : ''}); merge them with git yourself, then sync again`,
        )
      const now = Date.now()
      const settled = await settleUnmerged(this.backend, unmerged.files, now, (file, side) =>
        this.git.out(['checkout', `--${side}`, '--', `:(literal)${file}`]).then(() => undefined),
      )
      written = settled.written
      await this.mergeLedger(before)
      await this.git.out(['add', '-A', '--', '.'])
      const declared = await repairSlots(this.backend, planSlotRepairs(await this.backend.indexView(), await this.changedEntries(before)), now)
      await this.record(settled)
      await this.record(declared)
      await this.git.out(['add', '-A', '--', '.'])
      const all = [...settled.conflicts, ...declared.conflicts]
      const subject = `memory-agent sync: merge ${what}${all.length > 0 ? ` (${all.length} conflict${all.length === 1 ? '' : 's'} kept as variants)` : ''}`
      const body = [conflictLines(all), ...settled.kept.map((k) => `- kept ${k.kept}: ${k.path} (${k.reason})`)].filter((l) => l !== '').join('\n')
      await this.git.out(['commit', '-q', '--no-verify', '--no-edit', '-F', '-'], { input: `${subject}\n${body === '' ? '' : `\n${body}\n`}` })
    } catch (err) {
      // Back to the local commit: the working tree is as it was before the merge, without the
      // copies of their versions this merge had written beside the originals.
      if (ownMerge) {
        await this.git.run(['merge', '--abort'])
        for (const p of written) if (!(await this.git.ok(['ls-files', '--error-unmatch', '--', `:(literal)${p}`]))) await this.backend.removeFile(p)
      }
      throw err
    }
  }

  /** Moves memories off room slots two clones both gave (pulled now, or by a pull made by hand) and commits the moves. */
  private async repairRooms(): Promise<void> {
    const repair = await repairRoomCollisions(this.backend, Date.now())
    if (repair.moved.length === 0) return
    const events = repair.events.map((e) => ({ at: this.backend.now(), ...e }))
    for (const event of events) await this.backend.appendLedger(event)
    pushAll(this.result.moved, repair.moved)
    this.progress('merge', `moved ${repair.moved.length} memor${repair.moved.length === 1 ? 'y' : 'ies'} off room slots another clone had given too`)
    const made = await this.commitStore((files) => commitMessage(events, files))
    if (made !== null) this.result.committed.push({ commit: made.commit, files: made.files.length, events: events.length, subject: made.subject })
  }

  /** Adds a settlement's events to the ledger and its findings to the result. */
  private async record(s: Settlement): Promise<void> {
    for (const e of s.events) await this.backend.appendLedger({ at: this.backend.now(), ...e })
    pushAll(this.result.conflicts, s.conflicts)
    pushAll(this.result.kept, s.kept)
  }

  /** Unmerged paths of the open merge: the store's with their three texts, and any outside it. */
  private async unmerged(): Promise<{ files: UnmergedFile[]; outside: string[] }> {
    const fields = nulFields(await this.git.out(['ls-files', '-u', '-z', '--full-name', '--', ':/']))
    const stages = new Map<string, Map<number, string>>()
    for (const field of fields) {
      const m = /^\d+ ([0-9a-f]+) (\d)\t(.*)$/s.exec(field)
      if (m === null) continue
      const [, sha, stage, file] = m as unknown as [string, string, string, string]
      if (!stages.has(file)) stages.set(file, new Map())
      stages.get(file)?.set(Number(stage), sha)
    }
    const files: UnmergedFile[] = []
    const outside: string[] = []
    for (const [file, s] of stages) {
      if (!file.startsWith(this.repo.prefix)) {
        outside.push(file)
        continue
      }
      const relPath = file.slice(this.repo.prefix.length)
      const read = isMemoryPath(relPath)
      const blob = async (stage: number) => {
        const sha = s.get(stage)
        return sha === undefined ? null : read ? this.git.out(['cat-file', 'blob', sha]) : ''
      }
      files.push({ path: relPath, base: await blob(1), ours: await blob(2), theirs: await blob(3) })
    }
    return { files, outside }
  }

  /** The ledger after a merge: ours plus the lines only they added, none twice (union alone can repeat one). */
  private async mergeLedger(before: string | null): Promise<void> {
    const base = before === null ? null : (await this.git.run(['merge-base', before, 'MERGE_HEAD'])).stdout.trim() || null
    const merged = mergeLedgerText(await this.textAt(base, 'ledger.jsonl'), await this.textAt(before, 'ledger.jsonl'), await this.textAt('MERGE_HEAD', 'ledger.jsonl'))
    if (merged !== ((await this.backend.readFile('ledger.jsonl')) ?? '')) await this.backend.writeFileAtomic('ledger.jsonl', merged)
  }

  /** Refuses to let a secret leave: scans every store file that differs from the remote branch. */
  private async checkOutgoing(remoteRef: string | null): Promise<void> {
    const head = await this.head()
    if (head === null) return
    const files = nulFields(await this.git.out(['diff', '--name-only', '-z', '--no-renames', '--diff-filter=d', '--relative', remoteRef ?? EMPTY_TREE, head, '--', '.']))
    if (files.length === 0) return
    const ledger: Record<string, string> = files.includes('ledger.jsonl')
      ? { 'ledger.jsonl': newLedgerLines(await this.textAt(remoteRef, 'ledger.jsonl'), await this.textAt(head, 'ledger.jsonl')).join('\n') }
      : {}
    const findings = await this.scan(files, ledger)
    if (findings.length > 0) throw new MemoryError('INVALID_STATE', refusalMessage(findings, 'push'))
  }

  /** Pushes HEAD to the remote branch. False when the remote moved on meanwhile (fetch and merge again). */
  private async push(remoteRef: string | null): Promise<boolean> {
    const remote = this.result.remote
    const head = await this.head()
    if (remote === null || head === null) return true
    const from = remoteRef === null ? null : (await this.git.out(['rev-parse', remoteRef])).trim()
    if (from === head) return true
    this.progress('push', `pushing to ${remote.url} (${remote.branch})`)
    const r = await this.git.run(['push', '--porcelain', 'origin', `HEAD:refs/heads/${remote.branch}`], { network: true })
    if (r.code !== 0) {
      if (r.stdout.split('\n').some((l) => l.startsWith('!'))) return false
      throw gitFailure(['push', 'origin', remote.branch], r)
    }
    this.result.pushed = { from, to: head }
    const upstream = await this.git.run(['rev-parse', '-q', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'])
    if (upstream.code !== 0) await this.git.run(['branch', `--set-upstream-to=origin/${remote.branch}`])
    return true
  }
}

function conflictLines(conflicts: readonly SyncConflict[]): string {
  return conflicts.map((c) => `- conflict ${c.ids.join(' / ')}: ${c.reason} (${c.paths.join(', ')})`).join('\n')
}

/**
 * Syncs the store with its git remote: commit local changes, fetch, merge and settle, re-index
 * what changed, push. Without a remote it commits locally. Idempotent.
 */
export async function syncStore(backend: MemoryBackend, options: SyncOptions = {}): Promise<SyncResult> {
  await backend.init()
  const release = await takeSyncLock(backend.root, options.lockTimeoutMs ?? 120_000)
  try {
    return await new Syncer(backend, options).run()
  } finally {
    await release().catch(() => undefined)
  }
}
