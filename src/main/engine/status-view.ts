import { STATE_OF, type JobStatusBody, type Variation } from '../../shared/api'
import { explainProblem } from '../../shared/explain'
import { reviewOf, roundUncertainty } from '../../shared/review'
import type { StoreCheck } from '../../shared/store-rules'
import type { JobRecord, ResultRecord } from './store/jobs'

/** Turns a stored result into an address the caller can fetch (signed HTTP URL, app protocol…). */
export type ResultAddress = (jobId: string, variation: Variation, ext: string, expiresAt: number) => string

/**
 * The variation `final_url` points at: the job's resolved primary (docs/api.md §6.3) when it was made;
 * when it was skipped (a `shadowTop` that could not be made), `compose`, then the mode's
 * usual primary, then the first variation made.
 */
export function primaryVariation(job: JobRecord, made: readonly Variation[], preferred?: Variation | null): Variation | null {
  const candidates: Array<Variation | null | undefined> = [preferred, 'compose', job.mode === 'clipping' ? 'clipping' : 'compose']
  return candidates.find((v): v is Variation => !!v && made.includes(v)) ?? made[0] ?? null
}

/**
 * The body of the status endpoint for a job, the same over HTTP and IPC (docs/api.md §9).
 * `primary`: the job's resolved primary variation (absent for jobs accepted before it was stored).
 */
export function statusBody(
  job: JobRecord,
  results: ResultRecord[],
  address: ResultAddress,
  retentionMs: number,
  primary?: Variation | null,
  checks?: StoreCheck[] | null
): JobStatusBody {
  const body: JobStatusBody = {
    job_id: job.id,
    status: job.status,
    state: STATE_OF[job.status],
    mode: job.mode,
    progress: job.progress,
    final_url: null
  }
  // Which model made the mask and on which device (after any fallback to the CPU).
  if (job.model) body.model = job.model
  if (job.device) body.device = job.device
  if (job.status === 'done') {
    const expiresAt = Math.floor(((job.finishedAt ?? job.updatedAt) + retentionMs) / 1000)
    const made = results.map((r) => r.variation)
    const chosen = primaryVariation(job, made, primary)
    const urlOf = (r: ResultRecord): string => address(job.id, r.variation, r.ext, expiresAt)
    const primaryResult = results.find((r) => r.variation === chosen)
    body.final_url = primaryResult ? urlOf(primaryResult) : null
    if (job.uncertainty !== null) {
      body.uncertainty = roundUncertainty(job.uncertainty)
      body.review = reviewOf(job.uncertainty)
    }
    if (checks) body.checks = checks
    if (job.secondLook) body.second_look = { views: job.secondLook.views, reason: job.secondLook.reason }
    if (job.deliveryMode === 'url') {
      body.final_urls = Object.fromEntries(results.map((r) => [r.variation, urlOf(r)]))
      if (Object.keys(job.warnings).length > 0) body.warnings = job.warnings
      if (job.ignored.length > 0) body.ignored_variations = job.ignored
    }
  } else {
    const error = jobError(job)
    if (error) body.error = error
  }
  return body
}

/** Failure reasons about the input file itself, whose decoder text has plainer words (a fetch's or the engine's text is left as it is). */
const FILE_REASONS: ReadonlySet<string> = new Set(['unsupported_image', 'image_too_large', 'decode_timeout'])

/** Why a job ended without results, as the status body says it (null for a job that did not fail). */
export function jobError(job: JobRecord): JobStatusBody['error'] | null {
  if (job.status === 'failed') {
    const reason = job.errorReason ?? 'pipeline_error'
    const raw = job.errorMessage ?? 'The job failed.'
    if (!FILE_REASONS.has(reason)) return { code: 'job_failed', reason, message: raw, job_id: job.id }
    // A file that cannot be read, in plain words as the app says it (`shared/explain.ts`); the
    // decoder's own text, when it says more, under `details` (field `file`: the input).
    const { message, detail } = explainProblem(raw, 'input')
    return { code: 'job_failed', reason, message, ...(detail ? { details: [{ field: 'file', issue: detail }] } : {}), job_id: job.id }
  }
  if (job.status === 'cancelled') return { code: 'cancelled', message: 'The job was cancelled.', job_id: job.id }
  return null
}
