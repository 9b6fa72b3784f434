/**
 * Package entry. Until the DSH plugin lands here, it is the library API; the documented,
 * stable import for library use is `dsh-memory-agent/api`.
 */

export * from './api.js'
