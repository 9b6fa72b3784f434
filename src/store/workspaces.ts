/**
 * The workspaces this machine has seen, kept in the personal store: which folders a project was
 * worked in and which store served it, one appended line per new sighting in
 * `.cache/workspaces.jsonl` (`{ at, project, via, store, folder }`). Under `.cache/` because the
 * folders are this machine's (never synced or exported) and because it is an observation, not
 * truth: deleted, it is recorded again the next time each folder is opened. It is what lets a
 * clone of a repository by another URL, somewhere else on disk, find the project's store
 * (stores/project-store.ts). Parsing is pure; reading and appending go through the backend.
 */

import type { MemoryBackend } from './backend.js'
import { jsonLine } from '../redact.js'

export const WORKSPACES_FILE = '.cache/workspaces.jsonl'

export interface WorkspaceSighting {
  at: string
  /** The project identity (stores/project-id.ts): `host/owner/repo`, or `path:<sha256>`. */
  project: string
  via: 'git-origin' | 'path'
  /** The project store's folder that served it. */
  store: string
  /** The folder it was opened from (a checkout, a worktree, a clone). */
  folder: string
}

export interface KnownStore {
  store: string
  folders: string[]
  last_seen: string
}

export interface KnownProject {
  project: string
  via: 'git-origin' | 'path'
  /** Most recently seen first. */
  stores: KnownStore[]
  last_seen: string
}

function isSighting(v: unknown): v is WorkspaceSighting {
  if (typeof v !== 'object' || v === null) return false
  const s = v as Record<string, unknown>
  return typeof s['at'] === 'string' && typeof s['project'] === 'string' && (s['via'] === 'git-origin' || s['via'] === 'path') && typeof s['store'] === 'string' && typeof s['folder'] === 'string'
}

/** The sightings a file holds, oldest first; a torn or foreign line is skipped. Pure. */
export function parseSightings(text: string | null): WorkspaceSighting[] {
  const out: WorkspaceSighting[] = []
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue
    try {
      const v: unknown = JSON.parse(line)
      if (isSighting(v)) out.push(v)
    } catch {
      // A line a crash tore: the folder is recorded again when it is next opened.
    }
  }
  return out
}

/** The projects the sightings name, each with its stores and their folders, most recent first. Pure. */
export function knownProjects(sightings: readonly WorkspaceSighting[]): KnownProject[] {
  const projects = new Map<string, { via: KnownProject['via']; stores: Map<string, { folders: Map<string, string>; last: string }>; last: string }>()
  for (const s of sightings) {
    const p = projects.get(s.project) ?? { via: s.via, stores: new Map(), last: s.at }
    projects.set(s.project, p)
    const st = p.stores.get(s.store) ?? { folders: new Map(), last: s.at }
    p.stores.set(s.store, st)
    const seen = st.folders.get(s.folder)
    if (seen === undefined || s.at > seen) st.folders.set(s.folder, s.at)
    if (s.at > st.last) st.last = s.at
    if (s.at > p.last) p.last = s.at
  }
  const latestFirst = <T extends { last_seen: string }>(a: T, b: T) => b.last_seen.localeCompare(a.last_seen)
  return [...projects.entries()]
    .map(([project, p]) => ({
      project,
      via: p.via,
      last_seen: p.last,
      stores: [...p.stores.entries()]
        .map(([store, st]) => ({ store, last_seen: st.last, folders: [...st.folders.entries()].sort((a, b) => b[1].localeCompare(a[1]) || a[0].localeCompare(b[0])).map(([f]) => f) }))
        .sort((a, b) => latestFirst(a, b) || a.store.localeCompare(b.store)),
    }))
    .sort((a, b) => latestFirst(a, b) || a.project.localeCompare(b.project))
}

export async function readWorkspaces(backend: MemoryBackend): Promise<KnownProject[]> {
  return knownProjects(parseSightings(await backend.readFile(WORKSPACES_FILE).catch(() => null)))
}

/**
 * Records that `folder` was served by `store` for `project`, unless that sighting is known already
 * (so the file grows with new folders, not with every start). Appended without the lock, as a
 * shared log.
 */
export async function recordWorkspace(backend: MemoryBackend, sighting: Omit<WorkspaceSighting, 'at'>): Promise<boolean> {
  const known = parseSightings(await backend.readFile(WORKSPACES_FILE).catch(() => null))
  if (known.some((s) => s.project === sighting.project && s.store === sighting.store && s.folder === sighting.folder)) return false
  await backend.appendLog(WORKSPACES_FILE, `${jsonLine({ at: backend.now(), ...sighting })}\n`)
  return true
}
