/**
 * The one error type every handler throws, with a stable code that each adapter maps once
 * (DSH HarnessError code, MCP isError, CLI exit code, HTTP status). Never branch on message text.
 */

export const ERROR_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'INVALID_STATE',
  'PATH_OUTSIDE_ROOT',
  'LOCK_TIMEOUT',
  'IO_ERROR',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

export class MemoryError extends Error {
  readonly code: ErrorCode
  /** The input field the error is about, as a dotted path, when there is one. */
  readonly field: string | undefined

  constructor(code: ErrorCode, message: string, field?: string) {
    super(message)
    this.name = 'MemoryError'
    this.code = code
    this.field = field
  }
}

export function isMemoryError(err: unknown): err is MemoryError {
  return err instanceof MemoryError
}

export function invalidInput(field: string, expected: string): MemoryError {
  return new MemoryError('INVALID_INPUT', `${field}: expected ${expected}`, field)
}
