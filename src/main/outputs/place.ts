/**
 * The one placer of output files, for every feature that writes into a folder the user owns:
 * a file is copied to a hidden temp name beside its final name and then
 * - hard-linked to a new name: `link` fails if the name exists (a link too), so nothing that is
 *   not ours is ever replaced, and a name is never seen half-written; where links are not
 *   supported, an exclusive copy (`COPYFILE_EXCL`) does the same;
 * - or renamed over a name this input wrote itself earlier (its own finished output: a new
 *   version of the input, `--overwrite`), which replaces it atomically.
 * A name that exists already holding exactly these bytes is an earlier write of ours that a crash
 * cut short before it was recorded: nothing to do. Any other file there: `NameTaken`, and the
 * writer chooses another name. Every folder is made and checked by its real path
 * (`contained-dir.ts`): nothing is written through a symbolic link.
 */
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { copyFile, link, lstat, open, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { containedDir } from './contained-dir'
import { existsOrLink } from './numbered'

/** Errors of `link` on file systems without hard links: fall back to an exclusive copy. */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'])
/** Temp names end in this (hidden, so that no walker takes them as inputs). */
export const TEMP_SUFFIX = '.clipdesk-part'

/** The name was taken by someone else between choosing it and writing it. */
export class NameTaken extends Error {
  constructor(readonly path: string) {
    super(`${path} was taken meanwhile`)
    this.name = 'NameTaken'
  }
}

/** The hidden temp name a file is written to before it takes its final name (same folder, so the last step is atomic). */
export function tempPathFor(final: string): string {
  return join(dirname(final), `.${basename(final)}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`)
}

/**
 * Puts a copy of `from` at `target`, inside `root` (made and checked level by level).
 * `replace`: `target` is this input's own earlier output and may be replaced.
 */
export async function placeFile(from: string, target: string, root: string, replace: boolean): Promise<void> {
  const dir = await containedDir(root, dirname(target))
  const final = join(dir, basename(target))
  if (!replace && existsOrLink(final)) {
    if (await sameBytes(from, final)) return
    throw new NameTaken(target)
  }
  const temp = tempPathFor(final)
  try {
    await copyFile(from, temp, constants.COPYFILE_EXCL)
    if (replace) await rename(temp, final)
    else await linkNew(temp, final, target)
  } finally {
    await rm(temp, { force: true })
  }
}

/** Writes `text` to `path` through a temp name and a rename (a report: our own file, replaced whole). */
export async function writeReplacing(path: string, text: string): Promise<void> {
  const temp = tempPathFor(path)
  try {
    await writeFile(temp, text, { flag: 'wx' })
    await rename(temp, path)
  } finally {
    await rm(temp, { force: true })
  }
}

async function linkNew(temp: string, final: string, target: string): Promise<void> {
  try {
    await link(temp, final)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? ''
    if (code === 'EEXIST') throw new NameTaken(target)
    if (!NO_LINK.has(code)) throw err
    try {
      await copyFile(temp, final, constants.COPYFILE_EXCL)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new NameTaken(target)
      throw e
    }
  }
}

/** Whether `b` is a plain file (not a link) with exactly the bytes of `a`; read in chunks, so a large output costs no memory. */
async function sameBytes(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([lstat(a), lstat(b).catch(() => null)])
  if (!sb?.isFile() || sa.size !== sb.size) return false
  const [fa, fb] = await Promise.all([open(a, 'r'), open(b, 'r')])
  try {
    const size = 1 << 16
    const [ba, bb] = [Buffer.alloc(size), Buffer.alloc(size)]
    for (let pos = 0; pos < sa.size; pos += size) {
      const [ra, rb] = await Promise.all([fa.read(ba, 0, size, pos), fb.read(bb, 0, size, pos)])
      if (ra.bytesRead !== rb.bytesRead || !ba.subarray(0, ra.bytesRead).equals(bb.subarray(0, rb.bytesRead))) return false
    }
    return true
  } finally {
    await Promise.all([fa.close(), fb.close()])
  }
}
