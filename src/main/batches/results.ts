/**
 * Writes a done job's results into the batch destination with the writer all features share
 * (`../outputs/write.ts`: names chosen in one step and recorded before anything is written,
 * placed by link, never over a file that is not the item's own). The item's record: `planned`
 * (the names chosen for its current job; the same names after a crash), and the `planned`
 * names of the other pending items. A batch never replaces a file: a retried item gets new names.
 */
import { dateToken, DEFAULT_TEMPLATES, outputNames } from '../../shared/names'
import type { BatchesPort } from '../engine/ports'
import type { ResultFile } from '../outputs/engine-jobs'
import { resolveInside } from '../outputs/paths'
import { writeOutputs, type ResumeRecord } from '../outputs/write'
import type { BatchRecord, BatchStore, ItemRecord } from './store'

/** Writes the chosen results of the item's job; returns the paths written. */
export async function copyResults(
  engine: BatchesPort,
  store: BatchStore,
  item: ItemRecord,
  batch: BatchRecord,
  results: ResultFile[]
): Promise<string[]> {
  const jobId = item.jobId!
  const { destination, request } = batch
  const createdAt = engine.job(jobId)?.createdAt ?? Date.now()
  const naming = {
    relPath: item.relPath,
    template: request.name_template ?? DEFAULT_TEMPLATES.batch,
    mode: request.mode,
    params: request.params,
    date: dateToken(new Date(createdAt)),
    // The photo's number in its batch, as the form's preview counts them (only photos are written).
    seq: item.number ?? 1
  }
  const files = outputNames(naming, results).map((name, i) => ({ from: results[i]!.path, target: resolveInside(destination, name) }))
  const record: ResumeRecord = {
    planned: () => item.planned,
    ownsWritten: () => false,
    heldByOther: (path) => store.plannedByOthers(item.id).has(path),
    plan: (paths) => {
      store.updateItem(item.id, { planned: [...paths] }, { jobId })
    },
    wrote: () => undefined
  }
  return writeOutputs(files, destination, record)
}
