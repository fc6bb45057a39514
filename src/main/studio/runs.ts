/**
 * What the coordinator does for a worker, its own or a remote one: claim a job (a lease and a
 * token), and, on a call that shows the token, move it, store its results or end it. Every
 * move goes through the job's run record (the engine's `DispatchAccess`,
 * `engine/run/dispatch-access.ts`), as a local run's does.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { FAILURE_REASONS, type FailureReason, errorText } from '../../shared/errors'
import { cleanText } from '../../shared/text'
import { EngineError, JobFailure } from '../engine/errors'
import { canvasBound, type PipelineStage, type DispatchAccess, type StoredOutcome, type RunPlan } from '../engine/public-run'
import { ClaimTable, type Lease } from './claims'
import type { FailureReport, WorkerIdentity } from './protocol'
import type { WorkerRegistry } from './registry'
import type { ResultExpectation } from './result-check'
import { isEnded } from '../../shared/api'

/** Results of one job refused this many times (by any of its workers): the job is given up. */
export const MAX_REFUSED_RESULTS = 5
/** A worker that lacks a job's model is told to offer the job again after this long. */
const MODEL_WAIT_MS = 10_000
const MESSAGE_CHARS = 500

export interface Claimed {
  lease: Lease
  plan: RunPlan
  /** Remote claims: the stored input's size and SHA-256 (the worker checks what it receives). */
  input?: { path: string; bytes: number; sha256: string }
}

export type ClaimAnswer = { claimed: Claimed } | { claimed: null; waitMs?: number }

async function digest(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of createReadStream(path)) {
    bytes += (chunk as Buffer).length
    hash.update(chunk as Buffer)
  }
  return { bytes, sha256: hash.digest('hex') }
}

function failureOf(err: unknown): { reason: FailureReason; message: string } {
  if (err instanceof JobFailure) return { reason: err.reason, message: err.message }
  return { reason: 'pipeline_error', message: `Processing failed: ${errorText(err)}` }
}

export class StudioRuns {
  readonly claims: ClaimTable
  /** Jobs whose result is being received or stored now: a second upload waits (503). */
  private readonly storing = new Set<string>()
  /** Results refused so far, by job (forgotten when the job's result is stored or it is given up). */
  private readonly refusals = new Map<string, number>()

  constructor(
    private readonly access: DispatchAccess,
    readonly workers: WorkerRegistry,
    secret: Buffer,
    leaseMs: number
  ) {
    this.claims = new ClaimTable(secret, leaseMs)
  }

  /**
   * Claims `jobId` for `holder`: null when it has ended (or was just given up after its
   * attempts), a wait when the worker lacks its model, 409 `job_held` while another claim's
   * lease is live. A remote claim's URL input is fetched here, under the coordinator's policy.
   */
  async claim(
    jobId: string,
    holder: WorkerIdentity,
    opts: { local: boolean; models?: readonly string[] | null; features?: readonly string[]; signal?: AbortSignal }
  ): Promise<ClaimAnswer> {
    this.workers.seen(holder)
    const job = this.access.job(jobId)
    if (!job || isEnded(job.status)) return { claimed: null }
    const held = this.claims.heldFor(job)
    if (held > 0) {
      const seconds = Math.max(1, Math.ceil(Math.min(held, this.claims.leaseMs) / 1000))
      throw new EngineError(
        'job_held',
        `Job ${jobId} is held by a worker whose lease is live; it may be claimed again once the lease lapses.`,
        {
          retryAfterSeconds: seconds
        }
      )
    }
    // A hint and look-again boxes are kept beside the coordinator's upload and not served to
    // workers elsewhere: their job waits for the coordinator's own worker (docs/studio.md).
    if (!opts.local && (this.access.hasHint(jobId) || this.access.hasRegions(jobId))) return { claimed: null, waitMs: MODEL_WAIT_MS }
    // A worker elsewhere that cannot give the second look the job asks for leaves it to one that can.
    if (!opts.local && !(opts.features ?? []).includes('second-look') && this.access.needsSecondLook(job))
      return { claimed: null, waitMs: MODEL_WAIT_MS }
    if (opts.models) {
      let model: string | null = null
      try {
        model = this.access.modelOf(job)
      } catch {
        // A parameter set that no longer resolves fails the job once claimed, below.
      }
      if (model !== null && !opts.models.includes(model)) return { claimed: null, waitMs: MODEL_WAIT_MS }
    }
    const run = this.access.claim(job)
    if (!run) return { claimed: null }
    try {
      const plan = this.access.plan(run.job)
      let input: Claimed['input']
      if (!opts.local) {
        const path = await run.inputFile(opts.signal ?? new AbortController().signal)
        input = { path, ...(await digest(path)) }
      }
      const lease = this.claims.take(run, plan, holder, opts.local)
      return { claimed: { lease, plan, input } }
    } catch (err) {
      const failure = failureOf(err)
      await run.end({ kind: 'failed', reason: failure.reason, message: failure.message })
      return { claimed: null }
    }
  }

  /**
   * The lease a call with a claim token stands for, renewed: 403 `claim_invalid` for a token
   * this key was never given for this job, 409 `claim_ended` once the job ended or was claimed
   * again after the lease lapsed.
   */
  verify(jobId: string, token: string | undefined, caller: WorkerIdentity): Lease {
    const attempt = this.claims.attemptOf(jobId, token, caller.keyId)
    const job = this.access.job(jobId)
    if (!job || isEnded(job.status) || job.status === 'queued' || job.attempts !== attempt) {
      throw new EngineError(
        'claim_ended',
        `The claim on job ${jobId} has ended: the job ended, or it was claimed again after this claim's lease lapsed.`
      )
    }
    return this.claims.renew(jobId, attempt, () => {
      // Claimed before this coordinator started: taken up again from the record.
      const now = Date.now()
      return {
        jobId,
        attempt,
        run: this.access.record(job),
        plan: this.access.plan(job),
        holder: caller,
        local: false,
        claimedAt: now,
        until: now
      }
    })
  }

  /**
   * What a result of this claim must be: the job's format, its variations, the model claimed,
   * and the canvas its parameters give for its stored input (`probe` reads the input's size in
   * the decode sandbox, as at upload).
   */
  async expectation(lease: Lease, probe: (bytes: Buffer) => Promise<{ width: number; height: number }>): Promise<ResultExpectation> {
    const base = { format: lease.plan.format, variations: lease.plan.params.variations, model: lease.plan.model }
    const inputPath = lease.run.current()?.inputPath
    const input = inputPath ? await probe(await readFile(inputPath)).catch(() => null) : null
    const canvas = canvasBound(lease.plan.params, input)
    return { ...base, canvas: canvas && { ...canvas, exact: lease.plan.params.crop !== 'subject' } }
  }

  progress(lease: Lease, stage: PipelineStage): void {
    lease.run.stage(stage)
  }

  /** Marks the job's result as being received (503 while another upload of it is). Call the returned function when done. */
  beginStore(jobId: string): () => void {
    if (this.storing.has(jobId)) {
      throw new EngineError('unavailable', "This job's results are being stored now; try again shortly.", { retryAfterSeconds: 1 })
    }
    this.storing.add(jobId)
    return () => this.storing.delete(jobId)
  }

  /**
   * Counts a refused result of this claim's job. The job stays claimable (the same worker may
   * send a right result, or another worker take the job once the lease lapses) until its results
   * have been refused `MAX_REFUSED_RESULTS` times: then it is failed with the last refusal as its
   * reason, and refunded, rather than taken again for ever. True when it was given up.
   */
  async refused(lease: Lease, err: EngineError): Promise<boolean> {
    const n = (this.refusals.get(lease.jobId) ?? 0) + 1
    if (n < MAX_REFUSED_RESULTS) {
      this.refusals.set(lease.jobId, n)
      return false
    }
    this.refusals.delete(lease.jobId)
    const last = cleanText(err.message, MESSAGE_CHARS)
    await lease.run.end({
      kind: 'failed',
      reason: 'pipeline_error',
      message: `The job was given up: its workers' results were refused ${n} times (the last: ${last}).`
    })
    this.claims.drop(lease.jobId, lease.attempt)
    return true
  }

  /** Stores a run's results and ends the claim; false when the job had left the run. */
  async complete(lease: Lease, outcome: StoredOutcome): Promise<boolean> {
    this.refusals.delete(lease.jobId)
    const stored = await lease.run.store(outcome)
    // Busy time as the coordinator saw it: from its claim to its stored result.
    if (stored) this.workers.finished(lease.holder, Date.now() - lease.claimedAt)
    this.claims.drop(lease.jobId, lease.attempt)
    return stored
  }

  /** Ends a run as failed on its worker's report (refunded); the reason and message are cleaned. */
  async fail(lease: Lease, report: FailureReport): Promise<void> {
    const reason: FailureReason = (FAILURE_REASONS as readonly string[]).includes(report.reason) ? report.reason : 'pipeline_error'
    const message = cleanText(String(report.message ?? ''), MESSAGE_CHARS) || 'The worker reported a failure without a message.'
    await lease.run.end({ kind: 'failed', reason, message })
    this.claims.drop(lease.jobId, lease.attempt)
  }

  /** Forgets a claim (its run is over on the worker, whatever the outcome). */
  release(lease: Lease): void {
    this.claims.drop(lease.jobId, lease.attempt)
  }

  /**
   * Once a second: forgets claims whose job left them (ended, cancelled), stops the progress
   * of those nobody renews, and fails a remote run past the job timeout (its worker should
   * have stopped it: one that keeps renewing cannot hold a job forever).
   */
  async sweep(now = Date.now()): Promise<void> {
    for (const lease of this.claims.all()) {
      if (lease.local) continue
      if (!lease.run.current()) {
        this.claims.drop(lease.jobId, lease.attempt)
      } else if (now > lease.claimedAt + this.access.jobTimeoutMs + this.claims.leaseMs) {
        const seconds = Math.round(this.access.jobTimeoutMs / 1000)
        await lease.run.end({
          kind: 'failed',
          reason: 'pipeline_timeout',
          message: `The job ran longer than ${seconds} s on its worker and was stopped.`
        })
        this.claims.drop(lease.jobId, lease.attempt)
      } else if (now > lease.until) {
        lease.run.halt()
      }
    }
  }
}
