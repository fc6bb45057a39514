/**
 * Batches and items as the code handles them, and how they are read from their rows (tables of
 * migrations 005-batches, 007, 009, 010, 012, 013 and 016).
 */
import type { StoreCheck } from '../../shared/store-rules'
import type { SecondLook } from '../../shared/params-types'
import type { BatchItemStatus, BatchRequest } from '../../shared/batches'

export interface BatchRecord {
  id: string
  name: string
  request: BatchRequest
  destination: string
  createdAt: number
  /** Set when the app stopped while the batch had files to do: they wait for "Resume". */
  interruptedAt: number | null
  /** Files the app said it would add, counted before the first was sent; null when not said. */
  expectedFiles: number | null
}

export interface ItemRecord {
  seq: number
  id: string
  batchId: string
  relPath: string
  sourcePath: string | null
  jobId: string | null
  status: BatchItemStatus
  progress: number
  error: string | null
  warnings: string[]
  outputs: string[]
  startedAt: number | null
  finishedAt: number | null
  /** Listed with the batch, never processed: not an image. */
  notImage: boolean
  /** Output paths chosen for the current job before they are written (see 009-batch-interrupted). */
  planned: string[] | null
  /** The model and the device (after any fallback) of the job that made the results; null until done. */
  model: string | null
  device: string | null
  /** The cutout's uncertainty score (docs/review.md), 3 decimals; null until done, and for items done before scores. */
  uncertainty: number | null
  /** The written file against the store its preset is named for (docs/store-ready.md); null: none. */
  checks: StoreCheck[] | null
  /** The second look its photo got (docs/pipeline.md "Second look"); null: none, or not done. */
  secondLook: SecondLook | null
  /** Times the file's outputs were replaced by a touch-up (docs/touch-up.md "Touch-up"), and when last. */
  touchUps: number
  touchedUpAt: number | null
  /** The photo's number in its batch (`{n}`), from 1 in the order added; null for a file that is not an image. */
  number: number | null
}

export interface BatchRow {
  id: string
  name: string
  mode: BatchRequest['mode']
  output_format: BatchRequest['output_format']
  params: string | null
  destination: string
  created_at: number
  all_variations: number
  name_template: string | null
  interrupted_at: number | null
  expected_files: number | null
}

export interface ItemRow {
  seq: number
  id: string
  batch_id: string
  rel_path: string
  source_path: string | null
  job_id: string | null
  status: BatchItemStatus
  progress: number
  error: string | null
  warnings: string | null
  outputs: string | null
  started_at: number | null
  finished_at: number | null
  not_image: number
  planned: string | null
  model: string | null
  device: string | null
  uncertainty?: number | null
  checks?: string | null
  second_look?: string | null
  touch_ups?: number
  touched_up_at?: number | null
  n: number | null
}

const num = (v: number | null): number | null => (v === null ? null : Number(v))

export function toBatch(r: BatchRow): BatchRecord {
  return {
    id: r.id,
    name: r.name,
    request: {
      mode: r.mode,
      output_format: r.output_format,
      params: r.params === null ? null : JSON.parse(r.params),
      all_variations: Boolean(Number(r.all_variations)),
      name_template: r.name_template
    },
    destination: r.destination,
    createdAt: Number(r.created_at),
    interruptedAt: num(r.interrupted_at),
    expectedFiles: num(r.expected_files ?? null)
  }
}

export function toItem(r: ItemRow): ItemRecord {
  return {
    seq: Number(r.seq),
    id: r.id,
    batchId: r.batch_id,
    relPath: r.rel_path,
    sourcePath: r.source_path,
    jobId: r.job_id,
    status: r.status,
    progress: Number(r.progress),
    error: r.error,
    warnings: r.warnings ? JSON.parse(r.warnings) : [],
    outputs: r.outputs ? JSON.parse(r.outputs) : [],
    startedAt: num(r.started_at),
    finishedAt: num(r.finished_at),
    notImage: Boolean(Number(r.not_image)),
    planned: r.planned ? JSON.parse(r.planned) : null,
    model: r.model,
    device: r.device,
    uncertainty: num(r.uncertainty ?? null),
    checks: r.checks ? (JSON.parse(r.checks) as StoreCheck[]) : null,
    secondLook: r.second_look ? (JSON.parse(r.second_look) as SecondLook) : null,
    touchUps: Number(r.touch_ups ?? 0),
    touchedUpAt: num(r.touched_up_at ?? null),
    number: num(r.n)
  }
}
