/**
 * Opens a file this app wrote into a folder the user owns, to read it back (a download, a zip, a
 * drag): never through a symbolic link put in its place, never a pipe or device (which would
 * block or never end), only a plain file. The handle is what is read, so a swap after the check
 * changes nothing.
 */
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'

/** Why a result file cannot be read back, in words; `gone` when nothing is there any more. */
export class NotOwnFile extends Error {
  constructor(
    message: string,
    readonly gone: boolean
  ) {
    super(message)
    this.name = 'NotOwnFile'
  }
}

// O_NOFOLLOW: a link at the name fails (ELOOP) instead of being followed; O_NONBLOCK: opening a
// FIFO returns at once instead of waiting for a writer. Windows has neither flag (0 there):
// the fstat check below still refuses what is not a plain file.
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

export async function openOwnFile(path: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle
  try {
    handle = await open(path, FLAGS)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new NotOwnFile('The file is no longer there.', true)
    if (code === 'ELOOP') throw new NotOwnFile('A link was put in place of the file; it is not read.', false)
    throw new NotOwnFile(`The file cannot be read: ${(err as Error).message}`, false)
  }
  const info = await handle.stat()
  if (!info.isFile()) {
    await handle.close()
    throw new NotOwnFile('Something other than a plain file is in place of the result; it is not read.', false)
  }
  return { handle, size: info.size }
}
