/**
 * Which store serves a folder, found by the project's identity (project-id.ts) rather than by the
 * folder alone, so a worktree or a clone by another URL of one repository finds the project's
 * memory. In order: the folder's own store (`<folder>/.agent/memory`) when it exists; the main
 * working tree's store, for a worktree; the store this machine last saw serve the same project
 * (the workspaces the personal store records, store/workspaces.ts), when it still exists; else the
 * folder's own store, to be made by its first write. Only adapters call it, with the folder they
 * chose; it asks git and looks at folders, read-only.
 */

import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { MemoryBackend } from '../store/backend.js'
import { WORKSPACES_FILE, knownProjects, parseSightings, recordWorkspace, type KnownProject } from '../store/workspaces.js'
import { projectIdentity, type ProjectIdentity } from './project-id.js'

/** Where a project's store lives inside its folder. */
export const PROJECT_STORE_DIR = path.join('.agent', 'memory')

export interface ProjectStore {
  /** The store's folder. */
  root: string
  identity: ProjectIdentity
  /** How it was found: the folder's own, the repository's (its main working tree, for a worktree or a subfolder), by origin from a workspace seen before, or new. */
  found: 'folder' | 'repository' | 'origin' | 'new'
}

function isDir(p: string): boolean {
  try {
    return existsSync(p)
  } catch {
    return false
  }
}

/** The projects recorded in a personal store's folder (read directly: resolution runs before any backend is opened). */
export function knownProjectsIn(userRoot: string | undefined): KnownProject[] {
  if (userRoot === undefined) return []
  try {
    return knownProjects(parseSightings(readFileSync(path.join(userRoot, WORKSPACES_FILE), 'utf8')))
  } catch {
    return []
  }
}

/** The store for `folder` (see the module comment); `known` are the workspaces seen before. */
export function resolveProjectStore(folder: string, known: readonly KnownProject[]): ProjectStore {
  const own = path.join(path.resolve(folder), PROJECT_STORE_DIR)
  const identity = projectIdentity(folder)
  if (isDir(own)) return { root: own, identity, found: 'folder' }
  const main = path.join(identity.root, PROJECT_STORE_DIR)
  if (main !== own && isDir(main)) return { root: main, identity, found: 'repository' }
  const seen = known.find((p) => p.project === identity.id)?.stores.find((s) => isDir(s.store))
  if (seen !== undefined) return { root: seen.store, identity, found: 'origin' }
  return { root: own, identity, found: 'new' }
}

/**
 * Records in the personal store that `folder` is served by `store`, once the project store exists
 * (a folder that never wrote is not a workspace yet) and while the personal store does (a read
 * never makes a store; its first write does). Whether the folder is on record now; never fails the
 * caller: a sighting not recorded is recorded the next time.
 */
export async function noteWorkspace(user: MemoryBackend, store: ProjectStore, folder: string): Promise<boolean> {
  if (!isDir(store.root) || !(await user.exists().catch(() => false))) return false
  try {
    await recordWorkspace(user, { project: store.identity.id, via: store.identity.via, store: store.root, folder: path.resolve(folder) })
    return true
  } catch {
    // Evidence, not state: the next time records it.
    return false
  }
}
