/**
 * A remote worker's link to its coordinator: JSON calls under `/api/v1/studio/*` with a
 * worker key, the input through a signed address. Network failures and 503 answers become
 * `LinkError`s (retried); a result upload is retried in place, since it is idempotent.
 */
import type { PipelineStage } from '../engine/pipeline'
import type { Claim, FailureReport, ResultUpload, WorkerIdentity } from './protocol'
import { LinkError, type CoordinatorLink } from './worker'

const UPLOAD_TRIES = 30

export class HttpLink implements CoordinatorLink {
  private readonly base: string

  constructor(
    coordinator: string,
    private readonly key: string,
    private readonly identity: WorkerIdentity
  ) {
    this.base = coordinator.replace(/\/+$/, '')
  }

  private headers(json: boolean): Record<string, string> {
    return {
      'X-API-Key': this.key,
      'X-Clipdesk-Worker': this.identity.name,
      'X-Clipdesk-Device': this.identity.device,
      ...(json ? { 'Content-Type': 'application/json' } : {})
    }
  }

  private async call(path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    let res: Response
    try {
      res = await fetch(this.base + path, {
        method: body === undefined ? 'GET' : 'POST',
        headers: this.headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal
      })
    } catch (err) {
      throw new LinkError(`the coordinator cannot be reached: ${(err as Error).message}`)
    }
    if (res.status === 503 || res.status === 429) {
      const wait = Number(res.headers.get('retry-after'))
      await res.body?.cancel()
      throw new LinkError(`the coordinator is busy (${res.status})`, Number.isFinite(wait) && wait > 0 ? wait * 1000 : 1000)
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '')
      throw new Error(`the coordinator answered ${res.status} to ${path}: ${text.slice(0, 300)}`)
    }
    return res
  }

  async whoami(): Promise<void> {
    await (await this.call('/api/v1/studio/hello', {})).body?.cancel()
  }

  async claim(jobId: string, signal: AbortSignal): Promise<Claim | null> {
    const res = await this.call('/api/v1/studio/claim', { job_id: jobId }, signal)
    return ((await res.json()) as { job: Claim | null }).job
  }

  async input(claim: Claim): Promise<Buffer> {
    if (!claim.input_url) throw new Error('the claim has no input address')
    const res = await this.call(claim.input_url.startsWith('/') ? claim.input_url : new URL(claim.input_url).pathname + new URL(claim.input_url).search)
    return Buffer.from(await res.arrayBuffer())
  }

  async progress(jobId: string, stage: PipelineStage): Promise<void> {
    await (await this.call('/api/v1/studio/progress', { job_id: jobId, stage })).body?.cancel()
  }

  async complete(jobId: string, upload: ResultUpload): Promise<boolean> {
    for (let i = 1; ; i++) {
      try {
        const res = await this.call(`/api/v1/studio/result/${jobId}`, upload)
        return ((await res.json()) as { stored: boolean }).stored
      } catch (err) {
        if (!(err instanceof LinkError) || i >= UPLOAD_TRIES) throw err
        await new Promise((r) => setTimeout(r, Math.min(err.retryAfterMs, 5000)))
      }
    }
  }

  async fail(jobId: string, report: FailureReport): Promise<void> {
    await (await this.call('/api/v1/studio/fail', { job_id: jobId, ...report })).body?.cancel()
  }
}
