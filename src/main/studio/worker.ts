/**
 * A studio worker: takes job ids from the shared BullMQ queue, claims each from the
 * coordinator and runs it with the job executor (`engine/run/execute.ts`), the same one the
 * local scheduler uses. The link to the coordinator only moves bytes: over HTTP for a remote
 * worker (`http-link.ts`), by direct calls for the coordinator's own worker (`local-link.ts`).
 *
 * Crashes are BullMQ's to detect: a worker that dies holds a lock that stops being renewed,
 * BullMQ's stalled-job check puts the job back, and another worker claims it once the
 * coordinator's lease on it has lapsed too.
 */
import { DelayedError, Worker, type Job } from 'bullmq'
import {
  executeJob,
  HostUnavailable,
  type AbortReason,
  type ExecutorDeps,
  type RunHost,
  type RunOutcome,
  type RunPlan
} from '../engine/public-run'
import { STUDIO_QUEUE, redisConnection, type QueuedJob } from './protocol'

/** A claimed job as a worker runs it. */
export interface ClaimedJob {
  plan: RunPlan
  /** Holds the job's record: the coordinator, over the link. */
  host: RunHost
  /** Milliseconds this run has spent waiting on the coordinator so far (claim, input, result). */
  waitedMs(): number
}

/** The coordinator as a worker sees it. */
export interface CoordinatorLink {
  /**
   * Claims a job: null when it is not to be run (it ended). Throws `HostUnavailable` when it
   * must wait (held by another worker, a model this worker lacks, the coordinator away).
   * `lost` is called if the claim ends while the job runs (cancelled, or taken over).
   */
  claim(jobId: string, signal: AbortSignal, lost: () => void): Promise<ClaimedJob | null>
}

export interface StudioWorkerOptions {
  queueUrl: string
  link: CoordinatorLink
  /** The model sessions, decode sandbox and mask cache of this process. */
  deps: ExecutorDeps
  /** Jobs run at once. @default 1 */
  concurrency?: number
  /**
   * How long a job's BullMQ lock lasts without renewal; a worker silent this long is taken for
   * dead and the job is offered again (BullMQ's stalled check runs at the same interval). @default 30 s
   */
  lockMs?: number
  /**
   * Told of each job's end, for logs: its wall time here, and how much of it was spent
   * waiting on the coordinator (claim, input download, result upload).
   */
  onJob?(jobId: string, outcome: RunOutcome, ms: number, coordinatorMs: number): void
}

export class StudioWorker {
  private worker: Worker<QueuedJob> | null = null
  private readonly running = new Map<string, AbortController>()

  constructor(private readonly opts: StudioWorkerOptions) {}

  start(): void {
    const lockMs = this.opts.lockMs ?? 30_000
    this.worker = new Worker<QueuedJob>(STUDIO_QUEUE, (job, token) => this.process(job, token), {
      connection: { ...redisConnection(this.opts.queueUrl), maxRetriesPerRequest: null },
      concurrency: this.opts.concurrency ?? 1,
      lockDuration: lockMs,
      stalledInterval: lockMs,
      // A stalled job goes back to the queue however often it stalls: the coordinator counts
      // attempts at each claim and gives a job up after its limit.
      maxStalledCount: 1000
    })
    // Redis going away is reported here; BullMQ reconnects by itself.
    this.worker.on('error', () => undefined)
  }

  get activeCount(): number {
    return this.running.size
  }

  /**
   * Stops taking work. `interrupt`: running jobs are stopped and go back to the queue (the
   * coordinator's own worker, stopping with the engine); otherwise they are finished first.
   */
  async stop(interrupt = false): Promise<void> {
    if (interrupt) for (const c of this.running.values()) c.abort('shutdown' satisfies AbortReason)
    await this.worker?.close().catch(() => undefined)
  }

  /** Aborts a job running here (a cancel); true when it was running. */
  abort(jobId: string): boolean {
    const c = this.running.get(jobId)
    c?.abort('cancel' satisfies AbortReason)
    return c !== undefined
  }

  private async process(job: Job<QueuedJob>, token: string | undefined): Promise<RunOutcome> {
    const started = Date.now()
    const jobId = job.data.jobId
    const controller = new AbortController()
    this.running.set(jobId, controller)
    let claimMs = 0
    let claimed: ClaimedJob | null = null
    try {
      const t = performance.now()
      claimed = await this.opts.link.claim(jobId, controller.signal, () => controller.abort('lost' satisfies AbortReason))
      claimMs = performance.now() - t
      const outcome = claimed ? await executeJob(this.opts.deps, claimed.plan, claimed.host, controller.signal) : 'dropped'
      this.opts.onJob?.(jobId, outcome, Date.now() - started, claimMs + (claimed?.waitedMs() ?? 0))
      return outcome
    } catch (err) {
      if (!(err instanceof HostUnavailable)) throw err
      // Not now (held elsewhere, a model this worker lacks, the coordinator away): the job
      // stays in the queue and comes back after the wait, to this worker or another.
      await job.moveToDelayed(Date.now() + err.retryAfterMs, token)
      throw new DelayedError()
    } finally {
      this.running.delete(jobId)
    }
  }
}
