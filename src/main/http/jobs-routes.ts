/**
 * An integrator's own jobs over `/api/v1` (docs/api.md §5.5–5.6): the list, newest first and
 * paged, and cancel (`POST /api/v1/cancel` with `job_id`, or `DELETE /api/v1/jobs/<id>`). A key
 * sees and cancels only the jobs it uploaded: another key's job answers 404 as if it did not exist,
 * so that job ids cannot be probed across keys.
 */
import type { IncomingMessage } from 'node:http'
import { JOB_ID_PATTERN, JOBS_PAGE, STATE_OF } from '../../shared/api'
import { ApiError } from './api-error'
import type { JobRecord, JobsRoutesPort } from '../engine/ports'
import { readUpload } from './body'
import { operation } from './openapi'
import type { RateFloor } from './read-body'
import { sendJson } from './respond'
import type { Route } from './route-table'

/** A cancel body holds one id: anything larger is not one. */
const MAX_CANCEL_BODY = 64 * 1024

/** The cursor is the queue order of the last job of the previous page, as decimal digits. */
const CURSOR = /^[1-9][0-9]{0,15}$/

interface JobsContext {
  engine: JobsRoutesPort
  /** The listener's slow-sender floor for the cancel body. */
  floor?: RateFloor
}

/** One job in the list: what it is and where it stands, without its result addresses (those are the status endpoint's). */
function listEntry(job: JobRecord): Record<string, unknown> {
  return {
    job_id: job.id,
    status: job.status,
    state: STATE_OF[job.status],
    mode: job.mode,
    progress: job.progress,
    output_format: job.outputFormat,
    source: job.source,
    created_at: new Date(job.createdAt).toISOString(),
    finished_at: job.finishedAt === null ? null : new Date(job.finishedAt).toISOString()
  }
}

function invalid(field: string, issue: string): ApiError {
  return new ApiError('validation_failed', `The query parameter ${field} is not valid.`, { details: [{ field, issue }] })
}

function listJobs(engine: JobsRoutesPort, keyId: string, url: URL): { jobs: Record<string, unknown>[]; next_cursor: string | null } {
  const rawLimit = url.searchParams.get('limit')
  let limit: number = JOBS_PAGE.default
  if (rawLimit !== null) {
    limit = /^[0-9]{1,3}$/.test(rawLimit) ? Number(rawLimit) : NaN
    if (!(limit >= 1 && limit <= JOBS_PAGE.max)) throw invalid('limit', `expected a whole number from 1 to ${JOBS_PAGE.max}`)
  }
  const rawCursor = url.searchParams.get('cursor')
  if (rawCursor !== null && !CURSOR.test(rawCursor)) throw invalid('cursor', 'expected the next_cursor of a previous page')
  // One more than asked tells whether another page follows.
  const rows = engine.jobsOfKey(keyId, rawCursor === null ? null : Number(rawCursor), limit + 1)
  const page = rows.slice(0, limit)
  return { jobs: page.map((r) => listEntry(r.job)), next_cursor: rows.length > limit ? String(page[page.length - 1]!.seq) : null }
}

/** The job `jobId` of `keyId`, or the refusal: a malformed id 422, an unknown or another key's job 404. */
function ownJob(engine: JobsRoutesPort, keyId: string, jobId: unknown): JobRecord {
  if (typeof jobId !== 'string' || jobId === '')
    throw new ApiError('validation_failed', 'job_id is required.', { details: [{ field: 'job_id', issue: 'missing' }] })
  if (!JOB_ID_PATTERN.test(jobId)) {
    throw new ApiError('validation_failed', 'job_id is not a job id.', {
      details: [{ field: 'job_id', issue: 'expected a job id as returned by the upload (a UUID)' }]
    })
  }
  const job = engine.job(jobId)
  if (!job || job.keyId !== keyId) throw new ApiError('job_not_found', `No job with id ${jobId}.`)
  return job
}

/** Cancels a job that has not ended; 409 `conflict` for one that has. */
function cancelJob(engine: JobsRoutesPort, job: JobRecord): Record<string, unknown> {
  if (STATE_OF[job.status] !== 'pending' || !engine.cancel(job.id)) {
    const now = engine.job(job.id)
    throw new ApiError('conflict', `The job already ended (${now?.status ?? job.status}); only a queued or running job can be cancelled.`)
  }
  // A running job stops at its next step; its status then reads `cancelled` and its credits are refunded.
  return { job_id: job.id, status: 'cancelled', state: 'failed' }
}

/** The job id of a `POST /api/v1/cancel`: in the query, or as `job_id` of a JSON or multipart body. */
async function cancelTarget(req: IncomingMessage, url: URL, floor: RateFloor | undefined): Promise<unknown> {
  const inQuery = url.searchParams.get('job_id')
  if (inQuery !== null) return inQuery
  if (!req.headers['content-type']) return undefined
  const { fields } = await readUpload(req, { maxFileBytes: MAX_CANCEL_BODY, floor })
  return fields.job_id
}

/** `GET /api/v1/jobs`, `POST /api/v1/cancel` and `DELETE /api/v1/jobs/<id>`, for the listener's table. */
export function jobsRoutes(ctx: JobsContext): Route[] {
  const { engine } = ctx
  return [
    {
      method: 'GET',
      path: '/api/v1/jobs',
      audience: 'public',
      key: 'client',
      answer: 'JobList',
      doc: operation('listJobs'),
      handle: ({ res, url, keyId }) => sendJson(res, 200, listJobs(engine, keyId!, url))
    },
    {
      method: 'POST',
      path: '/api/v1/cancel',
      audience: 'public',
      key: 'client',
      body: { reader: 'multipart', limit: MAX_CANCEL_BODY },
      answer: 'Cancelled',
      doc: operation('cancelJob'),
      handle: async ({ req, res, url, keyId }) =>
        sendJson(res, 200, cancelJob(engine, ownJob(engine, keyId!, await cancelTarget(req, url, ctx.floor))))
    },
    {
      method: 'DELETE',
      path: '/api/v1/jobs/:job_id',
      audience: 'public',
      key: 'client',
      answer: 'Cancelled',
      doc: operation('deleteJob'),
      handle: ({ res, params, keyId }) => sendJson(res, 200, cancelJob(engine, ownJob(engine, keyId!, params.job_id)))
    }
  ]
}
