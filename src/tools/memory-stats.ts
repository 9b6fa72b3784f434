/** memory_stats: the store in numbers: memories by status and kind, its size on disk, its last write, its index and vectors. */

import { storeStats, type StoreStats } from '../memory/reading/stats.js'
import type { MemoryBackend } from '../store/backend.js'
import { vectorDiagnostics, type VectorDiagnostics } from '../retrieve/vectors.js'
import { vectorDiagnosticsShape } from './declare/vector-shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

/** The store's stats with its vectors' counts when an embedder is set. */
async function statsWithVectors(backend: MemoryBackend): Promise<StoreStats & { embeddings?: VectorDiagnostics }> {
  const stats = await storeStats(backend)
  const embeddings = await vectorDiagnostics(backend)
  return embeddings === null ? stats : { ...stats, embeddings }
}

const count = { type: 'integer', minimum: 0 } as const
const byStatus = {
  type: 'object',
  description: 'Memories by status (raw text not counted).',
  properties: { active: count, suggested: count, superseded: count, conflict: count, deleted_pending: count, orphaned: count, archived: count },
  required: ['active', 'suggested', 'superseded', 'conflict', 'deleted_pending', 'orphaned', 'archived'],
  additionalProperties: false,
} as const
const byKind = {
  type: 'object',
  description: 'Index entries by kind, raw text included.',
  properties: { summary: count, episode: count, raw: count, topic: count },
  required: ['summary', 'episode', 'raw', 'topic'],
  additionalProperties: false,
} as const

export const memoryStatsTool = defineTool(
  {
    name: 'memory_stats',
    title: 'Store statistics',
    group: 'browse',
    description:
      'The store in numbers: memories by status (active, suggested, superseded, conflict, deleted_pending, orphaned, archived) and by kind (topic, episode, summary, raw), with two stores by store too; files and bytes on disk, the time of the last write, whether the index was up to date, and the vectors when an embedder is set.',
    input: { type: 'object', properties: {}, additionalProperties: false },
    output: {
      type: 'object',
      properties: {
        total: { ...count, description: 'Memories of every status, raw text not counted on its own.' },
        searchable: { ...count, description: 'What search and injection can return: active and conflict.' },
        suggested: count,
        conflict: count,
        pendingCleanup: { ...count, description: 'Forgotten (deleted_pending), files on disk until purged.' },
        orphaned: count,
        pendingTopics: count,
        archived: count,
        byStatus,
        byKind,
        byStore: { type: 'object', description: 'With two stores: memories in each.', properties: { project: count, user: count }, required: ['project', 'user'], additionalProperties: false },
        size: {
          type: 'object',
          properties: { files: count, bytes: count, indexBytes: count, ledgerBytes: count },
          required: ['files', 'bytes', 'indexBytes', 'ledgerBytes'],
          additionalProperties: false,
        },
        lastWrite: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'When the latest write happened; null when none is recorded.' },
        index: {
          type: 'object',
          properties: {
            entries: count,
            state: { type: 'string', enum: ['fresh', 'refreshed'], description: 'fresh: the index was up to date; refreshed: it took in files changed by hand.' },
            changed: { ...count, description: 'Memory files changed outside the program that this call took in.' },
            skippedLines: { ...count, description: 'index.jsonl lines that did not parse.' },
          },
          required: ['entries', 'state', 'changed', 'skippedLines'],
          additionalProperties: false,
        },
        embeddings: vectorDiagnosticsShape,
      },
      required: ['total', 'searchable', 'suggested', 'conflict', 'pendingCleanup', 'orphaned', 'pendingTopics', 'archived', 'byStatus', 'byKind', 'size', 'lastWrite', 'index'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
  },
  (backend) => statsWithVectors(backend),
)

export const statsHandler = memoryStatsTool.handler
