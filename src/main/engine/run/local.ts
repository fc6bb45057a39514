/**
 * Running a claimed job in this process, on the engine's own model pool, sandbox and mask
 * cache: what the local scheduler and the coordinator's own studio worker both do.
 */
import { JobFailure } from '../errors'
import { resolveJobParams } from '../params/resolve'
import type { JobRecord } from '../store/jobs'
import type { RunContext } from './context'
import { executeJob, type ExecutorDeps, type RunOutcome, type RunPlan } from './execute'
import type { RunRecord } from './record'

/** What the executor needs to know of a claimed job. Throws JobFailure when its parameter set no longer resolves. */
export function planOf(ctx: RunContext, job: JobRecord): RunPlan {
  const params = resolveJobParams(ctx, job)
  return {
    jobId: job.id,
    attempt: job.attempts,
    format: job.outputFormat,
    params,
    model: params.model ?? ctx.defaultModel(),
    maxPixels: ctx.options.maxPixels,
    timeoutMs: ctx.options.jobTimeoutMs
  }
}

export function engineExecutorDeps(ctx: RunContext): ExecutorDeps {
  return {
    segmenter: (model) => ctx.segmenter(model),
    releaseSegmenter: (s) => ctx.releaseSegmenter(s),
    decode: (bytes, _maxPixels, signal) => ctx.decode(bytes, signal),
    toNative: (rgba, width, height, target, signal) => ctx.toNative(rgba, width, height, target, signal),
    decodeHint: (request, signal) => ctx.decodeHint(request, signal),
    render: (input, jobId, signal) => ctx.render(input, ctx.paths.resultDir(jobId), signal),
    maskCache: ctx.maskCache
  }
}

/** Runs a claimed job here to its end; the run's record is its host (no bytes copied). */
export async function runHere(ctx: RunContext, run: RunRecord, signal: AbortSignal): Promise<RunOutcome> {
  let plan: RunPlan
  try {
    plan = planOf(ctx, run.job)
  } catch (err) {
    const failure = err instanceof JobFailure ? err : new JobFailure('pipeline_error', String(err))
    await run.end({ kind: 'failed', reason: failure.reason, message: failure.message })
    return 'failed'
  }
  return executeJob(engineExecutorDeps(ctx), plan, run, signal)
}
