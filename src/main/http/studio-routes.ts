/**
 * `/api/v1/studio/*`: what studio workers call on their coordinator (docs/studio.md,
 * "Protocol"). Every call needs a worker key (a key of kind `worker`, which can do nothing
 * else) and the protocol version; every call about a job needs the token its claim gave, for
 * that job, that attempt and that key. Client keys are refused here with 403 `forbidden`.
 */
import { createReadStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { JOB_ID_PATTERN } from '../../shared/api'
import { MODEL_NAME_PATTERN } from '../../shared/models'
import { EngineError } from '../engine/errors'
import { ApiError } from './api-error'
import type { StudioRoutesPort } from '../engine/ports'
// The studio protocol over HTTP is the studio feature's own transport: it speaks studio's types, unlike the app's transports.
import type { StudioCoordinator } from '../studio/coordinator'
import { CLAIM_HEADER, PROTOCOL_HEADER, STUDIO_PROTOCOL, WORKER_FEATURES, type Claim, type WorkerIdentity } from '../studio/protocol'
import { allowedParts, checkResult } from '../studio/result-check'
import type { Lease } from '../studio/claims'
import { MAX_REFUSED_RESULTS } from '../studio/runs'
import { InFlightBytes, UploadReservation } from './in-flight'
import type { RateFloor } from './read-body'
import { sendJson } from './respond'
import { receiveResult } from './studio-result-body'
import { nothingAt, type Route, type RouteCall } from './route-table'
import { idSegment } from './router'
import type { Authenticate } from './listen'

const STAGES = ['segmenting', 'pending_compose', 'encoding'] as const
/** The JSON bodies of the protocol: a claim or a failure report, and the smaller renewal and progress. */
const CLAIM_BODY = 16_384
const SMALL_BODY = 4096
/** Model names a worker may list in a claim. */
const MAX_MODELS = 64

export interface StudioRouteContext {
  engine: StudioRoutesPort
  coordinator: StudioCoordinator
  /** The workers' own listener: only what workers call (no owner listing). */
  workerOnly?: boolean
  /** The listener's floor on a body's rate. @default DEFAULT_RATE_FLOOR */
  floor?: RateFloor
}

/**
 * Result bytes being received at once, across both listeners of a coordinator: they go to
 * disk, and this bounds how much is in flight (past it: 503 with `Retry-After`). One worker key
 * may hold at most one whole result of it, so that one worker sending slowly (or many
 * connections of one key) never keeps another worker's result out.
 */
const budgets = new WeakMap<StudioCoordinator, InFlightBytes>()
function budgetOf(coordinator: StudioCoordinator): InFlightBytes {
  let b = budgets.get(coordinator)
  if (!b) {
    b = new InFlightBytes(2 * coordinator.maxResultBytes, coordinator.maxResultBytes)
    budgets.set(coordinator, b)
  }
  return b
}

function jobIdOf(body: Record<string, unknown>): string {
  const id = body.job_id
  if (typeof id !== 'string' || !JOB_ID_PATTERN.test(id)) {
    throw new ApiError('validation_failed', 'job_id is not a job id.', {
      details: [{ field: 'job_id', issue: 'expected a job id (a UUID)' }]
    })
  }
  return id
}

function modelsOf(body: Record<string, unknown>): string[] | null {
  const m = body.models
  if (m === undefined) return null
  if (!Array.isArray(m) || m.length > MAX_MODELS || !m.every((n) => typeof n === 'string' && MODEL_NAME_PATTERN.test(n))) {
    throw new ApiError('validation_failed', 'models must list model names.', {
      details: [{ field: 'models', issue: `expected at most ${MAX_MODELS} model names` }]
    })
  }
  return m as string[]
}

/** The claim's `features` (`WORKER_FEATURES`); a worker that says none has none. */
function featuresOf(body: Record<string, unknown>): string[] {
  const f = body.features
  if (f === undefined) return []
  if (!Array.isArray(f) || f.length > WORKER_FEATURES.length * 4 || !f.every((n) => typeof n === 'string' && n.length <= 64)) {
    throw new ApiError('validation_failed', 'features must list feature names.', {
      details: [{ field: 'features', issue: `expected a list of names such as ${WORKER_FEATURES.join(', ')}` }]
    })
  }
  return f as string[]
}

function identityOf(req: IncomingMessage, keyId: string): WorkerIdentity {
  const header = (name: string): string => {
    const v = req.headers[name]
    return typeof v === 'string' ? v : ''
  }
  // Cleaned and bounded by the registry; the key, not the name, is who calls.
  return { keyId, name: header('x-clipdesk-worker') || keyId, device: header('x-clipdesk-device') || 'cpu' }
}

/** The `worker` key check of a listener's table: a worker key, then this protocol's version. */
export function workerKey(authenticate: Authenticate): (req: IncomingMessage) => string {
  return (req) => {
    const keyId = authenticate(req, 'worker')
    checkProtocol(req)
    return keyId
  }
}

function checkProtocol(req: IncomingMessage): void {
  const given = req.headers[PROTOCOL_HEADER]
  if (given !== String(STUDIO_PROTOCOL)) {
    throw new ApiError(
      'protocol_mismatch',
      `This coordinator speaks studio protocol ${STUDIO_PROTOCOL} and the worker ${typeof given === 'string' ? given : '1 (no X-Clipdesk-Studio header)'}: run the same Clipdesk version on both.`
    )
  }
}

function tokenOf(req: IncomingMessage): string | undefined {
  const t = req.headers[CLAIM_HEADER]
  return typeof t === 'string' ? t : undefined
}

/** A route of the studio protocol: for workers, each call with a worker key (`workerKey`). */
function protocolRoute(route: Omit<Route, 'audience' | 'key'>): Route {
  return { ...route, audience: 'worker', key: 'worker' }
}

/**
 * The studio protocol's routes: each needs a worker key speaking this protocol (the listener's
 * `worker` key check, `checkProtocol`), checked before the method or the path; every call about a
 * job needs its claim's token too. On the API listener, also the owner's list of workers.
 */
export function studioRoutes(ctx: StudioRouteContext): Route[] {
  const { engine, coordinator } = ctx
  const { runs } = coordinator
  const worker = (req: IncomingMessage, keyId: string | null): WorkerIdentity => identityOf(req, keyId!)
  // A call about a job: its claim's token, for this worker.
  const leaseOf = (jobId: string, { req, keyId }: RouteCall): Lease => runs.verify(jobId, tokenOf(req), worker(req, keyId))
  const routes: Route[] = [
    protocolRoute({
      method: 'POST',
      path: '/api/v1/studio/hello',
      handle({ req, res, keyId }) {
        coordinator.workers.seen(worker(req, keyId))
        sendJson(res, 200, { ok: true, protocol: STUDIO_PROTOCOL })
      }
    }),
    protocolRoute({
      method: 'POST',
      path: '/api/v1/studio/claim',
      body: { reader: 'json-object', limit: CLAIM_BODY },
      async handle({ req, res, keyId, body }) {
        const fields = body as Record<string, unknown>
        const jobId = jobIdOf(fields)
        const models = modelsOf(fields)
        const answer = await runs.claim(jobId, worker(req, keyId), { local: false, models, features: featuresOf(fields) })
        if (!answer.claimed) {
          sendJson(res, 200, answer.waitMs ? { job: null, wait_ms: answer.waitMs } : { job: null })
          return
        }
        const { lease, plan, input } = answer.claimed
        const claim: Claim = {
          job_id: jobId,
          attempt: lease.attempt,
          token: runs.claims.token(jobId, lease.attempt, keyId!),
          format: plan.format,
          params: plan.params,
          model: plan.model,
          max_pixels: plan.maxPixels,
          timeout_ms: plan.timeoutMs,
          lease_ms: runs.claims.leaseMs,
          input: { bytes: input!.bytes, sha256: input!.sha256 },
          input_url: `/api/v1/studio/input/${jobId}`,
          max_result_bytes: coordinator.maxResultBytes
        }
        sendJson(res, 200, { job: claim })
      }
    }),
    protocolRoute({
      method: 'GET',
      path: '/api/v1/studio/input/:job_id',
      params: { job_id: idSegment },
      handle(call) {
        const lease = leaseOf(call.params.job_id!, call)
        const res = call.res
        const file = lease.run.current()?.inputPath
        if (!file) throw new ApiError('not_found', 'This job has no stored input.')
        const stream = createReadStream(file)
        stream.on('error', () => res.destroy())
        stream.on('open', () => {
          res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' })
          stream.pipe(res)
        })
      }
    }),
    protocolRoute({
      method: 'POST',
      path: '/api/v1/studio/renew',
      body: { reader: 'json-object', limit: SMALL_BODY },
      handle(call) {
        leaseOf(jobIdOf(call.body as Record<string, unknown>), call)
        sendJson(call.res, 200, { ok: true, lease_ms: runs.claims.leaseMs })
      }
    }),
    protocolRoute({
      method: 'POST',
      path: '/api/v1/studio/progress',
      body: { reader: 'json-object', limit: SMALL_BODY },
      handle(call) {
        const fields = call.body as Record<string, unknown>
        const stage = fields.stage
        if (typeof stage !== 'string' || !(STAGES as readonly string[]).includes(stage)) {
          throw new ApiError('validation_failed', 'stage is not a pipeline stage.', {
            details: [{ field: 'stage', issue: `expected one of ${STAGES.join(', ')}` }]
          })
        }
        runs.progress(leaseOf(jobIdOf(fields), call), stage as (typeof STAGES)[number])
        sendJson(call.res, 200, { ok: true })
      }
    }),
    protocolRoute({
      method: 'POST',
      path: '/api/v1/studio/result/:job_id',
      params: { job_id: idSegment },
      body: { reader: 'result', limit: coordinator.maxResultBytes },
      handle: ({ req, res, params, keyId }) => receive(ctx, req, res, params.job_id!, keyId!)
    }),
    protocolRoute({
      method: 'POST',
      path: '/api/v1/studio/fail',
      body: { reader: 'json-object', limit: CLAIM_BODY },
      async handle(call) {
        const fields = call.body as Record<string, unknown>
        await runs.fail(leaseOf(jobIdOf(fields), call), { reason: fields.reason as never, message: String(fields.message ?? '') })
        sendJson(call.res, 200, { failed: true })
      }
    }),
    // Any other path under the protocol's prefix: 404, for a worker key only, as every answer here.
    nothingAt('/api/v1/studio/*', 'worker', 'worker', 'ours')
  ]
  if (ctx.workerOnly) {
    // Listing is the owner's, on the API listener; the workers' listener has nothing for owners.
    routes.push(
      nothingAt('/api/v1/studio/workers', 'worker', 'none', 'ours', "No endpoint at /api/v1/studio/workers on the workers' listener.")
    )
  } else {
    routes.push({
      method: 'GET',
      path: '/api/v1/studio/workers',
      audience: 'app',
      key: 'client',
      handle({ res, keyId }) {
        if (!engine.key(keyId!)?.admin) throw new ApiError('forbidden', 'Listing workers needs an owner key.')
        sendJson(res, 200, { queue_available: coordinator.available, workers: coordinator.workers.list() })
      }
    })
  }
  return routes
}

/** A worker's result for `jobId`: its files to disk, within the result budget, checked before they are taken. */
async function receive(ctx: StudioRouteContext, req: IncomingMessage, res: ServerResponse, jobId: string, keyId: string): Promise<void> {
  const { engine, coordinator } = ctx
  const { runs } = coordinator
  // The token first: a call for a job this key does not hold is refused before its body is read.
  const lease = runs.verify(jobId, tokenOf(req), identityOf(req, keyId))
  const done = runs.beginStore(jobId)
  const reservation = new UploadReservation(budgetOf(coordinator), keyId, 'results')
  try {
    reservation.reserveDeclared(req, coordinator.maxResultBytes)
    const expectation = await runs.expectation(lease, (bytes) => engine.probeImage(bytes))
    const received = await receiveResult(req, {
      dir: engine.resultDir(jobId),
      allowed: allowedParts(expectation),
      maxBytes: coordinator.maxResultBytes,
      meter: reservation.meter,
      floor: ctx.floor
    })
    // Each file's pixels decoded whole in the decode sandbox, which answers only a small rendering.
    const decodes = (path: string): Promise<unknown> => engine.previewInSandbox({ path, edge: 16, quality: 50 })
    const outcome = await checkResult(expectation, received.meta, received.files, decodes).catch(async (err: unknown) => {
      await Promise.all(received.files.map((f) => rm(f.path, { force: true })))
      // A job whose results keep being refused is given up (failed, refunded), not taken again for ever.
      if (err instanceof EngineError && err.code === 'validation_failed' && (await runs.refused(lease, err))) {
        throw new ApiError('validation_failed', `${err.message} The job was given up after ${MAX_REFUSED_RESULTS} refused results.`, {
          details: [...(err.details ?? []), { field: 'job', issue: 'given up: failed and refunded' }]
        })
      }
      throw err
    })
    sendJson(res, 200, { stored: await runs.complete(lease, outcome) })
  } finally {
    reservation.release()
    done()
  }
}
