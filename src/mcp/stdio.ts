/**
 * Serving the MCP server over stdio until the client goes away: stdout carries the protocol and
 * nothing else (diagnostics go to stderr), and the end of stdin, SIGTERM or SIGINT close the
 * server (waiting for a background consolidation in flight) and flush the search caches before
 * the process ends. Called by the CLI, which chose the root.
 */

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { flushCaches } from '../retrieve/retriever.js'
import type { MissingStore } from '../store/existing.js'
import { createFileBackend } from '../store/file-backend.js'
import { watchStore } from '../store/watcher.js'
import { noteWorkspace, type ProjectStore } from '../stores/project-store.js'
import type { PersonalStore } from '../stores/route.js'
import type { ToolDeclaration } from '../tools/declare/tool.js'
import { createMcpServer, type McpServerOptions } from './server.js'

/** How long the process may take to end by itself once closed, before it is ended. */
const EXIT_GRACE_MS = 2000

/** Serves tools over project.root (the project store), with the personal store at personal.root when given. */
export async function serveStdio(
  project: { root: string; missingStore: MissingStore; workspace?: { store: ProjectStore; folder: string } },
  version: string,
  personal: { root: string; projectId: string } | undefined,
  tools: readonly ToolDeclaration[],
  options: McpServerOptions = {},
): Promise<void> {
  const backend = createFileBackend(project.root, { missingStore: project.missingStore })
  const user: PersonalStore | undefined = personal !== undefined ? { user: createFileBackend(personal.root), projectId: personal.projectId } : undefined
  const server = createMcpServer(backend, version, user, tools, options)
  // The folder is recorded as a workspace once its store holds memory: at start, or at the close after its first write.
  const noteFolder = async () => {
    if (user !== undefined && project.workspace !== undefined) await noteWorkspace(user.user, project.workspace.store, project.workspace.folder)
  }
  void noteFolder()
  // Vouches for the project store while serving (store/watcher.ts); started beside the handshake.
  const watching = watchStore(backend, (err) => process.stderr.write(`memory-agent mcp: watching: ${err instanceof Error ? err.message : String(err)}\n`))
  let closing: Promise<void> | undefined
  const close = (why: string): Promise<void> => {
    closing ??= (async () => {
      try {
        await server.close()
        await noteFolder()
        await (await watching)()
        await flushCaches(backend)
        if (user !== undefined) await flushCaches(user.user)
      } catch (err) {
        process.stderr.write(`memory-agent mcp: closing after ${why}: ${err instanceof Error ? err.message : String(err)}\n`)
        process.exitCode = 1
      }
      // Whatever still holds the event loop (a stale timer, a half-closed pipe) must not keep a
      // server without a client alive.
      setTimeout(() => process.exit(), EXIT_GRACE_MS).unref()
    })()
    return closing
  }
  process.stdin.once('end', () => void close('end of input'))
  // Kept, not `once`: a library loaded later (proper-lockfile's signal-exit) re-raises a signal
  // it finds no other listener for, which would end the process before close() has flushed.
  process.on('SIGTERM', () => void close('SIGTERM'))
  process.on('SIGINT', () => void close('SIGINT'))
  await server.connect(new StdioServerTransport())
  process.stderr.write(
    `memory-agent mcp: serving ${tools.length} tools over ${project.root}${personal !== undefined ? ` and the personal store ${personal.root}` : ''} over stdio\n`,
  )
}
