/**
 * Reading and creating files inside a destination without following links and without waiting
 * on what is not a file. A destination is a folder others may write to too: a result replaced
 * by a symbolic link (`photo.png -> /etc/hostname`) must not be read through it (its target
 * would be copied into the destination), and a named pipe (FIFO) or a device at an output name
 * must not be opened for reading (a FIFO blocks the open, and the worker with it, for ever).
 *
 * Every open here is `O_NOFOLLOW` (a link in the last component fails with ELOOP) and
 * `O_NONBLOCK` (a FIFO opens at once instead of waiting for a writer); the file is `lstat`ed
 * before and its handle `fstat`ed after, and only a regular file with the same device and inode
 * is used. Anything else is `NotOurFile`, at once. New files are created exclusively
 * (`O_CREAT | O_EXCL`), which never follows a link either. The folder a file is in is checked by
 * `contained-dir.ts`.
 */
import { constants, type Stats } from 'node:fs'
import { lstat, open, type FileHandle } from 'node:fs/promises'
import { ContainmentError } from './contained-dir'

/** Where the system has no such flag (Windows), 0: its opens do not follow links into FIFOs. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0
const NONBLOCK = constants.O_NONBLOCK ?? 0
const CHUNK = 1 << 20

/** A name inside a destination holds something that is not a regular file (a link, a FIFO, a device, a folder). */
export class NotOurFile extends ContainmentError {
  constructor(
    readonly path: string,
    readonly kind: string
  ) {
    super(`${path} is ${kind}, not a regular file; Clipdesk reads and replaces only regular files`)
    this.name = 'NotOurFile'
  }
}

/** What a non-regular entry is, in words. */
export function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link'
  if (info.isFIFO()) return 'a named pipe (FIFO)'
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device'
  if (info.isSocket()) return 'a socket'
  if (info.isDirectory()) return 'a folder'
  return info.isFile() ? 'a regular file' : 'not a file'
}

/** The entry at `path` itself (a link not followed), or null when nothing is there. */
export async function entryAt(path: string): Promise<Stats | null> {
  return lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null
    throw err
  })
}

/** Opens an existing regular file for reading, never through a link and never waiting on a FIFO; `NotOurFile` otherwise. */
export async function openRegular(path: string): Promise<{ handle: FileHandle; info: Stats }> {
  const before = await lstat(path)
  if (!before.isFile()) throw new NotOurFile(path, kindOf(before))
  let handle: FileHandle
  try {
    handle = await open(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new NotOurFile(path, 'a symbolic link')
    throw err
  }
  const info = await handle.stat()
  if (!info.isFile() || info.dev !== before.dev || info.ino !== before.ino) {
    await handle.close()
    throw new NotOurFile(path, info.isFile() ? 'a file swapped while it was opened' : kindOf(info))
  }
  return { handle, info }
}

/**
 * Copies the regular file `from` to the new name `to` (created exclusively: EEXIST when the
 * name is taken, a link there included). Read and written through handles, so neither side is
 * ever reached through a link.
 */
export async function copyToNew(from: string, to: string): Promise<void> {
  const { handle: src, info } = await openRegular(from)
  try {
    const dst = await open(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666)
    try {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, info.size)))
      for (let pos = 0; ; ) {
        const { bytesRead } = await src.read(buf, 0, buf.length, pos)
        if (bytesRead === 0) break
        await dst.write(buf, 0, bytesRead)
        pos += bytesRead
      }
    } finally {
      await dst.close()
    }
  } finally {
    await src.close()
  }
}

/** Creates `path` exclusively (never through a link) with `text`. */
export async function writeNew(path: string, text: string): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666)
  try {
    await handle.writeFile(text)
  } finally {
    await handle.close()
  }
}

/** Whether `b` is a regular file (not a link, not a FIFO) with exactly the bytes of the regular file `a`; read in chunks. */
export async function sameBytes(a: string, b: string): Promise<boolean> {
  const opened = await Promise.allSettled([openRegular(a), openRegular(b)])
  const [fa, fb] = opened.map((o) => (o.status === 'fulfilled' ? o.value : null))
  try {
    if (opened[0]!.status === 'rejected') throw opened[0]!.reason // our own result: a real problem
    if (!fa || !fb || fa.info.size !== fb.info.size) return false
    const size = 1 << 16
    const [ba, bb] = [Buffer.alloc(size), Buffer.alloc(size)]
    for (let pos = 0; pos < fa.info.size; pos += size) {
      const [ra, rb] = await Promise.all([fa.handle.read(ba, 0, size, pos), fb.handle.read(bb, 0, size, pos)])
      if (ra.bytesRead !== rb.bytesRead || !ba.subarray(0, ra.bytesRead).equals(bb.subarray(0, rb.bytesRead))) return false
    }
    return true
  } finally {
    await Promise.all([fa?.handle.close(), fb?.handle.close()])
  }
}
