/**
 * The /api/v1 contract shared by every process: field enums, request and response bodies.
 * No Node, no DOM, no Electron here.
 */
import type { StoreCheck } from './store-rules'
import type { ErrorBody, FailureReason } from './errors'
import type { Review } from './review'
import type { SecondLook } from './second-look'

export const MODES = ['clipping', 'background', 'params'] as const
export type Mode = (typeof MODES)[number]

export const OUTPUT_FORMATS = ['png', 'jpg', 'jpeg', 'psd', 'tiff', 'webp'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

export const DELIVERY_MODES = ['url', 'final_url'] as const
export type DeliveryMode = (typeof DELIVERY_MODES)[number]

export const VARIATIONS = ['clipping', 'background', 'compose', 'shadowTop', 'mask'] as const
export type Variation = (typeof VARIATIONS)[number]

export const JOB_STATUSES = ['queued', 'fetching', 'segmenting', 'pending_compose', 'encoding', 'done', 'failed', 'cancelled'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]

/** The statuses a job ends in: it never moves again (done, failed or cancelled). */
export const ENDED_STATUSES: readonly JobStatus[] = ['done', 'failed', 'cancelled']

/** Whether a job with this status has ended (a status read from an event or a peer may be any text). */
export function isEnded(status: JobStatus | string): boolean {
  return (ENDED_STATUSES as readonly string[]).includes(status)
}

export type JobState = 'pending' | 'done' | 'failed'

/** The simplified state of each detailed status (docs/api.md, states). */
export const STATE_OF: Record<JobStatus, JobState> = {
  queued: 'pending',
  fetching: 'pending',
  segmenting: 'pending',
  pending_compose: 'pending',
  encoding: 'pending',
  done: 'done',
  failed: 'failed',
  cancelled: 'failed'
}

/** Progress when a status is entered; progress never goes down. */
export const PROGRESS_AT: Record<JobStatus, number> = {
  queued: 0,
  fetching: 5,
  segmenting: 10,
  pending_compose: 60,
  encoding: 90,
  done: 100,
  failed: 0,
  cancelled: 0
}

/** Job ids are UUIDs (v4, lower-case). Anything else is answered 422 by the status endpoint. */
export const JOB_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** Fields of an upload, before validation (values as they came). */
export interface UploadFields {
  file_url?: unknown
  mode?: unknown
  params?: unknown
  delivery_mode?: unknown
  output_format?: unknown
  [other: string]: unknown
}

/** 202 body of `POST /api/v1/upload`. */
export interface UploadAccepted {
  job_id: string
  status: 'queued'
  mode: Mode
}

/** Body of `GET /api/v1/status` (200, or 500 with `error` for a failed/cancelled job). */
export interface JobStatusBody {
  job_id: string
  status: JobStatus
  state: JobState
  mode: Mode
  progress: number
  final_url: string | null
  final_urls?: Partial<Record<Variation, string>>
  warnings?: Partial<Record<Variation, string[]>>
  ignored_variations?: Variation[]
  /** The registry model that made the mask, once the model step ran. */
  model?: string
  /** The device that ran it: cpu, cuda, directml, coreml or webgpu (after any fallback). */
  device?: string
  /**
   * Done jobs: how much the cutout needs a person's look, 0 (sure) to 1 (check this), 3 decimals
   * (src/shared/review.ts; docs/review.md). Absent for jobs done before the score was stored.
   */
  uncertainty?: number
  /** With `uncertainty`: its review level ("likely_wrong", "worth_a_look", null: none) and the score. */
  review?: Review
  /**
   * Done jobs made with a store preset (`amazon`, `ebay`, `etsy`, `shopify`, `google`): the
   * written file held against that store's rules (docs/store-ready.md).
   */
  checks?: StoreCheck[]
  /** Done jobs whose photo got a second look (docs/pipeline.md "Second look"): the model runs beyond the first, and why. */
  second_look?: SecondLook
  error?: ErrorBody['error'] & { reason?: FailureReason }
}

/** What both transports return: the HTTP status code and the JSON body. */
export interface ApiResponse<B> {
  status: number
  body: B
}

export type UploadResponse = ApiResponse<UploadAccepted | ErrorBody>
export type StatusResponse = ApiResponse<JobStatusBody | ErrorBody>

/** Page size of `GET /api/v1/jobs` unless `limit` says otherwise, and its largest value. */
export const JOBS_PAGE = { default: 20, max: 100 } as const
