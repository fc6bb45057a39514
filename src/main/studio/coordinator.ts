/**
 * The coordinator side of studio mode: a `Dispatcher` that offers queued jobs to BullMQ (by
 * id) and lets workers anywhere claim, run and return them. SQLite stays the record: a claim,
 * a progress step, a result or a failure is a guarded move in the job store, so a job is
 * stored once however many workers ran it. What a worker may do is what its claim's token
 * allows (`claims.ts`); what the coordinator does for it is in `runs.ts`; offering jobs to the
 * queue in `offers.ts`.
 */
import type { StudioCoordinatorPort } from '../engine/ports'
import { EngineError } from '../engine/errors'
import { type Dispatcher, ACTIVE_STATUSES, type DispatchAccess } from '../engine/public-run'
import type { StudioView } from '../../shared/studio'
import { JobOffers } from './offers'
import { shownQueueUrl } from './protocol'
import { WorkerRegistry } from './registry'
import { StudioRuns } from './runs'

/** How often Redis is checked (one call) and claims are swept (in memory). */
const TICK_MS = 1000

export interface CoordinatorOptions {
  /** `redis://host:port` of the shared queue. */
  queueUrl: string
  /** A claim's lease: a worker silent this long may lose its job to another. @default 30 s */
  leaseMs?: number
  /** The most one result upload may carry, all its files together. @default 8 × the upload limit */
  maxResultBytes?: number
}

export class StudioCoordinator implements Dispatcher {
  readonly requeuesOnStart = false
  readonly workers: WorkerRegistry
  readonly runs: StudioRuns
  readonly maxResultBytes: number
  private readonly offers: JobOffers
  private timer: NodeJS.Timeout | null = null
  private ticking: Promise<void> | null = null
  private stopped = true
  /** The first Redis check after `start`: until it ends, `available` is not yet known. */
  private firstCheck: Promise<void> | null = null

  constructor(
    private readonly engine: StudioCoordinatorPort,
    private readonly access: DispatchAccess,
    private readonly opts: CoordinatorOptions
  ) {
    this.workers = new WorkerRegistry(engine.featureTables())
    this.runs = new StudioRuns(access, this.workers, engine.featureTables().secret('studio-claim-key'), opts.leaseMs ?? 30_000)
    this.maxResultBytes = opts.maxResultBytes ?? 8 * engine.options.maxUploadBytes
    this.offers = new JobOffers(opts.queueUrl, access, () => this.workers.emit('change'))
  }

  /** What the app shows: the queue (without its password), whether it answers, the workers. */
  view(): StudioView {
    return { enabled: true, queue: shownQueueUrl(this.opts.queueUrl), queue_available: this.offers.available, workers: this.workers.list() }
  }

  /** Jobs run in this process by the coordinator itself are counted by its local worker. */
  get activeCount(): number {
    return 0
  }

  /** True while Redis answers. */
  get available(): boolean {
    return this.offers.available
  }

  start(): void {
    this.stopped = false
    const tick = (): void => {
      if (this.stopped) return
      this.ticking ??= Promise.all([this.offers.check(), this.runs.sweep().catch(() => undefined)]).then(() => {
        this.ticking = null
      })
      this.firstCheck ??= this.ticking
      this.timer = setTimeout(tick, TICK_MS)
      this.timer.unref()
    }
    tick()
  }

  /**
   * Resolves once the first Redis check after `start` has ended (or after `timeoutMs`), so that
   * a server says it listens only when an upload is not refused for a check not yet made.
   */
  async checked(timeoutMs = 5000): Promise<void> {
    if (!this.firstCheck) return
    await Promise.race([this.firstCheck, new Promise((r) => setTimeout(r, timeoutMs).unref())])
  }

  /** A job was queued: offer it (and any other new one) now. */
  wake(): void {
    if (!this.stopped) this.offers.offerNew()
  }

  assertAvailable(): void {
    if (!this.offers.available) {
      throw new EngineError('unavailable', 'The job queue (Redis) cannot be reached; try again shortly.', { retryAfterSeconds: 5 })
    }
  }

  /** Ends a running job as cancelled (refunded); its worker's next call finds its claim ended. */
  cancel(jobId: string): boolean {
    const job = this.engine.job(jobId)
    if (!job || !ACTIVE_STATUSES.includes(job.status)) return false
    return this.access.cancel(job)
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.ticking
    // Closing waits for Redis; when it is unreachable, do not hold the engine's stop forever.
    await Promise.race([this.offers.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000).unref())])
  }
}
