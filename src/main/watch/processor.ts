/**
 * What the watch service needs from the job engine, and nothing more: submit a file with a
 * job request, learn when a job may have changed, read its outcome. The engine provides it
 * through the outputs module's engine functions (`engineProcessor`) in production and in the
 * integration tests; unit tests plug in a cheap function instead of the model.
 */
import { writesAllVariations } from '../../shared/outputs'
import type { WatchRequest } from '../../shared/watch'
import type { WatchEnginePort } from '../engine/ports'
import { jobOutcome, onJobEnd, submitFile, type ResultFile, type SubmitResult } from '../outputs/engine-jobs'

export type { SubmitResult } from '../outputs/engine-jobs'

export interface WatchSubmission {
  request: WatchRequest
  bytes: Buffer
  /** Stored as the job's source; unique per submission, so a job can be found again after a crash. */
  filename: string
}

/** How a job stands, as the watch uses it (`jobOutcome` gives more). */
export type WatchOutcome =
  | { state: 'pending' }
  /** `results`: what to write, primary first; `uncertainty`: the cutout's score (docs/review.md), when there is one. */
  | { state: 'done'; results: ResultFile[]; warnings: string[]; uncertainty?: number | null }
  | { state: 'failed'; code: string; message: string }
  /** The job is unknown (swept after the retention time): submit again. */
  | { state: 'missing' }

export interface WatchProcessor {
  /** Largest input accepted, in bytes; bigger files fail without being read. */
  readonly maxBytes: number
  submit(submission: WatchSubmission): Promise<SubmitResult>
  outcome(jobId: string): WatchOutcome
  /** The job created for a submission's `filename`, if the submit got that far. */
  findSubmitted(filename: string): string | null
  cancel(jobId: string): void
  /** Calls `listener` whenever a job may have ended; returns the unsubscribe function. */
  onJobChange(listener: (jobId: string) => void): () => void
}

/** The engine (through its `WatchEnginePort`, `engine/ports.ts`) behind the narrow interface. */
export function engineProcessor(engine: WatchEnginePort): WatchProcessor {
  return {
    maxBytes: engine.options.maxUploadBytes,
    submit: ({ request, bytes, filename }) => submitFile(engine, request, { bytes, filename }),
    // The primary alone unless the folder's parameter set names its variations (final_urls keep them all).
    outcome: (jobId) => jobOutcome(engine, jobId, writesAllVariations(engine.job(jobId)?.params ?? null, false)),
    findSubmitted: (filename) => engine.latestJobBySource(filename)?.id ?? null,
    cancel(jobId) {
      engine.cancel(jobId)
    },
    onJobChange: (listener) => onJobEnd(engine, listener)
  }
}
