/**
 * The MCP adapter: the tools of `tools/index.ts` a profile selects (profile.ts) registered on an `McpServer` over one backend,
 * with zod schemas derived from the declarations (`zod.ts`), the read-only / destructive /
 * idempotent hints, and results as concise text plus `structuredContent`. A MemoryError becomes
 * an `isError` result led by its code; nothing is thrown out of a handler. Once connected, a
 * server left without tool calls for `consolidateIdleMs` consolidates the project store in the
 * background when a run is due (idle.ts). A client that declares `sampling` lends its model to
 * consolidation (sampling.ts) once initialised. Reads no configuration and starts no transport: `cli/`
 * does that.
 */

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { asMemoryError, isMemoryError } from '../errors.js'
import type { MemoryBackend } from '../store/backend.js'
import { routeTools, type PersonalStore } from '../stores/route.js'
import { renderValue } from '../tools/render/text.js'
import type { ToolDeclaration } from '../tools/declare/tool.js'
import { setConsolidationModel } from '../memory/consolidation/model.js'
import { IdleConsolidation } from './idle.js'
import { samplingModel } from './sampling.js'
import { setEmbedder, type Embedder } from '../retrieve/embedder.js'
import { selectTools, serverInstructions } from './profile.js'
import { permissiveInput, toZod } from './zod.js'

export const SERVER_NAME = 'dsh-memory-agent'
/** How long a server waits without a tool call before it consolidates (when a run is due). */
export const CONSOLIDATE_IDLE_MS = 30_000

export interface McpServerOptions {
  /** Milliseconds without a tool call before a due consolidation starts (default CONSOLIDATE_IDLE_MS); null: never. */
  consolidateIdleMs?: number | null
  /** The store's embedder for this server (flags, environment), over its config.json (retrieve/embedder.ts). */
  embedder?: Embedder
}

/** The MCP server and its idle work: `connect` serves over a transport, `close` ends both. */
export interface MemoryMcpServer {
  readonly mcp: McpServer
  connect(transport: Transport): Promise<void>
  /** Closes the server and waits for a consolidation in flight. */
  close(): Promise<void>
}

/** The one mapping of failures to MCP: an error result whose text starts with our code. */
function errorResult(thrown: unknown): CallToolResult {
  const err = asMemoryError(thrown)
  const text = isMemoryError(err) ? `${err.code}: ${err.message}` : `INTERNAL: ${err instanceof Error ? err.message : String(err)}`
  return { isError: true, content: [{ type: 'text', text }] }
}

async function call(tool: ToolDeclaration, backend: MemoryBackend, args: unknown, idle: IdleConsolidation | null): Promise<CallToolResult> {
  // The handler validates what the client sent (INVALID_INPUT naming the field), so it takes it as is.
  const untyped = tool as unknown as { handler(backend: MemoryBackend, input: unknown): Promise<Record<string, unknown>> }
  idle?.begin()
  try {
    const value = await untyped.handler(backend, args)
    return { content: [{ type: 'text', text: renderValue(tool.name, value) }], structuredContent: value }
  } catch (err) {
    return errorResult(err)
  } finally {
    idle?.end()
  }
}

/**
 * An MCP server offering tools (by default the core group, profile.ts) over backend (the project
 * store), and over the personal store too when one is given (src/stores/route.ts), with
 * instructions for the tools it serves; connect it to a transport to serve.
 */
export function createMcpServer(
  backend: MemoryBackend,
  version = '0.0.0',
  personal?: PersonalStore,
  tools: readonly ToolDeclaration[] = selectTools(),
  options: McpServerOptions = {},
): MemoryMcpServer {
  const idleMs = options.consolidateIdleMs === undefined ? CONSOLIDATE_IDLE_MS : options.consolidateIdleMs
  if (options.embedder !== undefined) setEmbedder(backend, options.embedder)
  const idle = idleMs === null ? null : new IdleConsolidation(backend, idleMs)
  const server = new McpServer({ name: SERVER_NAME, version }, { instructions: serverInstructions(tools) })
  for (const tool of personal !== undefined ? routeTools(tools, personal) : tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: permissiveInput(tool.input),
        outputSchema: toZod(tool.output),
        annotations: {
          title: tool.title,
          readOnlyHint: tool.annotations.readOnly,
          destructiveHint: tool.annotations.destructive,
          idempotentHint: tool.annotations.idempotent,
          // The store is a local folder: no tool reaches beyond it.
          openWorldHint: false,
        },
      },
      (args: unknown) => call(tool, backend, args, idle),
    )
  }
  // Capabilities are known once the client has initialised: its sampling, if offered, is the consolidation model.
  server.server.oninitialized = () => {
    const model = samplingModel(server.server)
    for (const b of [backend, personal?.user]) if (b !== undefined) setConsolidationModel(b, model)
  }
  return {
    mcp: server,
    async connect(transport) {
      await server.connect(transport)
      idle?.arm()
    },
    async close() {
      await server.close()
      await idle?.close()
    },
  }
}
