/**
 * The seam between the engine and whatever runs its queued jobs. The default is the
 * in-process `Scheduler` (SQLite is the queue); studio mode plugs in a dispatcher that hands
 * jobs to other machines through a shared queue, while SQLite stays the record of every job.
 */
export interface Dispatcher {
  /** Starts taking work (after the engine recovered interrupted jobs). */
  start(): void
  /** Looks for work; called after a job is queued. */
  wake(): void
  /** Aborts a job this dispatcher is running; false when it is not running here. */
  cancel(jobId: string): boolean
  /** Jobs running in this process now. */
  readonly activeCount: number
  /** Stops taking work; running jobs go back to the queue. */
  stop(): Promise<void>
  /** Throws EngineError `unavailable` when new jobs cannot be dispatched now. */
  assertAvailable?(): void
  /**
   * Throws EngineError `validation_failed` (naming the field) for an upload none of this
   * dispatcher's workers could ever run, rather than leave its job queued for good.
   */
  assertRunnable?(needs: { hint: boolean; regions: boolean }): void
  /**
   * Whether jobs that were active when the engine last stopped go back to `queued` at start.
   * A shared queue keeps them running on other machines, so it answers false.
   */
  readonly requeuesOnStart?: boolean
}
