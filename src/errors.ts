/**
 * The one error type every handler throws, with a stable code that each adapter maps once
 * (DSH HarnessError code, MCP isError, CLI exit code, HTTP status). Never branch on message text.
 *
 * An operating-system error never leaves the library as it is: it becomes an IO_ERROR whose
 * message names the file and the cause in plain words, with the errno kept in `errno`.
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
  /** For an IO_ERROR, the operating system's code (`EROFS`, `ENOSPC`, ...), for programs. */
  readonly errno: string | undefined

  constructor(code: ErrorCode, message: string, field?: string, errno?: string) {
    super(message)
    this.name = 'MemoryError'
    this.code = code
    this.field = field
    this.errno = errno
  }
}

export function isMemoryError(err: unknown): err is MemoryError {
  return err instanceof MemoryError
}

export function invalidInput(field: string, expected: string): MemoryError {
  return new MemoryError('INVALID_INPUT', `${field}: expected ${expected}`, field)
}

/** What each operating-system code means, for a person reading the message. */
const CAUSES: Readonly<Record<string, string>> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file is too large',
  EIO: 'the disk reported an input/output error',
  EMFILE: 'this process has too many files open',
  ENFILE: 'the system has too many files open',
  ENOENT: 'it does not exist',
  ENOTDIR: 'it, or something on its path, is not a folder',
  EISDIR: 'it is a folder',
  EEXIST: 'it already exists',
  ENOTEMPTY: 'the folder is not empty',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links on the way',
  EBUSY: 'it is in use',
  EXDEV: 'it is on another file system',
}

/** Codes that say this process cannot write the store (as opposed to a broken file or disk). */
const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT'])

/** What the system call was trying to do, as the verb of "cannot ... FILE". */
const ACTIONS: Readonly<Record<string, string>> = {
  open: 'open',
  read: 'read',
  write: 'write',
  mkdir: 'create',
  rmdir: 'remove',
  unlink: 'remove',
  rename: 'replace',
  stat: 'look up',
  lstat: 'look up',
  fstat: 'look up',
  scandir: 'list',
  realpath: 'look up',
  fsync: 'flush',
  fdatasync: 'flush',
  copyfile: 'copy',
  link: 'link',
  chmod: 'change',
  utime: 'touch',
}

interface ErrnoLike {
  code: string
  syscall?: unknown
  path?: unknown
  message?: unknown
}

function errnoOf(err: unknown): ErrnoLike | null {
  if (typeof err !== 'object' || err === null || isMemoryError(err)) return null
  const code = (err as { code?: unknown }).code
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? (err as ErrnoLike) : null
}

/**
 * The IO_ERROR for an operating-system error met while doing `action` ("create", "write", ...)
 * to `file`: "cannot create /store/.lock: the file system is read-only (EROFS)".
 */
export function ioError(action: string, file: string, err: unknown): MemoryError {
  const code = errnoOf(err)?.code ?? 'EIO'
  return new MemoryError('IO_ERROR', `cannot ${action} ${file}: ${ioCause(code)}`, undefined, code)
}

/** The cause of an operating-system error in plain words, its code in brackets: "the disk is full (ENOSPC)". */
export function ioCause(code: string): string {
  return `${CAUSES[code] ?? 'the operating system refused'} (${code})`
}

/**
 * The error a caller sees: a MemoryError as it is, an operating-system error as an IO_ERROR
 * (named after its system call and path), anything else unchanged. Each adapter passes every
 * failure through it once.
 */
export function asMemoryError(err: unknown): unknown {
  const os = errnoOf(err)
  if (os === null) return err
  const syscall = typeof os.syscall === 'string' ? os.syscall : ''
  return ioError(ACTIONS[syscall] ?? (syscall || 'use'), typeof os.path === 'string' ? os.path : 'a file', err)
}

/** True when err says this process cannot write the store: read-only, no permission, disk full. */
export function isNotWritable(err: unknown): boolean {
  const code = isMemoryError(err) ? err.errno : errnoOf(err)?.code
  return code !== undefined && NOT_WRITABLE.has(code)
}
