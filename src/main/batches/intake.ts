/**
 * Files entering a batch. Each reference becomes one item (a dropped folder, one per file):
 * a path on this machine waits in the batch until the runner hands it over; bytes (no path
 * to come back to) go to the engine at once; a job uploaded by a browser joins by id; a file
 * that is not an image, or that a browser could not send, is listed with the reason and never
 * run. A reference that cannot be added at all is returned as refused, with why.
 */
import { randomUUID } from 'node:crypto'
import { basename, posix } from 'node:path'
import type { BatchAddResult, BatchFileRef } from '../../shared/batches'
import type { BatchesPort } from '../engine/ports'
import { MIRRORS_FOLDER_NAME } from '../../shared/names'
import { expandInput } from '../outputs/inputs'
import { cleanRelPath } from './paths'
import type { BatchRunner } from './runner'
import type { BatchStore } from './store'
import { errorText } from '../../shared/errors'
import { isEnded } from '../../shared/api'

export interface IntakeDeps {
  engine: BatchesPort
  store: BatchStore
  runner: BatchRunner
}

function relPathOf(rel: string): string {
  const clean = cleanRelPath(rel)
  if (!clean) throw new Error(`not a usable file name: "${rel}"`)
  return clean
}

/** An item listed with the batch but never run: ended (failed) at once, with the reason. */
function listedOnly(batchId: string, relPath: string, reason: string, notImage: boolean, sourcePath: string | null = null) {
  return {
    id: randomUUID(),
    batchId,
    relPath,
    sourcePath,
    jobId: null,
    status: 'failed' as const,
    notImage,
    error: reason,
    finishedAt: Date.now()
  }
}

function notImageReason(relPath: string): string {
  const ext = posix.extname(relPath)
  return `Not an image${ext ? ` (${ext})` : ''}: skipped.`
}

export async function addFiles({ engine, store, runner }: IntakeDeps, batchId: string, files: BatchFileRef[]): Promise<BatchAddResult> {
  const result: BatchAddResult = { added: 0, refused: [] }
  for (const ref of files) {
    try {
      if ('path' in ref) {
        // A dropped folder is mirrored under its own name: `shoot/` gives `shoot/day1/a.jpg` (MIRRORS_FOLDER_NAME).
        const under = MIRRORS_FOLDER_NAME.batch ? (cleanRelPath(ref.rel_path ?? basename(ref.path)) ?? basename(ref.path)) : ''
        const expanded = await expandInput(ref.path, under)
        engine.inTransaction(() => {
          for (const file of expanded) {
            store.insertItem(
              file.notImage
                ? listedOnly(batchId, file.relPath, notImageReason(file.relPath), true, file.path)
                : { id: randomUUID(), batchId, relPath: file.relPath, sourcePath: file.path, jobId: null, status: 'waiting' }
            )
          }
        })
        result.added += expanded.length
      } else if ('bytes' in ref) {
        const relPath = relPathOf(ref.rel_path)
        const item = store.insertItem({ id: randomUUID(), batchId, relPath, sourcePath: null, jobId: null, status: 'waiting' })
        // No path to come back to: hand it to the engine now (the engine keeps the upload).
        await runner.submit(item, { bytes: Buffer.from(ref.bytes), name: posix.basename(relPath) })
        result.added++
      } else if ('refused' in ref) {
        store.insertItem(listedOnly(batchId, relPathOf(ref.rel_path), ref.refused, ref.not_image ?? false))
        result.added++
      } else {
        const relPath = relPathOf(ref.rel_path)
        const job = engine.job(ref.job_id)
        if (!job) throw new Error(`no job ${ref.job_id}`)
        if (store.itemByJob(job.id)) throw new Error(`job ${job.id} is already in a batch`)
        // An ended job enters as queued: `sync` then copies its results (or records its failure).
        const ended = isEnded(job.status)
        const item = store.insertItem({
          id: randomUUID(),
          batchId,
          relPath,
          sourcePath: null,
          jobId: job.id,
          status: ended ? 'queued' : job.status
        })
        runner.sync(item)
        result.added++
      }
    } catch (err) {
      const relPath = 'path' in ref ? (ref.rel_path ?? ref.path) : ref.rel_path
      result.refused.push({ rel_path: relPath, error: errorText(err) })
    }
  }
  return result
}
