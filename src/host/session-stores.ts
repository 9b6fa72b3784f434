/**
 * The project stores the DSH plugin serves: one per folder its sessions work in, each found by
 * the project's identity (stores/project-store.ts: the folder's own store, its repository's, or
 * the one last seen for the same origin), instead of the one store of the folder the plugin
 * loaded in. A call or a turn whose session names no folder (`session.header.cwd`) is served by
 * that load folder's store. Each folder is resolved once per process; each store is opened once,
 * so two worktrees of one repository share one backend (its lock, caches and queues). A folder is
 * recorded as a workspace in the personal store once its store holds memory.
 */

import path from 'node:path'
import type { ConsolidationModel } from '../memory/consolidation/model.js'
import { setConsolidationModel } from '../memory/consolidation/model.js'
import { setConfigBase, type RuntimeConfig } from '../memory/settings/config.js'
import type { MemoryBackend } from '../store/backend.js'
import { createFileBackend } from '../store/file-backend.js'
import { localProbes } from '../store/local-probes.js'
import { projectIdentity } from '../stores/project-id.js'
import { knownProjectsIn, noteWorkspace, resolveProjectStore, type ProjectStore } from '../stores/project-store.js'

/** The folder a session works in, from whatever carries it (`{ header: { cwd } }`, a session). */
export function folderOfSession(session: unknown): string | undefined {
  const cwd = (session as { header?: { cwd?: unknown } } | undefined)?.header?.cwd
  return typeof cwd === 'string' && path.isAbsolute(cwd) ? cwd : undefined
}

/** The folder of the session a tool call (`exec.agent.session`) or an assembly (`assembly.agent.session`) runs in. */
export function folderOfAgent(carrier: unknown): string | undefined {
  return folderOfSession((carrier as { agent?: { session?: unknown } } | undefined)?.agent?.session)
}

export class SessionStores {
  private readonly byRoot = new Map<string, MemoryBackend>()
  private readonly byFolder = new Map<string, ProjectStore>()
  private readonly projectIds = new Map<MemoryBackend, string>()
  private readonly noted = new Set<string>()
  private model: ConsolidationModel | null = null

  /**
   * `loaded` serves calls without a folder; `perSession` false (a configured root) serves every
   * call from it. `personal` is where workspaces are recorded (and read from, by its folder).
   */
  constructor(
    private readonly loaded: MemoryBackend,
    private readonly perSession: boolean,
    private readonly base: Partial<RuntimeConfig>,
    private readonly personal: MemoryBackend | undefined,
    private readonly track: (work: Promise<void>) => void,
  ) {
    this.byRoot.set(loaded.root, loaded)
    this.projectIds.set(loaded, projectIdentity(process.cwd()).id)
  }

  /** The store for a session folder (undefined: the load folder's). */
  storeFor(folder: string | undefined): MemoryBackend {
    if (!this.perSession || folder === undefined) return this.loaded
    const store = this.resolved(folder)
    let backend = this.byRoot.get(store.root)
    if (backend === undefined) {
      backend = createFileBackend(store.root, { probes: localProbes(folder), missingStore: 'empty' })
      setConfigBase(backend, this.base)
      setConsolidationModel(backend, this.model)
      this.byRoot.set(store.root, backend)
      this.projectIds.set(backend, store.identity.id)
    }
    this.note(folder, store)
    return backend
  }

  /** The project identity a store serves, for the personal store's ledger. */
  projectIdOf(backend: MemoryBackend): string | undefined {
    return this.projectIds.get(backend)
  }

  /** Every store opened so far. */
  opened(): MemoryBackend[] {
    return [...this.byRoot.values()]
  }

  /** The consolidation model of every store, those opened later too. */
  lendModel(model: ConsolidationModel | null): void {
    this.model = model
    for (const b of this.byRoot.values()) setConsolidationModel(b, model)
  }

  private resolved(folder: string): ProjectStore {
    const known = this.byFolder.get(folder)
    if (known !== undefined) return known
    const store = resolveProjectStore(folder, knownProjectsIn(this.personal?.root))
    this.byFolder.set(folder, store)
    return store
  }

  /** Records the folder as a workspace once: when its store exists (a later call notes it after the first write). */
  private note(folder: string, store: ProjectStore): void {
    const personal = this.personal
    if (personal === undefined || this.noted.has(folder)) return
    this.noted.add(folder)
    this.track(
      (async () => {
        // Not there yet (or not recorded): try again at the folder's next call.
        if (!(await noteWorkspace(personal, store, folder))) this.noted.delete(folder)
      })(),
    )
  }
}
