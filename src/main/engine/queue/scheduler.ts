import type { JobStatus } from '../../../shared/api'
import type { JobRecord, JobStore } from '../store/jobs'

/** Why a running job's signal was aborted. */
export type AbortReason = 'shutdown' | 'cancel' | 'timeout'

export interface SchedulerDeps {
  jobs: JobStore
  /** Jobs run at once. */
  concurrency: number
  /** A run still going after this long is aborted with reason 'timeout'. */
  jobTimeoutMs: number
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
  /** True while a suspect job (see `wake`) runs alone. */
  private exclusive = false

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    this.stopped = false
    this.wake()
  }

  /**
   * Looks for work; call after a job is queued.
   *
   * A job whose earlier run was cut short by a crash (attempts > 0) is a suspect: it may be
   * the input that crashes the process. It runs alone, so that the next crash is charged to
   * the job that caused it, and innocent jobs that happened to run beside it are not failed
   * after three crashes that were not theirs.
   */
  wake(): void {
    while (!this.stopped && !this.exclusive && this.running.size < this.deps.concurrency) {
      const next = this.deps.jobs.nextQueued()
      if (!next) return
      const suspect = next.attempts > 0
      if (suspect && this.running.size > 0) return // let the others finish first
      const job = this.claim(next)
      if (!job) continue
      this.exclusive = suspect
      const controller = new AbortController()
      // A hung step (a stuck download, decoder or model run) must not hold a worker forever.
      const watchdog = setTimeout(() => controller.abort('timeout' satisfies AbortReason), this.deps.jobTimeoutMs)
      const done = this.deps
        .run(job, controller.signal)
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(watchdog)
          this.running.delete(job.id)
          if (suspect) this.exclusive = false
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

  /** Claims a queued job with a guarded move; null when someone else moved it meanwhile (a cancel). */
  private claim(job: JobRecord): JobRecord | null {
    const first: JobStatus = job.sourceKind === 'url' ? 'fetching' : 'segmenting'
    if (!this.deps.jobs.move(job.id, 'queued', first, { attemptsDelta: 1 })) return null
    const claimed = this.deps.jobs.get(job.id)!
    this.deps.onClaim?.(claimed)
    return claimed
  }
}
