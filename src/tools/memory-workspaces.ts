/** memory_workspaces: the projects this machine has worked in, their stores and the folders they were opened from. */

import type { MemoryBackend } from '../store/backend.js'
import { readWorkspaces, type KnownProject } from '../store/workspaces.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

const via = { type: 'string', enum: ['git-origin', 'path'], description: 'git-origin: named by its normalised origin (host/owner/repo); path: by the sha256 of its folder.' } as const

export const memoryWorkspacesTool = defineTool(
  {
    name: 'memory_workspaces',
    title: 'Workspaces',
    group: 'browse',
    description:
      'The projects this machine has worked in, most recent first: each project by its identity (the git origin normalised, so ssh and https clones and worktrees of one repository are one project), the project stores that served it and the folders they were opened from. A folder with no store of its own uses its repository\'s, else the one last seen for the same origin. Kept in the personal store.',
    input: {
      type: 'object',
      properties: {
        project: { type: 'string', minLength: 1, maxLength: 300, description: 'Only this project (its identity, such as github.com/owner/repo).' },
      },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        projects: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              project: { type: 'string' },
              via,
              last_seen: { type: 'string' },
              stores: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    store: { type: 'string', description: 'The project store\'s folder.' },
                    folders: { type: 'array', items: { type: 'string' }, description: 'Folders it served, most recent first.' },
                    last_seen: { type: 'string' },
                  },
                  required: ['store', 'folders', 'last_seen'],
                  additionalProperties: false,
                },
              },
            },
            required: ['project', 'via', 'last_seen', 'stores'],
            additionalProperties: false,
          },
        },
        guidance: { type: 'string' },
      },
      required: ['projects', 'guidance'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'project' },
  },
  (backend, input) => workspacesAnswer(backend, input.project),
  () => noWorkspacesYet(),
)

const NONE_YET = 'No workspaces recorded yet: a folder is recorded in the personal store the first time it is served with a project store that holds memory.'

/** The answer where the store that records workspaces does not exist yet: nothing recorded, which is no error. */
export function noWorkspacesYet(): { projects: KnownProject[]; guidance: string } {
  return { projects: [], guidance: NONE_YET }
}

/** The recorded projects, one of them with `project`, and what to make of them. */
async function workspacesAnswer(backend: MemoryBackend, project: string | undefined): Promise<{ projects: KnownProject[]; guidance: string }> {
  const all = await readWorkspaces(backend)
  const projects = project === undefined ? all : all.filter((p) => p.project === project)
  const guidance =
    projects.length > 0
      ? `${projects.length} project(s). A folder of one of them (a worktree, a clone by another URL) finds its store by the project's identity.`
      : project !== undefined && all.length > 0
        ? `No workspace of ${project} recorded; known: ${all.map((p) => p.project).join(', ')}.`
        : NONE_YET
  return { projects, guidance }
}

export const workspacesHandler = memoryWorkspacesTool.handler
