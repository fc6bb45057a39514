/**
 * Results that leave the app (docs/batches.md): open a written file with another application,
 * show it in its folder, drag it out (the app), or download it or its whole batch (the browser
 * app). Only files the batch recorded as written are handed out, and only while each is still a
 * plain file (`openResult`: a link or pipe put in its place is refused).
 */
import type { OpenPathResult } from '../../shared/app'
import type { ResultDownload, ResultTarget } from '../../shared/results'
import { resultTargetSchema } from '../../shared/results'
import type { BatchService } from '../batches/service'
import { EngineError } from '../engine/errors'
import { NotOurFile, openRegular } from '../outputs/no-follow'
import type { FileHandle } from 'node:fs/promises'
import { posix } from 'node:path'

/** How the server addresses downloads (signed, same origin); the app has none. */
export interface DownloadAddress {
  file(itemId: string, output: number): string
  batch(batchId: string): string
}

/** What the host can do with a file: Electron's shell and the system's application chooser. */
export interface ResultHost {
  /** Opens the file with an application the user picks; resolves '' or why it could not. */
  openWith?(path: string): Promise<string>
  /** Shows the file selected in the system's file manager. */
  showInFolder?(path: string): void
  downloads?: DownloadAddress
}

export interface ResultHandlers {
  resultOpenWith(target: ResultTarget): Promise<OpenPathResult>
  resultShowInFolder(target: ResultTarget): Promise<OpenPathResult>
  resultDownload(target: ResultTarget): Promise<ResultDownload>
  batchDownload(batchId: string): Promise<ResultDownload>
  /** The path of a result to drag out of the window (Electron's startDrag), checked like the rest. */
  dragFile(target: ResultTarget): Promise<string>
}

/**
 * Opens a written result to read it back (a download, a zip, the check before Open with…), with
 * the one no-follow opener of the writer (`outputs/no-follow.ts`): 404 `not_found` when nothing is
 * there any more, 422 `validation_failed` when a link, pipe or device was put in its place.
 */
export async function openResult(path: string, name = posix.basename(path)): Promise<{ handle: FileHandle; size: number }> {
  try {
    const { handle, info } = await openRegular(path)
    return { handle, size: info.size }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new EngineError('not_found', `${name}: the file is no longer there.`)
    }
    if (err instanceof NotOurFile)
      throw new EngineError('validation_failed', `${name}: ${err.kind} was put in place of the result; it is not read.`)
    throw err
  }
}

function parseTarget(value: unknown): { batch_id: string; item_id: string; output: number } {
  const parsed = resultTargetSchema.safeParse(value)
  if (!parsed.success) {
    throw new EngineError('validation_failed', 'The result is not named right.', {
      details: parsed.error.issues.map((i) => ({ field: ['target', ...i.path].join('.'), issue: i.message }))
    })
  }
  return parsed.data
}

export function createResultHandlers(batches: BatchService, host: ResultHost): ResultHandlers {
  /** The target's path once it is checked to be a plain file now (the handle is closed again: the other application opens it). */
  const checked = async (value: unknown): Promise<{ path: string; name: string; target: ReturnType<typeof parseTarget> }> => {
    const target = parseTarget(value)
    const file = batches.resultFile(target)
    const { handle } = await openResult(file.path, file.name)
    await handle.close()
    return { ...file, target }
  }
  const noHost = (what: string): EngineError =>
    new EngineError('conflict', `${what} is done by the desktop app; in the browser, download the file instead.`)
  return {
    async resultOpenWith(value) {
      if (!host.openWith) throw noHost('Opening with another application')
      const { path } = await checked(value)
      const error = await host.openWith(path)
      return error ? { opened: false, path, error } : { opened: true, path }
    },
    async resultShowInFolder(value) {
      if (!host.showInFolder) throw noHost('Showing a file in its folder')
      const { path } = await checked(value)
      host.showInFolder(path)
      return { opened: true, path }
    },
    async resultDownload(value) {
      if (!host.downloads)
        throw new EngineError('conflict', 'The desktop app opens results where they are: use Open with… or Show in folder.')
      const { name, target } = await checked(value)
      return { url: host.downloads.file(target.item_id, target.output), name: posix.basename(name) }
    },
    async batchDownload(batchId) {
      if (!host.downloads) throw new EngineError('conflict', 'The desktop app opens results where they are: use Open output folder.')
      if (typeof batchId !== 'string' || batchId.length === 0 || batchId.length > 64)
        throw new EngineError('validation_failed', 'Name the batch by its id.', {
          details: [{ field: 'batch_id', issue: 'expected the batch id' }]
        })
      const { files, name } = batches.batchFiles(batchId)
      if (files.length === 0) throw new EngineError('conflict', 'This batch has no written files yet.')
      return { url: host.downloads.batch(batchId), name: `${name || 'batch'}.zip` }
    },
    async dragFile(value) {
      return (await checked(value)).path
    }
  }
}
