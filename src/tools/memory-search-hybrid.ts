/** memory_search_hybrid: BM25 keyword search with aliases over the summary layer. */

import { asOfField } from '../memory/time/as-of.js'
import { nothingStoredAnswer, searchMemories } from '../memory/reading/search.js'
import { SEARCH_REASONS } from '../retrieve/search-outcome.js'
import { nothingStoredYet } from '../store/existing.js'
import { BRIEF_REQUIRED, briefFields } from './declare/shapes.js'
import { evidenceField, guardShape, scopeField } from './declare/claim-shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'
import { sessionIdField } from './declare/shapes.js'

const stringList = (what: string) => ({ type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 32, description: what }) as const

export const memorySearchHybridTool = defineTool(
  {
    name: 'memory_search_hybrid',
    title: 'Search memory',
    group: 'core',
    description:
      'Find memories by keywords in Chinese or English, over titles, summaries, tags and entities; only current memories. Filter by tags, entities and time_range. Codes (D-387, a commit sha, 1.2.3) match exactly and rank first. Linked memories follow the hits. With no hits, guidance says what the store holds: rephrase or browse before concluding nothing was saved.',
    input: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: 2000, description: 'Words to look for; empty to browse by filters only.' },
        tags: stringList('Only memories with all of these tags.'),
        entities: stringList('Only memories about all of these entities.'),
        time_range: {
          type: 'object',
          properties: {
            from: { type: 'string', maxLength: 64, description: 'ISO-8601 start, inclusive.' },
            to: { type: 'string', maxLength: 64, description: 'ISO-8601 end, inclusive.' },
          },
          additionalProperties: false,
          description: 'Only memories whose time is in this closed range.',
        },
        top_k: { type: 'integer', minimum: 1, maximum: 200, default: 10, description: 'How many hits at most (capped by the store setting maxTopK).' },
        asOf: asOfField,
        scope: { ...scopeField, description: 'Your premises, "key=value; key=value": memories whose premises conflict with them are left out (scopeExcluded counts them).' },
        session_id: { ...sessionIdField, description: 'Your session: the answer is registered as an evidence batch of it, for memory_assess.' },
        room: {
          type: 'string',
          maxLength: 64,
          description: 'One room, or a kind (topics) for all its rooms.',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        hits: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              ...briefFields,
              tags: { type: 'array', items: { type: 'string' } },
              score: { type: 'number' },
              reason: {
                type: 'string',
                enum: ['match', 'alias', 'meaning', 'linked'],
                description: 'meaning: found by the embedder only, sharing no search word; linked: not a match, but linked to the hit linked_from names.',
              },
              location: { type: 'string', description: 'Where it stands in the palace, room#slot.' },
              linked_from: { type: 'string', description: 'For reason linked: the hit it is linked to (either way).' },
              similarity: { type: 'number', description: 'Cosine similarity to the query, when the embedder found it.' },
              literalMatch: { type: 'integer', description: 'Identifiers the query shares with this memory, matched exactly; such hits come first.' },
              sources: {
                type: 'array',
                items: { type: 'string' },
                description: 'For a memory made from others (a folded exchange, a promoted topic, a session summary): their ids, those matching the query best first; open the first to read the turn itself.',
              },
              scope: { type: 'string', description: 'The premises under which this memory holds.' },
              evidence: { ...evidenceField, description: 'For a memory with evidence: verified (passed, fresh) or asserted.' },
              retracted_by: { type: 'string', description: 'The retraction that withdrew this memory: do not rely on it.' },
              ref: { type: 'string', description: 'Evidence ref of this hit in batch_id, for memory_assess.' },
            },
            required: [...BRIEF_REQUIRED, 'tags', 'score', 'reason', 'ref'],
            additionalProperties: false,
          },
        },
        guidance: { type: 'string', description: 'What to do next, for the agent.' },
        alias_hits: { type: 'integer' },
        eligible: { type: 'integer', description: 'Searchable memories that passed the filters.' },
        common_tags: { type: 'array', items: { type: 'string' }, description: 'On zero hits: tags to retry with.' },
        reason: { type: 'string', enum: SEARCH_REASONS, description: 'Why the answer holds what it holds.' },
        nearMisses: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              path: { type: 'string' },
              title: { type: 'string' },
              summary: { type: 'string' },
              score: { type: 'number' },
              shared: { type: 'array', items: { type: 'string' }, description: 'The single characters it shares with the query.' },
            },
            required: ['id', 'path', 'title', 'summary', 'score', 'shared'],
            additionalProperties: false,
          },
          description: 'On below-threshold: the closest memories. They are not matches; check before relying on one.',
        },
        scopeExcluded: { type: 'integer', minimum: 0, description: 'With scope: matches left out because their premises conflict with it.' },
        guards: { type: 'array', items: guardShape, description: 'Guards whose trigger the query matches: do what they say.' },
        batch_id: { type: 'string', description: 'This answer as an evidence batch: memory_assess { batchId, evidenceRefs } before answering from it. Absent when nothing is stored yet.' },
        nearby: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              title: { type: 'string' },
              location: { type: 'string' },
              beside: { type: 'string', description: 'The hit whose slot it stands next to.' },
            },
            required: ['id', 'title', 'location', 'beside'],
            additionalProperties: false,
          },
          description: 'Memories in the slots beside the first hits (same room): cues worth opening, not matches.',
        },
        rooms: {
          type: 'array',
          items: { type: 'string' },
          description: 'Rooms worth a search with room next: those the hits stand in, or with room, the rooms beside it.',
        },
      },
      required: ['hits', 'guidance', 'alias_hits', 'eligible', 'reason', 'nearMisses'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { command: 'search', argument: 'query' },
  },
  // Checked against the schema above; the dates and the rest are the operation's.
  (backend, input) => searchMemories(backend, input),
  (backend) => nothingStoredAnswer(nothingStoredYet(backend)),
)

export const searchHandler = memorySearchHybridTool.handler
