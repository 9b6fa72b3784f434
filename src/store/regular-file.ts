/**
 * Reading a file without ever blocking on it: opened with O_NONBLOCK (opening a FIFO for reading
 * then returns at once instead of waiting for a writer) and fstat-checked before any byte is
 * read, so a FIFO, a socket or a device (or a link to one) is refused with an IO_ERROR naming
 * the file instead of stalling the process. For the file backend; must never read anything but
 * a regular file.
 */

import * as fsSync from 'node:fs'
import { ioError, MemoryError } from '../errors.js'

const { O_RDONLY, O_NONBLOCK } = fsSync.constants

/** What a file that is not a regular one is, in plain words. */
function kindOf(st: fsSync.Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device'
  return 'not a regular file'
}

/** The bytes of the regular file at abs; null when there is none (or a folder). */
export function readRegularFile(abs: string): Buffer | null {
  let fd: number
  try {
    fd = fsSync.openSync(abs, O_RDONLY | O_NONBLOCK)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return null
    throw ioError('read', abs, err)
  }
  try {
    const st = fsSync.fstatSync(fd)
    if (st.isDirectory()) return null
    if (!st.isFile()) throw new MemoryError('IO_ERROR', `cannot read ${abs}: it is ${kindOf(st)}, and only regular files are read`)
    return fsSync.readFileSync(fd)
  } catch (err) {
    throw err instanceof MemoryError ? err : ioError('read', abs, err)
  } finally {
    fsSync.closeSync(fd)
  }
}
