/** The schema of the vector diagnostics (retrieve/vectors.ts `VectorDiagnostics`), shared by memory_sweep and the panel. */

const count = (description: string) => ({ type: 'integer', description }) as const

export const vectorDiagnosticsShape = {
  type: 'object',
  properties: {
    kind: { type: 'string', description: 'What produces the vectors: openai (an /v1/embeddings endpoint) or custom.' },
    embedder: { type: 'string', description: 'The embedder id (model and dimension).' },
    dim: count('The vector length the embedder declares.'),
    embedded: count('Searchable memories with a vector.'),
    searchable: count('Searchable memories.'),
    pending: count('Searchable memories waiting for a vector (memory-agent embed fills them).'),
    dimensionMismatches: count('Vectors kept for this embedder with another length: left out of search and embedded again.'),
    unreadableSegments: count('Vector files that could not be read (their memories are embedded again).'),
    segments: count('Vector files.'),
    bytesPerVector: count('Memory per vector in search (int8 row, scale, sign code).'),
    completedEmbedder: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'The embedder the store finished embedding with; differs from embedder while a change is under way.' },
  },
  required: ['kind', 'embedder', 'dim', 'embedded', 'searchable', 'pending', 'dimensionMismatches', 'unreadableSegments', 'segments', 'bytesPerVector', 'completedEmbedder'],
  additionalProperties: false,
  description: 'The vectors, present only when an embedder is configured: coverage (embedded of searchable), the queue, dimension mismatches.',
} as const
