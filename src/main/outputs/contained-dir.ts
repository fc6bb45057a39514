/**
 * Folders made and checked by their real paths, so that no write or move ends up outside the
 * folder it is meant for. Comparing path names is not enough: a symbolic link planted inside
 * an output folder (`clipdesk-out/x -> /etc`) passes a name check and sends the file elsewhere.
 *
 * `checkedDir` walks from the allowed folder down to the target folder one level at a time,
 * creating what is missing and refusing any level that is a symbolic link or not a folder (the
 * allowed folder itself included: destinations are kept by their real paths, so a link there
 * is a folder swapped for a link since), then checks the result's `realpath` inside the allowed
 * folder's `realpath`, and keeps the folder's device and inode. The final write is then made by
 * name in that folder with an operation that does not follow a link in the last component (an
 * exclusive no-follow create, a hard link, or a rename, which replaces a link itself), and the
 * folder's identity is checked again around it (`sameDir`): Node has no `openat`, so a folder
 * swapped between the check and the write is caught by device and inode instead.
 */
import { lstat, mkdir, realpath } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import { makeFolder } from './destination'
import { isInside } from './paths'

export class ContainmentError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ContainmentError'
  }
}

/**
 * Makes `dir` (inside `root`) level by level and returns its real path; throws
 * `ContainmentError` when `dir` is not inside `root` or any level below `root` is a symbolic
 * link or a file. `root` itself is created if missing and taken as it resolves.
 */
export async function containedDir(root: string, dir: string): Promise<string> {
  return (await checkedDir(root, dir)).path
}

/** A folder as checked: its real path, and its device and inode then. */
export interface CheckedDir {
  path: string
  dev: number
  ino: number
}

/** `containedDir` keeping the folder's identity, for `sameDir` around each write into it. */
export async function checkedDir(root: string, dir: string): Promise<CheckedDir> {
  if (!isInside(root, dir)) throw new ContainmentError(`${dir} is not inside ${root}`)
  const rel = relative(resolve(root), resolve(dir))
  await makeFolder(root)
  const rootInfo = await lstat(resolve(root)) // resolved: a trailing slash would follow a link
  if (rootInfo.isSymbolicLink())
    throw new ContainmentError(`${root} is a symbolic link now (the folder was moved or replaced); nothing is written through links`)
  const realRoot = await realpath(root)
  let current = realRoot
  for (const part of rel === '' ? [] : rel.split(sep)) {
    current = join(current, part)
    let info = await lstat(current).catch(() => null)
    if (!info) {
      await mkdir(current).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err
      })
      info = await lstat(current)
    }
    if (info.isSymbolicLink()) throw new ContainmentError(`${current} is a symbolic link; nothing is written through links`)
    if (!info.isDirectory()) throw new ContainmentError(`${current} is not a folder`)
  }
  const real = await realpath(current)
  if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new ContainmentError(`${dir} resolves outside ${root}`)
  const info = await lstat(real)
  return { path: real, dev: info.dev, ino: info.ino }
}

/** Throws `ContainmentError` when the folder at `dir.path` is no longer the one checked (moved, swapped for a link or another folder). */
export async function sameDir(dir: CheckedDir): Promise<void> {
  const info = await lstat(dir.path).catch(() => null)
  if (!info || info.isSymbolicLink() || !info.isDirectory() || info.dev !== dir.dev || info.ino !== dir.ino) {
    throw new ContainmentError(`${dir.path} was moved or replaced while files were written into it; nothing more is written there`)
  }
}

/** Whether `path` itself is a symbolic link, or lies under one, below `root`. */
export async function viaSymlink(root: string, path: string): Promise<boolean> {
  if (!isInside(root, path)) return true
  const rel = relative(resolve(root), resolve(path))
  let current = resolve(root)
  for (const part of rel.split(sep)) {
    current = join(current, part)
    const info = await lstat(current).catch(() => null)
    if (!info) return false
    if (info.isSymbolicLink()) return true
  }
  return false
}
