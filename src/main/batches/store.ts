import type { StoreCheck } from '../../shared/store-rules'
import { type BatchCounts, type BatchItemStatus, batchCounts } from '../../shared/batches'
import type { SecondLook } from '../../shared/params-types'
import { LIKELY_WRONG, TO_CHECK } from '../../shared/review'
import { applyMigrations, firstRow, prepared, type Db } from '../engine/feature-tables'
import { toBatch, toItem, type BatchRecord, type BatchRow, type ItemRecord, type ItemRow } from './records'
import { BATCH_MIGRATIONS } from './schema/migrations'

export type { BatchRecord, ItemRecord } from './records'

export const TERMINAL_ITEM: readonly BatchItemStatus[] = ['done', 'failed', 'cancelled']
const TERMINAL_SQL = "('done', 'failed', 'cancelled')"
/** Handed to the engine and not ended. A waiting item may keep its previous job (to re-read its upload). */
const IN_FLIGHT_SQL = `job_id IS NOT NULL AND status <> 'waiting' AND status NOT IN ${TERMINAL_SQL}`

/** What an item update may set; absent fields stay as they are. */
export interface ItemPatch {
  jobId?: string | null
  status?: BatchItemStatus
  progress?: number
  error?: string | null
  warnings?: string[]
  outputs?: string[]
  startedAt?: number | null
  finishedAt?: number | null
  planned?: string[] | null
  model?: string | null
  device?: string | null
  uncertainty?: number | null
  checks?: StoreCheck[] | null
  secondLook?: SecondLook | null
  touchUps?: number
  touchedUpAt?: number | null
}

/** Batches and their items in the data folder's database (the batch migrations, applied on opening). */
export class BatchStore {
  constructor(private readonly db: Db) {
    applyMigrations(db, BATCH_MIGRATIONS)
  }

  insertBatch(b: BatchRecord): void {
    prepared(
      this.db,
      'INSERT INTO batches (id, name, mode, output_format, params, all_variations, name_template, destination, created_at, expected_files) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
    ).run(
      b.id,
      b.name,
      b.request.mode,
      b.request.output_format,
      b.request.params === null ? null : JSON.stringify(b.request.params),
      b.request.all_variations ? 1 : 0,
      b.request.name_template ?? null,
      b.destination,
      b.createdAt,
      b.expectedFiles
    )
  }

  batch(id: string): BatchRecord | null {
    return firstRow(this.db, 'SELECT * FROM batches WHERE id = ?', toBatch, id)
  }

  /** Newest first. */
  batches(): BatchRecord[] {
    return (prepared(this.db, 'SELECT * FROM batches ORDER BY created_at DESC, rowid DESC').all() as BatchRow[]).map(toBatch)
  }

  deleteBatch(id: string): boolean {
    return prepared(this.db, 'DELETE FROM batches WHERE id = ?').run(id).changes > 0
  }

  /** Marks a batch interrupted (a time) or running again (null). */
  setInterrupted(id: string, at: number | null): boolean {
    return prepared(this.db, 'UPDATE batches SET interrupted_at = ? WHERE id = ?').run(at, id).changes > 0
  }

  /** Batches with files not ended (waiting, or handed to the engine), oldest first. */
  pendingBatchIds(): string[] {
    const rows = prepared(this.db, `SELECT DISTINCT batch_id FROM batch_items WHERE status NOT IN ${TERMINAL_SQL}`).all() as Array<{
      batch_id: string
    }>
    return rows.map((r) => r.batch_id)
  }

  insertItem(
    item: Pick<ItemRecord, 'id' | 'batchId' | 'relPath' | 'sourcePath' | 'jobId' | 'status'> & {
      notImage?: boolean
      error?: string
      finishedAt?: number
    }
  ): ItemRecord {
    prepared(
      this.db,
      // A photo takes the batch's next number (`{n}`, 016-batch-item-number); a file that is not an image none.
      `INSERT INTO batch_items (id, batch_id, rel_path, source_path, job_id, status, not_image, error, finished_at, n)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN NULL ELSE (SELECT coalesce(max(n), 0) + 1 FROM batch_items WHERE batch_id = ?) END)`
    ).run(
      item.id,
      item.batchId,
      item.relPath,
      item.sourcePath,
      item.jobId,
      item.status,
      item.notImage ? 1 : 0,
      item.error ?? null,
      item.finishedAt ?? null,
      item.notImage ? 1 : 0,
      item.batchId
    )
    return this.item(item.id)!
  }

  item(id: string): ItemRecord | null {
    return firstRow(this.db, 'SELECT * FROM batch_items WHERE id = ?', toItem, id)
  }

  itemByJob(jobId: string): ItemRecord | null {
    return firstRow(this.db, 'SELECT * FROM batch_items WHERE job_id = ?', toItem, jobId)
  }

  items(batchId: string): ItemRecord[] {
    return (prepared(this.db, 'SELECT * FROM batch_items WHERE batch_id = ? ORDER BY seq').all(batchId) as ItemRow[]).map(toItem)
  }

  /** Items handed to the engine that have not ended. */
  inFlight(): ItemRecord[] {
    return (prepared(this.db, `SELECT * FROM batch_items WHERE ${IN_FLIGHT_SQL} ORDER BY seq`).all() as ItemRow[]).map(toItem)
  }

  inFlightCount(): number {
    return Number((prepared(this.db, `SELECT count(*) AS n FROM batch_items WHERE ${IN_FLIGHT_SQL}`).get() as { n: number }).n)
  }

  /**
   * The oldest waiting items that can be handed to the engine (a file on disk, or the kept upload
   * of an earlier job), across batches, except those of interrupted batches (held for "Resume").
   */
  nextWaiting(limit: number): ItemRecord[] {
    return (
      prepared(
        this.db,
        `SELECT * FROM batch_items WHERE status = 'waiting' AND (source_path IS NOT NULL OR job_id IS NOT NULL)
             AND batch_id NOT IN (SELECT id FROM batches WHERE interrupted_at IS NOT NULL) ORDER BY seq LIMIT ?`
      ).all(limit) as ItemRow[]
    ).map(toItem)
  }

  /** Output paths other pending items of any batch have chosen but not yet recorded as written. */
  plannedByOthers(itemId: string): Set<string> {
    const rows = prepared(
      this.db,
      `SELECT planned FROM batch_items WHERE planned IS NOT NULL AND id <> ? AND status NOT IN ${TERMINAL_SQL}`
    ).all(itemId) as Array<{ planned: string }>
    return new Set(rows.flatMap((r) => JSON.parse(r.planned) as string[]))
  }

  /** Items not yet handed to the engine, across batches (the tray's queue). */
  waitingCount(): number {
    return Number((prepared(this.db, "SELECT count(*) AS n FROM batch_items WHERE status = 'waiting'").get() as { n: number }).n)
  }

  /** Waiting items without a file on disk or an earlier job: their bytes were being handed over when the process stopped. */
  orphans(): ItemRecord[] {
    return (
      prepared(this.db, "SELECT * FROM batch_items WHERE status = 'waiting' AND source_path IS NULL AND job_id IS NULL").all() as ItemRow[]
    ).map(toItem)
  }

  /** Updates an item; `onlyIf` guards against a concurrent change (e.g. cancelled meanwhile). */
  updateItem(id: string, patch: ItemPatch, onlyIf?: { status?: BatchItemStatus; jobId?: string }): boolean {
    const sets: string[] = []
    const values: unknown[] = []
    const set = (column: string, value: unknown): void => {
      sets.push(`${column} = ?`)
      values.push(value)
    }
    if (patch.jobId !== undefined) set('job_id', patch.jobId)
    if (patch.status !== undefined) set('status', patch.status)
    if (patch.progress !== undefined) set('progress', Math.round(patch.progress))
    if (patch.error !== undefined) set('error', patch.error)
    if (patch.warnings !== undefined) set('warnings', JSON.stringify(patch.warnings))
    if (patch.outputs !== undefined) set('outputs', JSON.stringify(patch.outputs))
    if (patch.startedAt !== undefined) set('started_at', patch.startedAt)
    if (patch.finishedAt !== undefined) set('finished_at', patch.finishedAt)
    if (patch.planned !== undefined) set('planned', patch.planned === null ? null : JSON.stringify(patch.planned))
    if (patch.model !== undefined) set('model', patch.model)
    if (patch.device !== undefined) set('device', patch.device)
    if (patch.uncertainty !== undefined) set('uncertainty', patch.uncertainty)
    if (patch.checks !== undefined) set('checks', patch.checks === null ? null : JSON.stringify(patch.checks))
    if (patch.secondLook !== undefined) set('second_look', patch.secondLook === null ? null : JSON.stringify(patch.secondLook))
    if (patch.touchUps !== undefined) set('touch_ups', patch.touchUps)
    if (patch.touchedUpAt !== undefined) set('touched_up_at', patch.touchedUpAt)
    if (sets.length === 0) return false
    let where = 'id = ?'
    values.push(id)
    if (onlyIf?.status !== undefined) {
      where += ' AND status = ?'
      values.push(onlyIf.status)
    }
    if (onlyIf?.jobId !== undefined) {
      where += ' AND job_id = ?'
      values.push(onlyIf.jobId)
    }
    return prepared(this.db, `UPDATE batch_items SET ${sets.join(', ')} WHERE ${where}`).run(...values).changes > 0
  }

  counts(batchId: string): { counts: BatchCounts; progressSum: number; startedAt: number | null; finishedAt: number | null } {
    const rows = prepared(
      this.db,
      `SELECT status, not_image, count(*) AS n, sum(progress) AS p, min(started_at) AS s, max(finished_at) AS f,
                sum(CASE WHEN started_at IS NULL THEN 1 ELSE 0 END) AS ns,
                sum(CASE WHEN uncertainty >= ? AND touch_ups = 0 THEN 1 ELSE 0 END) AS tc,
                sum(CASE WHEN uncertainty >= ? AND touch_ups = 0 THEN 1 ELSE 0 END) AS lw,
                sum(CASE WHEN touch_ups > 0 THEN 1 ELSE 0 END) AS tu,
                sum(coalesce(json_array_length(warnings), 0)) AS w
           FROM batch_items WHERE batch_id = ? GROUP BY status, not_image`
    )
      // A touched-up file has been looked at and fixed: it leaves "to check" (src/shared/review.ts, fileReviewLevel).
      .all(TO_CHECK, LIKELY_WRONG, batchId) as Array<{
      status: BatchItemStatus
      not_image: number
      n: number
      p: number | null
      s: number | null
      f: number | null
      ns: number
      tc: number | null
      lw: number | null
      tu: number | null
      w: number | null
    }>
    const counts: BatchCounts = batchCounts({ warnings: 0 })
    let progressSum = 0
    let startedAt: number | null = null
    let finishedAt: number | null = null
    for (const r of rows) {
      const n = Number(r.n)
      // Files that are not images are listed apart: the counts and the bar are about the photos.
      if (Number(r.not_image)) {
        counts.not_images += n
        continue
      }
      counts.total += n
      if (r.status === 'waiting' || r.status === 'queued') counts.waiting += n
      else if (r.status === 'done') {
        counts.done += n
        counts.to_check += Number(r.tc ?? 0)
        counts.likely_wrong += Number(r.lw ?? 0)
        counts.touched_up += Number(r.tu ?? 0)
        counts.warnings = (counts.warnings ?? 0) + Number(r.w ?? 0)
      } else if (r.status === 'failed') counts.failed += n
      else if (r.status === 'cancelled') {
        counts.cancelled += n
        counts.not_started += Number(r.ns)
      } else counts.running += n
      // Ended items count as complete for the overall bar.
      progressSum += TERMINAL_ITEM.includes(r.status) ? 100 * n : Number(r.p ?? 0)
      if (r.s !== null) startedAt = startedAt === null ? Number(r.s) : Math.min(startedAt, Number(r.s))
      if (r.f !== null) finishedAt = finishedAt === null ? Number(r.f) : Math.max(finishedAt, Number(r.f))
    }
    return { counts, progressSum, startedAt, finishedAt }
  }
}
