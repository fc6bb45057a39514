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
 * writer chooses another name. Every folder is made and checked by its real path, its identity
 * checked again around each step (`contained-dir.ts`), and every file is opened without following
 * links and without waiting on a FIFO (`no-follow.ts`): nothing is read or written through a
 * symbolic link, and what is not a regular file is never read.
 */
import { link, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { checkedDir, sameDir, type CheckedDir } from './contained-dir'
import { copyToNew, entryAt, kindOf, NotOurFile, sameBytes, writeNew } from './no-follow'

/** Errors of `link` on file systems without hard links: fall back to an exclusive copy. */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'])
// The one temp naming, shared with the data folder's writes (engine/paths.ts).
export { TEMP_SUFFIX, TEMP_TAG_LENGTH, tempPathFor } from '../engine/file-helpers'
import { tempPathFor } from '../engine/file-helpers'

/**
 * Temp files this process is writing now: a sweep of a destination (`temp-sweep.ts`) leaves
 * them alone, whatever their age.
 */
export const activeTemps = new Set<string>()

/** The name was taken by someone else between choosing it and writing it. */
export class NameTaken extends Error {
  constructor(readonly path: string) {
    super(`${path} was taken meanwhile`)
    this.name = 'NameTaken'
  }
}

/**
 * Puts a copy of `from` at `target`, inside `root` (made and checked level by level).
 * `replace`: `target` is this input's own earlier output and may be replaced (a regular file,
 * or nothing: a link, FIFO or device there is `NotOurFile`).
 */
export async function placeFile(from: string, target: string, root: string, replace: boolean): Promise<void> {
  const dir = await checkedDir(root, dirname(target))
  const final = join(dir.path, basename(target))
  const there = await entryAt(final)
  if (there && replace && !there.isFile()) throw new NotOurFile(target, kindOf(there))
  if (there && !replace) {
    if (await sameBytes(from, final)) return
    throw new NameTaken(target)
  }
  await throughTemp(
    dir,
    final,
    (temp) => copyToNew(from, temp),
    async (temp) => {
      if (replace) await rename(temp, final)
      else await linkNew(temp, final, target)
    }
  )
}

/** Writes `text` to `path` through a temp name and a rename (a report: our own file, replaced whole). */
export async function writeReplacing(path: string, text: string): Promise<void> {
  const dir = await checkedDir(dirname(path), dirname(path))
  const final = join(dir.path, basename(path))
  const there = await entryAt(final)
  if (there && !there.isFile()) throw new NotOurFile(path, kindOf(there))
  await throughTemp(
    dir,
    final,
    (temp) => writeNew(temp, text),
    (temp) => rename(temp, final)
  )
}

/**
 * Writes a temp file beside `final` and gives it its name, the folder's identity checked before
 * the name is given and after (a folder swapped meanwhile is said, never written through
 * silently). The temp file is gone afterwards, whatever happened.
 */
async function throughTemp(
  dir: CheckedDir,
  final: string,
  write: (temp: string) => Promise<void>,
  name: (temp: string) => Promise<void>
): Promise<void> {
  const temp = tempPathFor(final)
  activeTemps.add(temp)
  try {
    await write(temp)
    await sameDir(dir)
    await name(temp)
    await sameDir(dir)
  } finally {
    await rm(temp, { force: true }).catch(() => undefined) // not there (renamed), or not ours to remove
    activeTemps.delete(temp)
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
      await copyToNew(temp, final)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new NameTaken(target)
      throw e
    }
  }
}
