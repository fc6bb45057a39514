/**
 * What the watch service needs from the job engine, and nothing more: submit a file with a
 * job request, learn when a job may have changed, read its outcome. The real Engine provides
 * it in production and in the integration tests (`engineProcessor`); unit tests plug in a
 * cheap function instead of the model.
 */
import type { JobStatusBody } from '../../shared/api'
import type { Engine } from '../engine/engine'
import type { WatchRequest } from '../../shared/watch'
import { resultsToWrite, writesAllVariations } from '../../shared/outputs'
import { primaryVariation } from '../engine/status-view'

export interface WatchSubmission {
  request: WatchRequest
  bytes: Buffer
  /** Stored as the job's source; unique per submission, so a job can be found again after a crash. */
  filename: string
}

export type SubmitResult =
  | { ok: true; jobId: string }
  /** `retryable`: the engine cannot take work now (queue full, model not loadable); try again later. */
  | { ok: false; code: string; message: string; retryable: boolean }

export interface JobResultFile {
  variation: string
  ext: string
  /** The file on disk (the engine's copy; kept until the retention sweep). */
  path: string
}

export type JobOutcome =
  | { state: 'pending' }
  | { state: 'done'; results: JobResultFile[]; warnings: string[] }
  | { state: 'failed'; code: string; message: string }
  /** The job is unknown (swept after the retention time): submit again. */
  | { state: 'missing' }

export interface WatchProcessor {
  /** Largest input accepted, in bytes; bigger files fail without being read. */
  readonly maxBytes: number
  submit(submission: WatchSubmission): Promise<SubmitResult>
  outcome(jobId: string): JobOutcome
  /** The job created for a submission's `filename`, if the submit got that far. */
  findSubmitted(filename: string): string | null
  cancel(jobId: string): void
  /** Calls `listener` whenever a job may have changed; returns the unsubscribe function. */
  onJobChange(listener: (jobId: string) => void): () => void
}

/** The Engine behind the narrow interface. Jobs are the app owner's: no API key, no credit. */
export function engineProcessor(engine: Engine): WatchProcessor {
  return {
    maxBytes: engine.options.maxUploadBytes,
    async submit({ request, bytes, filename }) {
      const fields: Record<string, unknown> = { mode: request.mode, output_format: request.output_format }
      if (request.params !== null) fields.params = request.params
      const res = await engine.upload({ fields, file: { bytes, mimeType: null, filename }, keyId: null })
      if ('job_id' in res.body) return { ok: true, jobId: res.body.job_id }
      const e = res.body.error
      const details = e.details?.length ? ` (${e.details.map((d) => `${d.field}: ${d.issue}`).join('; ')})` : ''
      return { ok: false, code: e.code, message: e.message + details, retryable: res.status === 503 }
    },
    outcome(jobId) {
      const job = engine.jobs.get(jobId)
      if (!job) return { state: 'missing' }
      if (job.status === 'done') {
        const warnings = Object.values(job.warnings).flatMap((w) => w ?? [])
        // The primary alone unless the folder's parameter set names its variations (final_urls keep them all).
        const made = engine.jobs.results(jobId)
        const primary = primaryVariation(job, made.map((r) => r.variation), engine.jobParams.get(jobId)?.primary)
        const results = resultsToWrite(made, primary, writesAllVariations(job.params, false))
        return { state: 'done', results: results.map(({ variation, ext, path }) => ({ variation, ext, path })), warnings }
      }
      if (job.status === 'failed' || job.status === 'cancelled') {
        const body = engine.status(jobId, () => '').body as JobStatusBody
        return {
          state: 'failed',
          code: job.status === 'cancelled' ? 'cancelled' : (job.errorReason ?? 'job_failed'),
          message: body.error?.message ?? job.errorMessage ?? job.status
        }
      }
      return { state: 'pending' }
    },
    findSubmitted(filename) {
      const row = engine.db.prepare('SELECT id FROM jobs WHERE source = ? ORDER BY seq DESC LIMIT 1').get(filename) as { id: string } | undefined
      return row?.id ?? null
    },
    cancel(jobId) {
      engine.cancel(jobId)
    },
    onJobChange(listener) {
      const onJob = (e: { job_id: string; status: string }): void => {
        if (e.status === 'done' || e.status === 'failed' || e.status === 'cancelled') listener(e.job_id)
      }
      engine.on('job', onJob)
      return () => engine.off('job', onJob)
    }
  }
}
