/** memory_assemble: put the memories relevant to a task into one context block, within a token budget. */

import { assembleContext, labelsFor } from '../memory/assemble.js'
import { guardLine, matchingGuards } from '../memory/guards.js'
import { loadConfig } from '../memory/config.js'
import { recordSearch } from '../memory/signals.js'
import { retrievalState } from '../retrieve/retriever.js'
import { isSearchable } from '../retrieve/search-index.js'
import { runSearch } from '../retrieve/search.js'
import type { IndexEntry } from '../types.js'
import { idField } from './shapes.js'
import { defineTool } from './tool.js'

/** Hits searched for the task when none are given. */
export const ASSEMBLE_SEARCH_K = 20

export const memoryAssembleTool = defineTool(
  {
    name: 'memory_assemble',
    title: 'Assemble memory for a task',
    group: 'browse',
    description:
      'Build one context block of memories for a task, never longer than the token budget (tokens = characters / 1.6, rounded up). Uses the given hits (best first) or searches for the task. ' +
      'Each memory gets its summary and up to 600 characters of its original text when there is room, else its summary, else a cut summary; every block names its source file. What did not fit is counted in omitted and said in the text.',
    input: {
      type: 'object',
      properties: {
        task: { type: 'string', minLength: 1, maxLength: 2000, description: 'What the memories are for; searched when hits are not given.' },
        hits: {
          type: 'array',
          maxItems: 200,
          items: {
            type: 'object',
            properties: { id: idField, score: { type: 'number' } },
            required: ['id'],
            additionalProperties: true,
          },
          description: 'Hits from memory_search_hybrid, to use instead of a new search.',
        },
        budget: { type: 'integer', minimum: 1, maximum: 100000, description: 'Token budget (default: the store setting, 1200).' },
      },
      required: ['task'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        context: { type: 'string' },
        used_tokens: { type: 'integer' },
        budget: { type: 'integer' },
        sources: { type: 'array', items: { type: 'string' } },
        included: { type: 'integer' },
        omitted: { type: 'integer', description: 'Hits that did not fit the budget.' },
      },
      required: ['context', 'used_tokens', 'budget', 'sources', 'included', 'omitted'],
      additionalProperties: false,
    },
    annotations: { readOnly: true, destructive: false, idempotent: true },
    cli: { argument: 'task' },
  },
  async (backend, input) => {
    const [config, state] = await Promise.all([loadConfig(backend), retrievalState(backend)])
    const budget = input.budget ?? config.defaultBudget
    let ranked: IndexEntry[]
    if (input.hits !== undefined) {
      ranked = [...input.hits]
        .map((h, i) => ({ h, i }))
        .sort((a, b) => (b.h.score ?? 0) - (a.h.score ?? 0) || a.i - b.i)
        .map(({ h }) => state.entries.get(h.id))
        .filter((e): e is IndexEntry => e !== undefined && isSearchable(e))
    } else {
      const found = runSearch(state.entries, state.index, state.aliases, { query: input.task, top_k: ASSEMBLE_SEARCH_K })
      recordSearch(backend, { query: input.task, hitIds: found.hits.map((h) => h.id) })
      ranked = found.hits.map((h) => state.entries.get(h.id)).filter((e): e is IndexEntry => e !== undefined)
    }
    return assembleContext(backend, ranked, budget, state.entries, matchingGuards(state.entries, input.task).map(guardLine), labelsFor(input.task))
  },
)

export const assembleHandler = memoryAssembleTool.handler
