/**
 * The coordinator side of studio mode: a `Dispatcher` that hands every queued job to BullMQ
 * (by id) and lets workers anywhere claim, run and return it. SQLite stays the record: a
 * claim, a progress step, a result or a failure is a guarded move in the job store, so a job
 * is stored once however many workers ran it.
 */
import { mkdir, rm } from 'node:fs/promises'
import { Queue } from 'bullmq'
import { FAILURE_REASONS, type FailureReason } from '../../shared/errors'
import type { JobStatus } from '../../shared/api'
import type { Engine } from '../engine/engine'
import { ApiError } from '../engine/errors'
import { fetchToFile } from '../engine/fetch/fetch-url'
import { writeFileAtomic } from '../engine/paths'
import type { Dispatcher } from '../engine/queue/dispatcher'
import { ACTIVE_STATUSES, canTransition, isTerminal } from '../engine/queue/transitions'
import { resolveJobParams } from '../engine/params/resolve'
import { endUnsuccessfully, type RunContext } from '../engine/run-job'
import { STUDIO_QUEUE, redisConnection, shownQueueUrl, type Claim, type FailureReport, type ProgressStage, type QueuedJob, type ResultUpload, type WorkerIdentity } from './protocol'
import { WorkerRegistry } from './registry'
import type { StudioView } from '../../shared/studio'

/** How often queued and running jobs are (re)offered to the queue, and Redis is checked. */
const RECONCILE_MS = 1000
/** Forward path of a running job to `done`, one guarded move at a time. */
const FORWARD: JobStatus[] = ['segmenting', 'pending_compose', 'encoding', 'done']

export interface CoordinatorOptions {
  /** `redis://host:port` of the shared queue. */
  queueUrl: string
}

export class StudioCoordinator implements Dispatcher {
  readonly requeuesOnStart = false
  readonly workers: WorkerRegistry
  private readonly queue: Queue<QueuedJob>
  private healthy = false
  private timer: NodeJS.Timeout | null = null
  private reconciling: Promise<void> | null = null
  private stopped = true
  /** Jobs whose result is being stored now: a second upload waits (503) instead of racing. */
  private readonly storing = new Set<string>()
  /** Local runs (the coordinator's own worker), for `activeCount` and cancel. */
  readonly localRuns = new Map<string, AbortController>()

  constructor(
    private readonly engine: Engine,
    private readonly ctx: RunContext,
    private readonly opts: CoordinatorOptions
  ) {
    this.workers = new WorkerRegistry(engine.db)
    // No offline queue: with Redis down a call fails at once (and uploads answer 503) rather
    // than piling up in memory.
    this.queue = new Queue<QueuedJob>(STUDIO_QUEUE, {
      connection: { ...redisConnection(opts.queueUrl), enableOfflineQueue: false, maxRetriesPerRequest: 1 },
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true }
    })
    this.queue.on('error', () => {
      this.setHealthy(false) // reported by the reconcile loop; no crash, no log flood
    })
  }

  private setHealthy(value: boolean): void {
    if (this.healthy === value) return
    this.healthy = value
    this.workers.emit('change') // the app shows whether the queue answers
  }

  /** What the app shows: the queue (without its password), whether it answers, the workers. */
  view(): StudioView {
    return { enabled: true, queue: shownQueueUrl(this.opts.queueUrl), queue_available: this.healthy, workers: this.workers.list() }
  }

  get activeCount(): number {
    return this.localRuns.size
  }

  /** True while Redis answers. */
  get available(): boolean {
    return this.healthy
  }

  start(): void {
    this.stopped = false
    const tick = (): void => {
      if (this.stopped) return
      this.wake()
      this.timer = setTimeout(tick, RECONCILE_MS)
      this.timer.unref()
    }
    tick()
  }

  /**
   * Offers every job not yet ended to the queue. The job id is the BullMQ id, so a job
   * already there is left as it is; one lost with Redis (a restart without persistence) or
   * given up by BullMQ after repeated stalls is offered again, and the claim's attempt count
   * decides when it has crashed workers often enough.
   */
  wake(): void {
    if (this.reconciling || this.stopped) return
    this.reconciling = this.reconcile().finally(() => (this.reconciling = null))
  }

  private async reconcile(): Promise<void> {
    try {
      const client = (await this.queue.getBackend().client) as unknown as { ping(): Promise<unknown> }
      await client.ping()
      const ids = this.engine.jobs.idsByStatus(['queued', ...ACTIVE_STATUSES])
      if (ids.length > 0) {
        await this.queue.addBulk(ids.map((id) => ({ name: 'job', data: { jobId: id }, opts: { jobId: id } })))
      }
      this.setHealthy(true)
    } catch {
      this.setHealthy(false)
    }
  }

  assertAvailable(): void {
    if (!this.healthy) {
      throw new ApiError('unavailable', 'The job queue (Redis) cannot be reached; try again shortly.', { headers: { 'Retry-After': '5' } })
    }
  }

  cancel(jobId: string): boolean {
    const job = this.engine.jobs.get(jobId)
    if (!job || !ACTIVE_STATUSES.includes(job.status)) return false
    this.localRuns.get(jobId)?.abort('cancel')
    // A remote worker's later upload finds the job ended and is dropped.
    return endUnsuccessfully(this.ctx, job, job.status, 'cancelled', {})
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.reconciling
    for (const c of this.localRuns.values()) c.abort('shutdown')
    // Closing waits for Redis; when it is unreachable, do not hold the engine's stop forever.
    await Promise.race([this.queue.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000).unref())])
  }

  /**
   * Hands a job to a worker, or null when it has ended (or was just given up). A job still
   * active was being run by a worker that stopped answering (BullMQ found it stalled): this
   * is its next attempt. After `maxAttempts` starts it fails as crashing its workers, refunded.
   */
  async claim(jobId: string, worker: WorkerIdentity, signal?: AbortSignal): Promise<Claim | null> {
    this.workers.seen(worker)
    const job = this.engine.jobs.get(jobId)
    if (!job || isTerminal(job.status)) return null
    if (job.attempts >= this.engine.options.maxAttempts) {
      endUnsuccessfully(this.ctx, job, job.status, 'failed', {
        errorReason: 'pipeline_crashed',
        errorMessage: `The job stopped its worker ${job.attempts} times and was given up.`
      })
      return null
    }
    const first: JobStatus = job.sourceKind === 'url' && !job.inputPath ? 'fetching' : 'segmenting'
    const claimed = this.engine.db.transaction(() => {
      if (job.status !== 'queued' && !this.engine.jobs.move(jobId, job.status, 'queued')) return false
      return this.engine.jobs.move(jobId, 'queued', first, { attemptsDelta: 1 })
    })()
    if (!claimed) return null
    this.engine.notify(jobId)
    if (first === 'fetching') {
      // The coordinator fetches: its address policy applies, and workers need no network access.
      const inputPath = this.engine.paths.upload(jobId)
      try {
        await fetchToFile(job.source, inputPath, {
          allowPrivateNetworkUrls: this.engine.options.allowPrivateNetworkUrls,
          maxBytes: this.engine.options.maxUploadBytes,
          signal
        })
      } catch (err) {
        this.fail(jobId, { reason: (err as { reason?: FailureReason }).reason ?? 'fetch_failed', message: (err as Error).message })
        return null
      }
      if (!this.engine.jobs.move(jobId, 'fetching', 'segmenting', { inputPath })) return null
      this.engine.notify(jobId)
    }
    const fresh = this.engine.jobs.get(jobId)!
    return {
      job_id: jobId,
      attempt: fresh.attempts,
      format: fresh.outputFormat,
      params: resolveJobParams(this.ctx, fresh),
      max_pixels: this.engine.options.maxPixels
    }
  }

  /** The stored input of a running job. */
  inputPath(jobId: string): string | null {
    const job = this.engine.jobs.get(jobId)
    if (!job || isTerminal(job.status)) return null
    return job.inputPath
  }

  /** Moves a running job forward as its worker reports; stale reports change nothing. */
  progress(jobId: string, stage: ProgressStage, worker: WorkerIdentity): void {
    this.workers.seen(worker)
    const job = this.engine.jobs.get(jobId)
    if (!job || job.status === stage || !canTransition(job.status, stage)) return
    if (this.engine.jobs.move(jobId, job.status, stage)) this.engine.notify(jobId)
  }

  /**
   * Stores a job's results once. Returns false when they were not stored because the job
   * has already ended (a result stored by another worker, or a cancel): an upload is
   * idempotent, so the worker treats both answers as done.
   */
  async complete(jobId: string, upload: ResultUpload, worker: WorkerIdentity): Promise<boolean> {
    this.workers.seen(worker)
    if (this.storing.has(jobId)) {
      throw new ApiError('unavailable', 'This job\'s results are being stored now; try again shortly.', { headers: { 'Retry-After': '1' } })
    }
    const before = this.engine.jobs.get(jobId)
    if (!before) throw new ApiError('job_not_found', `No job with id ${jobId}.`)
    if (isTerminal(before.status)) return false
    this.storing.add(jobId)
    try {
      const dir = this.engine.paths.resultDir(jobId)
      await mkdir(dir, { recursive: true })
      const files: { variation: ResultUpload['outputs'][number]['variation']; ext: string; path: string; bytes: number }[] = []
      for (const out of upload.outputs) {
        const path = this.engine.paths.result(jobId, out.variation, out.ext)
        const bytes = Buffer.from(out.data, 'base64')
        await writeFileAtomic(path, bytes)
        files.push({ variation: out.variation, ext: out.ext, path, bytes: bytes.length })
      }
      const stored = this.engine.db.transaction(() => {
        const job = this.engine.jobs.get(jobId)
        if (!job || isTerminal(job.status)) return false
        for (const f of files) this.engine.jobs.addResult(jobId, f)
        let at: JobStatus = job.status
        if (at === 'queued' || at === 'fetching') {
          if (!this.engine.jobs.move(jobId, at, 'segmenting')) return false
          at = 'segmenting'
        }
        for (let i = FORWARD.indexOf(at) + 1; i < FORWARD.length; i++) {
          const to = FORWARD[i]!
          const patch = to === 'done' ? { warnings: upload.warnings, ignored: upload.ignored } : {}
          if (!this.engine.jobs.move(jobId, at, to, patch)) return false
          at = to
        }
        this.workers.finished(worker, upload.busy_ms)
        return true
      })()
      if (!stored) {
        // Ended meanwhile (cancelled): its files must not outlive it.
        const job = this.engine.jobs.get(jobId)
        if (job?.status !== 'done') await rm(dir, { recursive: true, force: true })
      }
      this.engine.notify(jobId)
      return stored
    } finally {
      this.storing.delete(jobId)
    }
  }

  /** Ends a job as failed (refunded) on its worker's report; a job already ended is left. */
  fail(jobId: string, report: FailureReport, worker?: WorkerIdentity): boolean {
    if (worker) this.workers.seen(worker)
    const job = this.engine.jobs.get(jobId)
    if (!job || isTerminal(job.status)) return false
    const reason: FailureReason = (FAILURE_REASONS as readonly string[]).includes(report.reason) ? report.reason : 'pipeline_error'
    return endUnsuccessfully(this.ctx, job, job.status, 'failed', { errorReason: reason, errorMessage: String(report.message).slice(0, 2000) })
  }
}
