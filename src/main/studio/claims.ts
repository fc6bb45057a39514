/**
 * Who holds which job: the coordinator's leases and the claim tokens that prove them.
 *
 * A token is `<attempt>.<HMAC(secret, job id, attempt, worker key id)>`: it names one job, one
 * attempt and one worker key, and is checked without a table, so it survives a coordinator
 * restart. It ends with the job (the job is no longer active) and with the attempt (the job
 * was claimed again). A lease says how long the holder is taken to be alive: every call with
 * the token renews it, and a claim of a job whose lease is live is refused (409 `job_held`)
 * until it lapses. Leases are kept in memory: after a restart every active job counts as held
 * for one lease time from the start, and its holder's next call takes the lease up again.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { EngineError } from '../engine/errors'
import type { JobRecord } from '../engine/ports'
import { ACTIVE_STATUSES, type DispatchedRun, type RunPlan } from '../engine/public-run'
import type { WorkerIdentity } from './protocol'

/** A token as we issue it: the attempt, a dot, 43 base64url characters (SHA-256). */
const TOKEN_SHAPE = /^([1-9][0-9]{0,5})\.([A-Za-z0-9_-]{43})$/

export interface Lease {
  jobId: string
  attempt: number
  /** The run as the job's record sees it (stage moves, results, ending). */
  run: DispatchedRun
  /** What was claimed: the format, the variations and the model a result must match. */
  plan: RunPlan
  holder: WorkerIdentity
  /** Run by the coordinator's own worker: held for as long as it runs, never lapses. */
  local: boolean
  /** When the claim was made here (busy time is measured from it). */
  claimedAt: number
  /** The lease lapses at this time unless renewed. */
  until: number
}

export class ClaimTable {
  private readonly leases = new Map<string, Lease>()
  private readonly startedAt: number

  constructor(
    private readonly secret: Buffer,
    readonly leaseMs: number,
    private readonly now: () => number = Date.now
  ) {
    this.startedAt = now()
  }

  token(jobId: string, attempt: number, keyId: string): string {
    return `${attempt}.${this.mac(jobId, attempt, keyId)}`
  }

  /**
   * The attempt a token was issued for, to this key and this job; throws 403 `claim_invalid`
   * for a token that is missing, malformed, forged, or another key's or another job's.
   */
  attemptOf(jobId: string, token: string | undefined, keyId: string): number {
    const m = TOKEN_SHAPE.exec(token ?? '')
    const attempt = m ? Number(m[1]) : 0
    if (m) {
      const expected = Buffer.from(this.mac(jobId, attempt, keyId))
      const given = Buffer.from(m[2]!)
      if (expected.length === given.length && timingSafeEqual(expected, given)) return attempt
    }
    throw new EngineError(
      'claim_invalid',
      `This worker key holds no claim on job ${jobId}: claim it first (the call needs the claim's token).`
    )
  }

  /** Milliseconds until `job` may be claimed again: 0 when nobody holds it. */
  heldFor(job: JobRecord): number {
    if (!ACTIVE_STATUSES.includes(job.status)) return 0
    const lease = this.leases.get(job.id)
    const now = this.now()
    if (lease && lease.attempt === job.attempts) return lease.local ? Infinity : Math.max(0, lease.until - now)
    // Not claimed since this coordinator started: its holder may still be running it.
    return Math.max(0, this.startedAt + this.leaseMs - now)
  }

  /** Records a new claim (a new attempt replaces any older lease of the job). */
  take(run: DispatchedRun, plan: RunPlan, holder: WorkerIdentity, local: boolean): Lease {
    const now = this.now()
    this.leases.get(run.jobId)?.run.halt()
    const lease: Lease = { jobId: run.jobId, attempt: run.attempt, run, plan, holder, local, claimedAt: now, until: now + this.leaseMs }
    this.leases.set(run.jobId, lease)
    return lease
  }

  /** The lease of a claim whose token checked out, renewed; `adopt` makes it after a restart. */
  renew(jobId: string, attempt: number, adopt: () => Lease): Lease {
    let lease = this.leases.get(jobId)
    if (!lease || lease.attempt !== attempt) {
      lease = adopt()
      this.leases.set(jobId, lease)
    }
    lease.until = this.now() + this.leaseMs
    return lease
  }

  get(jobId: string): Lease | undefined {
    return this.leases.get(jobId)
  }

  /** Forgets a lease when its run is over (only that attempt's). */
  drop(jobId: string, attempt: number): void {
    const lease = this.leases.get(jobId)
    if (lease && lease.attempt === attempt) {
      lease.run.halt()
      this.leases.delete(jobId)
    }
  }

  all(): Lease[] {
    return [...this.leases.values()]
  }

  private mac(jobId: string, attempt: number, keyId: string): string {
    return createHmac('sha256', this.secret).update(`studio-claim\n${jobId}\n${attempt}\n${keyId}`).digest('base64url')
  }
}
