/**
 * The parts of the DSH host (cordis context, `@deepseek-ai/dsh-tools`, `@deepseek-ai/dsh-system-prompt`,
 * `@deepseek-ai/dsh-session`, rc.8) that this plugin touches, declared structurally so that no
 * host type, and no `any`, crosses into the plugin's modules. Types only: nothing here runs.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { HostMessage } from '../lifecycle/auto-settle.js'

/** A block of model-facing tool content; the plugin only ever produces text. */
export interface TextBlock {
  type: 'text'
  text: string
}

/** One node of the JSON-Schema subset the DSH tool registry accepts (`assertSupportedJsonSchema`). */
export interface JsonSchemaNode {
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null'
  oneOf?: JsonSchemaNode[]
  properties?: Record<string, JsonSchemaNode>
  required?: string[]
  additionalProperties?: boolean
  items?: JsonSchemaNode
  enum?: (string | number | boolean | null)[]
  description?: string
  default?: unknown
}

/** The raw tool definition the registry takes (`ToolDefinition`), as far as this plugin fills it. */
export interface DshToolDefinition {
  name: string
  description: string
  parameters: JsonSchemaNode
  output: {
    schema: JsonSchemaNode
    render(args: unknown, value: unknown): TextBlock[]
  }
  execute(args: unknown, exec: unknown): Promise<unknown>
}

/** `ctx.tools` (ToolRuntime): registration is an effect of the calling fiber. */
export interface ToolRegistry {
  register(definition: DshToolDefinition): () => void
}

/**
 * `ctx.systemPrompt` (SystemPrompt): context providers are called synchronously on every assembly,
 * with the assembly's context (`AssembleContext`; the agent loop passes `{ agent, scope, signal }`,
 * and its agent carries `session`). Unknown: only ever probed structurally.
 */
export interface PromptRegistry {
  context(context: { name: string; order: number; text: (assembly?: unknown) => string }): () => void
}

/** A live session of `ctx.sessions`; its messages are deep-frozen and shared with the host. */
export interface HostSession {
  readonly id: string
  deriveMessages(): readonly HostMessage[]
}

/** `ctx.sessions` (SessionStore). */
export interface SessionStore {
  list(): readonly HostSession[]
}

/** What a cordis effect may hand back to run when it is undone. */
export type Disposer = () => void | Promise<void>

/** The cordis context of a fiber, as far as the plugin uses it. */
export interface FiberContext {
  /** Runs `execute` now and its disposer when the fiber is disposed (or the returned function is called). */
  effect(execute: () => Disposer, label?: string): () => void
  /** Listens to an app event for as long as the fiber lives. */
  on(event: string, listener: (...args: unknown[]) => void): () => void
  /**
   * Runs `callback` in a child fiber while every named service is available, and disposes that
   * fiber when one goes away: the cordis way to use a service that may be absent.
   */
  inject<K extends string>(deps: K[], callback: (ctx: FiberContext & { readonly [P in K]: unknown }) => void): unknown
}

/** The context `apply` receives: the services the plugin declares in `inject` are always there. */
export interface HostContext extends FiberContext {
  readonly tools: ToolRegistry
  readonly systemPrompt: PromptRegistry
}

/** A route of `ctx.webServer` (`@deepseek-ai/dsh-host-webserver`): the handler owns the response. */
export interface WebRoute {
  kind: 'exact' | 'prefix'
  path: string
  handler(req: IncomingMessage, res: ServerResponse): Promise<void>
}

/** `ctx.webServer`: `register` is a plain call (not an effect of the caller) and returns its disposer. */
export interface WebServer {
  register(route: WebRoute): () => void
  /** The listening port and bind host, known once the service is up. */
  readonly port: number | undefined
  readonly host: string
}
