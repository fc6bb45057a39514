/**
 * One run of a job as the engine's store sees it: the claim that starts it, the stage moves,
 * the stored results and the ending. The local scheduler, the coordinator's own studio worker
 * and the coordinator's answers to remote workers all go through here, so a job is claimed,
 * counted, stored and ended the same way whoever runs it. Every move is guarded by the run's
 * attempt: once a job has been claimed again, an older run can no longer move it.
 */
import { rmSync } from 'node:fs'
import { mkdir, readFile, rename, rm } from 'node:fs/promises'
import { type JobStatus, isEnded } from '../../../shared/api'
import { JobFailure } from '../errors'
import { fetchToFile } from '../fetch/fetch-url'
import { writeFileAtomic } from '../file-helpers'
import type { PipelineStage } from '../pipeline'
import type { JobFraming, JobRecord, MovePatch } from '../store/jobs'
import { canTransition } from '../job-transitions'
import type { RunContext } from './context'
import type { RunEnding, RunHost, RunOutput, RunResult } from './execute'
import type { JobParams } from '../../../shared/params-types'
import type { StoreCheck } from '../../../shared/store-rules'
import { checkResultFile, storeRulesOf } from '../checks/job-check'
import { settleOutputCost } from '../intake/output-cost'
import { parseRegions } from '../../../shared/regions'
import type { LookBox } from '../pipeline/guide/look-again'

/** Forward path of a running job to `done`, one guarded move at a time. */
const FORWARD: JobStatus[] = ['segmenting', 'pending_compose', 'encoding', 'done']
const PROGRESS_TICK_MS = 250

/**
 * The one rule of money, for every way in (`/api/v1`, remove.bg's API, the app, studio workers):
 * a job is charged if and only if a result can be fetched. Every refund is made here, and takes
 * the job's results with it: in one transaction the job ends `failed` or `cancelled` (from a
 * queued or running status; or from `done`, when the caller refuses the finished result at no
 * charge, `Engine.refuseResult`), its stored results are forgotten and its credit given back;
 * then its result files are removed. False (nothing changed) when the job was no longer `from`.
 */
export function endUnsuccessfully(ctx: RunContext, job: JobRecord, from: JobStatus, to: 'failed' | 'cancelled', patch: MovePatch): boolean {
  const moved = ctx.db.transaction(() => {
    const ended =
      from === 'done'
        ? to === 'failed' &&
          ctx.jobs.withdraw(job.id, patch.errorReason ?? 'result_refused', patch.errorMessage ?? 'The result was refused at no charge.')
        : ctx.jobs.move(job.id, from, to, patch)
    if (!ended) return false
    ctx.jobs.deleteResults(job.id)
    if (job.keyId !== null) ctx.keys.refund(job.keyId, job.id)
    return true
  })()
  if (!moved) return false
  // No route serves a job's files unless it is done (`Engine.result`): gone from every view
  // already; the files go now too.
  rmSync(ctx.paths.resultDir(job.id), { recursive: true, force: true })
  ctx.changed(job.id)
  return true
}

/**
 * The one give-up rule: a job that has already started `maxAttempts` runs is failed (and
 * refunded) instead of run again, so that an input that kills whatever runs it cannot come back
 * forever, at a claim or at a restart alike. True when it was given up.
 */
export function giveUpIfExhausted(ctx: RunContext, job: JobRecord): boolean {
  if (job.attempts < ctx.options.maxAttempts) return false
  endUnsuccessfully(ctx, job, job.status, 'failed', {
    attempt: job.attempts,
    errorReason: 'pipeline_crashed',
    errorMessage: `The job stopped whatever ran it ${job.attempts} times and was given up.`
  })
  return true
}

/**
 * Starts a run of `job` (queued, or active in a run that was given up): one more attempt, in
 * one guarded move. After `maxAttempts` starts the job is failed instead (refunded), so an
 * input that kills whatever runs it cannot come back forever. Null when it was not claimed.
 */
export function claimJob(ctx: RunContext, job: JobRecord): RunRecord | null {
  if (isEnded(job.status)) return null
  if (giveUpIfExhausted(ctx, job)) return null
  const first: JobStatus = job.sourceKind === 'url' && !job.inputPath ? 'fetching' : 'segmenting'
  const claimed = ctx.db.transaction(() => {
    if (job.status !== 'queued' && !ctx.jobs.move(job.id, job.status, 'queued', { attempt: job.attempts })) return false
    return ctx.jobs.move(job.id, 'queued', first, { attemptsDelta: 1, attempt: job.attempts })
  })()
  if (!claimed) return null
  ctx.changed(job.id)
  return new RunRecord(ctx, ctx.jobs.get(job.id)!)
}

/** What a run stores: outputs as bytes made in this process, or files already written (staged). */
export type StoredOutcome = RunResult

/**
 * A claimed run of a job in the engine's store. It is also the run's host when the job runs in
 * this process (the scheduler, the coordinator's own worker): no bytes are copied between them.
 */
export class RunRecord implements RunHost {
  readonly jobId: string
  readonly attempt: number
  private stopTicker: (() => void) | null = null

  constructor(
    private readonly ctx: RunContext,
    readonly job: JobRecord
  ) {
    this.jobId = job.id
    this.attempt = job.attempts
  }

  /** The job as stored now, while it is still this run's (not ended, not claimed again). */
  current(): JobRecord | null {
    const job = this.ctx.jobs.get(this.jobId)
    return job && !isEnded(job.status) && job.status !== 'queued' && job.attempts === this.attempt ? job : null
  }

  /** The stored input's path; a URL job's source is fetched first (under the engine's address policy). */
  async inputFile(signal: AbortSignal): Promise<string> {
    const job = this.current()
    if (!job) throw new JobFailure('storage_error', "The job is no longer this run's.")
    if (job.inputPath) return job.inputPath
    if (job.sourceKind !== 'url') throw new JobFailure('storage_error', 'The job has no stored input.')
    const inputPath = this.ctx.paths.upload(this.jobId)
    await fetchToFile(job.source, inputPath, {
      allowPrivateNetworkUrls: this.ctx.options.allowPrivateNetworkUrls,
      maxBytes: this.ctx.options.maxUploadBytes,
      signal
    })
    if (!this.move('fetching', 'segmenting', { inputPath })) throw new JobFailure('storage_error', "The job is no longer this run's.")
    return inputPath
  }

  async input(signal: AbortSignal): Promise<Buffer> {
    const path = await this.inputFile(signal)
    return readFile(path).catch((err: Error) => {
      throw new JobFailure('storage_error', `The stored input could not be read: ${err.message}`)
    })
  }

  /** The hint stored beside the job's upload, if it came with one. */
  async hint(): Promise<Buffer | null> {
    return readFile(this.ctx.paths.hint(this.jobId)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null
      throw new JobFailure('storage_error', `The stored hint could not be read: ${err.message}`)
    })
  }

  /** The look-again boxes stored beside the job's upload (written at intake, fitted to the image), or null. */
  async regions(): Promise<LookBox[] | null> {
    const text = await readFile(this.ctx.paths.regions(this.jobId), 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null
      throw new JobFailure('storage_error', `The stored look-again boxes could not be read: ${err.message}`)
    })
    if (text === null) return null
    const parsed = parseRegions(text)
    if (!parsed.ok) throw new JobFailure('storage_error', `The stored look-again boxes are not valid: ${parsed.issue}`)
    return parsed.boxes
  }

  /** Moves the job forward to `stage` (a stale or backward report changes nothing). */
  stage(stage: PipelineStage): void {
    const job = this.current()
    if (!job) return
    if (job.status === stage) {
      if (stage === 'segmenting' && !this.stopTicker) this.startTicker()
      return
    }
    if (canTransition(job.status, stage)) this.move(job.status, stage)
  }

  admit(params: JobParams, size: { width: number; height: number }): void {
    settleOutputCost(this.ctx, this.job, params, size)
  }

  async complete(result: RunResult): Promise<boolean> {
    return this.store(result)
  }

  /**
   * Puts the outputs in the job's result folder, records them with the model and device and
   * moves the job to `done`, in one transaction. False (and the folder removed) when the job
   * left this run meanwhile: cancelled, or claimed again.
   */
  async store(outcome: StoredOutcome): Promise<boolean> {
    const dir = this.ctx.paths.resultDir(this.jobId)
    const files: { variation: RunOutput['variation']; ext: string; path: string; bytes: number }[] = []
    if (this.current()) {
      await mkdir(dir, { recursive: true })
      for (const out of outcome.outputs) {
        const path = this.ctx.paths.result(this.jobId, out.variation, out.ext)
        if ('bytes' in out) await writeFileAtomic(path, out.bytes)
        else if (out.staged !== path) await rename(out.staged, path)
        files.push({ variation: out.variation, ext: out.ext, path, bytes: 'bytes' in out ? out.bytes.length : out.size })
      }
    }
    // A job made with a store preset is held against that store's rules before it is done, so its status says so.
    const checks = files.length > 0 ? await this.storeChecks(files, outcome.placement ?? null) : null
    this.halt()
    const stored = this.ctx.db.transaction(() => {
      const job = this.current()
      if (!job) return false
      for (const f of files) this.ctx.jobs.addResult(this.jobId, f)
      if (checks) this.ctx.jobs.setChecks(this.jobId, checks)
      this.ctx.jobs.setModelRun(this.jobId, outcome.model, outcome.device)
      this.ctx.jobs.setUncertainty(this.jobId, outcome.uncertainty)
      if (outcome.secondLook) this.ctx.jobs.setSecondLook(this.jobId, outcome.secondLook)
      if (outcome.placement) this.ctx.jobs.setFraming(this.jobId, outcome.placement) // for before/after views
      let at = job.status
      for (let i = FORWARD.indexOf(at) + 1; i < FORWARD.length; i++) {
        const to = FORWARD[i]!
        const patch: MovePatch =
          to === 'done' ? { warnings: outcome.warnings, ignored: outcome.ignored, attempt: this.attempt } : { attempt: this.attempt }
        if (!this.ctx.jobs.move(this.jobId, at, to, patch)) return false
        at = to
      }
      return true
    })()
    if (!stored && this.ctx.jobs.get(this.jobId)?.status !== 'done') await rm(dir, { recursive: true, force: true })
    this.ctx.changed(this.jobId)
    return stored
  }

  /** The primary file against the rules of the store the job's preset is named for; null: no store. */
  private async storeChecks(files: { variation: string; path: string }[], framing: JobFraming | null): Promise<StoreCheck[] | null> {
    const params = this.ctx.jobParams.get(this.jobId)
    const sets = storeRulesOf(params)
    if (sets.length === 0) return null
    const primary = files.find((f) => f.variation === params?.primary) ?? files[0]!
    return checkResultFile(primary.path, framing, sets, { decode: (bytes) => this.ctx.decode(bytes, new AbortController().signal) })
  }

  /** Ends the run: failed or cancelled (refunded), or back to the queue with its attempt given back. */
  async end(ending: RunEnding): Promise<void> {
    this.halt()
    const job = this.current()
    if (!job) return
    if (ending.kind === 'requeued') {
      // Interrupted by a clean stop: not the job's fault, so the attempt is given back.
      if (this.ctx.jobs.move(this.jobId, job.status, 'queued', { attemptsDelta: -1, attempt: this.attempt })) this.ctx.changed(this.jobId)
      return
    }
    await rm(this.ctx.paths.resultDir(this.jobId), { recursive: true, force: true })
    const patch: MovePatch =
      ending.kind === 'failed'
        ? { errorReason: ending.reason, errorMessage: ending.message, attempt: this.attempt }
        : { attempt: this.attempt }
    endUnsuccessfully(this.ctx, job, job.status, ending.kind, patch)
  }

  /** Stops the progress ticker (the run is over here, or the job left it). */
  halt(): void {
    this.stopTicker?.()
    this.stopTicker = null
  }

  private move(from: JobStatus, to: JobStatus, patch: MovePatch = {}): boolean {
    this.halt()
    if (!this.ctx.jobs.move(this.jobId, from, to, { ...patch, attempt: this.attempt })) return false
    this.ctx.changed(this.jobId)
    if (to === 'segmenting') this.startTicker()
    return true
  }

  /**
   * Raises progress from 10 towards 60 while the model runs (one opaque call of a few
   * seconds), from the measured duration of earlier runs, so a client sees it move.
   * Stops short of 60: the move to `pending_compose` sets that.
   */
  private startTicker(): void {
    const { ctx, jobId } = this
    const started = Date.now()
    const timer = setInterval(() => {
      const share = Math.min(0.95, (Date.now() - started) / ctx.timing.segmentingMs)
      ctx.jobs.setProgress(jobId, 'segmenting', 10 + 50 * share)
      ctx.changed(jobId)
    }, PROGRESS_TICK_MS)
    timer.unref()
    this.stopTicker = () => {
      clearInterval(timer)
      ctx.timing.segmentingMs = 0.7 * ctx.timing.segmentingMs + 0.3 * (Date.now() - started)
    }
  }
}
