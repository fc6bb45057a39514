/**
 * What a studio worker and its coordinator exchange (JSON over `/api/v1/studio/*`, or direct
 * calls for the coordinator's own worker). The queue (BullMQ) carries only job ids: the
 * coordinator's SQLite store stays the record of every job, key, credit and result.
 */
import type { SecondLook } from '../../shared/params-types'
import type { OutputFormat, Variation } from '../../shared/api'
import { queueUrlProblem } from '../../shared/app'
import type { FailureReason } from '../../shared/errors'
import type { JobParams } from '../../shared/params-types'

/** The BullMQ queue every coordinator and worker of one studio share. */
export const STUDIO_QUEUE = 'clipdesk-jobs'

/**
 * The version of the worker protocol below. Every worker call carries it in
 * `X-Clipdesk-Studio`; a coordinator answers a call without it, or with another version,
 * 400 `protocol_mismatch`, and a worker refuses a coordinator whose hello names another.
 */
export const STUDIO_PROTOCOL = 3
export const PROTOCOL_HEADER = 'x-clipdesk-studio'
/** The claim's token, on every call about a claimed job (input, renew, progress, result, fail). */
export const CLAIM_HEADER = 'x-clipdesk-claim'

/** What the queue carries for one job. */
export interface QueuedJob {
  jobId: string
}

/**
 * What a worker can do beyond the pipeline every worker runs, said in its claims (`features`):
 * `second-look` (docs/pipeline.md "Second look"). A job that needs one a worker lacks is left to
 * other workers (`jobNeeds`).
 */
export const WORKER_FEATURES = ['second-look'] as const
export type WorkerFeature = (typeof WORKER_FEATURES)[number]

/** A job handed to a worker: everything it needs to run the pipeline, and its capability. */
export interface Claim {
  job_id: string
  /** This run's number (1 = first). */
  attempt: number
  /**
   * The capability for this job and this attempt, for this worker key only: input, renew,
   * progress, result and fail need it, and it ends with the job or when the job is claimed
   * again after this claim's lease lapsed.
   */
  token: string
  format: OutputFormat
  params: JobParams
  /** The model to run: the job's `model=`, or the coordinator's default model when it was claimed. */
  model: string
  max_pixels: number
  /** The job timeout: the worker stops the run after this long and reports `pipeline_timeout`. */
  timeout_ms: number
  /** The lease: renewed by every call with the token; a worker renews it at a third of this. */
  lease_ms: number
  /** The stored input: the worker refuses anything else (longer, shorter, other bytes). */
  input: { bytes: number; sha256: string }
  /** Relative address of the input (fetched from the listener the worker called). */
  input_url: string
  /** The most one result upload may carry, all files together. */
  max_result_bytes: number
}

/** The `meta` part of a result upload (the files are the other parts, one per output). */
export interface ResultMeta {
  warnings: Partial<Record<Variation, string[]>>
  ignored: Variation[]
  /** The device that ran the model (after any fallback). */
  device: string
  /** The cutout's uncertainty, 0 (sure) to 1 (check this): docs/review.md. */
  uncertainty: number
  /** The second look the photo got (docs/pipeline.md "Second look"); absent or null: none. */
  secondLook?: SecondLook | null
}

export interface FailureReport {
  reason: FailureReason
  message: string
}

export type { WorkerInfo } from '../../shared/studio'

/** Who makes a worker call: its key (the coordinator's own worker has none) and what it calls itself. */
export interface WorkerIdentity {
  keyId: string
  name: string
  device: string
}

/**
 * Redis address of `--queue redis://[:password@]host:port[/db]` (or `rediss://` for TLS) as
 * BullMQ connection options.
 */
export function redisConnection(url: string): {
  host: string
  port: number
  password?: string
  username?: string
  db?: number
  tls?: object
} {
  const problem = queueUrlProblem(url)
  if (problem || url === '') throw new Error(`--queue must be a redis:// or rediss:// address (${problem ?? 'empty'}), got "${url}"`)
  const u = new URL(url)
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined
  if (db !== undefined && !Number.isInteger(db)) throw new Error(`the Redis database in "${url}" is not a number`)
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(db !== undefined ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {})
  }
}

/** The queue's address as shown in logs and the app: its password replaced by `***`. */
export function shownQueueUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return url
  }
}
