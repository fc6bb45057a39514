/** How batches and their items look on the wire (pure: records in, views out). */
import { posix } from 'node:path'
import { itemState, type BatchCounts, type BatchItemView, type BatchSummary } from '../../shared/batches'
import { explainProblem } from '../../shared/explain'
import type { PreviewKind } from '../../shared/previews'
import type { BatchRecord, ItemRecord } from './store'

/** Turns an item's preview into an address for one transport (app protocol, signed HTTP path). */
export type PreviewAddress = (itemId: string, kind: PreviewKind, version: string) => string

export function itemView(item: ItemRecord, address: PreviewAddress, rev: number): BatchItemView {
  const version = item.jobId ?? 'none'
  // The stored text is what refused the file; the view says it in plain words, the text behind them.
  const problem = item.error === null ? null : explainProblem(item.error)
  return {
    rev,
    id: item.id,
    batch_id: item.batchId,
    seq: item.seq,
    name: posix.basename(item.relPath),
    rel_path: item.relPath,
    status: item.status,
    state: itemState(item.status),
    progress: item.status === 'done' ? 100 : item.progress,
    job_id: item.jobId,
    error: problem?.message ?? null,
    error_detail: problem?.detail ?? null,
    warnings: item.warnings,
    outputs: item.outputs,
    model: item.model,
    device: item.device,
    uncertainty: item.uncertainty,
    checks: item.checks,
    second_look: item.secondLook,
    thumb_url: address(item.id, item.status === 'done' ? 'thumb-after' : 'thumb-before', version),
    before_url: address(item.id, 'before', version),
    after_url: item.status === 'done' ? address(item.id, 'after', version) : null,
    started_at: item.startedAt,
    finished_at: item.finishedAt,
    not_image: item.notImage,
    touch_ups: item.touchUps,
    touched_up_at: item.touchedUpAt
  }
}

export function batchSummary(
  batch: BatchRecord,
  {
    counts,
    progressSum,
    startedAt,
    finishedAt
  }: { counts: BatchCounts; progressSum: number; startedAt: number | null; finishedAt: number | null },
  rev: number
): BatchSummary {
  const pending = counts.waiting + counts.running
  return {
    id: batch.id,
    name: batch.name,
    request: batch.request,
    destination: batch.destination,
    created_at: batch.createdAt,
    started_at: startedAt,
    finished_at: pending === 0 && counts.total > 0 ? finishedAt : null,
    counts,
    progress: counts.total === 0 ? 0 : Math.floor(progressSum / counts.total),
    interrupted: batch.interruptedAt !== null && pending > 0,
    expected_files: batch.expectedFiles,
    rev
  }
}
