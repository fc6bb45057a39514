/**
 * A studio worker: takes job ids from the shared BullMQ queue, claims each from the
 * coordinator, runs the pipeline here (its own model and decode sandbox) and returns the
 * results. The same class runs inside the coordinator (its own worker) with a direct link.
 *
 * Crashes are BullMQ's to detect: a worker that dies holds a lock that stops being renewed,
 * BullMQ's stalled-job check puts the job back, and another worker claims it again.
 */
import { Worker, type Job } from 'bullmq'
import { JobFailure } from '../engine/errors'
import { processJob, type JobResult, type PipelineStage } from '../engine/pipeline'
import type { DecodedImage } from '../engine/pipeline/decode'
import type { NativeTarget } from '../engine/pipeline/native-colour'
import type { MaskSource } from '../engine/pipeline/alpha'
import { STUDIO_QUEUE, redisConnection, type Claim, type FailureReport, type QueuedJob, type ResultUpload } from './protocol'

/** The coordinator as a worker sees it (HTTP for remote workers, direct calls in-process). */
export interface CoordinatorLink {
  claim(jobId: string, signal: AbortSignal): Promise<Claim | null>
  input(claim: Claim): Promise<Buffer>
  progress(jobId: string, stage: PipelineStage): Promise<void>
  /** Idempotent: true when stored, false when the job had already ended. */
  complete(jobId: string, upload: ResultUpload): Promise<boolean>
  fail(jobId: string, report: FailureReport): Promise<void>
}

export interface StudioWorkerOptions {
  queueUrl: string
  link: CoordinatorLink
  segmenter(): Promise<MaskSource>
  decode(bytes: Buffer, maxPixels: number, signal: AbortSignal): Promise<DecodedImage>
  /** Converts sRGB colours into an input's own profile, in the decode sandbox (the profile is untrusted). */
  toNative(rgba: Buffer, width: number, height: number, target: NativeTarget, signal: AbortSignal): Promise<Buffer>
  /** Jobs run at once. @default 1 */
  concurrency?: number
  /**
   * How long a job's lock lasts without renewal; a worker silent this long is taken for dead
   * and its job is given to another (BullMQ's stalled check runs at the same interval). @default 30 s
   */
  lockMs?: number
  /**
   * Told of each job's end, for logs: its wall time here, and how much of it was spent
   * waiting on the coordinator (claim, input download, result upload).
   */
  onJob?(jobId: string, outcome: 'done' | 'failed' | 'dropped', ms: number, coordinatorMs: number): void
}

/** A BullMQ job's processor outcome for one id. */
export type Outcome = 'done' | 'failed' | 'dropped'

export class StudioWorker {
  private worker: Worker<QueuedJob> | null = null
  private readonly running = new Map<string, AbortController>()

  constructor(private readonly opts: StudioWorkerOptions) {}

  start(): void {
    const lockMs = this.opts.lockMs ?? 30_000
    this.worker = new Worker<QueuedJob>(STUDIO_QUEUE, (job) => this.process(job), {
      connection: { ...redisConnection(this.opts.queueUrl), maxRetriesPerRequest: null },
      concurrency: this.opts.concurrency ?? 1,
      lockDuration: lockMs,
      stalledInterval: lockMs,
      // Each stall is one attempt in the coordinator's count; BullMQ may give up earlier, and
      // the coordinator offers the job again until its own attempt limit is reached.
      maxStalledCount: 2
    })
    // Redis going away is reported here; BullMQ reconnects by itself.
    this.worker.on('error', () => undefined)
  }

  get activeCount(): number {
    return this.running.size
  }

  /** Stops taking work and waits for running jobs to end. */
  async stop(): Promise<void> {
    await this.worker?.close().catch(() => undefined)
  }

  /** Aborts a job running here (a cancel); true when it was running. */
  abort(jobId: string): boolean {
    const c = this.running.get(jobId)
    c?.abort('cancel')
    return c !== undefined
  }

  private async process(job: Job<QueuedJob>): Promise<Outcome> {
    const started = Date.now()
    const jobId = job.data.jobId
    const controller = new AbortController()
    this.running.set(jobId, controller)
    const waited = { ms: 0 }
    try {
      const outcome = await this.run(jobId, controller.signal, started, waited)
      this.opts.onJob?.(jobId, outcome, Date.now() - started, waited.ms)
      return outcome
    } finally {
      this.running.delete(jobId)
    }
  }

  private async run(jobId: string, signal: AbortSignal, started: number, waited: { ms: number }): Promise<Outcome> {
    const timed = async <T>(call: Promise<T>): Promise<T> => {
      const t = performance.now()
      try {
        return await call
      } finally {
        waited.ms += performance.now() - t
      }
    }
    // Link failures (coordinator unreachable) throw: BullMQ retries the job later.
    const claim = await timed(this.opts.link.claim(jobId, signal))
    if (!claim) return 'dropped'
    let result: JobResult
    try {
      const input = await timed(this.opts.link.input(claim))
      const segmenter = await this.opts.segmenter()
      result = await processJob(input, { segmenter }, {
        format: claim.format,
        params: claim.params,
        maxPixels: claim.max_pixels,
        decode: (bytes) => this.opts.decode(bytes, claim.max_pixels, signal),
        toNative: (rgba, width, height, target) => this.opts.toNative(rgba, width, height, target, signal),
        signal,
        onStage: (stage) => void this.opts.link.progress(jobId, stage).catch(() => undefined)
      })
    } catch (err) {
      if (err instanceof LinkError) throw err
      if (signal.aborted) return 'dropped' // cancelled on the coordinator, which already ended the job
      const failure = err instanceof JobFailure ? err : new JobFailure('pipeline_error', `Processing failed: ${(err as Error).message}`)
      await this.opts.link.fail(jobId, { reason: failure.reason, message: failure.message })
      return 'failed'
    }
    const upload: ResultUpload = {
      outputs: result.outputs.map((o) => ({ variation: o.variation, ext: o.ext, data: o.bytes.toString('base64') })),
      warnings: result.warnings,
      ignored: result.ignored,
      busy_ms: Date.now() - started
    }
    return (await timed(this.opts.link.complete(jobId, upload))) ? 'done' : 'dropped'
  }
}

/** The coordinator could not be reached or refused for now (503): the job is retried later. */
export class LinkError extends Error {
  constructor(message: string, readonly retryAfterMs = 1000) {
    super(message)
    this.name = 'LinkError'
  }
}
