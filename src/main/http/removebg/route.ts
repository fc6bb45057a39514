/**
 * The remove.bg-compatible endpoints on the `/api/v1` listener (docs/api.md "remove.bg
 * compatibility"): `POST /v1.0/removebg` and `GET /v1.0/account`, with the same keys (`X-Api-Key`),
 * credits, limits and engine as `/api/v1`. A request becomes one engine upload (`mapping.ts`),
 * waits for the job's end (`wait.ts`) and answers the result (`answer.ts`); every refusal is in
 * remove.bg's error shape (`errors.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RemoveBgPort } from '../../engine/ports'
import { EngineError } from '../../engine/errors'
import { jobError } from '../../engine/public'
import { busy, type InFlightBytes, UploadReservation } from '../in-flight'
import { operation } from '../openapi'
import { nothingAt, type Route } from '../route-table'
import { sendJson } from '../respond'
import { accountBody, rateLimitHeaders } from './account'
import { buildAnswer, sendAnswer } from './answer'
import { readRemoveBgBody, removeBgBodyLimit } from './body'
import { RemoveBgError, sendRemoveBgError } from './errors'
import { parseOptions } from './fields'
import { toUpload } from './mapping'
import { fetchImage, photoBytes, pickSource } from './source'
import type { RateFloor } from '../read-body'
import { waitForEnd } from './wait'

export interface RemoveBgContext {
  engine: RemoveBgPort
  /** The listener's budget of upload bytes held in memory (shared with `/api/v1/upload`). */
  inFlight: InFlightBytes
  /** The listener's slow-sender floor. */
  floor?: RateFloor
}

/** A job that failed, as remove.bg's error: bad input 400, a model that cannot load 503, else 500. */
function failedJob(reason: string | null, message: string | null): RemoveBgError {
  const detail = message ?? 'The image could not be processed.'
  if (reason === 'unsupported_image') return new RemoveBgError(400, [{ title: 'Invalid image', code: 'invalid_image', detail }])
  if (reason === 'image_too_large') return new RemoveBgError(400, [{ title: 'Resolution too high', code: 'resolution_too_high', detail }])
  if (reason === 'model_unavailable')
    return new RemoveBgError(503, [{ title: 'Service unavailable', code: 'unavailable', detail }], { 'Retry-After': '60' })
  return new RemoveBgError(500, [{ title: 'Processing failed', code: reason ?? 'processing_failed', detail }])
}

/**
 * `roi` travels to the engine as a hint image (`mapping.ts`): a refusal of that hint is a refusal
 * of `roi` to a remove.bg client (a coordinator without its own worker cannot apply one).
 */
function roiRefusal(err: unknown): unknown {
  if (!(err instanceof EngineError) || err.code !== 'validation_failed' || !err.details?.some((d) => d.field === 'hint')) return err
  return new RemoveBgError(400, [
    {
      title: 'Unsupported option',
      code: 'unsupported_option',
      detail: `roi: ${err.message.replaceAll('a hint', 'a region of interest').replace('without hint', 'without roi')}`
    }
  ])
}

async function removeBackground(ctx: RemoveBgContext, req: IncomingMessage, res: ServerResponse, keyId: string): Promise<void> {
  const { engine } = ctx
  // Nothing is read, fetched or run for a key that cannot pay for one job or whose queue is full
  // (402/429/503, as /api/v1: the same check before any byte is reserved).
  engine.admit(keyId)
  const stop = new AbortController()
  res.on('close', () => res.writableFinished || stop.abort(new Error('the client went away')))

  const reservation = new UploadReservation(ctx.inFlight, keyId)
  let bgImage: Buffer | null = null
  let job
  let plan
  let options
  try {
    const body = await readRemoveBgBody(req, engine, reservation, ctx.floor)
    const fields = body.fields
    options = parseOptions(fields, body.hint !== undefined)
    const source = pickSource(fields, {
      file: body.file && { bytes: body.file.bytes, mimeType: body.file.mimeType, filename: body.file.filename ?? 'image_file' },
      b64: body.b64
    })
    const photo = await photoBytes(engine, source, stop.signal)
    // Fetched bytes are held like uploaded ones, against the same budget (a body's are counted as they arrive).
    if (source.kind === 'url' && !reservation.count(photo.bytes.length)) throw busy()
    if (body.hint) bgImage = body.hint.bytes
    else if (options.bgImageUrl !== null) {
      bgImage = await fetchImage(engine, options.bgImageUrl, 'bg_image_url', stop.signal)
      if (!reservation.count(bgImage.length)) throw busy()
    }
    // A background that is no image is refused before the job (its header read in the sandbox).
    if (bgImage) {
      await engine.probeImage(bgImage).catch((err: Error) => {
        throw new RemoveBgError(400, [
          { title: 'Invalid background image', code: 'invalid_bg_image', detail: `The background image could not be read: ${err.message}` }
        ])
      })
    }
    // The photo's upright size, read in the sandbox; when it cannot be read the engine refuses the upload below.
    const size = await engine.probeImage(photo.bytes).catch(() => null)
    const mapped = await toUpload(options, photo, size, bgImage !== null, keyId)
    plan = mapped.plan
    // The engine's refusal is thrown as it is, then translated like any other.
    const withRoi = options.roi !== null
    job = (
      await engine.upload(mapped.input).catch((err: unknown) => {
        throw withRoi ? roiRefusal(err) : err
      })
    ).job_id
  } finally {
    reservation.release()
  }

  // The listener closes connections idle for 30 s; this one is waiting for its job (queued behind
  // others, or a large photo), not idle. A client that leaves still closes it, which cancels the job.
  req.socket.setTimeout(0)
  const ended = await waitForEnd(engine, job, res)
  if (ended.status === 'cancelled') {
    if (res.writableEnded || res.destroyed) return
    throw new RemoveBgError(500, [{ title: 'Cancelled', code: 'cancelled', detail: 'The job was cancelled.' }])
  }
  // In plain words where /api/v1's status has them (a damaged file: `jobError`), the decoder's text not shown raw.
  if (ended.status === 'failed') throw failedJob(ended.errorReason, jobError(ended)?.message ?? ended.errorMessage)
  const answer = await buildAnswer(engine, ended, plan, bgImage)
  const asJson = (req.headers.accept ?? '').toLowerCase().includes('application/json')
  sendAnswer(
    res,
    answer,
    { 'X-Type': options.type, 'X-Credits-Charged': String(engine.creditsHeldFor(ended.id)), ...rateLimitHeaders(engine, keyId) },
    asJson
  )
}

/** `/v1.0/removebg` and `/v1.0/account`, and remove.bg's 404 for any other path under `/v1.0`. */
export function removeBgRoutes(ctx: RemoveBgContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1.0/removebg',
      audience: 'public',
      key: 'client',
      body: { reader: 'removebg', limit: removeBgBodyLimit(ctx.engine.options.maxUploadBytes, true) },
      errors: 'removebg',
      answer: 'RemoveBgResult',
      doc: operation('removeBackground'),
      handle: ({ req, res, keyId }) => removeBackground(ctx, req, res, keyId!)
    },
    {
      method: 'GET',
      path: '/v1.0/account',
      audience: 'public',
      key: 'client',
      errors: 'removebg',
      answer: 'RemoveBgAccount',
      doc: operation('getAccount'),
      handle: ({ res, keyId }) => sendJson(res, 200, accountBody(ctx.engine, keyId!))
    },
    nothingAt('/v1.0/*', 'public', 'none', 'removebg')
  ]
}

/** Sends a refusal in remove.bg's shape, with the key's rate-limit headers once the key is known. */
export function removeBgError(engine: RemoveBgPort): (res: ServerResponse, err: unknown, keyId: string | null) => void {
  return (res, err, keyId) => sendRemoveBgError(res, err, keyId ? rateLimitHeaders(engine, keyId) : {})
}
