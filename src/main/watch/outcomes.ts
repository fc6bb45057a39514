/**
 * A submitted file's job outcome: failed → the file is listed failed; swept → it waits again;
 * done → its results are placed into the output folder (one file of a folder at a time, so
 * names are chosen in order), then its original is moved when asked.
 */
import { reviewLevel, reviewText } from '../../shared/review'
import type { ResultFile } from '../outputs/engine-jobs'
import { relativeName } from '../outputs/paths'
import type { WatchPlacement } from './placement'
import type { WatchOutcome, WatchProcessor } from './processor'
import { outputDirOf, type WatchFileRecord, type WatchStore } from './store'
import { errorText } from '../../shared/errors'

export interface OutcomeDeps {
  store: WatchStore
  processor: WatchProcessor
  placement: WatchPlacement
  /** Whether this process runs the folders now (started, not stopped). */
  active(): boolean
  changed(folderId: string): void
  poke(folderId: string, rel: string): void
}

export class JobOutcomes {
  private readonly finalizing = new Set<number>()
  private readonly chains = new Map<string, Promise<void>>()

  constructor(private readonly d: OutcomeDeps) {}

  async check(jobId: string): Promise<void> {
    if (!this.d.active()) return
    const row = this.d.store.fileByJob(jobId)
    if (!row || this.finalizing.has(row.id)) return
    const out: WatchOutcome = this.d.processor.outcome(jobId)
    if (out.state === 'pending') return
    if (out.state === 'failed') {
      if (
        this.d.store.patchFile(row.id, { state: 'processing', jobId }, { state: 'failed', errorCode: out.code, errorMessage: out.message })
      ) {
        this.d.store.activity.add(row.folderId, 'failed', row.relPath, out.message)
        this.d.changed(row.folderId)
      }
      return
    }
    if (out.state === 'missing') {
      // Swept by the engine before its results were copied (stopped past the retention time).
      if (this.d.store.patchFile(row.id, { state: 'processing', jobId }, { state: 'waiting', jobId: null }))
        this.d.poke(row.folderId, row.relPath)
      return
    }
    this.finalizing.add(row.id)
    try {
      await this.serial(row.folderId, () => this.finalize(row, out.results, out.warnings, out.uncertainty ?? null))
    } finally {
      this.finalizing.delete(row.id)
    }
  }

  /** Runs `fn` after the folder's earlier finalizations: names are chosen one file at a time. */
  private serial(folderId: string, fn: () => Promise<void>): Promise<void> {
    const prev = this.chains.get(folderId) ?? Promise.resolve()
    const next = prev.then(fn, fn)
    const settled = next.catch(() => undefined)
    this.chains.set(folderId, settled)
    void settled.then(() => {
      if (this.chains.get(folderId) === settled) this.chains.delete(folderId)
    })
    return next
  }

  private async finalize(row: WatchFileRecord, results: ResultFile[], warnings: string[], uncertainty: number | null): Promise<void> {
    const folder = this.d.store.folder(row.folderId)
    const fresh = this.d.store.file(row.id)
    if (!folder || !fresh || fresh.state !== 'processing' || fresh.jobId !== row.jobId) return
    const outDir = outputDirOf(folder)
    let written: string[]
    try {
      written = await this.d.placement.writeResults(folder, fresh, results)
    } catch (err) {
      this.d.store.outputs.dropUnwritten(fresh.id)
      const message = `The result could not be written to ${outDir}: ${errorText(err)}`
      if (
        this.d.store.patchFile(
          fresh.id,
          { state: 'processing', jobId: fresh.jobId },
          { state: 'failed', errorCode: 'output_failed', errorMessage: message }
        )
      ) {
        this.d.store.activity.add(folder.id, 'failed', fresh.relPath, message)
      }
      this.d.changed(folder.id)
      return
    }
    const done = this.d.store.tables.transaction(() => {
      if (
        !this.d.store.patchFile(
          fresh.id,
          { state: 'processing', jobId: fresh.jobId },
          { state: 'done', errorCode: null, errorMessage: null, uncertainty }
        )
      )
        return false
      this.d.store.markProcessed(folder.id, fresh.contentHash!, fresh.settingsHash!, fresh.relPath)
      const names = written.map((p) => relativeName(outDir, p)).join(', ')
      const level = reviewLevel(uncertainty)
      const check = level !== null ? ` · to check: ${reviewText(level, uncertainty!)}` : ''
      this.d.store.activity.add(folder.id, 'done', fresh.relPath, `→ ${names}${warnings.length ? ` (${warnings.join('; ')})` : ''}${check}`)
      return true
    })
    this.d.changed(folder.id)
    if (done && folder.originals === 'move') await this.d.placement.moveOriginal(folder, this.d.store.file(fresh.id)!)
  }
}
