/**
 * What the file-writing features (batches, watched folders, `clipdesk process`) ask of the
 * engine, in one place: hand it a file with a job request, read how a job ended (its results to
 * write, or why it failed, as the status endpoint says it), and wait for its end. Jobs of these
 * features are the owner's: no API key, no credit.
 */
import { type JobStatus, type Mode, type OutputFormat, type Variation, isEnded } from '../../shared/api'
import { resultsToWrite } from '../../shared/outputs'
import { roundUncertainty } from '../../shared/review'
import { warningText } from '../../shared/vocabulary'
import type { RegionBox } from '../../shared/regions'
import type { SecondLook } from '../../shared/params-types'
import type { JobEvent } from '../engine/events'
import type { JobEndsPort, OutcomePort, SubmitPort } from '../engine/ports'
import { asEngineError } from '../engine/errors'
import { jobError, primaryVariation } from '../engine/public'

export interface JobRequest {
  mode: Mode
  output_format: OutputFormat
  params: string | Record<string, unknown> | null
}

export type SubmitResult =
  | { ok: true; jobId: string }
  /** `retryable`: the engine cannot take work now (queue full, model not loadable); try again later. */
  | { ok: false; code: string; message: string; retryable: boolean; details?: Array<{ field: string; issue: string }> }

/**
 * Hands a file to the engine (with a hint: its keep and remove strokes, docs/touch-up.md
 * "Hints"; with look-again boxes: docs/touch-up.md "Look again"); a refusal comes back with its
 * message and the fields it names.
 */
export async function submitFile(
  engine: SubmitPort,
  request: JobRequest,
  file: { bytes: Buffer; filename: string; hint?: Buffer; regions?: readonly RegionBox[] }
): Promise<SubmitResult> {
  const fields: Record<string, unknown> = { mode: request.mode, output_format: request.output_format }
  if (request.params !== null) fields.params = request.params
  if (file.regions?.length) fields.regions = JSON.stringify(file.regions)
  const hint = file.hint ? { hint: { bytes: file.hint } } : {}
  try {
    const accepted = await engine.upload({
      fields,
      file: { bytes: file.bytes, mimeType: null, filename: file.filename },
      ...hint,
      keyId: null
    })
    return { ok: true, jobId: accepted.job_id }
  } catch (err) {
    const e = asEngineError(err)
    const details = e.details?.length ? ` (${e.details.map((d) => `${d.field}: ${d.issue}`).join('; ')})` : ''
    return { ok: false, code: e.code, message: `${e.message}${details}`, retryable: e.code === 'unavailable', details: e.details ?? [] }
  }
}

export interface ResultFile {
  variation: string
  ext: string
  /** The engine's file (kept until the retention sweep). */
  path: string
}

export type JobOutcome =
  | { state: 'pending'; status: JobStatus; progress: number }
  /**
   * `results`: what to write, primary first; `warnings`: lines about those files (`warningLines`);
   * `uncertainty`: the cutout's score as the status response gives it (null for a job done before scores).
   */
  | {
      state: 'done'
      results: ResultFile[]
      warnings: string[]
      model: string | null
      device: string | null
      uncertainty: number | null
      /** The second look the photo got (docs/pipeline.md "Second look"); null: none. */
      secondLook: SecondLook | null
    }
  /** `code`: the failure reason (`pipeline_error`, …), or `cancelled`. */
  | { state: 'failed'; code: string; message: string }
  /** The job is unknown (swept after the retention time). */
  | { state: 'missing' }

/**
 * A job's warnings about the files written, as lines in a designer's words (`With shadow:
 * flattened onto white (JPG has no transparency)`, `shared/vocabulary.ts`). A warning about a
 * variation that is not written (the cut-out flattened for a job whose file is the shadowed
 * one) is left out: the line would describe a file the user never gets.
 */
export function warningLines(warnings: Partial<Record<Variation, string[]>>, written: readonly string[]): string[] {
  return Object.entries(warnings)
    .filter(([variation]) => written.includes(variation))
    .flatMap(([variation, list]) => (list ?? []).map((w) => warningText(variation, w)))
}

/** How a job stands; once done, the results to write (all variations, or the primary alone). */
export function jobOutcome(engine: OutcomePort, jobId: string, allVariations: boolean): JobOutcome {
  const job = engine.job(jobId)
  if (!job) return { state: 'missing' }
  if (job.status === 'done') {
    const made = engine.jobResults(jobId)
    const primary = primaryVariation(
      job,
      made.map((r) => r.variation),
      engine.jobParamSet(jobId)?.primary
    )
    const results = resultsToWrite(made, primary, allVariations).map(({ variation, ext, path }) => ({ variation, ext, path }))
    const uncertainty = job.uncertainty === null ? null : roundUncertainty(job.uncertainty)
    return {
      state: 'done',
      results,
      warnings: warningLines(
        job.warnings,
        results.map((r) => r.variation)
      ),
      model: job.model,
      device: job.device,
      uncertainty,
      secondLook: job.secondLook
    }
  }
  const error = jobError(job)
  // The stored text as it came (the features explain it themselves and keep it as the detail).
  if (error)
    return {
      state: 'failed',
      code: error.code === 'cancelled' ? 'cancelled' : (error.reason ?? 'job_failed'),
      message: job.errorMessage ?? error.message
    }
  return { state: 'pending', status: job.status, progress: job.progress }
}

/**
 * Calls `listener` with the id of each job of `engine` that ends (done, failed or cancelled)
 * from now on; returns the function that stops it. The one listener for job ends: `JobEnds`
 * waits on it (the features and remove.bg's synchronous endpoint), a watched folder follows its jobs with it.
 */
export function onJobEnd(engine: JobEndsPort, listener: (jobId: string) => void): () => void {
  const onJob = (e: JobEvent): void => {
    if (isEnded(e.status)) listener(e.job_id)
  }
  engine.on('job', onJob)
  return () => engine.off('job', onJob)
}

/** Waits for jobs of one engine to end, with one listener for them all. */
export class JobEnds {
  private readonly waiters = new Map<string, () => void>()
  private readonly stop: () => void

  constructor(private readonly engine: JobEndsPort) {
    this.stop = onJobEnd(engine, (jobId) => {
      const wake = this.waiters.get(jobId)
      if (!wake) return
      this.waiters.delete(jobId)
      wake()
    })
  }

  /** Resolves once the job is done, failed, cancelled or gone. */
  wait(jobId: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.ended(jobId)) resolve()
      else this.waiters.set(jobId, resolve)
    })
  }

  /** The jobs being waited on (to cancel them on a stop). */
  waiting(): string[] {
    return [...this.waiters.keys()]
  }

  close(): void {
    this.stop()
  }

  private ended(jobId: string): boolean {
    const job = this.engine.job(jobId)
    return !job || isEnded(job.status)
  }
}
