/**
 * A batch's report, written beside its outputs each time the batch ends (again after a retry
 * or a resume): `clipdesk-report.json` and `.txt` in the destination, in the format
 * `clipdesk process` uses (`../outputs/report.ts`). Failed files with the reason, files
 * that are not images, cancelled files, warnings, and each cutout's uncertainty score.
 */
import { batchOutcome, type BatchCounts } from '../../shared/batches'
import { explainProblem } from '../../shared/explain'
import { countOf, countsLine } from '../../shared/vocabulary'
import type { RunReport } from '../outputs/report'
import { reportCutouts, runReportFiles, storeCheckEntries, writeRunReport } from '../outputs/report'
import { basename } from 'node:path'
import type { BatchRecord, BatchStore, ItemRecord } from './store'

export interface BatchReport extends RunReport {
  batch: { id: string; name: string }
  counts: {
    images: number
    touched_up: number
    done: number
    failed: number
    cancelled: number
    not_started: number
    not_images: number
    files_written: number
    to_check: number
    likely_wrong: number
  }
  cancelled: string[]
  /** Files whose outputs were replaced by a touch-up, the previous versions kept beside them (docs/touch-up.md "Touch-up"). */
  touched_up: Array<{ input: string; times: number; at: string }>
}

const iso = (ms: number | null): string => new Date(ms ?? Date.now()).toISOString()

export function batchReport(batch: BatchRecord, items: ItemRecord[]): BatchReport {
  const images = items.filter((i) => !i.notImage)
  const failed = images.filter((i) => i.status === 'failed')
  const done = images.filter((i) => i.status === 'done')
  const started = items.map((i) => i.startedAt).filter((t): t is number => t !== null)
  const finished = items.map((i) => i.finishedAt).filter((t): t is number => t !== null)
  const cancelled = images.filter((i) => i.status === 'cancelled')
  const counts: BatchCounts = {
    total: images.length,
    waiting: 0,
    running: 0,
    done: done.length,
    failed: failed.length,
    cancelled: cancelled.length,
    not_started: cancelled.filter((i) => i.startedAt === null).length,
    not_images: items.length - images.length,
    to_check: 0,
    likely_wrong: 0,
    touched_up: done.filter((i) => i.touchUps > 0).length,
    warnings: done.reduce((n, i) => n + i.warnings.length, 0)
  }
  // A touched-up file has left "to check" (docs/review.md): the counts and the list say so.
  const cutouts = reportCutouts(
    done.map((i) => ({ input: i.relPath, uncertainty: i.uncertainty, touchUps: i.touchUps, secondLook: i.secondLook }))
  )
  counts.to_check = cutouts.filter((c) => c.to_check).length
  counts.likely_wrong = cutouts.filter((c) => c.review === 'likely_wrong').length
  return {
    batch: { id: batch.id, name: batch.name },
    started_at: iso(started.length > 0 ? Math.min(...started) : batch.createdAt),
    finished_at: iso(finished.length > 0 ? Math.max(...finished) : null),
    outcome: batchOutcome({ counts, interrupted: false, progress: 100 }).title,
    settings: {
      mode: batch.request.mode,
      output_format: batch.request.output_format,
      ...(batch.request.params !== null ? { params: batch.request.params } : {}),
      all_variations: batch.request.all_variations ?? false,
      ...(batch.request.name_template ? { name_template: batch.request.name_template } : {})
    },
    counts: {
      images: images.length,
      touched_up: counts.touched_up,
      done: done.length,
      failed: failed.length,
      cancelled: counts.cancelled,
      not_started: counts.not_started,
      not_images: counts.not_images,
      files_written: done.reduce((n, i) => n + i.outputs.length, 0),
      to_check: counts.to_check,
      likely_wrong: counts.likely_wrong
    },
    failed: failed.map((i) => {
      const { message, detail } = explainProblem(i.error)
      return { input: i.relPath, reason: message, ...(detail ? { details: detail } : {}) }
    }),
    not_images: items.filter((i) => i.notImage).map((i) => i.relPath),
    cancelled: cancelled.map((i) => i.relPath),
    warnings: images.flatMap((i) => i.warnings.map((warning) => ({ input: i.relPath, warning }))),
    cutouts,
    // Each file a store preset made, against that store (docs/store-ready.md), named by its written file.
    checks: done.flatMap((i) => (i.checks ? storeCheckEntries(i.relPath, basename(i.outputs[0] ?? i.relPath), i.checks) : [])),
    touched_up: done.filter((i) => i.touchUps > 0).map((i) => ({ input: i.relPath, times: i.touchUps, at: iso(i.touchedUpAt) }))
  }
}

/** Writes the report of an ended batch into its destination; returns the readable file. */
export async function writeBatchReport(batch: BatchRecord, items: ItemRecord[]): Promise<string> {
  const { report, title, summary } = reportParts(batch, items)
  return writeRunReport(batch.destination, report, title, summary)
}

/** The report's two files as they are written (`clipdesk-report.json` and `.txt`), for the batch's zip. */
export function batchReportFiles(batch: BatchRecord, items: ItemRecord[]): Array<{ name: string; text: string }> {
  const { report, title, summary } = reportParts(batch, items)
  return runReportFiles(report, title, summary)
}

function reportParts(batch: BatchRecord, items: ItemRecord[]): { report: BatchReport; title: string; summary: string } {
  const r = batchReport(batch, items)
  const c = r.counts
  const touched =
    c.touched_up > 0
      ? `; ${countOf(c.touched_up, 'photo')} touched up (${r.touched_up.map((t) => t.input).join(', ')}), the previous versions kept beside them`
      : ''
  const summary =
    `${countOf(c.images, 'photo')}: ` +
    countsLine([
      [c.done, (n) => `${n} done`],
      [c.failed, (n) => `${n} failed`],
      [c.cancelled - c.not_started, (n) => `${n} stopped while running`],
      [c.not_started, (n) => `${n} not started`]
    ]) +
    `; ${countOf(c.files_written, 'file')} written` +
    (c.not_images > 0 ? `; ${countOf(c.not_images, 'other file')} skipped (not ${c.not_images === 1 ? 'an image' : 'images'})` : '') +
    touched
  return { report: r, title: `clipdesk batch "${batch.name}"`, summary }
}

/**
 * Writes a batch's report each time no file of it is pending: one write at a time per batch,
 * and once more if the batch changed during it (`track` lets the service wait for it at stop).
 */
export class BatchReporter {
  private readonly writing = new Set<string>()
  private readonly again = new Set<string>()

  constructor(
    private readonly store: BatchStore,
    private readonly track: (p: Promise<unknown>) => unknown
  ) {}

  reportIfEnded(batchId: string): void {
    const { counts } = this.store.counts(batchId)
    if (counts.waiting + counts.running > 0 || counts.total + counts.not_images === 0) return
    if (this.writing.has(batchId)) {
      this.again.add(batchId)
      return
    }
    this.writing.add(batchId)
    this.track(
      (async () => {
        try {
          do {
            this.again.delete(batchId)
            const batch = this.store.batch(batchId)
            if (!batch) return
            // A destination removed meanwhile: there is nowhere to write the report.
            await writeBatchReport(batch, this.store.items(batchId)).catch(() => undefined)
          } while (this.again.has(batchId))
        } finally {
          this.writing.delete(batchId)
        }
      })()
    )
  }
}
