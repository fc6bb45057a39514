/**
 * Folders made and checked by their real paths, so that no write or move ends up outside the
 * folder it is meant for. Comparing path names is not enough: a symbolic link planted inside
 * an output folder (`clipdesk-out/x -> /etc`) passes a name check and sends the file elsewhere.
 *
 * `containedDir` walks from the allowed folder down to the target folder one level at a time,
 * creating what is missing and refusing any level that is a symbolic link or not a folder,
 * then checks the result's `realpath` inside the allowed folder's `realpath`. The final write
 * is then made by name in that folder with an operation that does not follow a link in the
 * last component (an exclusive create, a hard link, or a rename, which replaces a link itself).
 */
import { lstat, mkdir, realpath } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

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
  const rel = relative(resolve(root), resolve(dir))
  if (rel.startsWith('..') || isAbsolute(rel)) throw new ContainmentError(`${dir} is not inside ${root}`)
  await mkdir(root, { recursive: true })
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
  return real
}

/** Whether `path` itself is a symbolic link, or lies under one, below `root`. */
export async function viaSymlink(root: string, path: string): Promise<boolean> {
  const rel = relative(resolve(root), resolve(path))
  if (rel.startsWith('..') || isAbsolute(rel)) return true
  let current = resolve(root)
  for (const part of rel.split(sep)) {
    current = join(current, part)
    const info = await lstat(current).catch(() => null)
    if (!info) return false
    if (info.isSymbolicLink()) return true
  }
  return false
}
