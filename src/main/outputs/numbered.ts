import { existsSync, lstatSync } from 'node:fs'

/**
 * The one rule for a name that is taken, shared by batches, watched folders and
 * `clipdesk process`: the n-th free alternative of `photo.png` is `photo-n.png` (`-1`, `-2`…),
 * the number going before the last extension (`photo.clipping-1.png`); a name without an
 * extension (or a hidden `.name`) gets it at the end. Works on absolute and relative paths,
 * '/' or '\' separated; only the last segment changes.
 */
export function numbered(path: string, n: number): string {
  if (n <= 0) return path
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'))
  const dot = path.lastIndexOf('.')
  const hasExt = dot > slash + 1
  return hasExt ? `${path.slice(0, dot)}-${n}${path.slice(dot)}` : `${path}-${n}`
}

/**
 * The first of `path`, `path-1`, `path-2`… that `taken` says is free. Throws after `limit`
 * tries (a folder with ten thousand clashes of one name is a bug elsewhere, not a case to serve).
 */
export function firstFree(path: string, taken: (candidate: string) => boolean, limit = 10_000): string {
  for (let n = 0; n < limit; n++) {
    const candidate = numbered(path, n)
    if (!taken(candidate)) return candidate
  }
  throw new Error(`no free file name for ${path}`)
}

/** Whether a name is in use on disk: a file, a folder, or a symlink even when it dangles. */
export function existsOrLink(path: string): boolean {
  if (existsSync(path)) return true
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}
