/**
 * Runs the items of batches through the engine: hands waiting items over a few at a time
 * (`pump`), follows their jobs (`sync`), and copies a done job's results into the destination
 * (`finish`). Items, not this object, hold the state: everything here can start again from the
 * database after a restart.
 */
import { readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { posix } from 'node:path'
import { writesAllVariations } from '../../shared/outputs'
import type { BatchesPort } from '../engine/ports'
import { jobOutcome, submitFile } from '../outputs/engine-jobs'
import { copyResults } from './results'
import { TERMINAL_ITEM, type BatchStore, type ItemRecord } from './store'
import { errorText } from '../../shared/errors'

/** Whether a batch item is settled (done, failed or cancelled): nothing more happens to it unless it is retried. */
export const isItemSettled = (item: ItemRecord): boolean => TERMINAL_ITEM.includes(item.status)

export interface RunnerDeps {
  engine: BatchesPort
  store: BatchStore
  /** Items handed to the engine at once, across batches. */
  window: number
  /** An item changed: tell the screens (and write the report once its batch has ended). */
  changed(itemId: string): void
}

export class BatchRunner {
  private readonly finishing = new Set<string>()
  /** Jobs of held items that this process stopped: being cancelled, never to be followed again. */
  private readonly abandoned = new Set<string>()
  private readonly work = new Set<Promise<unknown>>()
  private pumping = false
  private pumpAgain = false
  running = false

  constructor(private readonly d: RunnerDeps) {}

  /** Waits for the pump and the copies under way. */
  async drain(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work])
  }

  track<T>(p: Promise<T>): Promise<T> {
    this.work.add(p)
    void p.finally(() => this.work.delete(p)).catch(() => undefined)
    return p
  }

  /** Hands waiting items to the engine, keeping at most `window` in flight. */
  pump(): void {
    if (!this.running) return
    if (this.pumping) {
      this.pumpAgain = true
      return
    }
    this.pumping = true
    void this.track(
      (async () => {
        try {
          do {
            this.pumpAgain = false
            for (;;) {
              if (!this.running) return
              const free = this.d.window - this.d.store.inFlightCount()
              if (free <= 0) break
              const next = this.d.store.nextWaiting(free)
              if (next.length === 0) break
              for (const item of next) {
                if (this.followEarlierJob(item)) continue
                const bytes = await this.inputOf(item)
                if (typeof bytes === 'string') {
                  this.fail(item, bytes)
                  continue
                }
                await this.submit(item, { bytes, name: posix.basename(item.relPath) })
              }
            }
          } while (this.pumpAgain)
        } finally {
          this.pumping = false
        }
      })()
    )
  }

  /**
   * A waiting item whose earlier job was not stopped (the engine had not taken its jobs back
   * yet when the batch was interrupted, e.g. `clipdesk serve --paused`) or has even finished:
   * follow that job rather than running the file again. True when the item was linked to it.
   */
  private followEarlierJob(item: ItemRecord): boolean {
    const job = item.jobId ? this.d.engine.job(item.jobId) : null
    if (!job || job.status === 'failed' || job.status === 'cancelled' || this.abandoned.has(job.id)) return false
    // A done job enters as queued: `sync` then copies its results.
    const status = job.status === 'done' ? 'queued' : job.status
    if (!this.d.store.updateItem(item.id, { status }, { status: 'waiting', jobId: job.id })) return false
    this.d.changed(item.id)
    this.sync(this.d.store.item(item.id)!)
    return true
  }

  /** The bytes to send for a waiting item: its file on disk, else the upload its earlier job kept; or why not. */
  private async inputOf(item: ItemRecord): Promise<Buffer | string> {
    if (item.sourcePath) {
      const bytes = await readFile(item.sourcePath).catch((err: Error) => err)
      return bytes instanceof Error ? `The file cannot be read: ${bytes.message}` : bytes
    }
    const kept = item.jobId ? this.d.engine.job(item.jobId)?.inputPath : null
    if (!kept || !existsSync(kept)) return 'The original file is no longer kept; add it to a batch again.'
    const bytes = await readFile(kept).catch(() => null)
    return bytes ?? 'The original file is no longer kept; add it to a batch again.'
  }

  /** Sends one waiting item to the engine and links it to the new job. */
  async submit(item: ItemRecord, file: { bytes: Buffer; name: string }): Promise<void> {
    const batch = this.d.store.batch(item.batchId)
    if (!batch) return
    const res = await submitFile(this.d.engine, batch.request, { bytes: file.bytes, filename: file.name })
    if (!res.ok) {
      this.fail(item, res.message)
      return
    }
    const jobId = res.jobId
    const linked = this.d.store.updateItem(
      item.id,
      { jobId, status: 'queued', progress: 0, planned: null },
      { status: 'waiting', jobId: item.jobId ?? undefined }
    )
    if (!linked) {
      this.d.engine.cancel(jobId) // the item was cancelled while its file was read
      return
    }
    this.d.changed(item.id)
    // The job may have moved between the upload and the link above.
    this.sync(this.d.store.item(item.id)!)
  }

  /** Stops the job of an item held back (an interrupted batch); false when the engine could not. */
  abandon(jobId: string): boolean {
    this.abandoned.add(jobId)
    if (this.d.engine.cancel(jobId)) return true
    this.abandoned.delete(jobId)
    return false
  }

  fail(item: ItemRecord, error: string): void {
    if (this.d.store.updateItem(item.id, { status: 'failed', error, finishedAt: Date.now() }, { status: item.status }))
      this.d.changed(item.id)
  }

  /** Brings an item in line with its job: status and progress, end, or copying the results. */
  sync(item: ItemRecord): void {
    // A waiting item's job (if any) is an earlier one, kept only to re-read its upload.
    if (!item.jobId || isItemSettled(item) || item.status === 'waiting') return
    const job = this.d.engine.job(item.jobId)
    if (!job) {
      this.fail(item, 'The job of this file is gone (kept for the retention time only); retry to run it again.')
      this.pump()
      return
    }
    if (job.status === 'done') {
      void this.track(this.finish(item.id, job.id))
      return
    }
    if (job.status === 'failed' || job.status === 'cancelled') {
      const outcome = jobOutcome(this.d.engine, job.id, false)
      const message = outcome.state === 'failed' && outcome.code !== 'cancelled' ? outcome.message : null
      if (
        this.d.store.updateItem(
          item.id,
          { status: job.status, error: message, finishedAt: job.finishedAt ?? Date.now() },
          { jobId: job.id }
        )
      ) {
        this.d.changed(item.id)
      }
      this.pump()
      return
    }
    const startedAt = item.startedAt ?? (job.status === 'queued' ? null : Date.now())
    if (item.status === job.status && item.progress === job.progress && item.startedAt === startedAt) return
    if (
      this.d.store.updateItem(
        item.id,
        { status: job.status, progress: Math.max(item.progress, job.progress), startedAt },
        { jobId: job.id }
      )
    ) {
      this.d.changed(item.id)
    }
  }

  /** Copies a done job's results into the destination (primary first), then marks the item done. */
  private async finish(itemId: string, jobId: string): Promise<void> {
    if (this.finishing.has(itemId)) return
    this.finishing.add(itemId)
    try {
      const item = this.d.store.item(itemId)
      const job = this.d.engine.job(jobId)
      const batch = item && this.d.store.batch(item.batchId)
      if (!item || !job || !batch || item.jobId !== jobId || isItemSettled(item) || item.status === 'waiting') return
      const outcome = jobOutcome(this.d.engine, jobId, writesAllVariations(batch.request.params, batch.request.all_variations))
      if (outcome.state !== 'done') return // moved on meanwhile: `sync` follows it
      let outputs: string[]
      try {
        outputs = await copyResults(this.d.engine, this.d.store, item, batch, outcome.results)
      } catch (err) {
        this.fail(item, `The result could not be written into the destination: ${errorText(err)}`)
        return
      }
      const done = this.d.store.updateItem(
        item.id,
        {
          status: 'done',
          progress: 100,
          error: null,
          outputs,
          planned: null,
          warnings: outcome.warnings,
          model: outcome.model,
          device: outcome.device,
          uncertainty: outcome.uncertainty,
          checks: this.d.engine.jobChecks(jobId),
          secondLook: outcome.secondLook,
          startedAt: item.startedAt ?? job.createdAt,
          finishedAt: Date.now()
        },
        { jobId }
      )
      if (done) this.d.changed(item.id)
    } finally {
      this.finishing.delete(itemId)
      this.pump()
    }
  }
}
