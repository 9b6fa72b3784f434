/** memory_purge: remove a forgotten memory for good, its text everywhere in the store included. */

import { purgeMemory } from '../memory/forgetting/purge-memory.js'
import { digestChangesShape, idInput, idList } from './declare/shapes.js'
import { defineTool } from './declare/tool.js'

export const memoryPurgeTool = defineTool(
  {
    name: 'memory_purge',
    title: 'Purge a forgotten memory',
    group: 'curate',
    description:
      'Remove a forgotten (deleted_pending) memory from disk for good, with its raw text and what the same memory_forget took: files removed, its text in ledger.jsonl replaced by a marker (the events themselves stay), index.jsonl compacted, usage and query logs, digests and the search-index cache scrubbed. ' +
      'remaining lists files that still hold the value. Cannot be undone; forget first.',
    input: idInput,
    output: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        purged: { ...idList, description: 'Ids removed from disk (raw text included).' },
        removed_paths: { type: 'array', items: { type: 'string' } },
        redacted_events: { type: 'integer', description: 'Ledger events whose text was replaced by the marker.' },
        scrubbed: {
          type: 'object',
          properties: {
            usage_lines: { type: 'integer' },
            query_lines: { type: 'integer' },
            digests: digestChangesShape,
            index_compacted: { type: 'boolean' },
            search_index_rebuilt: { type: 'boolean' },
          },
          required: ['usage_lines', 'query_lines', 'digests', 'index_compacted', 'search_index_rebuilt'],
          additionalProperties: false,
        },
        remaining: { type: 'array', items: { type: 'string' }, description: 'Files under the root that still hold the value.' },
        already_purged: { type: 'boolean' },
        guidance: { type: 'string' },
      },
      required: ['id', 'purged', 'removed_paths', 'redacted_events', 'scrubbed', 'remaining', 'already_purged', 'guidance'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, idempotent: true },
    cli: { argument: 'id' },
  },
  (backend, input) => purgeMemory(backend, input.id),
)

export const purgeHandler = memoryPurgeTool.handler
