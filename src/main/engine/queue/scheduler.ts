import type { AbortReason } from '../run/execute'
import type { RunRecord } from '../run/record'
import type { JobRecord, JobStore } from '../store/jobs'
import { KeyTurns } from './turns'

export type { AbortReason } from '../run/execute'

export interface SchedulerDeps {
  jobs: JobStore
  /** Jobs run at once. */
  concurrency: number
  /** Claims a queued job (one guarded move, one attempt more); null when someone else moved it. */
  claim(job: JobRecord): RunRecord | null
  /** Runs one claimed job to a terminal status (or back to queued on shutdown), timeout included. */
  run(run: RunRecord, signal: AbortSignal): Promise<unknown>
}

/**
 * The durable queue's dispatcher: takes the next queued job from the store, keys taking turns
 * (`turns.ts`: the oldest job of the key served least recently), claims it with a guarded move
 * (so a job is never run twice), and runs up to `concurrency` at once. The store is the queue;
 * this class only holds what is running now and whose turn it is.
 */
export class Scheduler {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>()
  private stopped = true
  /** True while a suspect job (see `wake`) runs alone. */
  private exclusive = false
  private readonly turns = new KeyTurns()

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
      const next = this.turns.pick(this.deps.jobs.queuedHeads())
      if (!next) return
      const suspect = next.attempts > 0
      if (suspect && this.running.size > 0) return // let the others finish first
      const run = this.deps.claim(next)
      if (!run) continue
      this.turns.served(next.keyId)
      this.exclusive = suspect
      const controller = new AbortController()
      const done = this.deps
        .run(run, controller.signal)
        .then(
          () => undefined,
          () => undefined
        )
        .finally(() => {
          this.running.delete(run.jobId)
          if (suspect) this.exclusive = false
          this.wake()
        })
      this.running.set(run.jobId, { controller, done })
    }
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
}
