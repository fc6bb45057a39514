/**
 * The routes of `/api/v1` itself: upload, status, results, health and this API's document. The
 * jobs routes are jobs-routes.ts's, the remove.bg ones removebg/route.ts's; server.ts puts them
 * in one table (route-table.ts).
 */
import { createReadStream } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { VARIATIONS, type Variation } from '../../shared/api'
import { imageMimeOf } from '../../shared/image-types'
import { statusAnswer } from '../app-api/answers'
import { ApiError } from './api-error'
import type { ApiRoutesPort } from '../engine/ports'
import { readUpload } from './body'
import type { ConnectionBudget } from './connection-cap'
import { errorResponse } from './error-response'
import { type InFlightBytes, UploadReservation } from './in-flight'
import { openApiDocument, operation } from './openapi'
import type { RateFloor } from './read-body'
import { sendJson } from './respond'
import type { Route } from './route-table'
import { idSegment } from './router'

/** The upload budget's share of the owner's own uploads (key ids never take this form). */
const OWNER_SHARE = '(owner)'

/** `<variation>.<ext>`: letters, a dot, lower-case letters. */
const RESULT_FILE = (s: string): boolean => /^[A-Za-z]+\.[a-z]+$/.test(s)

export interface ApiRouteContext {
  engine: ApiRoutesPort
  /** Upload bytes held in memory, shared with `/v1.0/removebg`. */
  inFlight: InFlightBytes
  floor?: RateFloor
  connections: ConnectionBudget
  /** The whole table, for the document it publishes. */
  table(): readonly Route[]
}

/** The address this request reached the listener at, for the addresses it answers. */
const baseOf = (req: IncomingMessage): string => `http://${req.headers.host}`

export function apiRoutes(ctx: ApiRouteContext): Route[] {
  const { engine } = ctx
  // Room for at least one whole upload and its text parts, so that a lone upload is never refused.
  const wholeUpload = engine.options.maxUploadBytes + 1024 * 1024
  return [
    {
      method: 'POST',
      path: '/api/v1/upload',
      audience: 'public',
      // The owner's own work (a command beside this server) has no key and pays no credit.
      key: 'client-or-owner',
      body: { reader: 'multipart', limit: wholeUpload },
      answer: 'UploadAccepted',
      doc: operation('createJob'),
      async handle({ req, res, keyId }) {
        // A key that could not start a job (no credit, no room in the queue) is refused before
        // a byte of its body is reserved or read: it never holds the budget of those that can.
        engine.admit(keyId)
        const reservation = new UploadReservation(ctx.inFlight, keyId ?? OWNER_SHARE)
        try {
          // An oversized declaration is refused as too large by readUpload, not counted here.
          reservation.reserveDeclared(req, wholeUpload)
          const parsed = await readUpload(req, { maxFileBytes: engine.options.maxUploadBytes, meter: reservation.meter, floor: ctx.floor })
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
      }
    },
    {
      method: 'GET',
      path: '/api/v1/status',
      audience: 'public',
      key: 'client-or-owner',
      answer: 'JobStatus',
      doc: operation('getJobStatus'),
      handle({ req, res, url }) {
        const base = baseOf(req)
        const jobId = url.searchParams.get('job_id') ?? undefined
        const { status, body } = statusAnswer(engine, jobId, (id, variation, ext, expires) => {
          const file = `${variation}.${ext}`
          return `${base}/api/v1/results/${id}/${file}?expires=${expires}&sig=${engine.signAddress(id, file, expires)}`
        })
        sendJson(res, status, body)
      }
    },
    {
      method: 'GET',
      path: '/api/v1/results/:job_id/:file',
      params: { job_id: idSegment, file: RESULT_FILE },
      audience: 'public',
      key: 'signed',
      doc: operation('getResult'),
      handle({ res, url, params }) {
        const jobId = params.job_id!
        const file = params.file!
        const [variation, ext] = file.split('.') as [string, string]
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
      }
    },
    {
      method: 'GET',
      path: '/api/v1/health',
      audience: 'public',
      // No key needed: a supervisor's liveness probe. Names the model and device, no paths.
      key: 'none',
      answer: 'Health',
      doc: operation('getHealth'),
      handle({ res }) {
        // 503 while the engine cannot work (a sandbox pool that cannot start processes).
        const health = engine.health()
        sendJson(res, health.status === 'ok' ? 200 : 503, { ...health, connections: ctx.connections.counts() })
      }
    },
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      audience: 'public',
      key: 'none',
      doc: operation('getOpenApiDocument'),
      handle({ req, res }) {
        sendJson(res, 200, openApiDocument(baseOf(req), ctx.table()))
      }
    }
  ]
}
