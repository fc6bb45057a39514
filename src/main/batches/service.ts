import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { mkdir, readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { isAbsolute, join, posix, resolve } from 'node:path'
import type { JobStatusBody } from '../../shared/api'
import {
  type BatchAddResult,
  type BatchCreateRequest,
  type BatchDetail,
  type BatchFileRef,
  type BatchItemView,
  type BatchSummary,
  type BatchTarget
} from '../../shared/batches'
import type { Engine, JobEvent } from '../engine/engine'
import { ApiError } from '../engine/errors'
import { cleanRelPath, expandPath } from './paths'
import { copyResults } from './results'
import { Previews, type PreviewKind } from './previews'
import { BatchStore, TERMINAL_ITEM, type BatchRecord, type ItemRecord } from './store'
import { batchSummary, itemView, type PreviewAddress } from './view'

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

const isTerminal = (item: ItemRecord): boolean => TERMINAL_ITEM.includes(item.status)

function notFound(what: string): ApiError {
  return new ApiError('not_found', `${what} does not exist.`)
}

/**
 * Batches of the app's main screen (SPEC §7) on top of the engine: a batch is a job request
 * and a destination; each of its items is one input file linked to its current job. When a
 * job is done its results are copied into the destination, mirroring the dropped folders.
 * Everything is in the engine's database, so batches, their items and the copied results
 * survive a restart; interrupted items carry on when the service starts again.
 */
export class BatchService extends EventEmitter<BatchServiceEvents> {
  readonly store: BatchStore
  readonly previews: Previews
  private readonly window: number
  private readonly finishing = new Set<string>()
  private readonly work = new Set<Promise<unknown>>()
  private pumping = false
  private pumpAgain = false
  private started = false
  private readonly onJob = (e: JobEvent): void => this.jobChanged(e)

  constructor(
    private readonly engine: Engine,
    opts: BatchServiceOptions = {}
  ) {
    super()
    this.store = new BatchStore(engine.db)
    this.previews = new Previews(join(engine.options.dataDir, 'batch-previews'), (request) => engine.sandbox.preview(request))
    this.window = opts.window ?? Math.max(4, 2 * engine.options.concurrency)
  }

  /** Follows job events, settles items whose jobs ended while the service was down, and resumes waiting items. */
  start(): void {
    if (this.started) return
    this.started = true
    this.engine.on('job', this.onJob)
    for (const item of this.store.inFlight()) this.syncWithJob(item)
    for (const item of this.store.orphans()) this.fail(item, 'The file was being added when the app stopped; retry to run it again.')
    this.pump()
  }

  async stop(): Promise<void> {
    this.started = false
    this.engine.off('job', this.onJob)
    while (this.work.size > 0) await Promise.allSettled([...this.work])
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
    return itemView(item, address)
  }

  /** The display file of an item's preview, or null (gone, or not made yet). */
  async previewFile(itemId: string, kind: PreviewKind): Promise<string | null> {
    const item = this.store.item(itemId)
    if (!item) return null
    const job = item.jobId ? this.engine.jobs.get(item.jobId) : null
    return this.previews.file(item, kind, item.sourcePath ?? job?.inputPath ?? null)
  }

  /** The folder to open for a batch, or for one file (its folder in the destination). */
  outputFolder(target: BatchTarget): string {
    const batch = this.store.batch(target.batch_id)
    if (!batch) throw notFound(`Batch ${target.batch_id}`)
    if (!target.item_id) return batch.destination
    const item = this.store.item(target.item_id)
    if (!item || item.batchId !== batch.id) throw notFound(`File ${target.item_id}`)
    return resolve(batch.destination, posix.dirname(item.relPath))
  }

  // ---- changing ---------------------------------------------------------------------------

  async create(req: BatchCreateRequest): Promise<BatchSummary> {
    const destination = req.destination.trim()
    if (!isAbsolute(destination)) {
      throw new ApiError('validation_failed', 'The destination must be an absolute folder path.', {
        details: [{ field: 'destination', issue: `expected an absolute path, got "${destination}"` }]
      })
    }
    try {
      await mkdir(destination, { recursive: true })
    } catch (err) {
      throw new ApiError('validation_failed', 'The destination folder cannot be created.', {
        details: [{ field: 'destination', issue: (err as Error).message }]
      })
    }
    const now = Date.now()
    const batch: BatchRecord = {
      id: randomUUID(),
      name: req.name?.trim() || `Batch ${new Date(now).toISOString().slice(0, 16).replace('T', ' ')}`,
      request: req.request,
      destination: resolve(destination),
      createdAt: now
    }
    this.store.insertBatch(batch)
    this.emit('batch', batch.id)
    return this.summaryOf(batch)
  }

  async add(batchId: string, files: BatchFileRef[]): Promise<BatchAddResult> {
    const batch = this.store.batch(batchId)
    if (!batch) throw notFound(`Batch ${batchId}`)
    const result: BatchAddResult = { added: 0, refused: [] }
    for (const ref of files) {
      try {
        if ('path' in ref) {
          const expanded = await expandPath(ref.path, ref.rel_path)
          this.engine.db.transaction(() => {
            for (const file of expanded) {
              this.store.insertItem({ id: randomUUID(), batchId, relPath: file.relPath, sourcePath: file.path, jobId: null, status: 'waiting' })
            }
          })()
          result.added += expanded.length
        } else if ('bytes' in ref) {
          const relPath = this.relPathOf(ref.rel_path)
          const item = this.store.insertItem({ id: randomUUID(), batchId, relPath, sourcePath: null, jobId: null, status: 'waiting' })
          // No path to come back to: hand it to the engine now (the engine keeps the upload).
          await this.submit(item, { bytes: Buffer.from(ref.bytes), name: posix.basename(relPath) })
          result.added++
        } else {
          const relPath = this.relPathOf(ref.rel_path)
          const job = this.engine.jobs.get(ref.job_id)
          if (!job) throw new Error(`no job ${ref.job_id}`)
          if (this.store.itemByJob(job.id)) throw new Error(`job ${job.id} is already in a batch`)
          // An ended job enters as queued: syncWithJob then copies its results (or records its failure).
          const ended = job.status === 'done' || job.status === 'failed' || job.status === 'cancelled'
          const item = this.store.insertItem({ id: randomUUID(), batchId, relPath, sourcePath: null, jobId: job.id, status: ended ? 'queued' : job.status })
          this.syncWithJob(item)
          result.added++
        }
      } catch (err) {
        const relPath = 'path' in ref ? (ref.rel_path ?? ref.path) : ref.rel_path
        result.refused.push({ rel_path: relPath, error: err instanceof Error ? err.message : String(err) })
      }
    }
    this.emit('batch', batchId)
    this.pump()
    return result
  }

  /** Cancels the pending files of a batch, or one file. Files already done stay done. */
  cancel(target: BatchTarget): BatchSummary {
    for (const item of this.targetItems(target)) {
      if (isTerminal(item)) continue
      if (item.jobId === null || !this.engine.cancel(item.jobId)) {
        // Waiting (never handed over), or its job is gone or already ended: settle here.
        const job = item.jobId ? this.engine.jobs.get(item.jobId) : null
        if (job?.status === 'done') continue // results being copied: let it finish
        if (this.store.updateItem(item.id, { status: 'cancelled', finishedAt: Date.now() }, { status: item.status })) this.changed(item.id)
      }
    }
    this.pump()
    return this.summary(target.batch_id)
  }

  /** Runs failed and cancelled files again (of a batch, or one file). */
  async retry(target: BatchTarget): Promise<BatchSummary> {
    for (const item of this.targetItems(target)) {
      if (item.status !== 'failed' && item.status !== 'cancelled') continue
      const reset = { status: 'waiting' as const, progress: 0, error: null, warnings: [], outputs: [], startedAt: null, finishedAt: null }
      if (item.sourcePath) {
        if (this.store.updateItem(item.id, { ...reset, jobId: null }, { status: item.status })) this.changed(item.id)
        continue
      }
      // A browser upload: run it again from the engine's stored copy while it is kept.
      const inputPath = item.jobId ? this.engine.jobs.get(item.jobId)?.inputPath : null
      if (!inputPath || !existsSync(inputPath)) {
        this.store.updateItem(item.id, { error: 'The original file is no longer kept; add it to a batch again.' })
        this.changed(item.id)
        continue
      }
      const bytes = await readFile(inputPath)
      if (!this.store.updateItem(item.id, reset, { status: item.status })) continue
      await this.submit(this.store.item(item.id)!, { bytes, name: posix.basename(item.relPath) })
    }
    this.pump()
    return this.summary(target.batch_id)
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

  private relPathOf(rel: string): string {
    const clean = cleanRelPath(rel)
    if (!clean) throw new Error(`not a usable file name: "${rel}"`)
    return clean
  }

  private targetItems(target: BatchTarget): ItemRecord[] {
    if (!this.store.batch(target.batch_id)) throw notFound(`Batch ${target.batch_id}`)
    if (!target.item_id) return this.store.items(target.batch_id)
    const item = this.store.item(target.item_id)
    if (!item || item.batchId !== target.batch_id) throw notFound(`File ${target.item_id}`)
    return [item]
  }

  private summaryOf(batch: BatchRecord): BatchSummary {
    return batchSummary(batch, this.store.counts(batch.id))
  }

  private changed(itemId: string): void {
    const item = this.store.item(itemId)
    if (!item) return
    this.emit('item', item)
    this.emit('batch', item.batchId)
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.work.add(p)
    void p.finally(() => this.work.delete(p)).catch(() => undefined)
    return p
  }

  /** Hands waiting items to the engine, keeping at most `window` in flight. */
  private pump(): void {
    if (!this.started) return
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
              if (!this.started) return
              const free = this.window - this.store.inFlightCount()
              if (free <= 0) break
              const next = this.store.nextWaiting(free)
              if (next.length === 0) break
              for (const item of next) {
                const bytes = await readFile(item.sourcePath!).catch((err: Error) => err)
                if (bytes instanceof Error) {
                  this.fail(item, `The file cannot be read: ${bytes.message}`)
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

  /** Sends one waiting item to the engine and links it to the new job. */
  private async submit(item: ItemRecord, file: { bytes: Buffer; name: string }): Promise<void> {
    const batch = this.store.batch(item.batchId)
    if (!batch) return
    const { request } = batch
    const res = await this.engine.upload({
      fields: { mode: request.mode, output_format: request.output_format, ...(request.params !== null ? { params: request.params } : {}) },
      file: { bytes: file.bytes, mimeType: null, filename: file.name },
      keyId: null
    })
    if (res.status !== 202 || !('job_id' in res.body)) {
      const e = 'error' in res.body ? res.body.error : null
      const details = e?.details?.map((d) => `${d.field}: ${d.issue}`).join('; ')
      this.fail(item, `${e?.message ?? 'The engine refused the file.'}${details ? ` (${details})` : ''}`)
      return
    }
    const jobId = res.body.job_id
    if (!this.store.updateItem(item.id, { jobId, status: 'queued', progress: 0 }, { status: 'waiting' })) {
      this.engine.cancel(jobId) // the item was cancelled while its file was read
      return
    }
    this.changed(item.id)
    // The job may have moved between the upload and the link above.
    this.syncWithJob(this.store.item(item.id)!)
  }

  private fail(item: ItemRecord, error: string): void {
    if (this.store.updateItem(item.id, { status: 'failed', error, finishedAt: Date.now() }, { status: item.status })) this.changed(item.id)
  }

  private jobChanged(e: JobEvent): void {
    const item = this.store.itemByJob(e.job_id)
    if (item && !isTerminal(item)) this.syncWithJob(item)
  }

  /** Brings an item in line with its job: status and progress, end, or copying the results. */
  private syncWithJob(item: ItemRecord): void {
    if (!item.jobId || isTerminal(item)) return
    const job = this.engine.jobs.get(item.jobId)
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
      const { body } = this.engine.status(job.id, () => '')
      const message = job.status === 'cancelled' ? null : ((body as JobStatusBody).error?.message ?? 'The job failed.')
      if (this.store.updateItem(item.id, { status: job.status, error: message, finishedAt: job.finishedAt ?? Date.now() }, { jobId: job.id })) {
        this.changed(item.id)
      }
      this.pump()
      return
    }
    const startedAt = item.startedAt ?? (job.status === 'queued' ? null : Date.now())
    if (item.status === job.status && item.progress === job.progress && item.startedAt === startedAt) return
    if (this.store.updateItem(item.id, { status: job.status, progress: Math.max(item.progress, job.progress), startedAt }, { jobId: job.id })) {
      this.changed(item.id)
    }
  }

  /** Copies a done job's results into the destination (primary first), then marks the item done. */
  private async finish(itemId: string, jobId: string): Promise<void> {
    if (this.finishing.has(itemId)) return
    this.finishing.add(itemId)
    try {
      const item = this.store.item(itemId)
      const job = this.engine.jobs.get(jobId)
      const batch = item && this.store.batch(item.batchId)
      if (!item || !job || !batch || item.jobId !== jobId || isTerminal(item)) return
      let outputs: string[]
      try {
        outputs = await copyResults(this.engine, job, item, batch)
      } catch (err) {
        this.fail(item, `The result could not be written into the destination: ${(err as Error).message}`)
        return
      }
      const warnings = Object.entries(job.warnings).flatMap(([variation, list]) => (list ?? []).map((w) => `${variation}: ${w}`))
      const done = this.store.updateItem(
        item.id,
        { status: 'done', progress: 100, outputs, warnings, startedAt: item.startedAt ?? job.createdAt, finishedAt: Date.now() },
        { jobId }
      )
      if (done) this.changed(item.id)
    } finally {
      this.finishing.delete(itemId)
      this.pump()
    }
  }
}
