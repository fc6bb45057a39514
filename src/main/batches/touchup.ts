/**
 * Touch-up of a done batch file (docs/review.md "Touch-up"): the editor's preview, and Save,
 * which runs the file's stored input again through the engine with the batch's own parameter
 * set and format and the strokes as a hint (the model's mask comes from the mask cache), then
 * replaces every output of the file in the destination with the new version, keeping the
 * previous one beside it (`outputs/previous.ts`), and records it on the item.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { posix } from 'node:path'
import type { ErrorCode } from '../../shared/errors'
import { writesAllVariations } from '../../shared/outputs'
import type { RegionBox } from '../../shared/regions'
import type { TouchUpPreview, TouchUpResult } from '../../shared/touchup'
import type { Engine } from '../engine/engine'
import { ApiError } from '../engine/errors'
import { HintPreviews, type PreviewSource } from '../engine/run/hint-preview'
import { JobEnds, jobOutcome, submitFile } from '../outputs/engine-jobs'
import { replaceKeepingPrevious } from '../outputs/previous'
import type { BatchRecord, BatchStore, ItemRecord } from './store'

export interface TouchUpDeps {
  engine: Engine
  store: BatchStore
  /** An item changed: tell the screens, write the batch's report again. */
  changed(itemId: string): void
}

export class TouchUps {
  private readonly previews: HintPreviews
  /** Items whose Save is under way: one at a time per file. */
  private readonly saving = new Set<string>()

  constructor(private readonly d: TouchUpDeps) {
    const { engine } = d
    this.previews = new HintPreviews({
      decode: (bytes) => engine.sandbox.decode(bytes),
      decodeHint: (request) => engine.sandbox.decodeHint(request),
      maskCache: engine.maskCache,
      models: engine.models,
      modelPool: engine.modelPool
    })
  }

  /** The cutout of a done file with `hint` (at the preview's size), or without strokes. */
  async preview(batchId: string, itemId: string, hint: Buffer | null, regions: readonly RegionBox[] = []): Promise<TouchUpPreview> {
    const { item } = this.doneItem(batchId, itemId)
    const job = this.d.engine.jobs.get(item.jobId!)
    const params = this.d.engine.jobParams.get(item.jobId!)
    const inputPath = this.inputPath(item)
    if (!job || !params || !inputPath) throw gone()
    const source: PreviewSource = { key: job.id, inputPath, model: job.model ?? this.d.engine.models.defaultModel(), params }
    return this.refusingHint(() => this.previews.preview(source, hint, regions))
  }

  /** Save: the strokes (at the input's upright size) applied by a new job, its results in place of the file's outputs. */
  async save(batchId: string, itemId: string, hint: Buffer, regions: readonly RegionBox[] = []): Promise<TouchUpResult> {
    const { item, batch } = this.doneItem(batchId, itemId)
    if (this.saving.has(item.id)) throw new ApiError('conflict', 'This file is being touched up already; wait for it to finish.')
    this.saving.add(item.id)
    try {
      return await this.run(item, batch, hint, regions)
    } finally {
      this.saving.delete(item.id)
    }
  }

  private async run(item: ItemRecord, batch: BatchRecord, hint: Buffer, regions: readonly RegionBox[]): Promise<TouchUpResult> {
    const { engine, store } = this.d
    const inputPath = this.inputPath(item)
    const bytes = inputPath ? await readFile(inputPath).catch(() => null) : null
    if (!bytes) throw gone()
    const submitted = await submitFile(engine, batch.request, { bytes, filename: posix.basename(item.relPath), hint, regions })
    if (!submitted.ok) throw new ApiError(submitted.code as ErrorCode, submitted.message, { details: submitted.details })
    const ends = new JobEnds(engine)
    try {
      await ends.wait(submitted.jobId)
    } finally {
      ends.close()
    }
    const outcome = jobOutcome(engine, submitted.jobId, writesAllVariations(batch.request.params, batch.request.all_variations))
    if (outcome.state !== 'done') {
      const why = outcome.state === 'failed' ? outcome.message : 'the job is gone'
      throw new ApiError('job_failed', `The touch-up could not be made: ${why}`)
    }
    // Another Save, a retry or a delete may have changed the item while the job ran.
    const now = store.item(item.id)
    if (!now || now.status !== 'done' || now.jobId !== item.jobId) throw new ApiError('conflict', 'The file changed while it was touched up; open it again.')
    let previous: string[]
    try {
      previous = await replaceKeepingPrevious(outcome.results.map((r) => r.path), item.outputs, batch.destination)
    } catch (err) {
      throw new ApiError('internal_error', `The touched-up file could not be written into the destination: ${(err as Error).message}`)
    }
    const touchUps = item.touchUps + 1
    store.updateItem(item.id, { jobId: submitted.jobId, warnings: outcome.warnings, touchUps, touchedUpAt: Date.now() }, { jobId: item.jobId! })
    this.d.changed(item.id)
    return { outputs: item.outputs, previous, touch_ups: touchUps }
  }

  /** A done item of the batch with outputs to replace; 404 or 409 otherwise. */
  private doneItem(batchId: string, itemId: string): { item: ItemRecord; batch: BatchRecord } {
    const batch = this.d.store.batch(batchId)
    if (!batch) throw new ApiError('not_found', `Batch ${batchId} does not exist.`)
    const item = this.d.store.item(itemId)
    if (!item || item.batchId !== batchId) throw new ApiError('not_found', `File ${itemId} does not exist.`)
    if (item.status !== 'done' || !item.jobId || item.outputs.length === 0) {
      throw new ApiError('conflict', 'Only a done file can be touched up.')
    }
    return { item, batch }
  }

  /** The stored input of the item's job, else the file it was added from; null when neither is there. */
  private inputPath(item: ItemRecord): string | null {
    const stored = item.jobId ? this.d.engine.jobs.get(item.jobId)?.inputPath : null
    if (stored && existsSync(stored)) return stored
    return item.sourcePath && existsSync(item.sourcePath) ? item.sourcePath : null
  }

  /** A hint the sandbox refuses (not an image, the wrong size) is the caller's: 422 naming `hint`. */
  private async refusingHint<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (err) {
      if (err instanceof ApiError) throw err
      const reason = (err as { reason?: string }).reason
      if (reason === 'unsupported_image') throw new ApiError('validation_failed', 'The hint cannot be used.', { details: [{ field: 'hint', issue: (err as Error).message }] })
      throw err
    }
  }
}

function gone(): ApiError {
  return new ApiError('not_found', 'The original of this file is no longer kept; add it to a batch again to touch it up.')
}
