/**
 * What a dispatcher plugged into the engine (`EngineSeams.dispatcher`, studio mode) may do with
 * the engine's jobs: read one, page through those of some statuses, claim one into a run, know
 * what running it means (its plan, its model, whether it has a hint or look-again boxes kept
 * beside its upload), take up a run claimed earlier, cancel one, and run jobs in this process
 * on the engine's own model pool, sandbox and mask cache. Each is a method over the engine's
 * run context (`context.ts`), so a dispatcher never holds the stores themselves; every move of
 * a job goes through its run record (`record.ts`), as the local scheduler's does.
 */
import { existsSync } from 'node:fs'
import type { JobStatus } from '../../../shared/api'
import { secondLookSetting, type JobParams } from '../../../shared/params-types'
import { resolveJobParams } from '../params/resolve'
import type { LookBox } from '../pipeline/guide/look-again'
import type { JobRecord } from '../store/jobs'
import type { RunContext } from './context'
import type { ExecutorDeps, RunHost, RunPlan } from './execute'
import { engineExecutorDeps, planOf } from './local'
import { claimJob, endUnsuccessfully, RunRecord, type StoredOutcome } from './record'

export type { StoredOutcome } from './record'

/**
 * One claimed run of a job, as the engine's store sees it (a `RunRecord`): the run's host when
 * it runs in this process, and what a coordinator does on a remote worker's calls.
 */
export interface DispatchedRun extends RunHost {
  readonly jobId: string
  /** The attempt this run is: once the job is claimed again, this run can no longer move it. */
  readonly attempt: number
  /** The job as it was when the run was claimed (or taken up). */
  readonly job: JobRecord
  /** The job as stored now, while it is still this run's (not ended, not claimed again); else null. */
  current(): JobRecord | null
  /** The stored input's path; a URL job's source is fetched first (under the engine's address policy). */
  inputFile(signal: AbortSignal): Promise<string>
  /** The hint kept beside the job's upload, or null when it came with none. */
  hint(): Promise<Buffer | null>
  /** The look-again boxes kept beside the job's upload, or null when it came with none. */
  regions(): Promise<LookBox[] | null>
  /** Settles the job's output cost for its input's size (throws `JobFailure` when refused). */
  admit(params: JobParams, size: { width: number; height: number }): void
  /** Stores the results (bytes or staged files) and ends the job `done`; false when it is no longer this run's. */
  store(outcome: StoredOutcome): Promise<boolean>
  /** Stops the run's progress ticker (the run is over here, or nobody renews it). */
  halt(): void
}

export interface DispatchAccess {
  /** The job with this id; null when there is none (or it was swept). */
  job(id: string): JobRecord | null
  /** Ids of jobs in `statuses` after queue position `afterSeq`, in queue order, at most `limit`. */
  jobsPage(statuses: readonly JobStatus[], afterSeq: number, limit: number): { id: string; seq: number }[]
  /**
   * Starts a run of `job` (queued, or active in a run that was given up): one more attempt, in
   * one guarded move; past the attempts allowed the job is failed instead (refunded). Null when
   * it was not claimed.
   */
  claim(job: JobRecord): DispatchedRun | null
  /** Takes up the run the job's current attempt is (claimed before this process started). */
  record(job: JobRecord): DispatchedRun
  /** What the executor needs to know of a claimed job. Throws `JobFailure` when its parameter set no longer resolves. */
  plan(job: JobRecord): RunPlan
  /** The model `job` runs with (its own, or the default). Throws `JobFailure` when its parameter set no longer resolves. */
  modelOf(job: JobRecord): string
  /** Whether `job` may get a second look (`look` other than `off`): a worker must have the `second-look` feature to claim it. */
  needsSecondLook(job: JobRecord): boolean
  /**
   * Ends an active job as cancelled at its current status and attempt, and gives its credit
   * back, in one transaction; false when it moved meanwhile.
   */
  cancel(job: JobRecord): boolean
  /** Whether a hint is kept beside the job's upload. */
  hasHint(jobId: string): boolean
  /** Whether look-again boxes are kept beside the job's upload. */
  hasRegions(jobId: string): boolean
  /** The longest a job may run (`EngineOptions.jobTimeoutMs`). */
  readonly jobTimeoutMs: number
  /** The engine's model pool, decode sandbox and mask cache, for running jobs in this process. */
  executorDeps(): ExecutorDeps
}

/** The engine's side of `DispatchAccess`, over its run context. */
export function dispatchAccess(ctx: RunContext): DispatchAccess {
  return {
    job: (id) => ctx.jobs.get(id),
    jobsPage: (statuses, afterSeq, limit) => ctx.jobs.pageByStatus(statuses, afterSeq, limit),
    claim: (job) => claimJob(ctx, job),
    record: (job) => new RunRecord(ctx, job),
    plan: (job) => planOf(ctx, job),
    modelOf: (job) => resolveJobParams(ctx, job).model ?? ctx.defaultModel(),
    needsSecondLook: (job) => {
      try {
        return secondLookSetting(resolveJobParams(ctx, job)) !== 'off'
      } catch {
        return false // a set that no longer resolves fails the job once claimed
      }
    },
    cancel: (job) => endUnsuccessfully(ctx, job, job.status, 'cancelled', { attempt: job.attempts }),
    hasHint: (jobId) => existsSync(ctx.paths.hint(jobId)),
    hasRegions: (jobId) => existsSync(ctx.paths.regions(jobId)),
    get jobTimeoutMs() {
      return ctx.options.jobTimeoutMs
    },
    executorDeps: () => engineExecutorDeps(ctx)
  }
}
