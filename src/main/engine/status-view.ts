import { STATE_OF, type JobStatusBody, type Variation } from '../../shared/api'
import type { JobRecord, ResultRecord } from './store/jobs'

/** Turns a stored result into an address the caller can fetch (signed HTTP URL, app protocol…). */
export type ResultAddress = (jobId: string, variation: Variation, ext: string, expiresAt: number) => string

/** The variation `final_url` points at for each mode. */
export function primaryVariation(job: JobRecord, made: readonly Variation[]): Variation | null {
  const wanted: Variation = job.mode === 'clipping' ? 'clipping' : 'compose'
  return made.includes(wanted) ? wanted : (made[0] ?? null)
}

/** The body of the status endpoint for a job, the same over HTTP and IPC (SPEC §2 Delivery). */
export function statusBody(job: JobRecord, results: ResultRecord[], address: ResultAddress, retentionMs: number): JobStatusBody {
  const body: JobStatusBody = {
    job_id: job.id,
    status: job.status,
    state: STATE_OF[job.status],
    mode: job.mode,
    progress: job.progress,
    final_url: null
  }
  if (job.status === 'done') {
    const expiresAt = Math.floor(((job.finishedAt ?? job.updatedAt) + retentionMs) / 1000)
    const made = results.map((r) => r.variation)
    const primary = primaryVariation(job, made)
    const urlOf = (r: ResultRecord): string => address(job.id, r.variation, r.ext, expiresAt)
    const primaryResult = results.find((r) => r.variation === primary)
    body.final_url = primaryResult ? urlOf(primaryResult) : null
    if (job.deliveryMode === 'url') {
      body.final_urls = Object.fromEntries(results.map((r) => [r.variation, urlOf(r)]))
      if (Object.keys(job.warnings).length > 0) body.warnings = job.warnings
      if (job.ignored.length > 0) body.ignored_variations = job.ignored
    }
  } else if (job.status === 'failed') {
    body.error = {
      code: 'job_failed',
      reason: job.errorReason ?? 'pipeline_error',
      message: job.errorMessage ?? 'The job failed.',
      job_id: job.id
    }
  } else if (job.status === 'cancelled') {
    body.error = { code: 'cancelled', message: 'The job was cancelled.', job_id: job.id }
  }
  return body
}
