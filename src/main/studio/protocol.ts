/**
 * What a studio worker and its coordinator exchange (JSON over `/api/v1/studio/*`, or direct
 * calls for the coordinator's own worker). The queue (BullMQ) carries only job ids: the
 * coordinator's SQLite store stays the record of every job, key, credit and result.
 */
import type { OutputFormat, Variation } from '../../shared/api'
import { queueUrlProblem } from '../../shared/app'
import type { FailureReason } from '../../shared/errors'
import type { JobParams } from '../../shared/params-types'
import type { PipelineStage } from '../engine/pipeline'

/** The BullMQ queue every coordinator and worker of one studio share. */
export const STUDIO_QUEUE = 'clipdesk-jobs'

/** What the queue carries for one job. */
export interface QueuedJob {
  jobId: string
}

/** A job handed to a worker: everything it needs to run the pipeline. */
export interface Claim {
  job_id: string
  /** This run's number (1 = first); a later upload of an older run is still stored once. */
  attempt: number
  format: OutputFormat
  params: JobParams
  max_pixels: number
  /** Signed address of the input (HTTP workers); the coordinator's own worker reads the file. */
  input_url?: string
}

export interface ResultUpload {
  outputs: { variation: Variation; ext: string; data: string /* base64 */ }[]
  warnings: Partial<Record<Variation, string[]>>
  ignored: Variation[]
  /** Time the worker spent on the job, for throughput figures. */
  busy_ms: number
}

export interface FailureReport {
  reason: FailureReason
  message: string
}

export type ProgressStage = PipelineStage

export type { WorkerInfo } from '../../shared/studio'

/** Identity a worker sends with every call. */
export interface WorkerIdentity {
  name: string
  device: string
}

/**
 * Redis address of `--queue redis://[:password@]host:port[/db]` (or `rediss://` for TLS) as
 * BullMQ connection options.
 */
export function redisConnection(url: string): { host: string; port: number; password?: string; username?: string; db?: number; tls?: object } {
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
