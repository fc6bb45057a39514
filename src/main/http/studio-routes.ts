/**
 * `/api/v1/studio/*`: what studio workers call on their coordinator. Every call needs a
 * worker key (a key of kind `worker`, which can do nothing else); the input download also
 * needs its signed address. Client keys are refused here with 403 `forbidden`.
 */
import { createReadStream } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { JOB_ID_PATTERN, VARIATIONS } from '../../shared/api'
import { ApiError } from '../engine/errors'
import type { Engine } from '../engine/engine'
import type { StudioCoordinator } from '../studio/coordinator'
import type { ResultUpload, WorkerIdentity } from '../studio/protocol'
import { sendJson } from './respond'

const INPUT_PATH = /^\/api\/v1\/studio\/input\/([0-9a-f-]{36})$/
const RESULT_PATH = /^\/api\/v1\/studio\/result\/([0-9a-f-]{36})$/
const STAGES = ['segmenting', 'pending_compose', 'encoding'] as const
/** An input's signed address is good for this long (a worker fetches it right after its claim). */
const INPUT_URL_TTL_S = 15 * 60

export interface StudioRouteContext {
  engine: Engine
  coordinator: StudioCoordinator
  /** The listener's key check for a given kind of key; returns the key id. */
  authenticate(req: IncomingMessage, kind: 'client' | 'worker'): string
  allow(methods: string): void
  /** The workers' own listener: only what workers call (no owner listing). */
  workerOnly?: boolean
}

async function readJson(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/json') throw new ApiError('malformed_request', 'Send the body as application/json.')
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw new ApiError('payload_too_large', `The body is larger than ${limit} bytes.`)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) throw new ApiError('payload_too_large', `The body is larger than ${limit} bytes.`)
    chunks.push(chunk as Buffer)
  }
  let value: unknown
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new ApiError('malformed_request', 'The body is not valid JSON.')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError('malformed_request', 'The body must be a JSON object.')
  return value as Record<string, unknown>
}

function jobIdOf(body: Record<string, unknown>): string {
  const id = body.job_id
  if (typeof id !== 'string' || !JOB_ID_PATTERN.test(id)) {
    throw new ApiError('validation_failed', 'job_id is not a job id.', { details: [{ field: 'job_id', issue: 'expected a job id (a UUID)' }] })
  }
  return id
}

function identityOf(req: IncomingMessage, keyId: string): WorkerIdentity {
  const header = (name: string): string => {
    const v = req.headers[name]
    return typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 200) : ''
  }
  return { name: header('x-clipdesk-worker') || keyId, device: header('x-clipdesk-device') || 'cpu' }
}

function asUpload(body: Record<string, unknown>): ResultUpload {
  const outputs = body.outputs
  if (!Array.isArray(outputs) || outputs.length === 0) {
    throw new ApiError('validation_failed', 'outputs must list the results.', { details: [{ field: 'outputs', issue: 'expected a non-empty array' }] })
  }
  for (const o of outputs as Record<string, unknown>[]) {
    if (typeof o?.variation !== 'string' || !(VARIATIONS as readonly string[]).includes(o.variation) || typeof o.ext !== 'string' || !/^[a-z]{2,5}$/.test(o.ext) || typeof o.data !== 'string') {
      throw new ApiError('validation_failed', 'Each output needs variation, ext and base64 data.', { details: [{ field: 'outputs', issue: 'bad entry' }] })
    }
  }
  return {
    outputs: outputs as ResultUpload['outputs'],
    warnings: (typeof body.warnings === 'object' && body.warnings !== null ? body.warnings : {}) as ResultUpload['warnings'],
    ignored: (Array.isArray(body.ignored) ? body.ignored : []) as ResultUpload['ignored'],
    busy_ms: Number(body.busy_ms) || 0
  }
}

/** Answers a studio request; false when the path is not one. */
export async function handleStudioRequest(ctx: StudioRouteContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const path = url.pathname
  if (!path.startsWith('/api/v1/studio/')) return false
  const { engine, coordinator } = ctx

  if (path === '/api/v1/studio/workers') {
    // Listing is the owner's, on the API listener; the workers' listener has nothing for owners.
    if (ctx.workerOnly) throw new ApiError('not_found', `No endpoint at ${path} on the workers' listener.`)
    ctx.allow('GET')
    const keyId = ctx.authenticate(req, 'client')
    if (!engine.keys.get(keyId)?.admin) throw new ApiError('forbidden', 'Listing workers needs an owner key.')
    sendJson(res, 200, { queue_available: coordinator.available, workers: coordinator.workers.list() })
    return true
  }

  const keyId = ctx.authenticate(req, 'worker')
  const worker = identityOf(req, keyId)
  const limit = 8 * engine.options.maxUploadBytes

  if (path === '/api/v1/studio/hello') {
    ctx.allow('POST')
    coordinator.workers.seen(worker)
    sendJson(res, 200, { ok: true })
    return true
  }
  if (path === '/api/v1/studio/claim') {
    ctx.allow('POST')
    const jobId = jobIdOf(await readJson(req, 4096))
    const claim = await coordinator.claim(jobId, worker)
    if (claim) {
      const expires = Math.floor(Date.now() / 1000) + INPUT_URL_TTL_S
      claim.input_url = `/api/v1/studio/input/${jobId}?expires=${expires}&sig=${engine.signer.sign(jobId, 'studio-input', expires)}`
    }
    sendJson(res, 200, { job: claim })
    return true
  }
  const input = INPUT_PATH.exec(path)
  if (input) {
    ctx.allow('GET')
    const jobId = input[1]!
    const expires = Number(url.searchParams.get('expires'))
    if (!engine.signer.verify(jobId, 'studio-input', expires, url.searchParams.get('sig') ?? '')) {
      throw new ApiError('invalid_signature', 'The input address is not validly signed, or it expired.')
    }
    const file = coordinator.inputPath(jobId)
    if (!file) throw new ApiError('not_found', 'This job has ended or has no stored input.')
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' })
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res)
    return true
  }
  if (path === '/api/v1/studio/progress') {
    ctx.allow('POST')
    const body = await readJson(req, 4096)
    const stage = body.stage
    if (typeof stage !== 'string' || !(STAGES as readonly string[]).includes(stage)) {
      throw new ApiError('validation_failed', 'stage is not a pipeline stage.', { details: [{ field: 'stage', issue: `expected one of ${STAGES.join(', ')}` }] })
    }
    coordinator.progress(jobIdOf(body), stage as (typeof STAGES)[number], worker)
    sendJson(res, 200, { ok: true })
    return true
  }
  const result = RESULT_PATH.exec(path)
  if (result) {
    ctx.allow('POST')
    const upload = asUpload(await readJson(req, limit))
    const stored = await coordinator.complete(result[1]!, upload, worker)
    sendJson(res, 200, { stored })
    return true
  }
  if (path === '/api/v1/studio/fail') {
    ctx.allow('POST')
    const body = await readJson(req, 16_384)
    const failed = coordinator.fail(jobIdOf(body), { reason: body.reason as never, message: String(body.message ?? '') }, worker)
    sendJson(res, 200, { failed })
    return true
  }
  throw new ApiError('not_found', `No endpoint at ${path}.`)
}
