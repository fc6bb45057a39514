/**
 * The job executor: runs one claimed job through the pipeline, wherever it runs. The local
 * scheduler, the coordinator's own studio worker and every remote studio worker call
 * `executeJob`; they differ only in the host that holds the job's record (the engine's store
 * in this process, or a coordinator over HTTP). So every run has the same job timeout, runs
 * the model the job asked for (and gives the session back), uses the mask cache where there
 * is one, and reports the model and device that made the mask.
 */
import type { OutputFormat } from '../../../shared/api'
import { type FailureReason, errorText } from '../../../shared/errors'
import type { JobParams, SecondLook } from '../../../shared/params-types'
import { JobFailure } from '../errors'
import { outputBound } from '../params/output-budget'
import { overLimit } from '../pipeline/compose/output-limits'
import { processJob, type JobResult, type PipelineStage, type RenderInput, type StoredOutput } from '../pipeline'
import type { DecodedImage } from '../pipeline/decode/decode'
import type { HintPlane } from '../pipeline/guide/hint'
import type { HintDecodeRequest } from '../pipeline/guide/hint-decode'
import type { LookBox } from '../pipeline/guide/look-again'
import type { Segmenter } from '../segment/mask/mask'
import type { NativeTarget } from '../pipeline/metadata/native-colour'
import type { MaskCache } from '../store/mask-cache'

/** Why a run's signal was aborted. `lost`: the job is no longer this run's (its claim ended elsewhere). */
export type AbortReason = 'shutdown' | 'cancel' | 'timeout' | 'lost'

/** What a run needs to know about its job, as claimed. */
export interface RunPlan {
  jobId: string
  /** This run's attempt (1 = first). */
  attempt: number
  format: OutputFormat
  params: JobParams
  /** The model that makes the mask: the job's `model=`, or the default model when it was claimed. */
  model: string
  maxPixels: number
  /** A run still going after this long is stopped and the job fails with `pipeline_timeout`. */
  timeoutMs: number
}

/** An output as a run hands it over: bytes made in this process, or a file its render step wrote. */
export type RunOutput = { variation: JobResult['outputs'][number]['variation']; ext: string } & (
  | { bytes: Buffer }
  | { staged: string; size: number }
)

export interface RunResult {
  outputs: RunOutput[]
  warnings: JobResult['warnings']
  ignored: JobResult['ignored']
  /** 0 (sure) to 1 (check this): docs/review.md. */
  uncertainty: number
  /** The second look the photo got (docs/pipeline.md); null or absent: none. */
  secondLook?: SecondLook | null
  /** How the subject was framed, for before/after views; absent when a worker elsewhere ran it. */
  placement?: JobResult['placement']
  /** The model and the device that made the mask (after any fallback to the CPU). */
  model: string
  device: string
}

export type RunEnding = { kind: 'failed'; reason: FailureReason; message: string } | { kind: 'cancelled' } | { kind: 'requeued' }

export type RunOutcome = 'done' | 'failed' | 'cancelled' | 'requeued' | 'dropped'

/** Where a job's record lives while it runs: the engine's store, or a coordinator over HTTP. */
export interface RunHost {
  /** The input's bytes (a URL job's source is fetched by the record's side). */
  input(signal: AbortSignal): Promise<Buffer>
  /** The job's hint's bytes (docs/touch-up.md "Hints"), or null when it has none. Absent: never one. */
  hint?(signal: AbortSignal): Promise<Buffer | null>
  /** The job's look-again boxes (docs/touch-up.md "Look again"), or null when it has none. Absent: never any. */
  regions?(signal: AbortSignal): Promise<LookBox[] | null>
  /**
   * The input's size is known, before the model runs: the record's side settles the job's
   * output cost there (`intake/output-cost.ts`) and may refuse it (throws `JobFailure`).
   */
  admit?(params: JobParams, size: { width: number; height: number }): void
  /** The pipeline reached a stage. */
  stage(stage: PipelineStage): void
  /** Stores the results and ends the job `done`; false when the job is no longer this run's. */
  complete(result: RunResult): Promise<boolean>
  /** Ends the run otherwise. */
  end(ending: RunEnding): Promise<void>
  /** Called once the run is over, whatever its outcome. */
  close?(): void
}

/** The model sessions, the decode sandbox and the mask cache of the process that runs the job. */
export interface ExecutorDeps {
  segmenter(model: string): Promise<Segmenter>
  releaseSegmenter(segmenter: Segmenter): void
  decode(bytes: Buffer, maxPixels: number, signal: AbortSignal): Promise<DecodedImage>
  toNative(rgba: Buffer, width: number, height: number, target: NativeTarget, signal: AbortSignal): Promise<Buffer>
  /** Decodes a job's hint in the sandbox (untrusted bytes, as the input's). Absent: hinted jobs fail. */
  decodeHint?(request: HintDecodeRequest, signal: AbortSignal): Promise<HintPlane>
  /**
   * Composes and encodes off this thread and writes the outputs as files for `jobId` (the
   * engine's sandbox: docs/pipeline.md "Compose and encode off the engine's thread").
   * @default in this process, the outputs' bytes kept in memory
   */
  render?(input: RenderInput, jobId: string, signal: AbortSignal): Promise<JobResult<StoredOutput>>
  maskCache?: MaskCache
}

/** The host could not be reached, or asked to wait: the run is retried later, nothing is ended. */
export class HostUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs = 1000
  ) {
    super(message)
    this.name = 'HostUnavailable'
  }
}

/**
 * Runs a claimed job to its end on `host`. Never throws but `HostUnavailable`: every other
 * outcome ends the run on the host (done, failed, cancelled, or back to the queue when the
 * process is stopping).
 */
export async function executeJob(deps: ExecutorDeps, plan: RunPlan, host: RunHost, outer: AbortSignal): Promise<RunOutcome> {
  const controller = new AbortController()
  const forward = (): void => controller.abort(outer.reason)
  if (outer.aborted) forward()
  else outer.addEventListener('abort', forward, { once: true })
  // A hung step (a stuck download, decoder or model run) must not hold a worker forever.
  const watchdog = setTimeout(() => controller.abort('timeout' satisfies AbortReason), plan.timeoutMs)
  const signal = controller.signal
  try {
    const input = await untilAborted(signal, host.input(signal))
    const hint = host.hint ? await untilAborted(signal, host.hint(signal)) : null
    const regions = host.regions ? await untilAborted(signal, host.regions(signal)) : null
    // The decode starts before the model is asked for: at a run's start the model may still be
    // loading (or busy with another photo), and the two then overlap.
    const decoded = deps.decode(input, plan.maxPixels, signal)
    decoded.catch(() => undefined) // observed by processJob, or dropped with the run
    const made = await withSegmenter(deps, plan.model, signal, async (segmenter) => {
      const base = {
        format: plan.format,
        params: plan.params,
        maxPixels: plan.maxPixels,
        decode: () => decoded,
        admit: (size: { width: number; height: number }) => {
          // Wherever it runs, a job never makes more than the output limits allow.
          const over = overLimit(outputBound(plan.params, size))
          if (over) throw new JobFailure('image_too_large', over)
          host.admit?.(plan.params, size)
        },
        toNative: (rgba: Buffer, width: number, height: number, target: NativeTarget) => deps.toNative(rgba, width, height, target, signal),
        hint: hint ? (size: { width: number; height: number }) => decodeHint(deps, hint, size, signal) : undefined,
        regions: regions ?? undefined,
        signal,
        onStage: (stage: PipelineStage) => host.stage(stage)
      }
      const { render } = deps
      const result = render
        ? await untilAborted(
            signal,
            processJob(
              input,
              { segmenter, maskCache: deps.maskCache },
              { ...base, render: (request) => render(request, plan.jobId, signal) }
            )
          )
        : await untilAborted(signal, processJob(input, { segmenter, maskCache: deps.maskCache }, base))
      const outputs: RunOutput[] = result.outputs.map((o) =>
        'path' in o ? { variation: o.variation, ext: o.ext, staged: o.path, size: o.size } : o
      )
      return { ...result, outputs, device: segmenter.device, deviceWarning: segmenter.deviceWarning }
    })
    signal.throwIfAborted()
    if (made.deviceWarning) {
      const list = made.warnings[plan.params.primary] ?? []
      made.warnings[plan.params.primary] = list
      list.push(`device: ${made.deviceWarning}`)
    }
    const stored = await host.complete({
      outputs: made.outputs,
      warnings: made.warnings,
      ignored: made.ignored,
      uncertainty: made.uncertainty,
      secondLook: made.secondLook,
      placement: made.placement,
      model: plan.model,
      device: made.device
    })
    return stored ? 'done' : 'dropped'
  } catch (err) {
    if (err instanceof HostUnavailable) throw err
    const ending = endingOf(err, signal, plan.timeoutMs)
    if (!ending) return 'dropped'
    await host.end(ending)
    return ending.kind
  } finally {
    clearTimeout(watchdog)
    outer.removeEventListener('abort', forward)
    host.close?.()
  }
}

/** A hint's bytes decoded where this process decodes untrusted bytes. */
async function decodeHint(
  deps: ExecutorDeps,
  bytes: Buffer,
  size: { width: number; height: number },
  signal: AbortSignal
): Promise<HintPlane> {
  if (!deps.decodeHint)
    throw new JobFailure('pipeline_error', "This worker cannot apply a hint: run the job on the coordinator's own worker.")
  return deps.decodeHint({ bytes, ...size }, signal)
}

/** How a run that threw ends; null when it is no longer this run's to end. */
function endingOf(err: unknown, signal: AbortSignal, timeoutMs: number): RunEnding | null {
  if (signal.aborted) {
    const reason = signal.reason as AbortReason
    if (reason === 'lost') return null
    if (reason === 'shutdown') return { kind: 'requeued' }
    if (reason === 'cancel') return { kind: 'cancelled' }
    if (reason === 'timeout')
      return {
        kind: 'failed',
        reason: 'pipeline_timeout',
        message: `The job ran longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`
      }
  }
  if (err instanceof JobFailure) return { kind: 'failed', reason: err.reason, message: err.message }
  return { kind: 'failed', reason: 'pipeline_error', message: `Processing failed: ${errorText(err)}` }
}

/**
 * Runs `use` with the session of `model`, and gives the session back however it ends, also
 * when the run is aborted while the session is still loading (the pool waits for every lease
 * to come back before it switches models).
 */
async function withSegmenter<T>(deps: ExecutorDeps, model: string, signal: AbortSignal, use: (s: Segmenter) => Promise<T>): Promise<T> {
  const acquiring = deps.segmenter(model)
  let segmenter: Segmenter
  try {
    segmenter = await untilAborted(signal, acquiring)
  } catch (err) {
    acquiring.then(
      (s) => deps.releaseSegmenter(s),
      () => undefined
    )
    throw err
  }
  try {
    return await use(segmenter)
  } finally {
    deps.releaseSegmenter(segmenter)
  }
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts even if `work` never settles
 * (a step that does not watch the signal, e.g. a hung decoder): the job can then end.
 */
export function untilAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  work.catch(() => undefined) // an abandoned step's late failure is expected, not unhandled
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
