import type { JobStatus } from '../../../shared/api'
import type { JobRecord, JobStore } from '../store/jobs'

/** Why a running job's signal was aborted. */
export type AbortReason = 'shutdown' | 'cancel'

export interface SchedulerDeps {
  jobs: JobStore
  /** Jobs run at once. */
  concurrency: number
  /** Runs one claimed job to a terminal status (or back to queued on shutdown). Never throws. */
  run(job: JobRecord, signal: AbortSignal): Promise<void>
  /** Told of every claim, so observers see the move. */
  onClaim?(job: JobRecord): void
}

/**
 * The durable queue's dispatcher: takes the oldest queued job from the store, claims it with
 * a guarded move (so a job is never run twice), and runs up to `concurrency` at once.
 * The store is the queue; this class only holds what is running now.
 */
export class Scheduler {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>()
  private stopped = true

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    this.stopped = false
    this.wake()
  }

  /** Looks for work; call after a job is queued. */
  wake(): void {
    while (!this.stopped && this.running.size < this.deps.concurrency) {
      const job = this.claimNext()
      if (!job) return
      const controller = new AbortController()
      const done = this.deps
        .run(job, controller.signal)
        .catch(() => undefined)
        .finally(() => {
          this.running.delete(job.id)
          this.wake()
        })
      this.running.set(job.id, { controller, done })
    }
  }

  isRunning(jobId: string): boolean {
    return this.running.has(jobId)
  }

  get activeCount(): number {
    return this.running.size
  }

  /** Aborts a running job; its runner moves it to `cancelled`. */
  cancel(jobId: string): boolean {
    const entry = this.running.get(jobId)
    if (!entry) return false
    entry.controller.abort('cancel' satisfies AbortReason)
    return true
  }

  /** Stops taking work and interrupts running jobs; they go back to `queued` for the next start. */
  async stop(): Promise<void> {
    this.stopped = true
    const entries = [...this.running.values()]
    for (const e of entries) e.controller.abort('shutdown' satisfies AbortReason)
    await Promise.all(entries.map((e) => e.done))
  }

  private claimNext(): JobRecord | null {
    for (;;) {
      const job = this.deps.jobs.nextQueued()
      if (!job) return null
      const first: JobStatus = job.sourceKind === 'url' ? 'fetching' : 'segmenting'
      if (this.deps.jobs.move(job.id, 'queued', first, { attemptsDelta: 1 })) {
        const claimed = this.deps.jobs.get(job.id)!
        this.deps.onClaim?.(claimed)
        return claimed
      }
      // Someone else moved it (cancelled meanwhile): look again.
    }
  }
}
