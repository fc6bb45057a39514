/**
 * A done batch file as the touch-up sees it (`touchup/touchups.ts`; docs/touch-up.md
 * "Touch-up"): its job, its stored input (else the file it was added from), the batch's own
 * request and format, its outputs in the batch's destination; the touch-up is recorded on the
 * item (`touch_ups`, `touched_up_at`, the new job) and the batch's report is written again.
 */
import { posix } from 'node:path'
import { writesAllVariations } from '../../shared/outputs'
import type { TouchUpTarget } from '../../shared/touchup'
import { EngineError } from '../engine/errors'
import type { TouchUpFile } from '../touchup/touchups'
import type { BatchStore } from './store'

export interface BatchTouchUpDeps {
  store: BatchStore
  /** An item changed: tell the screens, write the batch's report again. */
  changed(itemId: string): void
}

/** The done item a target names; 404 for an unknown batch or file, 409 for a file that is not done. */
export function batchTouchUpFile(d: BatchTouchUpDeps, target: Extract<TouchUpTarget, { kind: 'batch' }>): TouchUpFile {
  const batch = d.store.batch(target.batch_id)
  if (!batch) throw new EngineError('not_found', `Batch ${target.batch_id} does not exist.`)
  const item = d.store.item(target.item_id)
  if (!item || item.batchId !== batch.id) throw new EngineError('not_found', `File ${target.item_id} does not exist.`)
  if (item.status !== 'done' || !item.jobId || item.outputs.length === 0)
    throw new EngineError('conflict', 'Only a done file can be touched up.')
  const jobId = item.jobId
  return {
    key: `batch:${item.id}`,
    jobId,
    source: item.sourcePath ? { path: item.sourcePath } : null,
    filename: posix.basename(item.relPath),
    request: batch.request,
    allVariations: writesAllVariations(batch.request.params, batch.request.all_variations),
    outputs: item.outputs,
    root: batch.destination,
    unchanged() {
      const now = d.store.item(item.id)
      return now !== null && now.status === 'done' && now.jobId === jobId
    },
    record({ jobId: newJob, warnings }) {
      const touchUps = item.touchUps + 1
      d.store.updateItem(item.id, { jobId: newJob, warnings, touchUps, touchedUpAt: Date.now() }, { jobId })
      d.changed(item.id)
      return touchUps
    }
  }
}
