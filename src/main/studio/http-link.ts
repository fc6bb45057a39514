/**
 * A remote worker's link to its coordinator: calls under `/api/v1/studio/*` with a worker
 * key and the protocol version. Network failures and 503/429 answers become
 * `HostUnavailable` (the job waits in the queue and is tried again); a claim comes back as a
 * `RemoteHost` holding the claim's token.
 */
import { HostUnavailable } from '../engine/public-run'
import { CLAIM_HEADER, PROTOCOL_HEADER, STUDIO_PROTOCOL, WORKER_FEATURES, type Claim } from './protocol'
import { errorOf } from './error-of'
import { RemoteHost, type CallOptions, type CoordinatorCalls } from './remote-host'
import type { ClaimedJob, CoordinatorLink } from './worker'
import { errorText } from '../../shared/errors'

export interface HttpLinkOptions {
  /** The models this worker can run (a claim for another is left to other workers). */
  models(): string[]
  /** The largest input this worker takes, whatever a claim says. */
  maxInputBytes: number
  /** Where inputs are streamed to while they arrive. */
  tempDir: string
}

export class HttpLink implements CoordinatorLink, CoordinatorCalls {
  private readonly base: string

  constructor(
    coordinator: string,
    private readonly key: string,
    private readonly identity: { name: string; device: string },
    readonly opts: HttpLinkOptions
  ) {
    this.base = coordinator.replace(/\/+$/, '')
  }

  /**
   * One call. Throws `HostUnavailable` when the coordinator cannot be reached or answers
   * 503/429 (with its `Retry-After`); every other answer is returned as it is.
   */
  async call(path: string, opts: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      'X-API-Key': this.key,
      [PROTOCOL_HEADER]: String(STUDIO_PROTOCOL),
      'X-Clipdesk-Worker': this.identity.name,
      'X-Clipdesk-Device': this.identity.device,
      ...(opts.token ? { [CLAIM_HEADER]: opts.token } : {}),
      ...(opts.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...opts.headers
    }
    let res: Response
    try {
      res = await fetch(this.base + path, {
        method: opts.method ?? (opts.json !== undefined || opts.body !== undefined ? 'POST' : 'GET'),
        headers,
        body: opts.json !== undefined ? JSON.stringify(opts.json) : opts.body,
        signal: opts.signal
      })
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason
      throw new HostUnavailable(`the coordinator cannot be reached: ${errorText(err)}`)
    }
    if (res.status === 503 || res.status === 429) {
      const wait = Number(res.headers.get('retry-after'))
      await res.body?.cancel()
      throw new HostUnavailable(`the coordinator is busy (${res.status})`, Number.isFinite(wait) && wait > 0 ? wait * 1000 : 1000)
    }
    return res
  }

  /** Checks the key, the address and the protocol at start: a mismatch fails now, clearly. */
  async hello(): Promise<void> {
    const res = await this.call('/api/v1/studio/hello', { json: {} })
    if (!res.ok) {
      const e = await errorOf(res)
      throw new Error(`the coordinator answered ${res.status} ${e.code}: ${e.message}`)
    }
    const body = (await res.json()) as { protocol?: number }
    if (body.protocol !== STUDIO_PROTOCOL) {
      throw new Error(
        `the coordinator speaks studio protocol ${body.protocol ?? 1} and this worker ${STUDIO_PROTOCOL}: run the same Clipdesk version on both`
      )
    }
  }

  async claim(jobId: string, signal: AbortSignal, lost: () => void): Promise<ClaimedJob | null> {
    const started = performance.now()
    const res = await this.call('/api/v1/studio/claim', {
      json: { job_id: jobId, models: this.opts.models(), features: [...WORKER_FEATURES] },
      signal
    })
    if (res.status === 409) {
      const e = await errorOf(res)
      const wait = Number(res.headers.get('retry-after'))
      if (e.code === 'job_held') throw new HostUnavailable(e.message, Number.isFinite(wait) && wait > 0 ? wait * 1000 : 5000)
    }
    if (!res.ok) {
      const e = await errorOf(res)
      throw new Error(`the coordinator refused the claim of ${jobId} (${res.status} ${e.code}): ${e.message}`)
    }
    const body = (await res.json()) as { job: Claim | null; wait_ms?: number }
    if (!body.job) {
      if (typeof body.wait_ms === 'number' && body.wait_ms > 0)
        throw new HostUnavailable(`job ${jobId} needs a model this worker does not have`, body.wait_ms)
      return null
    }
    return new RemoteHost(this, body.job, lost, performance.now() - started).claimed()
  }
}
