import { createReadStream } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { VARIATIONS, type Variation } from '../../shared/api'
import { ApiError } from '../engine/errors'
import type { Engine } from '../engine/engine'
import { statusAnswer } from '../app-api/answers'
import { errorResponse } from './error-response'
import { handleAppRequest, type AppBridgeOptions } from './app-bridge'
import { readUpload } from './body'
import { isAllowedHost } from './guard'
import { InFlightBytes, UploadReservation } from './in-flight'
import { declaredLength, type RateFloor } from './read-body'
import { openApiDocument } from './openapi'
import { handleStudioRequest } from './studio-routes'
import { handleJobsRequest } from './jobs-routes'
import { ownerCheck } from './owner-token'
import { handleRemoveBgRequest } from './removebg/route'
// The studio protocol over HTTP is the studio feature's own transport: it speaks studio's types, unlike the app's transports.
import type { StudioCoordinator } from '../studio/coordinator'
import { sendJson } from './respond'
import { imageMimeOf } from '../../shared/image-types'
import { apiServer, keyCheck, listen, methodCheck, type HttpListener } from './listen'
import { processConnectionBudget, type ConnectionBudget } from './connection-cap'

export type { HttpListener } from './listen'

export interface HttpServerOptions {
  /** @default 7878; 0 picks a free port */
  port?: number
  /** The app bridge and the renderer (`clipdesk serve`); see app-bridge.ts. @default none */
  app?: AppBridgeOptions
  /**
   * Upload bytes all requests together may hold in memory at once; past it 503 `unavailable`.
   * @default 4 × the upload size limit + 1 MB (201 MB)
   */
  maxInFlightUploadBytes?: number
  /**
   * What one API key's uploads may hold of that at once; past it that key's next upload gets 503.
   * @default one whole upload: the upload size limit + 1 MB
   */
  maxInFlightUploadBytesPerKey?: number
  /** The slowest a request body may arrive (408 `request_timeout` under it). @default 8 KiB/s over 10 s */
  bodyRateFloor?: RateFloor
  /**
   * A connection with no traffic either way for this long is closed: a client that stops
   * reading its answer (or sending its body) holds nothing for longer. @default 30 s
   */
  idleTimeoutMs?: number
  /** A request's headers must arrive within this long (docs/api.md §15). @default 20 s */
  headersTimeoutMs?: number
  /** Studio mode: the coordinator whose workers call `/api/v1/studio/*`. @default none */
  studio?: StudioCoordinator
  /** The owner token a local command sends to upload as the owner (`owner-token.ts`). @default none */
  ownerToken?: string
  /** The connection caps (connection-cap.ts). @default the process's, shared by all its listeners */
  connections?: ConnectionBudget
}

function busy(): ApiError {
  return new ApiError(
    'unavailable',
    'The server is receiving too many uploads at once, or this API key is already sending its share of them; try again shortly.',
    {
      retryAfterSeconds: 5
    }
  )
}

/** The upload budget's share of the owner's own uploads (key ids never take this form). */
const OWNER_SHARE = '(owner)'

const RESULT_PATH = /^\/api\/v1\/results\/([0-9a-f-]{36})\/([A-Za-z]+)\.([a-z]+)$/

/**
 * The optional local HTTP listener of `/api/v1`. A factory taking the engine: it parses
 * and authenticates requests and hands them to `engine.upload()` / `engine.status()`;
 * it holds no job state of its own. Binds 127.0.0.1 only.
 */
export async function startHttpServer(engine: Engine, opts: HttpServerOptions = {}): Promise<HttpListener> {
  // Room for at least one whole upload and its text parts, so that a lone upload is never refused.
  const wholeUpload = engine.options.maxUploadBytes + 1024 * 1024
  const inFlight = new InFlightBytes(
    opts.maxInFlightUploadBytes ?? 4 * engine.options.maxUploadBytes + 1024 * 1024,
    opts.maxInFlightUploadBytesPerKey ?? wholeUpload
  )
  let port = 0

  const authenticate = keyCheck(engine)
  const isOwner = ownerCheck(opts.ownerToken)
  const connections = opts.connections ?? processConnectionBudget()

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!isAllowedHost(req.headers.host, port)) {
      // Refused before anything else, auth included (DNS rebinding guard).
      throw new ApiError('forbidden_host', `Host "${req.headers.host ?? ''}" is not allowed; use 127.0.0.1:${port} or localhost:${port}.`)
    }
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`)
    const allow = methodCheck(req, url.pathname)
    const base = `http://${req.headers.host}`

    if (url.pathname === '/api/v1/upload') {
      allow('POST')
      // The owner's own work (a command beside this server) has no key and pays no credit.
      const keyId = isOwner(req) ? null : authenticate(req)
      // A key that could not start a job (no credit, no room in the queue) is refused before
      // a byte of its body is reserved or read: it never holds the budget of those that can.
      engine.admit(keyId)
      const reservation = new UploadReservation(inFlight, keyId ?? OWNER_SHARE)
      try {
        const declared = declaredLength(req)
        // An oversized declaration is refused as too large by readUpload, not counted here.
        if (declared !== null && declared > 0 && declared <= wholeUpload && !reservation.reserve(declared)) throw busy()
        const parsed = await readUpload(req, {
          maxFileBytes: engine.options.maxUploadBytes,
          meter: (bytes) => (reservation.count(bytes) ? null : busy()),
          floor: opts.bodyRateFloor
        })
        let answer: { status: number; body: unknown; headers?: Record<string, string> }
        try {
          answer = { status: 202, body: await engine.upload({ ...parsed, keyId }) }
        } catch (err) {
          answer = errorResponse(err)
        }
        sendJson(res, answer.status, answer.body, answer.headers)
      } finally {
        // The bytes are stored (or refused) by now: nothing of this request is held any more.
        reservation.release()
      }
      return
    }
    if (url.pathname === '/api/v1/status') {
      allow('GET')
      if (!isOwner(req)) authenticate(req)
      const jobId = url.searchParams.get('job_id') ?? undefined
      const { status, body } = statusAnswer(engine, jobId, (id, variation, ext, expires) => {
        const file = `${variation}.${ext}`
        return `${base}/api/v1/results/${id}/${file}?expires=${expires}&sig=${engine.signAddress(id, file, expires)}`
      })
      sendJson(res, status, body)
      return
    }
    if (url.pathname === '/api/v1/health') {
      // No key needed: a supervisor's liveness probe. Names the model and device, no paths.
      // 503 while the engine cannot work (a sandbox pool that cannot start processes).
      allow('GET')
      const health = engine.health()
      sendJson(res, health.status === 'ok' ? 200 : 503, { ...health, connections: connections.counts() })
      return
    }
    if (url.pathname === '/api/v1/openapi.json') {
      allow('GET')
      sendJson(res, 200, openApiDocument(base))
      return
    }
    const result = RESULT_PATH.exec(url.pathname)
    if (result) {
      allow('GET')
      const [, jobId, variation, ext] = result as unknown as [string, string, string, string]
      const file = `${variation}.${ext}`
      const expires = Number(url.searchParams.get('expires'))
      if (!engine.verifyAddress(jobId, file, expires, url.searchParams.get('sig') ?? '')) {
        throw new ApiError('invalid_signature', "The result address is not validly signed, or it expired with the job's retention time.")
      }
      const record = (VARIATIONS as readonly string[]).includes(variation) ? engine.result(jobId, variation as Variation, ext) : null
      if (!record) throw new ApiError('not_found', 'This result no longer exists.')
      res.writeHead(200, {
        'Content-Type': imageMimeOf(`result.${ext}`) ?? 'application/octet-stream',
        'Content-Length': record.bytes,
        'Cache-Control': 'private, max-age=3600',
        'X-Content-Type-Options': 'nosniff'
      })
      createReadStream(record.path)
        .on('error', () => res.destroy()) // swept or removed meanwhile: end the answer
        .pipe(res)
      return
    }
    if (await handleJobsRequest({ engine, authenticate, allow, floor: opts.bodyRateFloor }, req, res, url)) return
    if (await handleRemoveBgRequest({ engine, authenticate, allow, inFlight, floor: opts.bodyRateFloor }, req, res, url)) return
    if (
      opts.studio &&
      (await handleStudioRequest({ engine, coordinator: opts.studio, authenticate, allow, floor: opts.bodyRateFloor }, req, res, url))
    )
      return
    if (
      opts.app &&
      (await handleAppRequest(opts.app, req, res, url, { authenticate: (r) => authenticate(r), allow, floor: opts.bodyRateFloor, isOwner }))
    )
      return
    throw new ApiError('not_found', `No endpoint at ${url.pathname}.`)
  }

  const server = apiServer(handle, { idleTimeoutMs: opts.idleTimeoutMs, headersTimeoutMs: opts.headersTimeoutMs, connections })
  const listener = await listen(server, opts.port ?? 7878, '127.0.0.1')
  port = listener.port
  return listener
}
