/**
 * Where a watched folder's results and processed originals go: collision-safe output names
 * (never overwriting a file that is not the same input's own), results copied in through a
 * hidden temp file, originals moved to `clipdesk-done/`. Every folder written into is made and
 * checked by its real path (`../contained-dir.ts`): a symbolic link planted inside the output
 * or done folder is refused, and the file is listed as failed with the reason.
 */
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { copyFile, link, rename, rm, unlink } from 'node:fs/promises'
import { basename, dirname, join, posix, relative } from 'node:path'
import { DONE_DIR_NAME } from '../../shared/watch'
import { containedDir, viaSymlink } from '../contained-dir'
import { statFile } from './files'
import type { JobResultFile } from './processor'
import { doneDirOf, type WatchFileRecord, type WatchFolderRecord, type WatchStore } from './store'
import { existsOrLink, numbered } from '../outputs/numbered'
import { dateToken, isInside, isStrictlyInside, outputTarget, presetToken, renderTemplate } from './template'

export interface PlacementDeps {
  store: WatchStore
  now(): Date
  changed(folderId: string): void
}

const CASE_INSENSITIVE_FS = process.platform === 'darwin' || process.platform === 'win32'
/** Errors of `link` on file systems without hard links: fall back to an exclusive copy. */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'])

export class WatchPlacement {
  constructor(private readonly d: PlacementDeps) {}

  /**
   * Chooses the output name of one result (one synchronous step: check and claim cannot
   * interleave). A name is free when no file exists there and no other input was given it.
   * The same input's own earlier output (an older version of the same file) is replaced; a
   * re-run after a crash reuses the name it planned.
   */
  planName(folder: WatchFolderRecord, row: WatchFileRecord, r: JobResultFile, outDir: string, skip: Set<string>): { path: string; replace: boolean } {
    const again = this.d.store.outputsOf(row.id).find((o) => o.jobId === row.jobId && o.variation === r.variation && !skip.has(o.path))
    if (again) return { path: again.path, replace: true }
    const rel = row.relPath
    const name = renderTemplate(folder.nameTemplate, {
      name: posix.basename(rel, posix.extname(rel)),
      ext: r.ext,
      variation: r.variation,
      date: dateToken(this.d.now()),
      preset: presetToken(folder.request.mode, folder.request.params)
    })
    const relDir = posix.dirname(rel)
    const base = outputTarget(outDir, relDir === '.' ? '' : relDir, name)
    for (let n = 0; n < 100_000; n++) {
      const candidate = numbered(base, n)
      if (!isStrictlyInside(outDir, candidate)) throw new Error(`refusing to write outside the output folder: ${candidate}`)
      if (skip.has(candidate)) continue
      const owner = this.d.store.outputAt(candidate, CASE_INSENSITIVE_FS)
      let replace = false
      if (owner) {
        if (owner.fileId === row.id && owner.jobId !== row.jobId) replace = true
        else continue
      } else if (existsOrLink(candidate)) continue
      this.d.store.putOutput({ path: candidate, folderId: folder.id, fileId: row.id, jobId: row.jobId!, variation: r.variation, ext: r.ext, written: false })
      return { path: candidate, replace }
    }
    throw new Error(`no free output name for ${base}`)
  }

  /** Copies a result into place through a hidden temp file; never replaces a file that is not this input's own. */
  async placeResult(folder: WatchFolderRecord, row: WatchFileRecord, r: JobResultFile, outDir: string): Promise<string> {
    const skip = new Set<string>()
    for (let attempt = 0; attempt < 5; attempt++) {
      const plan = this.planName(folder, row, r, outDir, skip)
      // Made and checked by real paths: a symlinked folder inside the output folder is refused.
      const dir = await containedDir(containmentRoot(folder, outDir), dirname(plan.path))
      const final = join(dir, basename(plan.path))
      const tmp = join(dir, `.${basename(plan.path)}.${randomBytes(4).toString('hex')}.clipdesk-tmp`)
      try {
        await copyFile(r.path, tmp)
        if (plan.replace) {
          await rename(tmp, final)
        } else {
          try {
            await link(tmp, final) // fails if the name exists (a link too): no overwrite, ever
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code ?? ''
            if (code === 'EEXIST') {
              // Another program took the name since it was chosen: choose again.
              this.d.store.dropUnwritten(row.id)
              skip.add(plan.path)
              continue
            }
            if (!NO_LINK.has(code)) throw err
            await copyFile(tmp, final, constants.COPYFILE_EXCL)
          }
        }
      } finally {
        await rm(tmp, { force: true })
      }
      this.d.store.markOutputWritten(plan.path)
      return plan.path
    }
    throw new Error(`the output names for ${row.relPath} kept being taken`)
  }

  /**
   * Moves a processed original to `<folder>/clipdesk-done/<same sub-folder>/`, under a free
   * name. Only the version that was processed is moved; a file changed since stays (and is
   * processed again). The row follows the original (see `relocateFile`) and its outputs are
   * released: a later file with the same name is a new input and gets new output names.
   */
  async moveOriginal(folder: WatchFolderRecord, row: WatchFileRecord): Promise<void> {
    const doneDir = doneDirOf(folder)
    const src = join(folder.path, ...row.relPath.split('/'))
    if (!isStrictlyInside(folder.path, src) || isInside(doneDir, src) || (await viaSymlink(folder.path, src))) return
    const st = await statFile(src)
    if (!st || st.size !== row.size || st.mtimeMs !== row.mtimeMs) return
    const base = join(doneDir, ...row.relPath.split('/'))
    const relOf = (p: string): string => relative(folder.path, p).split(/[\\/]/).join('/')
    let target = base
    for (let n = 1; existsOrLink(target) || this.d.store.fileByPath(folder.id, relOf(target)); n++) target = numbered(base, n)
    try {
      // The done folder and its sub-folders by real paths: a symlink there is refused.
      const dir = await containedDir(folder.path, dirname(target))
      const final = join(dir, basename(target))
      if (existsOrLink(final)) throw new Error(`${final} appeared meanwhile`)
      try {
        await rename(src, final)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err
        await copyFile(src, final, constants.COPYFILE_EXCL)
        await unlink(src)
      }
      this.d.store.releaseOutputs(row.id)
      this.d.store.relocateFile(row.id, relOf(target))
      this.d.changed(folder.id)
    } catch (err) {
      this.d.store.addEvent(folder.id, 'error', row.relPath, `the original could not be moved to ${DONE_DIR_NAME}: ${(err as Error).message}`)
      this.d.changed(folder.id)
    }
  }
}

/**
 * The folder writes are contained in: the watched folder itself when the output folder is
 * inside it (so that a symlinked `clipdesk-out` is caught too), else the output folder.
 */
function containmentRoot(folder: WatchFolderRecord, outDir: string): string {
  return isStrictlyInside(folder.path, outDir) ? folder.path : outDir
}
