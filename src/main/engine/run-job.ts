import { readFile, rm } from 'node:fs/promises'
import type { JobStatus } from '../../shared/api'
import { JobFailure } from './errors'
import { fetchToFile } from './fetch/fetch-url'
import type { DataPaths } from './paths'
import type { ResolvedEngineOptions } from './options'
import { processJob, type JobResult, type RenderInput, type StoredOutput } from './pipeline'
import { settleOutputCost } from './intake/output-cost'
import { resolveJobParams } from './params/resolve'
import type { Segmenter } from './pipeline/mask'
import type { DecodedImage } from './pipeline/decode'
import type { NativeTarget } from './pipeline/native-colour'
import type { AbortReason } from './queue/scheduler'
import type { Db } from './store/db'
import type { JobRecord, JobStore, MovePatch } from './store/jobs'
import type { KeyStore } from './store/keys'
import type { MaskCache } from './store/mask-cache'
import type { JobParamsStore } from './store/job-params'
import type { PresetStore } from './store/presets'

export interface RunContext {
  db: Db
  jobs: JobStore
  keys: KeyStore
  presets: PresetStore
  jobParams: JobParamsStore
  paths: DataPaths
  options: ResolvedEngineOptions
  /** The session of a registry model (null: the default); give it back with `releaseSegmenter`. */
  segmenter(model?: string | null): Promise<Segmenter>
  releaseSegmenter?(segmenter: Segmenter): void
  /** Decodes an input in the sandbox (never on the engine's thread). */
  decode(bytes: Buffer, signal: AbortSignal): Promise<DecodedImage>
  /** Converts sRGB colours into an input's own profile, in the sandbox (the profile is untrusted). */
  toNative(rgba: Buffer, width: number, height: number, target: NativeTarget, signal: AbortSignal): Promise<Buffer>
  /** Composes and encodes the outputs in the sandbox (never on the engine's thread), which writes them into `dir`. */
  render(input: RenderInput, dir: string, signal: AbortSignal): Promise<JobResult<StoredOutput>>
  /** Model masks by input content + model; absent: every job runs the model. */
  maskCache?: MaskCache
  /** Called after every move of a job, for push events. */
  changed(jobId: string): void
  /** Running estimate of how long the model step takes, for progress within `segmenting`. */
  timing: { segmentingMs: number }
}

const PROGRESS_TICK_MS = 250

/**
 * Raises progress from 10 towards 60 while the model runs (one opaque call of a few
 * seconds), from the measured duration of earlier runs, so a client sees it move.
 * Stops short of 60: the move to `pending_compose` sets that.
 */
function segmentingProgress(ctx: RunContext, jobId: string): () => void {
  const started = Date.now()
  const timer = setInterval(() => {
    const share = Math.min(0.95, (Date.now() - started) / ctx.timing.segmentingMs)
    ctx.jobs.setProgress(jobId, 'segmenting', 10 + 50 * share)
    ctx.changed(jobId)
  }, PROGRESS_TICK_MS)
  return () => {
    clearInterval(timer)
    ctx.timing.segmentingMs = 0.7 * ctx.timing.segmentingMs + 0.3 * (Date.now() - started)
  }
}

/** Ends a job as failed or cancelled and gives its credit back, in one transaction. */
export function endUnsuccessfully(ctx: RunContext, job: JobRecord, from: JobStatus, to: 'failed' | 'cancelled', patch: MovePatch): boolean {
  const moved = ctx.db.transaction(() => {
    if (!ctx.jobs.move(job.id, from, to, patch)) return false
    if (job.keyId !== null) ctx.keys.refund(job.keyId, job.id)
    return true
  })()
  if (moved) ctx.changed(job.id)
  return moved
}

/**
 * Runs one claimed job through fetch → pipeline → results. Never throws: every outcome ends
 * in a move (done, failed, cancelled, or back to queued when the engine is stopping).
 */
export async function runJob(ctx: RunContext, claimed: JobRecord, signal: AbortSignal): Promise<void> {
  let at: JobStatus = claimed.status
  let stopTicker: (() => void) | null = null
  const moveTo = (to: JobStatus, patch: MovePatch = {}): void => {
    stopTicker?.()
    stopTicker = null
    if (!ctx.jobs.move(claimed.id, at, to, patch)) throw new Error(`job ${claimed.id} left ${at} unexpectedly`)
    at = to
    ctx.changed(claimed.id)
    if (to === 'segmenting') stopTicker = segmentingProgress(ctx, claimed.id)
  }
  try {
    const params = resolveJobParams(ctx, claimed)
    let inputPath = claimed.inputPath
    if (claimed.sourceKind === 'url') {
      inputPath = ctx.paths.upload(claimed.id)
      await fetchToFile(claimed.source, inputPath, {
        allowPrivateNetworkUrls: ctx.options.allowPrivateNetworkUrls,
        maxBytes: ctx.options.maxUploadBytes,
        signal
      })
      moveTo('segmenting', { inputPath })
    }
    if (!inputPath) throw new JobFailure('storage_error', 'The job has no stored input.')
    const input = await readFile(inputPath).catch((err: Error) => {
      throw new JobFailure('storage_error', `The stored input could not be read: ${err.message}`)
    })
    const segmenter = await ctx.segmenter(params.model)
    const made = await untilAborted(signal, processJob(input, { segmenter, maskCache: ctx.maskCache }, {
      format: claimed.outputFormat,
      params,
      maxPixels: ctx.options.maxPixels,
      decode: (bytes) => ctx.decode(bytes, signal),
      toNative: (rgba, width, height, target) => ctx.toNative(rgba, width, height, target, signal),
      admit: (size) => settleOutputCost(ctx, claimed, params, size),
      render: (request) => ctx.render(request, ctx.paths.resultDir(claimed.id), signal),
      signal,
      onStage: (stage) => {
        if (stage !== at) moveTo(stage)
        else if (stage === 'segmenting' && !stopTicker) stopTicker = segmentingProgress(ctx, claimed.id)
      }
    })).finally(() => ctx.releaseSegmenter?.(segmenter))
    signal.throwIfAborted()
    ctx.jobs.setModelRun(claimed.id, params.model ?? segmenter.modelKey.split('@')[0]!.replace(/^isnet-/, ''), segmenter.device)
    if (segmenter.deviceWarning) {
      const list = (made.warnings[params.primary] ??= [])
      list.push(`device: ${segmenter.deviceWarning}`)
    }
    for (const out of made.outputs) ctx.jobs.addResult(claimed.id, { variation: out.variation, ext: out.ext, path: out.path, bytes: out.size })
    if (at !== 'encoding') moveTo('encoding')
    moveTo('done', { warnings: made.warnings, ignored: made.ignored })
  } catch (err) {
    ;(stopTicker as (() => void) | null)?.() // assigned in closures, which narrowing cannot see
    await settleFailure(ctx, claimed, at, err, signal)
  }
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts even if `work` never settles
 * (a step that does not watch the signal, e.g. a hung decoder): the job can then end.
 */
function untilAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  work.catch(() => undefined) // an abandoned step's late failure is expected, not unhandled
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

async function settleFailure(ctx: RunContext, job: JobRecord, at: JobStatus, err: unknown, signal: AbortSignal): Promise<void> {
  const reason = signal.aborted ? (signal.reason as AbortReason) : null
  if (reason === 'shutdown') {
    // Interrupted by a clean stop: not the job's fault, so the attempt is given back.
    if (ctx.jobs.move(job.id, at, 'queued', { attemptsDelta: -1 })) ctx.changed(job.id)
    return
  }
  await rm(ctx.paths.resultDir(job.id), { recursive: true, force: true })
  if (reason === 'cancel') {
    endUnsuccessfully(ctx, job, at, 'cancelled', {})
    return
  }
  if (reason === 'timeout') {
    const seconds = Math.round(ctx.options.jobTimeoutMs / 1000)
    endUnsuccessfully(ctx, job, at, 'failed', { errorReason: 'pipeline_timeout', errorMessage: `The job ran longer than ${seconds} s and was stopped.` })
    return
  }
  const failure =
    err instanceof JobFailure
      ? err
      : new JobFailure('pipeline_error', `Processing failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  endUnsuccessfully(ctx, job, at, 'failed', { errorReason: failure.reason, errorMessage: failure.message })
}
