/**
 * Where a watched folder's results and processed originals go. Results are written by the
 * writer all features share (`../outputs/write.ts`): names from the folder's template, numbered
 * past every name another input holds, placed by link (never over a file that is not this
 * input's own) or renamed over this input's own earlier output. Originals are moved to
 * `clipdesk-done/`. Every folder written into is made and checked by its real path
 * (`../outputs/contained-dir.ts`): a symbolic link planted inside the output or done folder is
 * refused, and the file is listed as failed with the reason.
 */
import { link, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { dateToken, outputNames } from '../../shared/names'
import { DONE_DIR_NAME } from '../../shared/watch'
import { containedDir, viaSymlink } from '../outputs/contained-dir'
import type { ResultFile } from '../outputs/engine-jobs'
import { copyToNew } from '../outputs/no-follow'
import { existsOrLink, firstFree } from '../outputs/numbered'
import { isInside, isStrictlyInside, relativeName, resolveInside } from '../outputs/paths'
import { writeOutputs } from '../outputs/write'
import { statFile } from './files'
import { doneDirOf, outputDirOf, type WatchFileRecord, type WatchFolderRecord, type WatchStore } from './store'
import { errorText } from '../../shared/errors'

export interface PlacementDeps {
  store: WatchStore
  now(): Date
  changed(folderId: string): void
}

export class WatchPlacement {
  constructor(private readonly d: PlacementDeps) {}

  /** Writes a done job's results for `row` into the folder's output folder; returns the paths written. */
  async writeResults(folder: WatchFolderRecord, row: WatchFileRecord, results: readonly ResultFile[]): Promise<string[]> {
    const outDir = outputDirOf(folder)
    const naming = {
      relPath: row.relPath,
      template: folder.nameTemplate,
      mode: folder.request.mode,
      params: folder.request.params,
      date: dateToken(this.d.now()),
      seq: this.d.store.fileNumber(folder.id, row.id)
    }
    const files = outputNames(naming, results).map((name, i) => ({ from: results[i]!.path, target: resolveInside(outDir, name) }))
    return writeOutputs(files, containmentRoot(folder, outDir), this.d.store.outputs.resumeRecord(row, results))
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
    // A free name there: nothing on disk, and no row of the folder (an original moved earlier).
    const target = firstFree(
      join(doneDir, ...row.relPath.split('/')),
      (c) => existsOrLink(c) || this.d.store.fileByPath(folder.id, relativeName(folder.path, c)) !== null
    )
    try {
      // The done folder and its sub-folders by real paths: a symlink there is refused.
      const dir = await containedDir(folder.path, dirname(target))
      const final = join(dir, basename(target))
      // A link, then the old name removed: like a rename, but never over a name that appeared meanwhile.
      try {
        await link(src, final)
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code === 'EEXIST') throw new Error(`${final} appeared meanwhile`)
        if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err
        await copyToNew(src, final)
      }
      await unlink(src)
      this.d.store.outputs.releaseOutputs(row.id)
      this.d.store.relocateFile(row.id, relativeName(folder.path, target))
      this.d.changed(folder.id)
    } catch (err) {
      this.d.store.activity.add(folder.id, 'error', row.relPath, `the original could not be moved to ${DONE_DIR_NAME}: ${errorText(err)}`)
      this.d.changed(folder.id)
    }
  }
}

/**
 * The folder writes are contained in: the watched folder itself when the output folder is
 * inside it (so that a symlinked `clipdesk-out` is caught too), else the output folder.
 */
export function containmentRoot(folder: WatchFolderRecord, outDir: string): string {
  return isStrictlyInside(folder.path, outDir) ? folder.path : outDir
}
