/**
 * The written files of a batch, as results that leave the app (open with, show in folder, drag,
 * download): only paths the batch recorded as its outputs, named by their place in the
 * destination; and, for the batch's zip, its report.
 */
import { EngineError } from '../engine/errors'
import { isStrictlyInside, relativeName } from '../outputs/paths'
import { batchReportFiles } from './report'
import { type BatchStore, TERMINAL_ITEM } from './store'

export interface WrittenFile {
  /** Absolute path in the destination. */
  path: string
  /** '/'-separated name inside the destination, e.g. `shoot/photo.png`. */
  name: string
}

export function resultFile(store: BatchStore, target: { batch_id: string; item_id: string; output?: number }): WrittenFile {
  const batch = store.batch(target.batch_id)
  const item = store.item(target.item_id)
  if (!batch || !item || item.batchId !== batch.id) throw new EngineError('not_found', 'There is no such file in this batch.')
  if (item.status !== 'done') throw new EngineError('conflict', `${item.relPath} is not done: it has no result yet.`)
  const path = item.outputs[target.output ?? 0]
  if (!path || !isStrictlyInside(batch.destination, path))
    throw new EngineError('not_found', `${item.relPath} has no written file number ${(target.output ?? 0) + 1}.`)
  return { path, name: relativeName(batch.destination, path) }
}

/** A file made for a download that is not in the destination as the batch's own (its report). */
export interface MadeFile {
  name: string
  text: string
}

/**
 * Every file the batch wrote, in the order of its items, and once no file of it is pending its
 * report (`clipdesk-report.json` and `.txt`, made from the batch's records: the destination's
 * copy may be another batch's that wrote there later).
 */
export function batchFiles(store: BatchStore, batchId: string): { files: WrittenFile[]; name: string; reports: MadeFile[] } {
  const batch = store.batch(batchId)
  if (!batch) throw new EngineError('not_found', 'There is no such batch.')
  const items = store.items(batchId)
  const ended = items.every((item) => TERMINAL_ITEM.includes(item.status))
  const files = items
    .filter((item) => item.status === 'done')
    .flatMap((item) =>
      item.outputs
        .filter((p) => isStrictlyInside(batch.destination, p))
        .map((path) => ({ path, name: relativeName(batch.destination, path) }))
    )
  return { files, name: batch.name, reports: ended ? batchReportFiles(batch, items) : [] }
}
