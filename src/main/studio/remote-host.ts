/**
 * A job claimed by a remote worker, as its executor sees the job's record: the coordinator,
 * reached with the claim's token. The input is streamed to a file (never more than the claim
 * says, and never more than this worker takes) and checked against the claim's size and
 * SHA-256; the results go back as one multipart upload, a file part per output; the lease is
 * renewed while the job runs, and a claim found ended stops the run.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { JobFailure } from '../engine/errors'
import { type PipelineStage, HostUnavailable, type RunEnding, type RunHost, type RunPlan, type RunResult } from '../engine/public-run'
import type { Claim, ResultMeta } from './protocol'
import { errorOf } from './error-of'
import type { ClaimedJob } from './worker'

/** A result or failure report is retried in place this often (following `Retry-After`). */
const REPORT_TRIES = 30

/** Refuses a claim that is not of this protocol (an older coordinator's). */
function checkClaim(c: Claim): void {
  const ok =
    typeof c.job_id === 'string' &&
    typeof c.token === 'string' &&
    typeof c.model === 'string' &&
    typeof c.input === 'object' &&
    c.input !== null &&
    Number.isInteger(c.input.bytes) &&
    typeof c.input.sha256 === 'string' &&
    typeof c.input_url === 'string' &&
    c.input_url.startsWith('/api/v1/studio/input/') &&
    Number.isFinite(c.lease_ms) &&
    Number.isFinite(c.timeout_ms) &&
    Number.isFinite(c.max_result_bytes)
  if (!ok) throw new Error('the coordinator sent a claim this worker cannot read: run the same Clipdesk version on both')
}

/** One call to the coordinator, with the claim's token where it is the claim's. */
export interface CallOptions {
  method?: 'GET' | 'POST'
  json?: unknown
  body?: FormData
  headers?: Record<string, string>
  token?: string
  signal?: AbortSignal
}

/** What a claimed job's host asks of its link to the coordinator (`HttpLink` is the one). */
export interface CoordinatorCalls {
  readonly opts: { readonly maxInputBytes: number; readonly tempDir: string }
  call(path: string, opts?: CallOptions): Promise<Response>
}

export class RemoteHost implements RunHost {
  private waited: number
  private readonly renewal: NodeJS.Timeout

  constructor(
    private readonly link: CoordinatorCalls,
    readonly claim: Claim,
    private readonly lost: () => void,
    claimMs: number
  ) {
    checkClaim(claim)
    this.waited = claimMs
    this.renewal = setInterval(() => void this.renew(), Math.max(500, Math.floor(claim.lease_ms / 3)))
    this.renewal.unref()
  }

  claimed(): ClaimedJob {
    const c = this.claim
    const plan: RunPlan = {
      jobId: c.job_id,
      attempt: c.attempt,
      format: c.format,
      params: c.params,
      model: c.model,
      maxPixels: c.max_pixels,
      timeoutMs: c.timeout_ms
    }
    return { plan, host: this, waitedMs: () => this.waited }
  }

  async input(signal: AbortSignal): Promise<Buffer> {
    const { bytes, sha256 } = this.claim.input
    const limit = this.link.opts.maxInputBytes
    if (bytes > limit) throw new JobFailure('storage_error', `The input is ${bytes} bytes, more than this worker takes (${limit}).`)
    const res = await this.timed(this.link.call(this.claim.input_url, { token: this.claim.token, signal }))
    if (!res.ok || !res.body) {
      if (res.status === 409) this.lost()
      const e = await errorOf(res)
      throw new JobFailure('storage_error', `The coordinator answered ${res.status} ${e.code} for the input: ${e.message}`)
    }
    const declared = res.headers.get('content-length')
    if (declared !== null && Number(declared) !== bytes) {
      await res.body.cancel()
      throw new JobFailure('storage_error', `The coordinator sent ${declared} bytes of input where the claim says ${bytes}.`)
    }
    const file = join(this.link.opts.tempDir, `${this.claim.job_id}.${randomBytes(6).toString('hex')}.input`)
    const hash = createHash('sha256')
    let received = 0
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received += chunk.length
        if (received > bytes)
          return done(new JobFailure('storage_error', `The coordinator sent more input than the claim says (${bytes} bytes).`))
        hash.update(chunk)
        done(null, chunk)
      }
    })
    const started = performance.now()
    try {
      await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), meter, createWriteStream(file, { flags: 'wx' }), {
        signal
      })
      if (received !== bytes || hash.digest('hex') !== sha256) {
        throw new JobFailure('storage_error', 'The input received does not match the claim (its size or SHA-256 differs).')
      }
      return await readFile(file)
    } finally {
      this.waited += performance.now() - started
      await rm(file, { force: true })
    }
  }

  stage(stage: PipelineStage): void {
    void this.link
      .call('/api/v1/studio/progress', { json: { job_id: this.claim.job_id, stage }, token: this.claim.token })
      .then(async (res) => {
        if (res.status === 409) this.lost()
        await res.body?.cancel()
      })
      .catch(() => undefined) // a progress step may be lost; the result still counts
  }

  async complete(result: RunResult): Promise<boolean> {
    // A worker renders in its own process: its outputs are bytes (no render step writes files).
    const outputs = result.outputs.map((o) => {
      if (!('bytes' in o)) throw new JobFailure('pipeline_error', 'A worker hands results over as bytes.')
      return o
    })
    const total = outputs.reduce((n, o) => n + o.bytes.length, 0)
    if (total > this.claim.max_result_bytes) {
      throw new JobFailure(
        'pipeline_error',
        `The results are ${total} bytes, more than the coordinator takes in one upload (${this.claim.max_result_bytes}).`
      )
    }
    const form = new FormData()
    const meta: ResultMeta = {
      warnings: result.warnings,
      ignored: result.ignored,
      device: result.device,
      uncertainty: result.uncertainty,
      secondLook: result.secondLook ?? null
    }
    form.append('meta', JSON.stringify(meta))
    for (const o of outputs) form.append(`${o.variation}.${o.ext}`, new Blob([o.bytes]), `${o.variation}.${o.ext}`)
    const res = await this.report(`/api/v1/studio/result/${this.claim.job_id}`, { body: form })
    if (res.ok) return ((await res.json()) as { stored: boolean }).stored
    if (res.status === 409) {
      await res.body?.cancel()
      return false // the job ended meanwhile (cancelled), or another worker took it over
    }
    const e = await errorOf(res)
    throw new JobFailure('pipeline_error', `The coordinator refused the results (${res.status} ${e.code}): ${e.message}`)
  }

  async end(ending: RunEnding): Promise<void> {
    // A cancel or takeover is the coordinator's own doing; a stop leaves the job to the lease.
    if (ending.kind !== 'failed') return
    const res = await this.report('/api/v1/studio/fail', {
      json: { job_id: this.claim.job_id, reason: ending.reason, message: ending.message }
    })
    await res.body?.cancel()
  }

  close(): void {
    clearInterval(this.renewal)
  }

  private async renew(): Promise<void> {
    try {
      const res = await this.link.call('/api/v1/studio/renew', { json: { job_id: this.claim.job_id }, token: this.claim.token })
      if (res.status === 409 || res.status === 403) this.lost()
      await res.body?.cancel()
    } catch {
      // The coordinator away for a moment: the next renewal may reach it before the lease lapses.
    }
  }

  /** A result or failure report, retried in place while the coordinator is away or busy. */
  private async report(path: string, opts: { json?: unknown; body?: FormData }): Promise<Response> {
    for (let i = 1; ; i++) {
      try {
        return await this.timed(this.link.call(path, { ...opts, token: this.claim.token }))
      } catch (err) {
        if (!(err instanceof HostUnavailable) || i >= REPORT_TRIES) throw err
        await new Promise((r) => setTimeout(r, Math.min(err.retryAfterMs, 5000)))
      }
    }
  }

  private async timed<T>(call: Promise<T>): Promise<T> {
    const t = performance.now()
    try {
      return await call
    } finally {
      this.waited += performance.now() - t
    }
  }
}
