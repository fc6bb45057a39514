import type { StoreCheck } from '../../../shared/store-rules'
import { type DeliveryMode, type JobStatus, type Mode, type OutputFormat, type Variation, isEnded } from '../../../shared/api'
import type { FailureReason } from '../../../shared/errors'
import type { SecondLook } from '../../../shared/params-types'
import { PROGRESS_AT } from '../../../shared/api'
import { assertTransition } from '../job-transitions'
import type { Db } from './db'
import { firstRow, prepared } from './statements'

export interface JobRecord {
  id: string
  keyId: string | null
  mode: Mode
  outputFormat: OutputFormat
  deliveryMode: DeliveryMode
  params: string | Record<string, unknown> | null
  sourceKind: 'file' | 'url'
  source: string
  inputPath: string | null
  status: JobStatus
  progress: number
  attempts: number
  errorReason: FailureReason | null
  errorMessage: string | null
  warnings: Partial<Record<Variation, string[]>>
  ignored: Variation[]
  createdAt: number
  updatedAt: number
  finishedAt: number | null
  /** The model that made the mask (registry name), once the model step ran. */
  model: string | null
  /** The device that ran it (`cpu`, `cuda`, …: after any fallback). */
  device: string | null
  /** The cutout's uncertainty, 0 (sure) to 1 (check this), once done (docs/review.md); null before, and for older jobs. */
  uncertainty: number | null
  /** The second look the photo got once done (docs/pipeline.md "Second look"); null: none, or not done. */
  secondLook: SecondLook | null
}

type Rect = { x: number; y: number; width: number; height: number }
/** The part of the input placed (`source`), where it landed (`target`) and the canvas (`pipeline/compose/placement.ts`). */
export interface JobFraming {
  canvas: { width: number; height: number }
  source: Rect
  target: Rect
}

export interface ResultRecord {
  variation: Variation
  ext: string
  path: string
  bytes: number
}

export type NewJob = Pick<
  JobRecord,
  'id' | 'keyId' | 'mode' | 'outputFormat' | 'deliveryMode' | 'params' | 'sourceKind' | 'source' | 'inputPath'
>

interface JobRow {
  id: string
  key_id: string | null
  mode: Mode
  output_format: OutputFormat
  delivery_mode: DeliveryMode
  params: string | null
  source_kind: 'file' | 'url'
  source: string
  input_path: string | null
  status: JobStatus
  progress: number
  attempts: number
  error_reason: FailureReason | null
  error_message: string | null
  warnings: string | null
  ignored: string | null
  created_at: number
  updated_at: number
  finished_at: number | null
  model?: string | null
  device?: string | null
  uncertainty?: number | null
  second_look?: string | null
}

function toRecord(r: JobRow): JobRecord {
  return {
    id: r.id,
    keyId: r.key_id,
    mode: r.mode,
    outputFormat: r.output_format,
    deliveryMode: r.delivery_mode,
    params: r.params === null ? null : JSON.parse(r.params),
    sourceKind: r.source_kind,
    source: r.source,
    inputPath: r.input_path,
    status: r.status,
    progress: Number(r.progress),
    attempts: Number(r.attempts),
    errorReason: r.error_reason,
    errorMessage: r.error_message,
    warnings: r.warnings ? JSON.parse(r.warnings) : {},
    ignored: r.ignored ? JSON.parse(r.ignored) : [],
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    finishedAt: r.finished_at === null ? null : Number(r.finished_at),
    model: r.model ?? null,
    device: r.device ?? null,
    uncertainty: r.uncertainty === null || r.uncertainty === undefined ? null : Number(r.uncertainty),
    secondLook: r.second_look ? (JSON.parse(r.second_look) as SecondLook) : null
  }
}

/** What a move may also record on the job. */
export interface MovePatch {
  progress?: number
  errorReason?: FailureReason
  errorMessage?: string
  warnings?: Partial<Record<Variation, string[]>>
  ignored?: Variation[]
  inputPath?: string
  /** Added to `attempts` (a run starting counts +1; a clean shutdown gives it back). */
  attemptsDelta?: number
  /**
   * Only move when the job is still at this attempt: a run that was given up and claimed again
   * (a worker that went silent and came back) can no longer move the job.
   */
  attempt?: number
}

/**
 * Jobs and their results. Every status change goes through `move`, which checks the
 * TRANSITIONS table and only applies when the job is still in the expected status, so two
 * movers (worker and cancel) can never both win.
 */
export class JobStore {
  constructor(private readonly db: Db) {}

  insert(job: NewJob): void {
    const now = Date.now()
    prepared(
      this.db,
      `INSERT INTO jobs (id, key_id, mode, output_format, delivery_mode, params, source_kind, source, input_path,
                           status, progress, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?)`
    ).run(
      job.id,
      job.keyId,
      job.mode,
      job.outputFormat,
      job.deliveryMode,
      job.params === null ? null : JSON.stringify(job.params),
      job.sourceKind,
      job.source,
      job.inputPath,
      now,
      now
    )
  }

  get(id: string): JobRecord | null {
    return firstRow(this.db, 'SELECT * FROM jobs WHERE id = ?', toRecord, id)
  }

  /** The newest job whose source (file name or URL) is `source`: a submit cut short can be found again by a unique name. */
  latestBySource(source: string): JobRecord | null {
    return firstRow(this.db, 'SELECT * FROM jobs WHERE source = ? ORDER BY seq DESC LIMIT 1', toRecord, source)
  }

  /** How many jobs there are, of every status. */
  count(): number {
    return Number((prepared(this.db, 'SELECT count(*) AS n FROM jobs').get() as { n: number }).n)
  }

  countByStatus(status: JobStatus): number {
    return Number((prepared(this.db, 'SELECT count(*) AS n FROM jobs WHERE status = ?').get(status) as { n: number }).n)
  }

  /** Queued jobs of one API key (its share of the queue, docs/api.md §15). */
  countQueuedForKey(keyId: string): number {
    return Number(
      (prepared(this.db, "SELECT count(*) AS n FROM jobs WHERE status = 'queued' AND key_id = ?").get(keyId) as { n: number }).n
    )
  }

  idsByStatus(statuses: readonly JobStatus[]): string[] {
    const marks = statuses.map(() => '?').join(', ')
    return (prepared(this.db, `SELECT id FROM jobs WHERE status IN (${marks}) ORDER BY seq`).all(...statuses) as { id: string }[]).map(
      (r) => r.id
    )
  }

  /**
   * A page of the queue: ids and queue order of jobs in `statuses` after `afterSeq`, oldest
   * first, at most `limit` (the `jobs_status` index answers it without a scan).
   */
  pageByStatus(statuses: readonly JobStatus[], afterSeq: number, limit: number): { id: string; seq: number }[] {
    const marks = statuses.map(() => '?').join(', ')
    const rows = prepared(this.db, `SELECT id, seq FROM jobs WHERE status IN (${marks}) AND seq > ? ORDER BY seq LIMIT ?`).all(
      ...statuses,
      afterSeq,
      limit
    ) as {
      id: string
      seq: number
    }[]
    return rows.map((r) => ({ id: r.id, seq: Number(r.seq) }))
  }

  /**
   * One key's jobs, newest first: those queued before `beforeSeq` (null: from the newest), at
   * most `limit`, each with its queue order for the next page's cursor (`GET /api/v1/jobs`).
   */
  pageForKey(keyId: string, beforeSeq: number | null, limit: number): { job: JobRecord; seq: number }[] {
    const rows = prepared(this.db, 'SELECT * FROM jobs WHERE key_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?').all(
      keyId,
      beforeSeq ?? Number.MAX_SAFE_INTEGER,
      limit
    ) as (JobRow & {
      seq: number
    })[]
    return rows.map((r) => ({ job: toRecord(r), seq: Number(r.seq) }))
  }

  /**
   * The oldest queued job of each key (the app's own jobs, which have none, as one), oldest
   * first: the jobs the scheduler chooses between (`queue/turns.ts`).
   */
  queuedHeads(): JobRecord[] {
    const rows = prepared(
      this.db,
      "SELECT jobs.* FROM jobs JOIN (SELECT min(seq) AS head FROM jobs WHERE status = 'queued' GROUP BY key_id) ON jobs.seq = head ORDER BY jobs.seq"
    ).all() as JobRow[]
    return rows.map(toRecord)
  }

  /**
   * Moves a job from `from` to `to`. Returns false (and changes nothing) when the job is no
   * longer in `from`; throws IllegalTransitionError when the move is not in the table.
   * Progress never goes down: the stored value is the maximum seen.
   */
  move(id: string, from: JobStatus, to: JobStatus, patch: MovePatch = {}): boolean {
    assertTransition(from, to)
    const now = Date.now()
    const progress = patch.progress ?? PROGRESS_AT[to]
    const terminal = isEnded(to)
    const r = prepared(
      this.db,
      `UPDATE jobs SET status = ?, progress = max(progress, ?), updated_at = ?,
           attempts = attempts + ?,
           error_reason = coalesce(?, error_reason), error_message = coalesce(?, error_message),
           warnings = coalesce(?, warnings), ignored = coalesce(?, ignored),
           input_path = coalesce(?, input_path),
           finished_at = CASE WHEN ? THEN ? ELSE finished_at END
         WHERE id = ? AND status = ? AND (? IS NULL OR attempts = ?)`
    ).run(
      to,
      progress,
      now,
      patch.attemptsDelta ?? 0,
      patch.errorReason ?? null,
      patch.errorMessage ?? null,
      patch.warnings ? JSON.stringify(patch.warnings) : null,
      patch.ignored ? JSON.stringify(patch.ignored) : null,
      patch.inputPath ?? null,
      terminal ? 1 : 0,
      now,
      id,
      from,
      patch.attempt ?? null,
      patch.attempt ?? null
    )
    return r.changes > 0
  }

  /** Raises progress within the current status (never lowers it). */
  setProgress(id: string, status: JobStatus, progress: number): void {
    prepared(this.db, 'UPDATE jobs SET progress = max(progress, ?), updated_at = ? WHERE id = ? AND status = ?').run(
      Math.round(progress),
      Date.now(),
      id,
      status
    )
  }

  /** Records which model and device made the job's mask. */
  setModelRun(jobId: string, model: string, device: string): void {
    prepared(this.db, 'UPDATE jobs SET model = ?, device = ? WHERE id = ?').run(model, device, jobId)
  }

  /** Records the second look the photo got (written with the results, in the same transaction). */
  setSecondLook(jobId: string, look: SecondLook): void {
    prepared(this.db, 'UPDATE jobs SET second_look = ? WHERE id = ?').run(JSON.stringify({ views: look.views, reason: look.reason }), jobId)
  }

  /** Records the cutout's uncertainty score (written with the results, in the same transaction). */
  setUncertainty(jobId: string, uncertainty: number): void {
    prepared(this.db, 'UPDATE jobs SET uncertainty = ? WHERE id = ?').run(uncertainty, jobId)
  }

  addResult(jobId: string, result: ResultRecord): void {
    prepared(this.db, 'INSERT OR REPLACE INTO results (job_id, variation, ext, path, bytes) VALUES (?, ?, ?, ?, ?)').run(
      jobId,
      result.variation,
      result.ext,
      result.path,
      result.bytes
    )
  }

  /** Forgets a job's stored results (their files are removed by the caller). */
  deleteResults(jobId: string): void {
    prepared(this.db, 'DELETE FROM results WHERE job_id = ?').run(jobId)
  }

  /**
   * Turns a done job into a failed one, for the one rule of money (`run/record.ts`,
   * `endWithoutCharge`): outside the TRANSITIONS table, which keeps `done` an end for every run.
   * False when the job is not done.
   */
  withdraw(id: string, reason: FailureReason, message: string): boolean {
    const r = prepared(
      this.db,
      "UPDATE jobs SET status = 'failed', error_reason = ?, error_message = ?, updated_at = ? WHERE id = ? AND status = 'done'"
    ).run(reason, message, Date.now(), id)
    return r.changes > 0
  }

  results(jobId: string): ResultRecord[] {
    const rows = prepared(this.db, 'SELECT variation, ext, path, bytes FROM results WHERE job_id = ? ORDER BY rowid').all(jobId) as {
      variation: Variation
      ext: string
      path: string
      bytes: number
    }[]
    return rows.map((r) => ({ variation: r.variation, ext: r.ext, path: r.path, bytes: Number(r.bytes) }))
  }

  /** Finished jobs older than `before` (ms epoch): candidates for the retention sweep. */
  finishedBefore(before: number): string[] {
    return (
      prepared(this.db, 'SELECT id FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ? ORDER BY seq').all(before) as {
        id: string
      }[]
    ).map((r) => r.id)
  }

  /** Records how a done job framed its subject (for before/after views: `schema/job-framing.ts`). */
  setFraming(jobId: string, framing: JobFraming): void {
    prepared(this.db, 'INSERT OR REPLACE INTO job_framing (job_id, framing) VALUES (?, ?)').run(jobId, JSON.stringify(framing))
  }

  setChecks(jobId: string, checks: StoreCheck[]): void {
    prepared(this.db, 'INSERT OR REPLACE INTO job_checks (job_id, checks) VALUES (?, ?)').run(jobId, JSON.stringify(checks))
  }

  /** A done job's store checks (docs/store-ready.md); null when it was held against no store. */
  checks(jobId: string): StoreCheck[] | null {
    const row = prepared(this.db, 'SELECT checks FROM job_checks WHERE job_id = ?').get(jobId) as { checks: string } | undefined
    return row ? (JSON.parse(row.checks) as StoreCheck[]) : null
  }

  /** How a done job framed its subject; null when not recorded (a studio worker's job, or an older one). */
  framing(jobId: string): JobFraming | null {
    const row = prepared(this.db, 'SELECT framing FROM job_framing WHERE job_id = ?').get(jobId) as { framing: string } | undefined
    return row ? (JSON.parse(row.framing) as JobFraming) : null
  }

  deleteJob(id: string): void {
    prepared(this.db, 'DELETE FROM jobs WHERE id = ?').run(id)
  }
}
