import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join, posix, resolve } from 'node:path'
import type {
  BatchAddResult,
  BatchCreateRequest,
  BatchDetail,
  BatchFileRef,
  BatchItemView,
  BatchSummary,
  BatchTarget
} from '../../shared/batches'
import { plannedOutputs } from '../../shared/outputs'
import type { JobEvent } from '../engine/events'
import type { BatchesPort } from '../engine/ports'
import { EngineError } from '../engine/errors'
import { checkDestination, DestinationProblem, estimateOutputBytes } from '../outputs/destination'
import { sweepTempFiles } from '../outputs/temp-sweep'
import { Previews, type PreviewKind } from './previews'
import { addFiles } from './intake'
import { BatchReporter } from './report'
import { BatchRunner, isItemSettled } from './runner'
import { BatchStore, type BatchRecord, type ItemRecord } from './store'
import type { TouchUpTarget } from '../../shared/touchup'
import type { TouchUpFile } from '../touchup/touchups'
import { batchTouchUpFile } from './touchup-file'
import { batchSummary, itemView, type PreviewAddress } from './view'
import { batchFiles, type MadeFile, resultFile, type WrittenFile } from './result-files'

export type { PreviewAddress } from './view'

export interface BatchServiceOptions {
  /**
   * Files the batches keep handed to the engine at once; the rest wait in the batch, so that
   * thousands of dropped files are not all copied into the upload folder up front, and
   * cancelling a batch is cheap. @default max(4, 2 × engine concurrency)
   */
  window?: number
}

export interface BatchServiceEvents {
  /** An item changed (status, progress, outputs). */
  item: [ItemRecord]
  /** A batch's counts may have changed (also after it was created or deleted). */
  batch: [string]
}

function notFound(what: string): EngineError {
  return new EngineError('not_found', `${what} does not exist.`)
}

/**
 * Batches of the app's main screen on top of the engine: a batch is a job request and a
 * destination; each of its items is one input file linked to its current job. When a job is
 * done its results are copied into the destination, mirroring the dropped folders (running
 * them: `runner.ts`). Everything is in the engine's database, so batches, their items and the
 * copied results survive a restart. A batch that still had files to do when the app stopped
 * is marked interrupted at the next start: what was already done is kept (results made while
 * the app was down are copied), the rest waits for `resume`.
 */
export class BatchService extends EventEmitter<BatchServiceEvents> {
  readonly store: BatchStore
  readonly previews: Previews
  private readonly runner: BatchRunner
  private readonly reporter: BatchReporter
  private readonly onJob = (e: JobEvent): void => this.jobChanged(e)
  private lastRev = 0

  constructor(
    private readonly engine: BatchesPort,
    opts: BatchServiceOptions = {}
  ) {
    super()
    this.store = new BatchStore(engine.featureTables())
    this.previews = new Previews(join(engine.options.dataDir, 'batch-previews'), (request) => engine.previewInSandbox(request))
    this.runner = new BatchRunner({
      engine,
      store: this.store,
      window: opts.window ?? Math.max(4, 2 * engine.options.concurrency),
      changed: (itemId) => this.changed(itemId)
    })
    this.reporter = new BatchReporter(this.store, (p) => this.runner.track(p))
  }

  /** A done file of a batch as the touch-up sees it (`touchup-file.ts`). */
  touchUpFile(target: Extract<TouchUpTarget, { kind: 'batch' }>): TouchUpFile {
    return batchTouchUpFile({ store: this.store, changed: (itemId) => this.changed(itemId) }, target)
  }

  /**
   * Follows job events, marks batches the app stopped under as interrupted (holding their
   * remaining files), settles items whose jobs ended while the service was down, and hands
   * the waiting items of running batches to the engine.
   */
  start(): void {
    if (this.runner.running) return
    this.runner.running = true
    this.engine.on('job', this.onJob)
    // A copy cut short by a crash left its temp file in the destination of a batch that had work.
    const withWork = new Set([...this.store.pendingBatchIds(), ...this.store.inFlight().map((i) => i.batchId)])
    for (const batchId of withWork) this.sweepDestination(batchId)
    this.interruptPending()
    for (const item of this.store.inFlight()) this.runner.sync(item)
    for (const item of this.store.orphans()) this.runner.fail(item, 'The file was being added when the app stopped; retry to run it again.')
    this.runner.pump()
  }

  async stop(): Promise<void> {
    this.runner.running = false
    this.engine.off('job', this.onJob)
    await this.runner.drain()
  }

  // ---- reading ----------------------------------------------------------------------------

  list(): BatchSummary[] {
    return this.store.batches().map((b) => this.summaryOf(b))
  }

  summary(batchId: string): BatchSummary {
    const batch = this.store.batch(batchId)
    if (!batch) throw notFound(`Batch ${batchId}`)
    return this.summaryOf(batch)
  }

  detail(batchId: string, address: PreviewAddress): BatchDetail {
    const summary = this.summary(batchId)
    return { ...summary, items: this.store.items(batchId).map((item) => this.view(item, address)) }
  }

  view(item: ItemRecord, address: PreviewAddress): BatchItemView {
    return itemView(item, address, this.nextRev())
  }

  /** The display file of an item's preview, or null (gone, or not made yet). */
  async previewFile(itemId: string, kind: PreviewKind): Promise<string | null> {
    const item = this.store.item(itemId)
    if (!item) return null
    const job = item.jobId ? this.engine.job(item.jobId) : null
    // A done item's original is placed as its job framed the subject (a cropping preset): before and after compare the same frame.
    const frame = item.status === 'done' && item.jobId ? this.engine.jobFraming(item.jobId) : null
    return this.previews.file(item, kind, item.sourcePath ?? job?.inputPath ?? null, frame)
  }

  /** The folder to open for a batch, or for one file (its folder in the destination). */
  /** One written file of a done item (results that leave the app); 404 / 409 as `result-files.ts` says. */
  resultFile(target: { batch_id: string; item_id: string; output?: number }): WrittenFile {
    return resultFile(this.store, target)
  }

  /** Every written file of a batch, and its report once it has ended, for its zip. */
  batchFiles(batchId: string): { files: WrittenFile[]; name: string; reports: MadeFile[] } {
    return batchFiles(this.store, batchId)
  }

  outputFolder(target: BatchTarget): string {
    const batch = this.store.batch(target.batch_id)
    if (!batch) throw notFound(`Batch ${target.batch_id}`)
    if (!target.item_id) return batch.destination
    const item = this.store.item(target.item_id)
    if (!item || item.batchId !== batch.id) throw notFound(`File ${target.item_id}`)
    return resolve(batch.destination, posix.dirname(item.relPath))
  }

  // ---- changing ---------------------------------------------------------------------------

  /**
   * Makes a batch after checking its destination once (exists or can be made, writable, room
   * for the expected output: `outputs/destination.ts`). A destination that cannot be used is a
   * 422 whose `destination` detail says why in plain words (and `destination.system` the
   * system's text), before any file is sent.
   */
  async create(req: BatchCreateRequest): Promise<BatchSummary> {
    // A set the mode cannot apply (or an unknown preset) is refused before the batch exists, not photo by photo.
    const problems = this.engine.paramsProblems(req.request.mode, req.request.params)
    if (problems.length > 0) throw new EngineError('validation_failed', 'The parameter set failed validation.', { details: problems })
    const perPhoto = plannedOutputs(req.request, 'photo.jpg', this.engine.presetLookup)?.names.length ?? 1
    let destination: string
    try {
      destination = await checkDestination(req.destination, { estimatedBytes: estimateOutputBytes(req.expected?.bytes ?? 0, perPhoto) })
    } catch (err) {
      if (!(err instanceof DestinationProblem)) throw err
      throw new EngineError('validation_failed', err.message, {
        details: [{ field: 'destination', issue: err.message }, ...(err.detail ? [{ field: 'destination.system', issue: err.detail }] : [])]
      })
    }
    const now = Date.now()
    const batch: BatchRecord = {
      id: randomUUID(),
      name: req.name?.trim() || `Batch ${new Date(now).toISOString().slice(0, 16).replace('T', ' ')}`,
      request: req.request,
      destination,
      createdAt: now,
      interruptedAt: null,
      expectedFiles: req.expected?.files ?? null
    }
    this.store.insertBatch(batch)
    this.emit('batch', batch.id)
    return this.summaryOf(batch)
  }

  /** Adds files (paths, bytes, uploaded jobs, or files the browser could not send); see `intake.ts`. */
  async add(batchId: string, files: BatchFileRef[]): Promise<BatchAddResult> {
    if (!this.store.batch(batchId)) throw notFound(`Batch ${batchId}`)
    const result = await addFiles({ engine: this.engine, store: this.store, runner: this.runner }, batchId, files)
    this.emit('batch', batchId)
    this.runner.pump()
    this.reporter.reportIfEnded(batchId)
    return result
  }

  /** Cancels the pending files of a batch, or one file. Files already done stay done. */
  cancel(target: BatchTarget): BatchSummary {
    if (!target.item_id) this.store.setInterrupted(target.batch_id, null) // nothing left to resume
    for (const item of this.targetItems(target)) {
      if (isItemSettled(item)) continue
      // A waiting item is not in the engine (a job it keeps is an earlier one, already ended).
      if (item.status === 'waiting' || item.jobId === null || !this.engine.cancel(item.jobId)) {
        // Waiting (never handed over), or its job is gone or already ended: settle here.
        const job = item.jobId && item.status !== 'waiting' ? this.engine.job(item.jobId) : null
        if (job?.status === 'done') continue // results being copied: let it finish
        if (this.store.updateItem(item.id, { status: 'cancelled', finishedAt: Date.now() }, { status: item.status })) this.changed(item.id)
      }
    }
    this.runner.pump()
    this.reporter.reportIfEnded(target.batch_id)
    return this.summary(target.batch_id)
  }

  /**
   * Runs failed and cancelled files again (of a batch, or one file); an interrupted batch
   * runs again too. Files that are not images stay listed as they are. A file keeps its error
   * until the retry ends (the screen shows why the last try failed while it runs again). A
   * browser upload whose original is no longer kept cannot run again: it stays as it is, with
   * its own error, and the retry answers 404 `not_found` saying so once the others are on their way.
   */
  async retry(target: BatchTarget): Promise<BatchSummary> {
    const items = this.targetItems(target)
    this.store.setInterrupted(target.batch_id, null)
    let gone = 0
    let refused = 0
    for (const item of items) {
      if ((item.status !== 'failed' && item.status !== 'cancelled') || item.notImage) continue
      const reset = { status: 'waiting' as const, progress: 0, warnings: [], outputs: [], planned: null, startedAt: null, finishedAt: null }
      if (item.sourcePath) {
        if (this.store.updateItem(item.id, { ...reset, jobId: null }, { status: item.status })) this.changed(item.id)
        continue
      }
      // A browser upload: run it again from the engine's stored copy while it is kept.
      if (!item.jobId) {
        refused++ // refused when it was added: nothing was kept to run again
        continue
      }
      const inputPath = this.engine.job(item.jobId)?.inputPath
      if (!inputPath || !existsSync(inputPath)) {
        gone++
        continue
      }
      const bytes = await readFile(inputPath)
      if (!this.store.updateItem(item.id, reset, { status: item.status })) continue
      await this.runner.submit(this.store.item(item.id)!, { bytes, name: posix.basename(item.relPath) })
    }
    this.emit('batch', target.batch_id)
    this.runner.pump()
    const which = (n: number): string => (n === 1 ? (target.item_id ? 'This file' : '1 file') : `${n} files`)
    const them = (n: number): string => (n === 1 ? 'it' : 'them')
    const reasons = [
      ...(gone > 0
        ? [
            `${which(gone)} cannot be retried: the uploaded original is no longer kept (uploads are kept for the retention time). Add ${them(gone)} to a batch again.`
          ]
        : []),
      ...(refused > 0
        ? [
            `${which(refused)} cannot be retried: ${refused === 1 ? 'it was' : 'they were'} refused when added, so nothing was kept to run again. Add ${them(refused)} to a batch again.`
          ]
        : [])
    ]
    if (reasons.length > 0) throw new EngineError('not_found', reasons.join(' '))
    return this.summary(target.batch_id)
  }

  /** Runs the remaining files of an interrupted batch; files already done are not run again. */
  resume(batchId: string): BatchSummary {
    if (!this.store.batch(batchId)) throw notFound(`Batch ${batchId}`)
    if (this.store.setInterrupted(batchId, null)) this.emit('batch', batchId)
    this.sweepDestination(batchId)
    this.runner.pump()
    return this.summary(batchId)
  }

  /** Removes a batch from the list (cancelling what is pending); files written stay in the destination. */
  async remove(batchId: string): Promise<boolean> {
    if (!this.store.batch(batchId)) return false
    this.cancel({ batch_id: batchId })
    this.store.deleteBatch(batchId)
    await this.previews.removeBatch(batchId)
    this.emit('batch', batchId)
    return true
  }

  // ---- internals --------------------------------------------------------------------------

  private targetItems(target: BatchTarget): ItemRecord[] {
    if (!this.store.batch(target.batch_id)) throw notFound(`Batch ${target.batch_id}`)
    if (!target.item_id) return this.store.items(target.batch_id)
    const item = this.store.item(target.item_id)
    if (!item || item.batchId !== target.batch_id) throw notFound(`File ${target.item_id}`)
    return [item]
  }

  private summaryOf(batch: BatchRecord): BatchSummary {
    return batchSummary(batch, this.store.counts(batch.id), this.nextRev())
  }

  /** Each view (summary or item) read later than another carries a higher rev (the clock, kept increasing). */
  private nextRev(): number {
    this.lastRev = Math.max(this.lastRev + 0.001, Date.now())
    return this.lastRev
  }

  /**
   * At start: a batch with files not ended was running when the app stopped. Its files whose
   * job had not finished go back to waiting (keeping that job, whose upload is re-read at
   * "Resume"); that job is cancelled so it does not run unasked. Results already made are kept.
   */
  /** Removes the temp files a killed copy left in the batch's destination (`outputs/temp-sweep.ts`), in the background. */
  private sweepDestination(batchId: string): void {
    const destination = this.store.batch(batchId)?.destination
    if (destination) void sweepTempFiles(destination)
  }

  private interruptPending(): void {
    const now = Date.now()
    for (const batchId of this.store.pendingBatchIds()) {
      const batch = this.store.batch(batchId)
      if (!batch) continue
      if (batch.interruptedAt === null) this.store.setInterrupted(batchId, now)
      for (const item of this.store.items(batchId)) {
        if (isItemSettled(item) || item.status === 'waiting' || !item.jobId) continue
        if (this.engine.job(item.jobId)?.status === 'done') continue // copied by `sync`
        const held = this.store.updateItem(
          item.id,
          { status: 'waiting', progress: 0, startedAt: null, planned: null },
          { jobId: item.jobId, status: item.status }
        )
        if (held) this.runner.abandon(item.jobId)
      }
      this.emit('batch', batchId)
    }
  }

  private jobChanged(e: JobEvent): void {
    const item = this.store.itemByJob(e.job_id)
    if (item && !isItemSettled(item)) this.runner.sync(item)
  }

  private changed(itemId: string): void {
    const item = this.store.item(itemId)
    if (!item) return
    this.emit('item', item)
    this.emit('batch', item.batchId)
    if (!isItemSettled(item)) return
    const { counts } = this.store.counts(item.batchId)
    // Ended: nothing is left to resume (files added later run at once).
    if (counts.waiting + counts.running === 0) this.store.setInterrupted(item.batchId, null)
    this.reporter.reportIfEnded(item.batchId)
  }
}
