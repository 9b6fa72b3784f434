/**
 * The DSH plugin entry (`dsh-memory-agent`, loaded by cordis from cordis.patch.yml): `name`,
 * `inject`, `Config` and `apply`. `apply` only wires: it opens the file backend (the host adapter
 * is the one place that reads the environment and the working directory, for the store root and
 * the anchor probes) and, without a configured root, the store of each session's folder as its
 * calls and turns come (session-stores.ts; heartbeat, watcher and panel stay on the load
 * folder's store), registers every tool of TOOLS with the host's tool registry, registers the
 * synchronous resident-injection context `memory-agent:recall` (project and personal store; it also
 * beats the heartbeat: auto-settle, and consolidation of the project store when it is due), while
 * the host offers `sessions` the session hooks, and while it offers `webServer` the settings
 * panel's API route `POST /memory-agent/api` (whose `backfill` reads those sessions), and while it
 * offers `llm` the consolidation model of both stores (llm.ts; `consolidationModel`). Everything
 * is undone with the fiber: registrations are effects of it, and one more effect lets background
 * work finish and flushes the caches. All state is on disk: the host runs `apply` again whenever
 * an injected service restarts, and nothing but caches is lost.
 *
 * Only this module tree imports `@deepseek-ai/*` packages; the library API (`dsh-memory-agent/api`)
 * never loads them.
 */

import os from 'node:os'
import path from 'node:path'
import { Heartbeat } from './heartbeat.js'
import type { HostContext, HostSession, SessionStore, WebServer } from './host-types.js'
import { API_PATH } from './api.js'
import { apiRouteHandler, storeApiDeps } from './http.js'
import { panelKey, panelLink } from './panel-key.js'
import { PluginConfig, runtimeBase } from './config.js'
import { dshTool, loadDshTools } from './tools.js'
import { hostModel, isDefaultModelService, isLlmService, parseModelSetting } from './llm.js'
import { isUserTyped, messageText, type HostMessage } from '../lifecycle/auto-settle.js'
import { setConsolidationModel } from '../memory/consolidation/model.js'
import { setConfigBase } from '../memory/settings/config.js'
import { flushCaches } from '../retrieve/retriever.js'
import type { MemoryBackend } from '../store/backend.js'
import { createFileBackend } from '../store/file-backend.js'
import { localProbes } from '../store/local-probes.js'
import { warnOnce } from '../store/warn-once.js'
import { watchStore } from '../store/watcher.js'
import { TOOLS } from '../tools/index.js'
import { SessionStores, folderOfAgent, folderOfSession } from './session-stores.js'
import { residentInjection } from '../stores/inject.js'
import { routeTools, storeByKind, type PersonalStore } from '../stores/route.js'

export const name = 'dsh-memory-agent'

/**
 * The services apply needs. cordis 4 has no optional injection (every name here must be present
 * before apply runs), so `sessions` and `webServer`, which a host may lack, are taken with
 * `ctx.inject` inside apply: a child fiber that lives while the service does.
 */
export const inject = ['tools', 'systemPrompt']

export const Config = PluginConfig
export type Config = PluginConfig

/** The context's name in the system prompt; order 800 puts it after the host's own runtime context. */
const RECALL_CONTEXT = 'memory-agent:recall'
const RECALL_ORDER = 800

function isSessionStore(value: unknown): value is SessionStore {
  return typeof value === 'object' && value !== null && typeof (value as { list?: unknown }).list === 'function'
}

function isWebServer(value: unknown): value is WebServer {
  return typeof value === 'object' && value !== null && typeof (value as { register?: unknown }).register === 'function'
}

function isSession(value: unknown): value is HostSession {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string'
}

/**
 * A user-role message that asks for work: any producer of kind "user" (the chat box, a headless
 * or SDK task, a /plan prompt), unlike auto-settle's stricter rule for what the person typed.
 */
function isTask(message: HostMessage): boolean {
  return message.role === 'user' && (message.source === undefined ? isUserTyped(message) : message.source.kind === 'user')
}

/**
 * The text of the latest task message of the session whose turn is being assembled, the cue
 * that guard memories' triggers are matched against; undefined when the assembly names no agent
 * with a session (a preview, another host) or deriving fails. The host assembles a turn's first
 * context before it appends the task, so a guard shows from the turn's second step on.
 */
function turnCue(assembly: unknown): string | undefined {
  const session = (assembly as { agent?: { session?: unknown } } | undefined)?.agent?.session
  if (!isSession(session)) return undefined
  try {
    const messages = session.deriveMessages()
    const last = [...messages].reverse().find(isTask)
    return last === undefined ? undefined : messageText(last)
  } catch {
    // A session that cannot derive its messages just gives no cue.
    return undefined
  }
}

/** The store root: `root` from the config (relative to the cwd), else `<cwd>/.agent/memory`. */
function storeRoot(config: Pick<Config, 'root'>, cwd: string): string {
  return path.resolve(cwd, config.root ?? path.join('.agent', 'memory'))
}

function openBackend(config: Config): MemoryBackend {
  const cwd = process.cwd()
  // No root configured: the project's default store, which a first search finds not written yet (store/existing.ts).
  return createFileBackend(storeRoot(config, cwd), { probes: localProbes(cwd), missingStore: (config.root ?? null) === null ? 'empty' : 'not-found' })
}

/**
 * The personal store beside the project store (`userRoot`, `~` for the home folder; null: none);
 * the project identity recorded when a write goes there is each project store's (session-stores.ts).
 */
function openPersonal(config: Pick<Config, 'userRoot'>, backend: MemoryBackend): PersonalStore | undefined {
  if (config.userRoot === null) return undefined
  const root = path.resolve(config.userRoot.replace(/^~(?=$|[\\/])/, os.homedir()))
  // One folder configured as both stores is one store.
  if (root === backend.root) return undefined
  return { user: createFileBackend(root, { probes: backend.probes ?? {} }) }
}

export async function apply(ctx: HostContext, config: Config): Promise<void> {
  const backend = openBackend(config)
  setConfigBase(backend, runtimeBase(config))
  const personal = openPersonal(config, backend)
  if (personal !== undefined) setConfigBase(personal.user, runtimeBase(config))
  const dsh = await loadDshTools()
  const pending = new Set<Promise<void>>()
  const track = (work: Promise<void>) => {
    const done = work.catch((err: unknown) => warnOnce(backend, 'session attach/detach not logged', err, 'the ledger goes without these events'))
    pending.add(done)
    void done.finally(() => pending.delete(done))
  }
  // Without a configured root, each session is served the store of its own folder (session-stores.ts).
  const stores = new SessionStores(backend, (config.root ?? null) === null, runtimeBase(config), personal?.user, track)
  const routed = personal !== undefined ? routeTools(TOOLS, { user: personal.user, projectId: (b) => stores.projectIdOf(b) }) : TOOLS
  // Each registration is an effect of this fiber: disposing the plugin removes it.
  for (const tool of routed) ctx.tools.register(dshTool(tool, (exec) => stores.storeFor(folderOfAgent(exec)), dsh))

  const heartbeat = new Heartbeat(backend, config.lifecycle.autoSettle)

  let sessions: SessionStore | undefined
  ctx.inject(['sessions'], (sctx) => {
    const store = sctx.sessions
    if (!isSessionStore(store)) return
    sctx.effect(() => {
      sessions = store
      return () => {
        sessions = undefined
      }
    }, 'memory-agent: sessions for auto-settle')
    if (config.lifecycle.enabled && config.lifecycle.audit) {
      const audit = (event: string) => (session: unknown) => {
        if (!isSession(session)) return
        track(backend.withLock(() => backend.appendLedger({ at: backend.now(), event, session_id: session.id, source: 'plugin' })))
      }
      sctx.on('session/created', audit('lifecycle/attach'))
      sctx.on('session/disposed', audit('lifecycle/detach'))
    }
  })

  // The panel API, while the host serves the web UI. The panel key reaches the browser only in
  // the fragment of the link printed here (or pasted from `memory-agent panel-key`).
  ctx.inject(['webServer'], (wctx) => {
    const server = wctx.webServer
    if (!isWebServer(server)) return
    const key = panelKey(backend.root)
    // Backfill reads the sessions tracked above and routes memories as write_memory does.
    const loadedProjectId = stores.projectIdOf(backend)
    const deps = {
      ...storeApiDeps(backend, key),
      sessions: () => sessions,
      // The panel shows and routes over both stores, as the tools registered above do.
      ...(personal !== undefined ? { user: personal.user, ...(loadedProjectId !== undefined ? { projectId: loadedProjectId } : {}) } : {}),
      // Each session's memories go to the store of the folder it worked in (or the personal store, by kind).
      backfillStoreFor: (classes: readonly string[], sessionId: string) => {
        const project = stores.storeFor(folderOfSession(sessions?.list().find((s) => s.id === sessionId)))
        return personal !== undefined ? storeByKind({ project, user: personal.user })(classes) : project
      },
    }
    const handler = apiRouteHandler(deps)
    wctx.effect(() => server.register({ kind: 'exact', path: API_PATH, handler }), 'memory-agent: panel API route')
    if (server.port !== undefined) {
      const host = server.host === '0.0.0.0' ? '127.0.0.1' : server.host
      console.info(`dsh-memory-agent: memory panel (Settings → Memory) unlocks with ${panelLink(`http://${host}:${server.port}/`, key)}`)
    }
  })

  // Consolidation's model: the host's LLM service on the configured route, for as long as it (and,
  // for "auto", the host's default-model service) is there; without it, the deterministic path.
  const modelSetting = parseModelSetting(config.consolidationModel)
  // A configuration mistake never stops memory from working: it consolidates without a model.
  if (modelSetting === null) console.warn(`dsh-memory-agent: consolidationModel: expected "auto", "off" or "provider/model", got ${JSON.stringify(config.consolidationModel)}; consolidating without a model`)
  const lendModel = (deps: Array<'llm' | 'agentDefaultModel'>, route: (mctx: object) => (() => { provider: string; model: string }) | null) =>
    ctx.inject(deps, (mctx) => {
      const llm = mctx.llm
      const pick = route(mctx)
      if (!isLlmService(llm) || pick === null) return
      const model = hostModel(llm, pick, name)
      mctx.effect(() => {
        stores.lendModel(model)
        if (personal !== undefined) setConsolidationModel(personal.user, model)
        return () => {
          stores.lendModel(null)
          if (personal !== undefined) setConsolidationModel(personal.user, null)
        }
      }, 'memory-agent: consolidation model')
    })
  if (modelSetting === 'auto') {
    lendModel(['llm', 'agentDefaultModel'], (mctx) => {
      const defaults = (mctx as { agentDefaultModel?: unknown }).agentDefaultModel
      return isDefaultModelService(defaults) ? () => defaults.currentSelection() : null
    })
  } else if (modelSetting !== 'off' && modelSetting !== null) {
    lendModel(['llm'], () => () => modelSetting)
  }

  ctx.systemPrompt.context({
    name: RECALL_CONTEXT,
    order: RECALL_ORDER,
    // Synchronous by the host's contract; residentInjection never throws and neutralises `{{`.
    // The personal store's memories follow the person into every project, in the same budget.
    text: (assembly) => {
      heartbeat.tick(sessions)
      return residentInjection(stores.storeFor(folderOfAgent(assembly)), personal?.user, { cue: turnCue(assembly) }).text
    },
  })

  ctx.effect(() => {
    // Vouches for the project store while the host runs (store/watcher.ts).
    const watching = watchStore(backend, (err) => warnOnce(backend, 'the store watcher failed', err, 'processes started meanwhile check every file'))
    return async () => (await watching)()
  }, 'memory-agent: watch the store')

  ctx.effect(
    () => async () => {
      await Promise.all([heartbeat.idle(), ...pending])
      for (const b of stores.opened()) await flushCaches(b)
      if (personal !== undefined) await flushCaches(personal.user)
    },
    'memory-agent: finish background work, flush caches',
  )
}
