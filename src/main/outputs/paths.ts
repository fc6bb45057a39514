/** Where an output may go: inside its output folder, checked by resolved path before any write. */
import { isAbsolute, relative, resolve, sep } from 'node:path'

/** True when `path` is `root` itself or inside it (both resolved). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path))
  return rel === '' || (rel.split(sep)[0] !== '..' && !isAbsolute(rel))
}

/** True when `path` is strictly inside `root`. */
export function isStrictlyInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path))
  return rel !== '' && rel.split(sep)[0] !== '..' && !isAbsolute(rel)
}

/**
 * The absolute path of a rendered output name ('/'-separated, from `outputNames`) in `outputDir`.
 * Throws when it would leave the folder: with sanitised names it cannot, so a throw here is a bug
 * caught before any write.
 */
export function resolveInside(outputDir: string, relName: string): string {
  const target = resolve(outputDir, ...relName.split('/'))
  if (!isStrictlyInside(outputDir, target)) throw new Error(`refusing to write outside the output folder: ${target}`)
  return target
}

/** A path inside `root` as '/'-separated relative text (for records and messages). */
export function relativeName(root: string, path: string): string {
  return relative(root, path).split(sep).join('/')
}
