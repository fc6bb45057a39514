/** Where an output may go: inside its output folder, checked by resolved path before any write. */
import { relative, resolve, sep } from 'node:path'

// The one containment check of the program (engine/paths.ts), used here and by every folder walker.
export { isInside, isStrictlyInside } from '../engine/file-helpers'
import { isStrictlyInside } from '../engine/file-helpers'

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
