/**
 * Helpers for files anywhere on disk, the data folder's and a user's alike: the one temp naming
 * of a file written before it takes its name, atomic writes, and whether a path is inside a
 * folder. The data folder's layout is `paths.ts`; outputs/, settings and the transports use these.
 */
import { randomBytes } from 'node:crypto'
import { renameSync, rmSync, writeFileSync } from 'node:fs'
import { rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

/**
 * The one temp naming of every file written before it takes its name, in the data folder and in
 * a user's destination alike (`outputs/place.ts`): hidden (no folder walker takes it as an
 * input), beside the final name (the last step is atomic), `.<final name>.<8 hex>.clipdesk-part`,
 * so that a sweep can tell a leftover of an interrupted write from anything else.
 */
export const TEMP_SUFFIX = '.clipdesk-part'
/** The random part of a temp name: this many hex digits. */
export const TEMP_TAG_LENGTH = 8
/** What temp names of earlier versions ended in; still swept from the data folder. */
export const OLD_PARTIAL_SUFFIX = '.part'
const HEX = '0123456789abcdef'

/** The temp name a file is written to before it takes its final name. */
export function tempPathFor(final: string): string {
  return join(dirname(final), `.${basename(final)}.${randomBytes(TEMP_TAG_LENGTH / 2).toString('hex')}${TEMP_SUFFIX}`)
}

/** Whether `name` has the form of a temp name (string operations only: names come from the disk). */
export function isTempName(name: string): boolean {
  if (!name.startsWith('.') || !name.endsWith(TEMP_SUFFIX)) return false
  const stem = name.slice(0, name.length - TEMP_SUFFIX.length)
  const dot = stem.lastIndexOf('.')
  if (dot < 2) return false // `.` + at least one character of the final name
  const tag = stem.slice(dot + 1)
  return tag.length === TEMP_TAG_LENGTH && [...tag].every((c) => HEX.includes(c))
}

/**
 * Writes a file under a temp name and renames it into place, so that nobody ever sees a
 * half-written file under the final name (rename is atomic within one file system).
 */
export async function writeFileAtomic(path: string, data: Uint8Array): Promise<void> {
  const tmp = tempPathFor(path)
  try {
    await writeFile(tmp, data)
    await rename(tmp, path)
  } catch (err) {
    await rm(tmp, { force: true })
    throw err
  }
}

export function writeFileAtomicSync(path: string, data: Uint8Array): void {
  const tmp = tempPathFor(path)
  try {
    writeFileSync(tmp, data)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}

/**
 * True when `path` is `root` itself or inside it (both resolved). By path segments: a folder
 * named `..x` is inside, `../x` is not.
 */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path))
  return rel === '' || (rel.split(sep)[0] !== '..' && !isAbsolute(rel))
}

/** True when `path` is strictly inside `root`. */
export function isStrictlyInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path))
  return rel !== '' && rel.split(sep)[0] !== '..' && !isAbsolute(rel)
}
