import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { JOB_ID_PATTERN, type JobStatusBody, type UploadAccepted, type Variation } from '../../shared/api'
import { EngineError, JobFailure } from './errors'
import { healthBody, type HealthBody } from './health'
import { EngineFacade } from './facade'
import type { EnginePort, EngineSeams } from './ports'
import { acceptUpload, admitKey, type UploadInput } from './intake/upload'
import { resolveOptions, type EngineOptions, type ResolvedEngineOptions } from './options'
import { isTempName, OLD_PARTIAL_SUFFIX } from './file-helpers'
import { DataPaths } from './paths'
import { ModelPool } from './segment/models/pool'
import { ModelRegistry } from './segment/models/registry'
import { ModelService } from './segment/models/service'
import type { Segmenter } from './segment/mask/mask'
import { prewarmRefineThread } from './pipeline/refine/refine-thread'
import { DecodeSandbox } from './sandbox/decoder'
import { Scheduler } from './queue/scheduler'
import type { Dispatcher } from './queue/dispatcher'
import { ACTIVE_STATUSES } from './job-transitions'
import { ResultSigner } from './results'
import type { RunContext } from './run/context'
import { dispatchAccess } from './run/dispatch-access'
import { runHere } from './run/local'
import { claimJob, endUnsuccessfully, giveUpIfExhausted } from './run/record'
import { statusBody, type ResultAddress } from './status-view'
import { openDatabase, type Db } from './store/db'
import { JobStore, type ResultRecord } from './store/jobs'
import { KeyStore } from './store/keys'
import { MaskCache } from './store/mask-cache'
import { JobParamsStore } from './store/job-params'
import { PresetStore } from './store/presets'
import { getOrCreateSecret } from './store/meta'
import { RunLock } from './store/run-lock'

/** After a failed model load, uploads are refused (`unavailable`) for this long, then a job tries again. */
const MODEL_RETRY_MS = 60_000
/** How often finished jobs past the retention time are swept. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000

export type { HealthBody, HealthSession } from './health'
export type { EngineEvents, JobEvent } from './events'
export type { EngineSeams } from './ports'

/**
 * The job engine: one durable queue, the pipeline and the stores, behind `upload()` and
 * `status()`. Plain Node; never imports electron. Transports (HTTP, IPC, CLI, watch) call it,
 * and reach its stores through the methods of `EngineFacade` (facade.ts), never directly.
 */
export class Engine extends EngineFacade implements EnginePort {
  readonly options: ResolvedEngineOptions
  /** The data folder's layout. */
  protected readonly paths: DataPaths
  /** The data folder's database. */
  protected readonly db: Db
  /** The durable queue and each job's results. */
  protected readonly jobs: JobStore
  /** API keys and their credits. */
  protected readonly keys: KeyStore
  /** Built-in and user presets (parameter sets by name). */
  protected readonly presets: PresetStore
  /** Each job's parameter set, resolved at upload. */
  protected readonly jobParams: JobParamsStore
  protected readonly signer: ResultSigner
  /** Model masks by input content + model (docs/pipeline.md), swept with the jobs. */
  protected readonly maskCache: MaskCache
  /** Decodes, probes and previews untrusted images in killable processes. */
  protected readonly sandbox: DecodeSandbox
  /** Built-in and added models, the default model and the device setting. */
  protected readonly models: ModelRegistry
  /** The resident model session (one at a time). */
  protected readonly modelPool: ModelPool
  /** List, add, remove, default, device, test run (CLI, IPC). */
  readonly modelService: ModelService
  private readonly scheduler: Dispatcher
  /** The last failure to load each model (by name), and when; its uploads are refused (`unavailable`) for a minute after it. */
  private readonly modelErrors = new Map<string, { error: Error; at: number }>()
  private sweepTimer: NodeJS.Timeout | null = null
  private started = false
  private runLock: RunLock | null = null
  private readonly timing = { segmentingMs: 3000 }

  constructor(opts: EngineOptions, seams: EngineSeams = {}) {
    super()
    this.options = resolveOptions(opts)
    this.paths = new DataPaths(this.options.dataDir)
    this.db = openDatabase(this.paths.db)
    this.jobs = new JobStore(this.db)
    this.keys = new KeyStore(this.db)
    this.presets = new PresetStore(this.db)
    // Said once, by the first engine that opens the folder after the store presets came in.
    for (const r of this.presets.takeRenames())
      (opts.log ?? ((m: string) => console.warn(`clipdesk: ${m}`)))(
        `your preset "${r.from}" is now "${r.to}": "${r.from}" is the built-in store preset (docs/store-ready.md)`
      )
    this.jobParams = new JobParamsStore(this.db)
    this.signer = new ResultSigner(getOrCreateSecret(this.db, 'result-signing-key'))
    this.maskCache = new MaskCache(this.db)
    this.models = new ModelRegistry(this.db, this.options.modelVariant)
    this.modelPool = new ModelPool(this.models, {
      threads: this.options.threads,
      idleCloseMs: this.options.modelIdleCloseMs,
      device: opts.device,
      log: opts.log ?? ((m) => console.warn(`clipdesk: ${m}`))
    })
    this.modelService = new ModelService(this.models, this.modelPool)
    this.sandbox = new DecodeSandbox({
      maxPixels: this.options.maxPixels,
      concurrency: this.options.concurrency,
      decodeTimeoutMs: this.options.decodeTimeoutMs,
      memoryBytes: this.options.decodeMemoryBytes,
      renderMemoryBytes: this.options.renderMemoryBytes,
      renderTimeoutMs: this.options.jobTimeoutMs
    })
    const ctx = this.runContext()
    this.scheduler = seams.dispatcher
      ? seams.dispatcher(this, dispatchAccess(ctx))
      : new Scheduler({
          jobs: this.jobs,
          concurrency: this.options.concurrency,
          claim: (job) => claimJob(ctx, job),
          run: (run, signal) => runHere(ctx, run, signal)
        })
  }

  /** Resumes interrupted jobs and starts taking work. */
  start(): void {
    if (this.started) return
    // Throws DataDirBusy when another live process runs an engine on this data folder.
    this.runLock = RunLock.acquire(this.options.dataDir, this.options.role)
    this.started = true
    this.recover()
    this.sweep()
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS)
    this.sweepTimer.unref()
    this.scheduler.start()
  }

  /**
   * Deletes jobs that ended more than the retention time ago, with their upload and results
   * (docs/api.md). Their status is then `job_not_found`.
   */
  sweep(now = Date.now()): number {
    const ids = this.jobs.finishedBefore(now - this.options.retentionMs)
    for (const id of ids) {
      rmSync(this.paths.resultDir(id), { recursive: true, force: true })
      rmSync(this.paths.upload(id), { force: true })
      rmSync(this.paths.hint(id), { force: true })
      rmSync(this.paths.regions(id), { force: true })
      this.jobs.deleteJob(id)
    }
    this.maskCache.sweep(now - this.options.retentionMs)
    return ids.length
  }

  /** Stops taking work; running jobs go back to the queue and resume at the next start. */
  async stop(): Promise<void> {
    this.started = false
    if (this.sweepTimer) clearInterval(this.sweepTimer)
    await this.scheduler.stop()
    await this.modelPool.close()
    await this.sandbox.close()
    this.db.close()
    this.runLock?.release()
    this.runLock = null
  }

  /** Throws `insufficient_credits`, `rate_limited` or `unavailable` when this key could not start a job now: checked before an upload's body is read. */
  admit(keyId: string | null): void {
    admitKey({ jobs: this.jobs, keys: this.keys, options: this.options }, keyId)
  }

  /** Takes an upload as a queued job; throws the `EngineError` it is refused with. */
  async upload(input: UploadInput): Promise<UploadAccepted> {
    const regions = input.fields.regions
    this.scheduler.assertRunnable?.({
      hint: input.hint !== undefined,
      regions: regions !== undefined && regions !== null && regions !== ''
    })
    const body = await acceptUpload(
      {
        ...this.stores(),
        assertKnownModel: (model) => this.assertKnownModel(model),
        assertAvailable: (model) => this.assertAvailable(model),
        probe: (bytes) => this.sandbox.probe(bytes)
      },
      input
    )
    this.changed(body.job_id)
    this.scheduler.wake()
    return body
  }

  /**
   * The status of a job (with `error` once it failed or was cancelled); throws `validation_failed`
   * for a job id missing or malformed and `job_not_found` for an unknown one. `address` turns
   * results into fetchable addresses for this transport.
   */
  status(jobId: unknown, address: ResultAddress): JobStatusBody {
    if (typeof jobId !== 'string' || jobId === '') {
      throw new EngineError('validation_failed', 'The query parameter job_id is required.', {
        details: [{ field: 'job_id', issue: 'missing' }]
      })
    }
    if (!JOB_ID_PATTERN.test(jobId)) {
      throw new EngineError('validation_failed', 'job_id is not a job id.', {
        details: [{ field: 'job_id', issue: 'expected a job id as returned by the upload (a UUID)' }]
      })
    }
    const job = this.jobs.get(jobId)
    if (!job) throw new EngineError('job_not_found', `No job with id ${jobId}.`)
    return statusBody(
      job,
      this.jobs.results(jobId),
      address,
      this.options.retentionMs,
      this.jobParams.get(jobId)?.primary,
      this.jobs.checks(jobId)
    )
  }

  /** A finished result's file, for serving it. */
  result(jobId: string, variation: Variation, ext: string): ResultRecord | null {
    const job = this.jobs.get(jobId)
    if (job?.status !== 'done') return null
    return this.jobs.results(jobId).find((r) => r.variation === variation && r.ext === ext) ?? null
  }

  /** Cancels a queued or running job. Returns false when it already ended. */
  cancel(jobId: string): boolean {
    if (this.scheduler.cancel(jobId)) return true
    const job = this.jobs.get(jobId)
    if (job?.status !== 'queued') return false
    return endUnsuccessfully(this.runContext(), job, 'queued', 'cancelled', {})
  }

  /**
   * Refuses a done job's result at no charge (remove.bg's `unknown_foreground` and
   * `invalid_bg_image`): the job becomes `failed` with `result_refused` and this message, its
   * results are deleted and its credit refunded (`endUnsuccessfully`, the one rule: charged
   * only while a result can be fetched). False when the job is not done.
   */
  refuseResult(jobId: string, message: string): boolean {
    const job = this.jobs.get(jobId)
    if (job?.status !== 'done') return false
    return endUnsuccessfully(this.runContext(), job, 'done', 'failed', { errorReason: 'result_refused', errorMessage: message })
  }

  /** `GET /api/v1/health`: up, the default model and the device that runs it (once loaded). */
  health(): HealthBody {
    return healthBody(this.models, this.modelPool, this.jobs.countByStatus('queued'), this.sandbox.startProblems())
  }

  /**
   * Loads the default model now rather than at the first job (fails fast in `serve`), and starts
   * the sandboxes' processes and the refine thread, so the first photo waits for none of them;
   * gives the device that runs the model and the fallback warning, if any.
   */
  async warmUp(): Promise<{ model: string; device: string; warning: string | null }> {
    this.sandbox.prewarm()
    prewarmRefineThread()
    const s = await this.segmenter(null)
    this.modelPool.release(s)
    return { model: this.models.defaultModel(), device: s.device, warning: s.deviceWarning }
  }

  /**
   * The session of `model` (null: the default). A failure to load a model also makes uploads
   * that would use it refused (`unavailable`) for a minute; the job itself fails `model_unavailable`.
   */
  private async segmenter(model: string | null | undefined): Promise<Segmenter> {
    const name = model || this.models.defaultModel()
    try {
      const s = await this.modelPool.acquire(model)
      this.modelErrors.delete(name)
      return s
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err))
      this.modelErrors.set(name, { error, at: Date.now() })
      if (err instanceof JobFailure) throw err
      throw new JobFailure('model_unavailable', `The segmentation model could not be loaded: ${error.message}`)
    }
  }

  /** An upload naming a model the registry does not have is refused, not failed later (docs/api.md §5.1). */
  private assertKnownModel(model: string | null): void {
    if (model !== null && !this.models.get(model)) throw this.models.unknown(model, 'params.model')
  }

  private assertAvailable(model: string | null): void {
    this.scheduler.assertAvailable?.()
    const name = model ?? this.models.defaultModel()
    const failed = this.modelErrors.get(name)
    if (failed && Date.now() - failed.at < MODEL_RETRY_MS) {
      throw new EngineError('unavailable', `The segmentation model ${name} could not be loaded: ${failed.error.message}`, {
        retryAfterSeconds: 60
      })
    }
  }

  /**
   * Jobs that were running when the process stopped go back to the queue; a job that has
   * already started `maxAttempts` runs is failed instead, so one input that crashes the
   * process every time cannot block the queue forever.
   */
  private recover(): void {
    const ctx = this.runContext()
    // With a shared queue, active jobs may still be running on other machines: leave them.
    const active = this.scheduler.requeuesOnStart === false ? [] : this.jobs.idsByStatus(ACTIVE_STATUSES)
    for (const id of active) {
      const job = this.jobs.get(id)!
      if (!giveUpIfExhausted(ctx, job)) this.jobs.move(id, job.status, 'queued')
      rmSync(this.paths.resultDir(id), { recursive: true, force: true })
    }
    this.removePartialFiles()
  }

  /** Temp files of writes that a crash interrupted; their final files were never renamed into place. */
  private removePartialFiles(): void {
    const dirs = [this.paths.uploads, ...readdirSync(this.paths.results).map((d) => join(this.paths.results, d))]
    for (const dir of dirs) {
      let names: string[]
      try {
        names = readdirSync(dir)
      } catch {
        continue
      }
      for (const name of names) if (isTempName(name) || name.endsWith(OLD_PARTIAL_SUFFIX)) rmSync(join(dir, name), { force: true })
    }
  }

  /** The stores and options that intake and runs share. */
  private stores(): Pick<RunContext, 'db' | 'jobs' | 'keys' | 'presets' | 'jobParams' | 'paths' | 'options'> {
    return {
      db: this.db,
      jobs: this.jobs,
      keys: this.keys,
      presets: this.presets,
      jobParams: this.jobParams,
      paths: this.paths,
      options: this.options
    }
  }

  private runContext(): RunContext {
    return {
      ...this.stores(),
      defaultModel: () => this.models.defaultModel(),
      segmenter: (model) => this.segmenter(model),
      releaseSegmenter: (s) => this.modelPool.release(s),
      decode: (bytes, signal) => this.sandbox.decode(bytes, signal),
      decodeHint: (request, signal) => this.sandbox.decodeHint(request, signal),
      toNative: (rgba, width, height, target, signal) => this.sandbox.toNative(rgba, width, height, target, signal),
      render: (input, dir, signal) => this.sandbox.render(input, dir, signal),
      maskCache: this.maskCache,
      changed: (id) => this.changed(id),
      timing: this.timing
    }
  }

  private changed(jobId: string): void {
    const job = this.jobs.get(jobId)
    if (job) this.emit('job', { job_id: job.id, status: job.status, progress: job.progress })
  }
}
