/**
 * The coordinator's side of the shared queue: it offers job ids to BullMQ (the job id is the
 * BullMQ id, so offering a job already there changes nothing) and watches that Redis answers.
 *
 * Offering costs nothing while nothing changes: a new upload is offered when it is accepted
 * (`offerNew`, which reads only the jobs queued since the last offer); every job not yet ended
 * is offered again, a page at a time, only when the queue may have lost it — at start, when
 * Redis comes back or restarted empty (an epoch marker it keeps is gone), and in a rare
 * consistency check (`CHECK_MS`) for what nothing else sees (a worker that failed a BullMQ job
 * without running it). Between these, each tick is one Redis call.
 */
import { Queue } from 'bullmq'
import type { JobStatus } from '../../shared/api'
import { ACTIVE_STATUSES, type DispatchAccess } from '../engine/public-run'
import { STUDIO_QUEUE, redisConnection, type QueuedJob } from './protocol'

/** Jobs offered per Redis call. */
const PAGE = 500
/** How often every job not yet ended is offered again, whatever happened. */
export const CHECK_MS = 5 * 60_000
/** Kept in Redis by the coordinator: when it is missing, Redis lost its data. */
const EPOCH_KEY = 'clipdesk:studio-epoch'

interface RedisClient {
  exists(key: string): Promise<number>
  set(key: string, value: string): Promise<unknown>
}

export class JobOffers {
  private readonly queue: Queue<QueuedJob>
  /** The queue order (`seq`) of the newest job offered by `offerNew`. */
  private offeredUpTo = 0
  private lastFullOffer = 0
  private healthy = false
  /** One Redis operation at a time, in order; `newPending` coalesces upload events. */
  private chain: Promise<void> = Promise.resolve()
  private newPending = false

  constructor(
    queueUrl: string,
    private readonly jobs: Pick<DispatchAccess, 'jobsPage'>,
    private readonly onHealth: (healthy: boolean) => void
  ) {
    // No offline queue: with Redis down a call fails at once (and uploads answer 503) rather
    // than piling up in memory.
    this.queue = new Queue<QueuedJob>(STUDIO_QUEUE, {
      connection: { ...redisConnection(queueUrl), enableOfflineQueue: false, maxRetriesPerRequest: 1 },
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true }
    })
    this.queue.on('error', () => this.setHealthy(false)) // seen by the next check; no crash, no log flood
  }

  get available(): boolean {
    return this.healthy
  }

  /** Offers the jobs queued since the last offer (after an upload). */
  offerNew(): void {
    if (this.newPending) return
    this.newPending = true
    this.enqueue(async () => {
      this.newPending = false
      if (!this.healthy) return // offered in full when Redis answers again
      for (;;) {
        const page = this.jobs.jobsPage(['queued'], this.offeredUpTo, PAGE)
        if (page.length === 0) return
        await this.add(page.map((p) => p.id))
        this.offeredUpTo = page.at(-1)!.seq
        if (page.length < PAGE) return
      }
    })
  }

  /**
   * The per-tick check: one Redis call while all is well. Offers everything when Redis answers
   * again, restarted empty, or the consistency check is due.
   */
  check(): Promise<void> {
    return this.enqueue(async () => {
      try {
        const client = (await this.queue.getBackend().client) as unknown as RedisClient
        const known = (await client.exists(EPOCH_KEY)) === 1
        const due = Date.now() - this.lastFullOffer >= CHECK_MS
        if (!this.healthy || !known || due) {
          if (!known) await client.set(EPOCH_KEY, String(Date.now()))
          await this.offerAll()
        }
        this.setHealthy(true)
      } catch {
        this.setHealthy(false)
      }
    })
  }

  async close(): Promise<void> {
    await this.chain
    await this.queue.close()
  }

  /** Every job not yet ended, a page at a time, in queue order. */
  private async offerAll(): Promise<void> {
    const statuses: JobStatus[] = ['queued', ...ACTIVE_STATUSES]
    let newest = this.offeredUpTo
    for (const status of statuses) {
      let after = 0
      for (;;) {
        const page = this.jobs.jobsPage([status], after, PAGE)
        if (page.length === 0) break
        await this.add(page.map((p) => p.id))
        after = page.at(-1)!.seq
        if (status === 'queued') newest = Math.max(newest, after)
        if (page.length < PAGE) break
      }
    }
    this.offeredUpTo = newest
    this.lastFullOffer = Date.now()
  }

  private add(ids: string[]): Promise<unknown> {
    return this.queue.addBulk(ids.map((id) => ({ name: 'job', data: { jobId: id }, opts: { jobId: id } })))
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.chain.then(step).catch(() => this.setHealthy(false))
    this.chain = next
    return next
  }

  private setHealthy(value: boolean): void {
    if (this.healthy === value) return
    this.healthy = value
    this.onHealth(value)
  }
}
